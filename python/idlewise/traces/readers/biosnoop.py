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

import heapq
import math
import os

import numpy as np

from ...errors import TraceError
from ..inputs import bounded_lines, open_input
from ..trace import Trace
from ._fields import non_negative, whole_number
from ..inputs import trace_name

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


class _Requests:
    """A biosnoop file's requests in file order: iterating gives (line, completion, arrival,
    offset_bytes, size_bytes, is_write, disk) for each read or write; ``records_read``,
    ``skipped`` and ``disks`` (name -> number, in order of first appearance) count as it goes.
    The one parser behind the whole read and the streamed one."""

    def __init__(self, path: str):
        self.path = path
        self.records_read = 0
        self.skipped = {"biosnoop messages": 0, "flush-only requests (no data)": 0}
        self.disks: dict = {}

    def __iter__(self):
        path, skipped, disks = self.path, self.skipped, self.disks
        queued = csv = None
        with open_input(path) as f:
            for number, raw in bounded_lines(f, path):
                stripped = raw.decode("utf-8", "replace").strip()
                if not stripped:
                    continue
                if queued is None:
                    if stripped.startswith("TIME"):
                        csv = "," in stripped
                        queued, _ = _header(stripped.split(",") if csv else stripped.split(), path, number)
                    elif stripped.startswith(("Tracing", "Possibly lost")):
                        skipped["biosnoop messages"] += 1
                    else:
                        raise TraceError(f"{path}: line {number}: expected biosnoop's header 'TIME(s) COMM PID DISK T "
                                         "SECTOR BYTES [QUE(ms)] LAT(ms)' before the first record")
                    continue
                if stripped.startswith(("Tracing", "Possibly lost", "Detaching")):
                    skipped["biosnoop messages"] += 1
                    continue
                fields = [f.strip() for f in stripped.split(",")] if csv else stripped.split()
                tail = len(_AFTER_COMM) + (2 if queued else 1)
                if len(fields) < 2 + tail:
                    raise TraceError(f"{path}: line {number}: {len(fields)} fields; a biosnoop record holds TIME(s), COMM, "
                                     f"{', '.join(_AFTER_COMM)}{', QUE(ms)' if queued else ''} and LAT(ms)")
                self.records_read += 1
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
                offset = whole_number(sector, path, number, "SECTOR") * 512
                if offset >= 1 << 63:
                    raise TraceError(f"{path}: line {number}, field 'SECTOR': {sector} is beyond any disk")
                yield (number, completed, completed - (queue_ms + latency_ms) / 1000.0, offset,
                       whole_number(size, path, number, "BYTES"), is_write, disks.setdefault(disk, len(disks)))
        if queued is None:
            raise TraceError(f"{path}: no biosnoop header 'TIME(s) COMM PID DISK T SECTOR BYTES [QUE(ms)] LAT(ms)'")

    def kept_skipped(self) -> dict:
        return {why: n for why, n in self.skipped.items() if n}


def _no_requests(path: str) -> TraceError:
    return TraceError(f"{path}: the biosnoop output holds no read or write requests")


def read_biosnoop(path, *, sort: bool = True, name: str | None = None) -> Trace:
    """Reads biosnoop output; requests are placed at their arrival and sorted (``sort`` is
    always in effect: biosnoop lists requests in completion order)."""
    path = os.fspath(path)
    requests = _Requests(path)
    rows = list(requests)
    if not rows:
        raise _no_requests(path)
    lines, _, times, offsets, sizes, writes, disks = zip(*rows)
    names = {n: d for d, n in requests.disks.items()}
    single = len(names) == 1
    t = np.asarray(times)
    origin = float(t.min())  # a request issued before the first completion would be negative
    return Trace.from_arrays(
        t - origin, np.asarray(sizes, dtype=np.int64), offset_bytes=np.asarray(offsets, dtype=np.int64),
        is_write=np.asarray(writes), name=name or trace_name(path), path=path, lines=np.asarray(lines),
        sort=True, skipped=requests.kept_skipped(), records_read=requests.records_read,
        stream=None if single else np.asarray(disks, dtype=np.int64), format="biosnoop", stream_names=names)


class BiosnoopBatches:
    """A biosnoop file's requests in arrival order, a batch at a time, in memory that holds only
    the requests still in flight: the whole read's trace, bit for bit, without holding it.

    biosnoop lists a request when it completes, so arrivals come out of order by at most the
    longest time a request took (plus how far completions themselves step back, events of
    several CPUs). A first pass finds both, and the earliest arrival the times start from (and
    meets every error before the replay starts); the second holds each request in a heap until
    no later line can arrive before it, then gives it in the order a stable sort by time gives.

    Iterating gives (time_s, offset_bytes, size_bytes, is_write as uint8, device numbers,
    None, lines), a device picked by name keeping its number, as a device picked by number does; ``records_read``, ``skipped`` and ``names`` (number -> disk) are known once
    constructed, ``records_moved`` (as the whole read's sort counts them) once iterated."""

    recording_start_s = recording_end_s = None

    def __init__(self, path, disk: str | None = None, batch_records: int = 1 << 16):
        self.path, self.batch_records = os.fspath(path), batch_records
        first = _Requests(self.path)
        origin, longest, back, latest, count = math.inf, 0.0, 0.0, -math.inf, 0
        for _, completed, arrival, *_ in first:
            count += 1
            origin = min(origin, arrival)
            longest = max(longest, completed - arrival)
            latest = max(latest, completed)
            back = max(back, latest - completed)
        if not count:
            raise _no_requests(self.path)
        self.records_read, self.skipped = first.records_read, first.kept_skipped()
        self.names = {n: d for d, n in first.disks.items()}
        #: The device kept, where ``disk`` picks one by name (or number) as the whole read's
        #: ``select_stream`` does: the others are counted as skipped.
        self._kept = None
        if disk is not None:
            found = [n for n, d in self.names.items() if str(disk) in (d, str(n))]
            if not found:
                present = ", ".join(f"{n} ({d})" for n, d in self.names.items())
                raise TraceError(f"{self.path}: no records for stream {disk}; streams present: {present}")
            self._kept = found[0]
        self._origin = origin
        # However the subtractions round, no later line arrives before this far behind the latest
        # completion read: twice the bounds, and a millisecond.
        self._reach = 2.0 * (longest + back) + 1e-3
        self.records_moved = 0
        #: The most requests held at once, waiting for those that may arrive before them.
        self.most_held = 0

    def _ordered(self):
        """(time_s, kept index, offset, size, is_write, disk, line) in arrival order, a stable sort's."""
        heap: list = []
        latest, index, last = -math.inf, 0, -math.inf
        origin, reach = self._origin, self._reach
        for line, completed, arrival, offset, size, is_write, disk in _Requests(self.path):
            latest = max(latest, completed)
            heapq.heappush(heap, (arrival - origin, index, offset, size, is_write, disk, line))
            index += 1
            self.most_held = max(self.most_held, len(heap))
            horizon = latest - origin - reach
            while heap and heap[0][0] < horizon:
                request = heapq.heappop(heap)
                if request[0] < last:  # the bounds of the first pass make this impossible
                    raise TraceError(f"{self.path}: the file changed while it was read (a request arrives before one given)")
                last = request[0]
                yield request
        while heap:
            yield heapq.heappop(heap)

    def __iter__(self):
        batch: list = []
        self.records_moved = others = 0
        kept = self._kept
        for position, request in enumerate(self._ordered()):
            self.records_moved += position != request[1]
            if kept is not None and request[5] != kept:
                others += 1
                continue
            batch.append(request)
            if len(batch) == self.batch_records:
                yield self._columns(batch)
                batch = []
        if batch:
            yield self._columns(batch)
        if others:
            self.skipped[f"records of other devices (kept device {kept})"] = others

    def _columns(self, batch: list):
        t, _, offset, size, is_write, disk, line = zip(*batch)
        return (np.asarray(t, dtype=np.float64), np.asarray(offset, dtype=np.int64), np.asarray(size, dtype=np.int64),
                np.asarray(is_write, dtype=np.uint8), np.asarray(disk, dtype=np.int64), None, np.asarray(line, dtype=np.int64))

    def close(self) -> None:
        pass


__all__ = ["BiosnoopBatches", "read_biosnoop"]
