"""Alibaba cloud block traces: ``device_id,opcode,offset,length,timestamp`` with opcode ``R``/``W``, offset and length in bytes and the timestamp in microseconds. The device id becomes the stream."""

from __future__ import annotations

from ..trace import Trace
from ._text import read_text_trace


def read_alibaba(path, *, sort: bool = False, name: str | None = None) -> Trace:
    return read_text_trace(path, "alibaba", sort=sort, name=name)


__all__ = ["read_alibaba"]
