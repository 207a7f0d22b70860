"""Recognition of a trace format from the first bytes of a file (``--format auto``). The rules
are the engine's, beside its table of formats (``idlewise_core::readers::detect``); this module
reads the bytes (decompressed, a pipe's from its copy) and raises what the engine says. Free of
NumPy, so a streamed replay (``--chunks``) that only needs the format's name starts quickly."""

from __future__ import annotations

import os

from .. import _core
from ..errors import TraceError

#: Bytes of a file the rules read (the engine's: a line cut at that length is not judged).
HEAD_BYTES = _core.TRACE_HEAD_BYTES


def head_bytes(path: str, n: int = HEAD_BYTES) -> bytes:
    """The first ``n`` bytes as the formats read them (decompressed; a pipe's from its copy)."""
    from .inputs import open_input

    with open_input(path) as f:
        return f.read(n)  # (its errors name the file: it said "t.gz: t.gz: cannot read: ...")


def detect_format(path) -> str:
    """Recognises a trace format from the first lines of a file. Refuses rather than guesses:
    an unrecognised or ambiguous file is an error that says which ``--format`` to pass."""
    path = os.fspath(path)
    return format_of_head(head_bytes(path), path)


def format_of_head(head: bytes, path: str) -> str:
    """:func:`detect_format` of a file whose first (up to 65,536, decompressed) bytes are
    ``head``; errors begin with ``path``."""
    format, refusal = _core.detect_trace_format(bytes(head), str(path))
    if format is None:
        raise TraceError(refusal)
    return format


__all__ = ["HEAD_BYTES", "detect_format", "format_of_head", "head_bytes"]
