"""The trace formats idlewise reads, by name, with one line each: light enough for the command
line's start-up (the readers themselves, and NumPy and Arrow, load when a trace is read)."""

from .. import _core

#: Every format as the engine's table describes it (``idlewise_core::readers::table``, the one
#: home of a format's name, description, fields, recognition, time field, reading and memory):
#: a dict each, in the order `idlewise trace formats` lists them.
TABLE = tuple(_core.trace_formats())
#: Format name -> one-line description.
DESCRIPTIONS = {f["name"]: f["description"] for f in TABLE}
#: Formats read whole into memory, never as they stream: a tar's members are read one after
#: another. (Parquet, SRT, diskstats recordings and biosnoop stream a batch of records at a
#: time, the others a chunk of lines at a time.)
READ_WHOLE = tuple(f["name"] for f in TABLE if f["reading"] == "whole")
FORMATS = tuple(DESCRIPTIONS)
#: The bytes a file in a binary format begins with. A compressed one is checked against them as
#: it is decompressed, before the rest: a .gz of anything else is refused at its first bytes.
MAGIC = {f["name"]: f["magic"] for f in TABLE if f["magic"]}
#: The time field of each text format, for the command that sorts it beyond memory: (field
#: number from 1, separator, header lines).
TIME_FIELDS = {f["name"]: tuple(f["time_field"]) for f in TABLE if f["time_field"]}
#: Peak bytes a record takes while a file of the format is read whole and sorted.
WHOLE_READ_BYTES_PER_RECORD = {f["name"]: f["whole_read_bytes_per_record"] for f in TABLE}
#: The Parquet metadata key of a recording's end (a diskstats file converted): such a file is
#: read whole as its source was, so every device's run lasts until the recording's end.
END_KEY = b"idlewise.end_time_s"


def reads_whole(path, format: str) -> bool:
    """Whether a file in ``format`` is read whole rather than as it streams: a tar archive.
    (A diskstats recording, and a Parquet file converted from one, stream with the recording's
    span kept, biosnoop's output in arrival order: ``sources.batches_of``.)"""
    return format in READ_WHOLE


__all__ = ["DESCRIPTIONS", "END_KEY", "FORMATS", "MAGIC", "READ_WHOLE", "TABLE", "TIME_FIELDS", "WHOLE_READ_BYTES_PER_RECORD",
           "reads_whole"]
