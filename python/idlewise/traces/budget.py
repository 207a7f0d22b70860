"""Whether a trace read whole fits in memory, said before the read rather than found by the
kernel's out-of-memory killer. A file in time order replayed as it is read never needs this
(every command's default, transforms and per-request rows included); ``--sort`` of an unsorted
file and a trace read into memory by ``read_trace`` hold it whole."""

from __future__ import annotations

import os
import shlex

from ..errors import IdlewiseError
from .formats import READ_WHOLE, TIME_FIELDS, WHOLE_READ_BYTES_PER_RECORD

#: Peak bytes a record takes while a trace is read whole and sorted, the most of any format's
#: (the formats' table, ``formats.WHOLE_READ_BYTES_PER_RECORD``).
BYTES_PER_RECORD = max(WHOLE_READ_BYTES_PER_RECORD.values())
#: A text file's first bytes, from which its records are counted.
SAMPLE_BYTES = 1 << 20


def memory_budget_bytes() -> int | None:
    """What a whole read may take: ``IDLEWISE_MEMORY_BUDGET`` (bytes, or with a unit: ``8GB``,
    ``512MiB``), else the memory Linux says is available; ``None`` where neither is known."""
    given = os.environ.get("IDLEWISE_MEMORY_BUDGET")
    if given:
        return _bytes(given)
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _bytes(text: str) -> int:
    units = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
             "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40}
    number = text.strip()
    digits = len(number) - len(number.lstrip("0123456789."))
    value, unit = number[:digits], number[digits:].strip().upper()
    try:
        return int(float(value) * units[unit])
    except (ValueError, KeyError):
        raise IdlewiseError(f"IDLEWISE_MEMORY_BUDGET: a number of bytes, or with a unit (8GB, 512MiB), got {text!r}") from None


#: How many times its size a compressed text trace is taken to hold: text traces compress 5-15
#: times; a budget refuses on the safe side.
COMPRESSION_RATIO = 15


def estimated_records(path: str, format: str) -> int:
    """About how many records a file holds: a Parquet file's own count, an SRT file's size over
    its record's, a text file's size over the mean line of its first megabyte (a compressed
    text file's size taken as :data:`COMPRESSION_RATIO` times its own)."""
    from .formats import MAGIC
    from .inputs import compression_of, local_path, open_input

    if format in MAGIC:
        path = local_path(path, seekable=True, format=format)
    size = os.path.getsize(path)
    if format == "parquet":
        import pyarrow.parquet as pq

        try:
            return pq.ParquetFile(path).metadata.num_rows
        except Exception:  # not a Parquet file after all: its reader says so, naming the file
            return 0
    if format == "srt":
        return size // 52
    if compression_of(path) != "plain":
        size *= COMPRESSION_RATIO
    with open_input(path) as f:
        sample = f.read(SAMPLE_BYTES)
    lines = sample.count(b"\n")
    return size if not lines else int(size * lines / len(sample))


def check_whole_read_fits(path: str, format: str, sort: bool) -> None:
    """Refuses a whole read whose records would not fit the memory budget, saying what to do
    instead: for a sort, the command that sorts the file beyond memory; else, replaying the
    file as it is read."""
    if format in (*READ_WHOLE, "diskstats"):
        return  # a tar's members, a recording's requests: how many is known only once read
    budget = memory_budget_bytes()
    if budget is None:
        return
    records = estimated_records(path, format)
    need = records * WHOLE_READ_BYTES_PER_RECORD.get(format, BYTES_PER_RECORD)
    if need <= budget:
        return
    if not sort:
        how = ("replay it as it is read: `idlewise simulate`, `sweep`, `advise`, `report` or `hybrid` of the file "
               "without --sort (Python: simulate_file, sweep, advise, hybrid_file of the path), whose memory does not "
               "grow with the trace; `sweep --volume-parts N` for many devices")
        what = "this reads the trace whole"
    elif format in TIME_FIELDS:
        field, separator, header = TIME_FIELDS[format]
        quoted = shlex.quote(path)
        sort_command = (f"sort -s -t'{separator}' -k{field},{field}g" if separator != " " else f"sort -s -k{field},{field}g")
        how = ("sort the file by time first (GNU sort works beyond memory): "
               + (f"(head -n {header} {quoted}; tail -n +{header + 1} {quoted} | {sort_command}) > sorted" if header
                  else f"{sort_command} {quoted} > sorted")
               + ", then replay the sorted file as it is read, without --sort")
        what = "--sort reads the trace whole"
    else:
        how = "write it sorted by time (for instance with DuckDB: COPY (SELECT * FROM 'in' ORDER BY time_s) TO 'sorted.parquet'), then replay it without --sort"
        what = "--sort reads the trace whole"
    raise IdlewiseError(f"{path}: {what}: about {records:,} records, {need / 1e9:.1f} GB, more than the "
                        f"{budget / 1e9:.1f} GB of memory available (IDLEWISE_MEMORY_BUDGET to say otherwise). Instead, {how}.")


__all__ = ["check_whole_read_fits", "estimated_records", "memory_budget_bytes"]
