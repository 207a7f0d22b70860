"""Chooses a reader by file content or extension (the full ``--format auto`` grows here)."""

from __future__ import annotations

import os

from ..errors import TraceError
from .hp_srt import read_srt
from .simple_csv import read_csv
from .trace import Trace

FORMATS = ("csv", "srt")


def read_trace(path: str | os.PathLike, *, format: str = "auto", sort: bool = False) -> Trace:
    """Reads a trace in one of :data:`FORMATS`; ``auto`` recognises an SRT header, else CSV."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise TraceError(f"{path}: no such file")
    if format == "auto":
        with open(path, "rb") as f:
            format = "srt" if f.read(10) == b"$$TR_IOREC" else "csv"
    if format == "csv":
        return read_csv(path, sort=sort)
    if format == "srt":
        return read_srt(path, sort=sort)
    raise TraceError(f"{path}: unknown trace format '{format}'; known formats: auto, {', '.join(FORMATS)}")
