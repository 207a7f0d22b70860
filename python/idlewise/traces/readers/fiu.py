"""FIU block traces (SRCMap and I/O deduplication, SNIA IOTTA): ``ts_ns pid process lba
size_sectors R|W major minor md5``, separated by white space; nanoseconds from an arbitrary
origin, 512-byte sectors. Times are made relative to the earliest record in exact integer
arithmetic; each ``major,minor`` device becomes a stream (glibc's ``makedev(major, minor)``, as blkparse's).
A process name holding a space makes the line's field count wrong, and the line is named."""

from __future__ import annotations

from ..trace import Trace
from ._text import read_text_trace


def read_fiu(path, *, sort: bool = False, name: str | None = None) -> Trace:
    return read_text_trace(path, "fiu", sort=sort, name=name)


__all__ = ["read_fiu"]
