"""DiskSim ASCII traces: ``arrival_ms devno blkno bcount flags`` separated by white space, ``blkno`` and ``bcount`` in 512-byte sectors, flags bit 0 set for a read (DiskSim's ``ascii`` input format). ``devno`` becomes the stream."""

from __future__ import annotations

from ..trace import Trace
from ._text import read_text_trace


def read_disksim(path, *, sort: bool = False, name: str | None = None) -> Trace:
    return read_text_trace(path, "disksim", sort=sort, name=name)


__all__ = ["read_disksim"]
