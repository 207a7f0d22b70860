"""Shared machinery of the text readers. Parsing is the engine's (``idlewise-core/src/readers``):
one pass over the bytes in Rust, strict ASCII numbers, exact line numbers. This module turns its
columns into a :class:`~idlewise.traces.Trace` and its errors into :class:`TraceError` naming the
file."""

from __future__ import annotations

import os
import sys

from ... import _core
from ...errors import TraceError
from ..detect import head_bytes
from ..inputs import local_path
from ..trace import LineNumbers, Trace
from ..inputs import trace_name


def read_text_trace(path, format_name: str, *, sort: bool = False, name: str | None = None,
                    progress: bool | None = None, shown_as: str | None = None) -> Trace:
    """Reads a text trace in ``format_name`` (one of the engine's text formats; the read report
    names it ``shown_as``, default ``format_name``). ``progress``: draw a bar (bytes read) when
    the read takes over a second (default: when stderr is a terminal)."""
    from ...progress import run_with_progress

    path = local_path(path)
    show = sys.stderr.isatty() if progress is None else bool(progress)
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    try:
        c = run_with_progress(lambda counter: _core.read_text(path, format_name, progress=counter), size, show,
                              f"reading {trace_name(path)}", unit="bytes")
    except _core.IdlewiseError as e:
        raise TraceError(f"{path}: {e}") from None
    return Trace.from_arrays(
        c["time_s"], c["size_bytes"], offset_bytes=c["offset_bytes"], is_write=c["is_write"], stream=c["stream"],
        name=name or trace_name(path), path=path, lines=LineNumbers(c["line_base"], c["line_steps"], c["line_long_steps"]), sort=sort,
        skipped={why: n for why, n in c["skipped"]}, records_read=c["records_read"], format=shown_as or format_name)


__all__ = ["head_bytes", "read_text_trace"]
