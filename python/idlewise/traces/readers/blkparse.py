"""blkparse default text output: ``maj,min cpu seq time_s pid action rwbs sector + nsect [process]``.

Arrivals are the Q (queued) events when the trace has any, else the D (issued) events; other
actions (C, G, I, M, P, U, ...) are counted as skipped. Events whose rwbs has neither R nor W
(flushes, discards without data) are skipped and counted. The summary block blkparse prints at the
end (from the first line starting "CPU" or "Total") is skipped and counted. Each ``maj,min`` device
becomes a stream (numbered ``maj·256 + min``). A malformed event line is an error naming the line.
"""

from __future__ import annotations

import os
import re

import numpy as np

from ...errors import TraceError
from ..trace import Trace
from ._text import head_bytes, refuse_binary

SECTOR_BYTES = 512
EVENT = re.compile(r"^\s*(\d+),(\d+)\s+\d+\s+\d+\s+(\d+\.\d+)\s+\d+\s+([A-Za-z]+)\s+([A-Z]+)\s*(.*)$")
DATA = re.compile(r"^(\d+)\s*\+\s*(\d+)")


def read_blkparse(path, *, sort: bool = False, name: str | None = None) -> Trace:
    path = os.fspath(path)
    refuse_binary(path, head_bytes(path), "blkparse")
    rows = {"Q": [], "D": []}
    skipped = {"events of other actions": 0, "events that are neither reads nor writes": 0,
               "events without data (flushes, barriers)": 0, "summary lines": 0, "events without a sector range": 0}
    examined = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        in_summary = False
        for line_number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            examined += 1
            if in_summary or line.startswith(("CPU", "Total", "Throughput", "Events", "Skips")):
                in_summary = True
                skipped["summary lines"] += 1
                continue
            m = EVENT.match(line)
            if not m:
                raise TraceError(f"{path}: line {line_number}: not a blkparse event line "
                                 "(expected 'maj,min cpu seq time pid action rwbs sector + nsect')")
            major, minor, time_text, action, rwbs, rest = m.groups()
            if action not in rows:
                skipped["events of other actions"] += 1
                continue
            if "R" not in rwbs and "W" not in rwbs:
                skipped["events that are neither reads nor writes"] += 1
                continue
            data = DATA.match(rest)
            if not data:
                skipped["events without a sector range"] += 1
                continue
            if int(data.group(2)) == 0:
                skipped["events without data (flushes, barriers)"] += 1
                continue
            rows[action].append((float(time_text), int(data.group(1)), int(data.group(2)), "W" in rwbs,
                                 int(major) * 256 + int(minor), line_number))
    action = "Q" if rows["Q"] else "D"
    other = "D" if action == "Q" else "Q"
    skipped[f"{other} events (arrivals are taken from {action} events)"] = len(rows[other])
    events = rows[action]
    if not events:
        raise TraceError(f"{path}: no Q or D read/write events found in {examined:,} lines")
    t, sector, nsect, write, stream, lines = (np.array(c) for c in zip(*events))
    return Trace.from_arrays(t, nsect * SECTOR_BYTES, offset_bytes=sector * SECTOR_BYTES, is_write=write.astype(bool),
                             stream=stream, name=name or os.path.basename(path), path=path, lines=lines, sort=sort,
                             skipped={k: v for k, v in skipped.items() if v}, records_read=examined, format="blkparse")
