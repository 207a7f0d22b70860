"""Trace readers, one file per format, and recognition of a format from a file's content.

Every reader returns a :class:`~idlewise.traces.Trace` and records what it read and skipped;
malformed input raises :class:`~idlewise.TraceError` naming the file, line and field.
"""

from __future__ import annotations

import os
import re

from ...errors import TraceError
from ..formats import DESCRIPTIONS
from ._text import head_bytes
from .alibaba import read_alibaba
from .blkparse import EVENT as _BLKPARSE_EVENT
from .blkparse import read_blkparse
from .disksim import read_disksim
from .hp_srt import read_srt
from .msr import read_msr
from .parquet import read_parquet, write_parquet
from .simple_csv import read_csv
from .spc import read_spc, read_spc_ascii
from .tencent import read_tencent

_READ = {
    "csv": read_csv, "parquet": read_parquet, "srt": read_srt, "disksim": read_disksim, "spc": read_spc,
    "spc-ascii": read_spc_ascii, "msr": read_msr, "blkparse": read_blkparse, "alibaba": read_alibaba, "tencent": read_tencent,
}
#: Format name -> (reader, one-line description).
READERS = {name: (_READ[name], description) for name, description in DESCRIPTIONS.items()}
FORMATS = tuple(READERS)


_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)


def _is_int(text: str) -> bool:
    return _INT.fullmatch(text.strip()) is not None


def _is_number(text: str) -> bool:
    """A plain ASCII decimal, as the readers accept (no inf, nan, 0x10 or 1_000)."""
    return _NUMBER.fullmatch(text.strip()) is not None


def detect_format(path) -> str:
    """Recognises a trace format from the first lines of a file. Refuses rather than guesses:
    an unrecognised or ambiguous file is an error that says which ``--format`` to pass."""
    path = os.fspath(path)
    head = head_bytes(path)
    head = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    if head.startswith(b"$$TR_IOREC"):
        return "srt"
    if head.startswith(b"PAR1"):
        return "parquet"
    if b"\x00" in head:
        raise TraceError(f"{path}: a binary file in no format idlewise knows (known: {', '.join(FORMATS)})")
    lines = [line for line in head.decode("utf-8", "replace").splitlines() if line.strip()]
    if len(head) == 65536 and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut by the read
    lines = lines[:50]
    if not lines:
        raise TraceError(f"{path}: the file is empty")
    header = [h.strip() for h in lines[0].split(",")]
    if "time_s" in header and "size_bytes" in header:
        return "csv"
    if _BLKPARSE_EVENT.match(lines[0]):
        return "blkparse"
    candidates = []
    if "," in lines[0]:
        rows = [[f.strip() for f in line.split(",")] for line in lines]
        if all(len(r) == 7 and r[3] in ("Read", "Write") and _is_int(r[0]) for r in rows):
            candidates.append("msr")
        if all(len(r) >= 5 and r[3].lower() in ("r", "w") and _is_int(r[0]) and _is_int(r[1]) and _is_number(r[4]) for r in rows):
            candidates.append("spc")
        if all(len(r) == 5 and r[1] in ("R", "W") and _is_int(r[0]) and _is_int(r[4]) for r in rows):
            candidates.append("alibaba")
        if all(len(r) == 5 and r[3] in ("0", "1") and _is_number(r[0]) and _is_int(r[1]) and _is_int(r[2]) for r in rows):
            candidates.append("tencent")
    else:
        rows = [line.split() for line in lines]
        if all(len(r) == 5 and all(_is_number(x) for x in r) for r in rows):
            if not all(_is_int(r[0]) for r in rows):
                candidates.append("disksim")  # fractional milliseconds
            elif all(r[4] in ("0", "1") for r in rows) and max(int(r[0]) for r in rows) >= 1_000_000:
                candidates.append("spc-ascii")
            else:
                raise TraceError(f"{path}: five integer columns could be DiskSim ASCII (milliseconds) or SPC ASCII "
                                 "(nanoseconds); pass --format disksim or --format spc-ascii")
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise TraceError(f"{path}: the first lines fit several formats ({', '.join(candidates)}); pass --format")
    raise TraceError(f"{path}: line 1: not a trace format idlewise recognises; pass --format "
                     f"({', '.join(FORMATS)})")


def read_trace(path, *, format: str = "auto", sort: bool = False, stream: int | None = None):
    """Reads a trace in a known format (``auto`` recognises it from the content). With ``stream``,
    keeps only that device of a multi-device trace."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise TraceError(f"{path}: no such file")
    if format == "auto":
        format = detect_format(path)
    if format not in READERS:
        raise TraceError(f"{path}: unknown trace format '{format}'; known formats: auto, {', '.join(FORMATS)}")
    trace = READERS[format][0](path, sort=sort)
    return trace if stream is None else trace.select_stream(stream)


__all__ = ["FORMATS", "READERS", "detect_format", "read_trace", "write_parquet"] + [r[0].__name__ for r in READERS.values()]
