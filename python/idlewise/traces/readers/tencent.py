"""Tencent CBS block traces: ``Timestamp,Offset,Size,IOType,VolumeID`` with the timestamp in seconds, offset and size in 512-byte sectors, IOType 0 = read, 1 = write. The volume becomes the stream."""

from __future__ import annotations

from ..trace import Trace
from ._text import read_text_trace


def read_tencent(path, *, sort: bool = False, name: str | None = None) -> Trace:
    return read_text_trace(path, "tencent", sort=sort, name=name)


__all__ = ["read_tencent"]
