"""blkparse default text output: ``maj,min cpu seq time_s pid action rwbs sector + nsect [process]``.

Arrivals are the Q (queued) events when the trace has any, else the D (issued) events; other
actions, events that are neither reads nor writes, events without data and the summary blkparse
prints are skipped and counted (``trace.skipped``). A stray summary line in the middle does not
end the events. Each ``maj,min`` device becomes a stream (glibc's ``makedev(maj, min)``: ``maj·256 + min`` below minor 256). A malformed event
line is an error naming the line. Parsed by the engine (``readers/blkparse.rs``).
"""

from __future__ import annotations

from ..trace import Trace
from ._text import read_text_trace


def read_blkparse(path, *, sort: bool = False, name: str | None = None) -> Trace:
    return read_text_trace(path, "blkparse", sort=sort, name=name)


__all__ = ["read_blkparse"]
