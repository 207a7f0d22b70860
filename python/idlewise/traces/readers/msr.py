"""MSR Cambridge block traces (SNIA IOTTA): ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime``, Timestamp and ResponseTime in Windows FILETIME ticks (100 ns from 1601), Type ``Read``/``Write``, Offset and Size in bytes. Times are made relative to the earliest record in exact integer arithmetic. The disk number becomes the stream."""

from __future__ import annotations

from ..trace import Trace
from ._text import read_text_trace


def read_msr(path, *, sort: bool = False, name: str | None = None) -> Trace:
    return read_text_trace(path, "msr", sort=sort, name=name)


__all__ = ["read_msr"]
