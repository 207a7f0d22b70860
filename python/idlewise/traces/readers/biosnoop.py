"""Output of ``biosnoop``, the BCC/libbpf-tools eBPF tracer of block I/O, saved as text
(``biosnoop > io.txt``, columns aligned by spaces) or as CSV with the same header::

    TIME(s)     COMM           PID     DISK      T SECTOR     BYTES  [QUE(ms)] LAT(ms)
    0.000004001 supervise      1950    xvda1     W 13092560   4096      0.74

biosnoop prints a request when it completes: ``TIME(s)`` is the completion time from the first
event, ``LAT(ms)`` the time since the request was issued to the device and, with ``-Q``,
``QUE(ms)`` the time it queued in the kernel before that. A request's arrival is therefore
``TIME − (QUE + LAT)/1000``, and the records are sorted by arrival (reported as moved records).
``T`` holds the kernel's rwbs flags: an ``R`` is a read, a ``W`` (or ``D``, a discard) a write;
flush-only requests (an ``F`` with 0 bytes) carry no data and are not replayed (counted as skipped). The offset is
``SECTOR × 512``. Each DISK is a stream, numbered in order of first appearance and named.
A COMM holding spaces is read whole (the columns after it are fixed). biosnoop's own messages
(``Tracing block device I/O... Hit Ctrl-C to end.``, ``Possibly lost N samples``) are skipped.
"""

from __future__ import annotations

import os

import numpy as np

from ...errors import TraceError
from ..inputs import bounded_lines, open_input
from ..trace import Trace
from ._fields import non_negative, whole_number

_AFTER_COMM = ("PID", "DISK", "T", "SECTOR", "BYTES")


def _header(fields: list[str], path: str, line: int) -> tuple[bool, bool]:
    """(has QUE column, CSV) from a header line; refuses an unknown layout."""
    names = [f.strip() for f in fields]
    expected = ["TIME(s)", "COMM", *_AFTER_COMM]
    queued = "QUE(ms)" in names
    full = expected + (["QUE(ms)"] if queued else []) + ["LAT(ms)"]
    if names != full:
        raise TraceError(f"{path}: line {line}: biosnoop header {' '.join(names)!r}; expected "
                         f"'{' '.join(expected)} [QUE(ms)] LAT(ms)' (BCC or libbpf-tools biosnoop, without -P or -t)")
    return queued, False


def read_biosnoop(path, *, sort: bool = True, name: str | None = None) -> Trace:
    """Reads biosnoop output; requests are placed at their arrival and sorted (``sort`` is
    always in effect: biosnoop lists requests in completion order)."""
    path = os.fspath(path)
    with open_input(path) as f:
        numbered = [(number, raw.decode("utf-8", "replace")) for number, raw in bounded_lines(f, path)]
    queued = csv = None
    times, offsets, sizes, writes, disks, lines = [], [], [], [], [], []
    skipped = {"biosnoop messages": 0, "flush-only requests (no data)": 0}
    disk_numbers: dict = {}
    records = 0
    for number, raw in numbered:
        stripped = raw.strip()
        if not stripped:
            continue
        if queued is None:
            if stripped.startswith("TIME"):
                csv = "," in stripped
                queued, _ = _header(stripped.split(",") if csv else stripped.split(), path, number)
            elif stripped.startswith(("Tracing", "Possibly lost")):
                skipped["biosnoop messages"] += 1
            else:
                raise TraceError(f"{path}: line {number}: expected biosnoop's header 'TIME(s) COMM PID DISK T SECTOR BYTES "
                                 "[QUE(ms)] LAT(ms)' before the first record")
            continue
        if stripped.startswith(("Tracing", "Possibly lost", "Detaching")):
            skipped["biosnoop messages"] += 1
            continue
        fields = [f.strip() for f in stripped.split(",")] if csv else stripped.split()
        tail = len(_AFTER_COMM) + (2 if queued else 1)
        if len(fields) < 2 + tail:
            raise TraceError(f"{path}: line {number}: {len(fields)} fields; a biosnoop record holds TIME(s), COMM, "
                             f"{', '.join(_AFTER_COMM)}{', QUE(ms)' if queued else ''} and LAT(ms)")
        records += 1
        after = fields[-tail:]
        _, disk, flags, sector, size = after[:5]
        latency_ms = non_negative(after[-1], path, number, "LAT(ms)")
        queue_ms = non_negative(after[-2], path, number, "QUE(ms)") if queued else 0.0
        completed = non_negative(fields[0], path, number, "TIME(s)")
        whole_number(after[0], path, number, "PID")
        if "F" in flags and size == "0":
            skipped["flush-only requests (no data)"] += 1  # a preflush carrying no data (FWS, FF...)
            continue
        if "R" in flags:
            is_write = False
        elif "W" in flags or "D" in flags:
            is_write = True
        elif set(flags) <= set("FNSAM"):
            skipped["flush-only requests (no data)"] += 1
            continue
        else:
            raise TraceError(f"{path}: line {number}, field 'T': {flags!r} is not a block request type (R, W, D, F...)")
        times.append(completed - (queue_ms + latency_ms) / 1000.0)
        offset = whole_number(sector, path, number, "SECTOR") * 512
        if offset >= 1 << 63:
            raise TraceError(f"{path}: line {number}, field 'SECTOR': {sector} is beyond any disk")
        offsets.append(offset)
        sizes.append(whole_number(size, path, number, "BYTES"))
        writes.append(is_write)
        disks.append(disk_numbers.setdefault(disk, len(disk_numbers)))
        lines.append(number)
    if queued is None:
        raise TraceError(f"{path}: no biosnoop header 'TIME(s) COMM PID DISK T SECTOR BYTES [QUE(ms)] LAT(ms)'")
    if not times:
        raise TraceError(f"{path}: the biosnoop output holds no read or write requests")
    single = len(disk_numbers) == 1
    t = np.asarray(times)
    origin = float(t.min())  # a request issued before the first completion would be negative
    return Trace.from_arrays(
        t - origin, np.asarray(sizes, dtype=np.int64), offset_bytes=np.asarray(offsets, dtype=np.int64),
        is_write=np.asarray(writes), name=name or os.path.basename(path), path=path, lines=np.asarray(lines),
        sort=True, skipped={why: n for why, n in skipped.items() if n}, records_read=records,
        stream=None if single else np.asarray(disks, dtype=np.int64), format="biosnoop",
        stream_names=None if single else {n: d for d, n in disk_numbers.items()})


__all__ = ["read_biosnoop"]
