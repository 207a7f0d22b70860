"""Trace readers, one file per format, and recognition of a format from a file's content.

Every reader returns a :class:`~idlewise.traces.Trace` and records what it read and skipped;
malformed input raises :class:`~idlewise.TraceError` naming the file, line and field.
"""

from __future__ import annotations

import os

from ...errors import TraceError
from ..detect import detect_format
from ..budget import check_whole_read_fits
from ..formats import DESCRIPTIONS
from ..sources import check_mapping_options  # noqa: F401 - every reader of files checks its options there
from .alibaba import read_alibaba
from .archive import read_archive
from .biosnoop import read_biosnoop
from .blkparse import read_blkparse
from .disksim import read_disksim
from .diskstats import read_diskstats
from .fiu import read_fiu
from .mapped_csv import read_mapped_csv
from .hp_srt import read_srt
from .msr import read_msr
from .parquet import read_parquet, write_parquet
from .simple_csv import read_csv
from .spc import read_spc, read_spc_ascii
from .tencent import read_tencent

_READ = {
    "csv": read_csv, "parquet": read_parquet, "srt": read_srt, "disksim": read_disksim, "spc": read_spc,
    "spc-ascii": read_spc_ascii, "msr": read_msr, "blkparse": read_blkparse, "alibaba": read_alibaba, "tencent": read_tencent,
    "fiu": read_fiu, "diskstats": read_diskstats, "biosnoop": read_biosnoop, "tar": read_archive,
}
if set(_READ) != set(DESCRIPTIONS):  # a reader for every format of the engine's table, and no other
    raise ImportError(f"the readers and the formats' table disagree: {sorted(set(_READ) ^ set(DESCRIPTIONS))}")
#: Format name -> (reader, one-line description).
READERS = {name: (_READ[name], description) for name, description in DESCRIPTIONS.items()}
FORMATS = tuple(READERS)


def read_trace(path, *, format: str = "auto", sort: bool = False, stream: "int | str | None" = None,
               columns: "dict | str | None" = None, write_flag: "str | int | None" = None):
    """Reads a trace into memory.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The trace file: a format idlewise knows (``idlewise formats``), compressed (gzip, bzip2,
        xz, zstd), a tar or zip member, or a pipe (``/dev/stdin``).
    format : str, default "auto"
        The format; ``auto`` recognises it from the content.
    sort : bool, default False
        Sort the records by time (a trace whose records are out of order).
    stream : int or str, optional
        Keep only that device of a multi-device trace: its number, or its name where the format
        names devices (``sda`` in a diskstats recording or biosnoop output).
    columns : dict or str, optional
        Read a CSV with its own column names (``"time_ms=ts,size_bytes=len,op=rw"``; see
        :func:`read_mapped_csv`).
    write_flag : str or int, optional
        Which 0/1 value of a mapped op column is a write.

    Returns
    -------
    Trace
        The requests, with their device numbers and names and the read's report
        (:meth:`Trace.read_report`).

    Raises
    ------
    IdlewiseError
        A file that is not a trace of that format, naming the file, line and field.
    """
    from ..inputs import local_path

    path = local_path(path, fresh=True)  # standard input or a pipe: copied once, so no reader loses its head
    if not os.path.exists(path):
        raise TraceError(f"{path}: no such file")
    check_mapping_options(path, format, columns, write_flag)
    if columns is None and format == "auto":
        format = detect_format(path)
    # A whole read that will not fit is said before it starts (with what to do instead).
    check_whole_read_fits(path, "csv" if columns is not None else format, sort)
    if columns is not None:
        trace = read_mapped_csv(path, columns, write_flag=write_flag, sort=sort)
        return trace if stream is None else trace.select_stream(stream)
    if format not in READERS:
        raise TraceError(f"{path}: unknown trace format '{format}'; known formats: auto, {', '.join(FORMATS)}")
    if format == "diskstats" and isinstance(stream, str) and not stream.isdigit():
        return read_diskstats(path, disk=stream, sort=sort)  # reads only that device's intervals
    trace = READERS[format][0](path, sort=sort)
    return trace if stream is None else trace.select_stream(stream)


__all__ = ["FORMATS", "READERS", "detect_format", "read_mapped_csv", "read_trace", "write_parquet"]
__all__ += [r[0].__name__ for r in READERS.values()]
