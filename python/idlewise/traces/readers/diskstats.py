"""Recordings of ``/proc/diskstats``: what a machine's disks did, from snapshots of the kernel's
I/O counters, for anyone who cannot run blktrace (``idlewise record``, or the shell loop below).

Format, one line per device per snapshot::

    <unix time, s> <major> <minor> <name> <reads completed> <reads merged> <sectors read>
    <ms reading> <writes completed> <writes merged> <sectors written> <ms writing>
    <I/Os in progress> <ms doing I/O> <weighted ms> [<discards completed> <discards merged>
    <sectors discarded> <ms discarding> [<flushes completed> <ms flushing>]]

that is, each line of ``/proc/diskstats`` (Documentation/admin-guide/iostats.rst: 11 counters
since Linux 2.6, 15 since 4.18, 17 since 5.5) prefixed with the time it was read. Without
idlewise on the machine::

    while :; do t=$(date +%s.%N); awk -v t="$t" '$3=="sda" {print t, $0}' /proc/diskstats; sleep 1; done > sda.diskstats

How a recording becomes requests: the counters say how many reads and writes completed between
two snapshots and how many sectors they moved, not when. Each interval's requests are spread
evenly over it (the j-th of n at (j + ½)/n of the way), reads first, each with an equal share of
the interval's sectors (512 bytes each, as the kernel counts them). An interval with any I/O
is therefore busy throughout at the snapshot resolution, and the idle periods, the only thing a
spin-down decision depends on, are measured to within one interval. Discards are replayed as
writes (the drive must be awake to take them); flushes carry no data and are not replayed.
Offsets are unknown and set to 0. Each request also carries the time it kept the device busy
(``service_s``, :func:`observed_service`: the interval's busy time shared by its requests), which
``simulate --service observed`` and the live manager serve it in. Time 0 is the first snapshot, and the trace ends at the last
(:attr:`Trace.end_time_s`), idle or not. Each device is a stream numbered as blkparse's and FIU's
are, glibc's ``makedev(major, minor)`` (``major·256 + minor`` below minor 256; ``8,256`` and
``9,0`` are two devices), and named as the kernel names it.

Counters that go down mark a reset: a reboot (a recording kept across it, ``idlewise record
--append``), a re-attached disk, or a 32-bit counter wrapping on an old kernel. What the disk did
in the interval across a reset is unknown: it is replayed as idle (for a reboot, the time the
machine was off), and the read report counts such intervals; the counters go on from their new
values. Times that do not advance, a device missing from a snapshot and malformed lines are
errors naming the file and line.
"""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from ... import _core
from ...errors import TraceError
from ..inputs import bounded_lines, open_input
from ..trace import Trace
from ._fields import non_negative, whole_number
from ..inputs import trace_name

SECTOR_BYTES = 512
#: The cumulative counters of a diskstats line after the name, by position.
COUNTERS = {"reads completed": 0, "sectors read": 2, "writes completed": 4, "sectors written": 6,
            "discards completed": 11, "sectors discarded": 13}
_BASIC_FIELDS, _DISCARD_FIELDS = 11, 15
#: Positions after the name of the I/Os in flight (a gauge, not a counter) and of the
#: milliseconds spent with any I/O in flight (the kernel's ``io_ticks``: the device's busy time).
_IN_FLIGHT, _BUSY_MS = 8, 9
#: Of :func:`line_counters`' tuple, the cumulative counters (a reset shows in them) and the gauge.
CUMULATIVE, IN_FLIGHT = slice(0, 7), 7


def line_counters(fields, path: str, number: int, name: str) -> tuple:
    """What a replay uses of one diskstats line's fields after the name: the cumulative
    counters (reads, sectors read, writes, sectors written, discards, sectors discarded, busy
    ms) and the I/Os in flight."""
    counters = [whole_number(v, path, number, f"counter {i + 1} of {name}") for i, v in enumerate(fields)]
    discards = (counters[11], counters[13]) if len(counters) >= _DISCARD_FIELDS else (0, 0)
    return (counters[0], counters[2], counters[4], counters[6], discards[0], discards[1], counters[_BUSY_MS],
            counters[_IN_FLIGHT])


def interval_requests(name: str, t0: float, t1: float, before: tuple, after: tuple, batch_records: Optional[int] = None):
    """The requests one interval between two snapshots of ``name``'s counters stands for, as a
    recording's reader makes them (spread evenly, reads first; none across a reset), with the
    time each kept the device busy (:func:`observed_service`): what a live manager feeds its
    model each poll, a batch of at most ``batch_records`` at a time (an interval may hold 10^8).
    Yields (time_s, size_bytes, is_write, service_s)."""
    times = np.array([t0, t1], dtype=np.float64)
    counters = np.array([before, after], dtype=np.int64)
    intervals = _intervals("/proc/diskstats", name, times, counters, np.zeros(2, np.int64), 0.0)
    step = batch_records or BATCH_RECORDS
    for g0 in range(0, intervals.total, step):
        t, size, is_write, _, _, service = intervals.requests(g0, min(g0 + step, intervals.total))
        yield t, size, is_write, service


def disk_snapshots(path: str, disk: Optional[str] = None):
    """One device's snapshots of a recording, read as they come: (time from the first snapshot,
    :func:`line_counters`) each, the device the only one or ``disk``; checked as a whole read
    checks them. Once iterated, the generator's value is the recording's end (its last snapshot,
    from the first)."""
    origin = current = None
    last_t, devices, name_of = None, set(), None
    with open_input(path) as f:
        for number, t, major, minor, name, values in recording_lines(f, path):
            origin = t if origin is None else origin
            current = t
            devices.add(name)
            if disk is None and name_of is None:
                name_of = name
            if disk is None and name != name_of:
                raise TraceError(f"{path}: the recording holds {', '.join(sorted(devices))}: pick one with --stream NAME")
            if name != (disk or name_of):
                continue
            if last_t is not None and not t > last_t:
                raise TraceError(f"{path}: line {number}: time {t!r} of {name} is not after the previous snapshot's "
                                 f"{last_t!r}; snapshots must be in time order (was the clock set back?)")
            last_t = t
            yield t - origin, values
    if origin is None:
        raise TraceError(f"{path}: the recording is empty")
    if disk is not None and last_t is None:
        raise TraceError(f"{path}: no device '{disk}' in the recording; devices recorded: {', '.join(sorted(devices))}")
    return current - origin


def _parse(path: str):
    """Per device: (major, minor, [line numbers], [times], [counter tuples]); and the snapshot
    times in file order with the line each starts on."""
    devices: dict = {}
    snapshots: list = []  # (time, first line)
    with open_input(path) as f:
        for number, t, major, minor, name, values in recording_lines(f, path):
            if not snapshots or snapshots[-1][0] != t:
                snapshots.append((t, number))
            entry = devices.setdefault(name, (major, minor, [], [], []))
            if (entry[0], entry[1]) != (major, minor):
                raise TraceError(f"{path}: line {number}: device {name} is {major},{minor} here but {entry[0]},{entry[1]} "
                                 "before (was it re-attached?)")
            entry[2].append(number)
            entry[3].append(t)
            entry[4].append(values)
    if not devices:
        raise TraceError(f"{path}: the recording is empty")
    return devices, snapshots


def _check(path: str, name: str, lines, times: np.ndarray, counters: np.ndarray, snapshots) -> None:
    if len(times) < 2:
        raise TraceError(f"{path}: device {name} has a single snapshot (line {lines[0]}); a recording needs two or more "
                         "to show what happened between them")
    steps = np.diff(times)
    bad = np.nonzero(steps <= 0)[0]
    if len(bad):
        i = int(bad[0]) + 1
        raise TraceError(f"{path}: line {lines[i]}: time {float(times[i])!r} of {name} is not after the previous snapshot's "
                         f"{float(times[i - 1])!r} (line {lines[i - 1]}); snapshots must be in time order (was the clock set back?)")
    if len(times) < len(snapshots):
        have = set(times.tolist())
        for t, line in snapshots:
            if t >= times[0] and t <= times[-1] and t not in have:
                raise TraceError(f"{path}: line {line}: the snapshot at {t!r} has no line for {name} (was the disk "
                                 "detached?); record it again or cut the file there")


def _resets(counters: np.ndarray) -> np.ndarray:
    """The intervals across which any counter went down (a reboot, a re-attached disk, a
    wrapped 32-bit counter): their I/O is unknown."""
    return (np.diff(counters[:, CUMULATIVE], axis=0) < 0).any(axis=1)


#: Requests a second no disk completes: an interval claiming more is a corrupted counter, and
#: replaying it would ask for more memory than any machine has.
MAX_IOPS = 1e8


def _check_fits(path: str, name: str, intervals: "Intervals") -> None:
    """Refuses a recording whose counters claim more requests than memory can hold (a counter
    corrupted on a long interval claimed 10^12), before building them, naming the line that
    ends the interval claiming most: the budget is ``IDLEWISE_MEMORY_BUDGET`` or the memory
    available, as for any trace read whole."""
    from ..budget import BYTES_PER_RECORD, memory_budget_bytes

    budget = memory_budget_bytes()
    requests = intervals.total
    if budget is not None and requests * BYTES_PER_RECORD > budget:
        most = int(np.argmax(intervals.count))
        raise TraceError(f"{path}: line {int(intervals.line[most])}: the counters of {name} claim {requests:,} requests "
                         f"({int(intervals.count[most]):,} in the interval ending here), which need about "
                         f"{requests * BYTES_PER_RECORD / 2**30:,.1f} GiB, more than the {budget / 2**30:,.1f} GiB "
                         "memory budget (IDLEWISE_MEMORY_BUDGET or the memory available): a corrupted counter, "
                         "or a recording to cut into parts")


class Intervals:
    """Intervals between snapshots, as columns (of one device or several, in any order): where
    each starts and how long it is on the trace's time line, what its counters moved, the I/Os
    in flight at its end, the line it ends on and its device's number. :meth:`requests` makes
    the requests of any range of them, numbered across them all: the whole read makes them at
    once, a streamed one a batch at a time, and both make the same (one home for the rule)."""

    def __init__(self, start, length, delta, in_flight_after, line, device):
        self.start, self.length, self.line, self.device = start, length, line, device
        self.reads = delta[:, 0]
        self.writes = delta[:, 2] + delta[:, 4]
        self.read_sectors = delta[:, 1]
        self.write_sectors = delta[:, 3] + delta[:, 5]
        self.busy_ms = delta[:, 6]
        self.in_flight_after = in_flight_after
        self.count = self.reads + self.writes
        self.first = np.cumsum(self.count) - self.count
        self.total = int(self.count.sum())

    def requests(self, g0: int = 0, g1: Optional[int] = None):
        """Requests ``g0 .. g1`` of the intervals (all by default): each interval's reads then
        writes, spread evenly over it (the j-th of n at (j + ½)/n of the way), each with an equal
        share of its sectors, and the time each kept the device busy (:func:`observed_service`).
        Returns (time_s, size_bytes, is_write, line, device, service_s)."""
        g1 = self.total if g1 is None else g1
        g = np.arange(g0, g1, dtype=np.int64)
        interval = np.searchsorted(self.first + self.count, g, side="right")
        j = g - self.first[interval]
        n = self.count[interval]
        time_s = self.start[interval] + (j + 0.5) * self.length[interval] / n
        r = self.reads[interval]
        is_write = j >= r
        k = np.where(is_write, j - r, j)  # index among the interval's reads, or among its writes
        count = np.where(is_write, self.writes[interval], r)
        sectors = np.where(is_write, self.write_sectors[interval], self.read_sectors[interval])
        safe = np.maximum(count, 1)
        size = (sectors // safe + (k < sectors % safe)) * SECTOR_BYTES
        service = observed_service(self.start, self.length, self.busy_ms, self.in_flight_after, self.count, interval, j, time_s)
        return time_s, size.astype(np.int64), is_write, self.line[interval], self.device[interval], service


def _intervals(path: str, name: str, times: np.ndarray, counters: np.ndarray, lines: np.ndarray, origin: float,
               device: int = 0) -> Intervals:
    """One device's intervals between consecutive snapshots; none across a reset; a rate no
    disk reaches refused as a corrupted counter. Times are taken from ``origin`` first, so an
    interval's start and length are the same floats whether the recording is read whole, as it
    streams, or by the live manager a poll at a time (which knows times from its start only)."""
    delta = np.diff(counters[:, CUMULATIVE], axis=0)
    delta[_resets(counters)] = 0
    times = times - origin
    length = np.diff(times)
    rate = (delta[:, 0] + delta[:, 2] + delta[:, 4]) / length
    if len(rate) and rate.max() > MAX_IOPS:
        i = int(np.argmax(rate))
        raise TraceError(f"{path}: line {lines[i + 1]}: {name} completed {int(delta[i, 0] + delta[i, 2] + delta[i, 4]):,} "
                         f"requests in {float(times[i + 1] - times[i]):g} s, more than {MAX_IOPS:.0e} a second: "
                         "a corrupted counter")
    return Intervals(times[:-1], length, delta, counters[1:, IN_FLIGHT], lines[1:],
                     np.full(len(length), device, dtype=np.int64))


def _requests(path: str, name: str, times: np.ndarray, counters: np.ndarray, lines: np.ndarray, origin: float):
    """Each interval's reads then writes, spread evenly over it; none across a reset; and the
    time each kept the device busy (:func:`observed_service`)."""
    intervals = _intervals(path, name, times, counters, lines, origin)
    _check_fits(path, name, intervals)
    time_s, size, is_write, line, _, service = intervals.requests()
    return time_s, size, is_write, line, service


def observed_service(start, length, busy_ms, in_flight_after, per_interval, interval, j, time_s) -> np.ndarray:
    """How long each request kept the device busy, as the counters say (the convention a live
    manager decides by, and ``simulate --service observed``): an interval's busy time (the
    kernel's ``io_ticks``, at most the interval) shared equally by its requests; and where I/O
    was still in flight at an interval's end, its last request is served until that end, so the
    device is busy there as it was. Idle periods then begin where the device's did (to the
    interval), whatever a device model would take to serve the same requests. An interval's
    requests are all it knows of: one with I/O in flight and none completed changes nothing,
    as a live manager, which has fed the requests before it already, cannot either."""
    busy_s = np.minimum(busy_ms / 1e3, length)
    service = (busy_s / np.maximum(per_interval, 1))[interval]
    held = (j == per_interval[interval] - 1) & (in_flight_after[interval] > 0)
    if held.any():
        until = (start + length)[interval][held] - time_s[held]
        service[held] = np.maximum(service[held], until)
    return service


def read_diskstats(path, *, disk: str | None = None, sort: bool = False, name: str | None = None) -> Trace:
    """Reads a diskstats recording. Every device is a stream (``makedev(major, minor)``, named as the
    kernel names it); ``disk`` keeps one device by name."""
    path = os.fspath(path)
    devices, snapshots = _parse(path)
    if disk is not None and disk not in devices:
        raise TraceError(f"{path}: no device '{disk}' in the recording; devices recorded: {', '.join(devices)}")
    if disk is None and len(devices) == 1:
        disk = next(iter(devices))  # a recording of one disk is a single-device trace
    chosen = [disk] if disk is not None else list(devices)
    origin = snapshots[0][0]
    end = snapshots[-1][0] - origin
    parts, names, resets = [], {}, 0
    for device in chosen:
        major, minor, lines, times, values = devices[device]
        times = np.asarray(times, dtype=np.float64)
        counters = np.asarray(values, dtype=np.int64)
        _check(path, device, lines, times, counters, snapshots)
        resets += int(_resets(counters).sum())
        t, size, is_write, line, service = _requests(path, device, times, counters, np.asarray(lines, dtype=np.int64), origin)
        number = _core.makedev(major, minor)
        if number is None:
            raise TraceError(f"{path}: line {lines[0]}: device {name} is {major},{minor}; a Linux device has a major "
                             "below 2^31 and a minor below 2^32")
        names[number] = device
        parts.append((t, size, is_write, line, np.full(len(t), number, dtype=np.int64), service))
    t, size, is_write, line, stream, service = (np.concatenate(columns) for columns in zip(*parts))
    if not len(t):
        raise TraceError(f"{path}: no read or write completed on {', '.join(chosen)} in the {end:.3g} s recorded: "
                         "the disk was idle throughout, so there is nothing to replay (and any timeout stops it for good)")
    order = np.argsort(t, kind="stable")
    lines_read = sum(len(d[2]) for d in devices.values())
    others = 0 if disk is None else lines_read - len(devices[disk][2])
    skipped = {f"lines of other devices (not {disk})": others} if others else {}
    if resets:
        skipped["intervals across a counter reset (a reboot, a re-attached disk), replayed as idle"] = resets
    trace = Trace.from_arrays(
        t[order], size[order], is_write=is_write[order], name=name or trace_name(path), path=path,
        lines=line[order], sort=sort, skipped=skipped, records_read=lines_read,
        stream=None if disk is not None else stream[order], format="diskstats",
        stream_names=names, end_time_s=end, service_s=service[order], start_unix_s=origin)
    return trace


#: Requests a streamed recording hands over at a time (about 40 MB of columns), and intervals
#: it gathers before making them (a few MB).
BATCH_RECORDS, BATCH_INTERVALS = 1 << 20, 1 << 16


def recording_lines(f, path: str):
    """A recording's non-blank lines, each checked: (line number, time, major, minor, device
    name, :func:`line_counters`), errors naming the file and line."""
    for number, raw in bounded_lines(f, path):
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            raise TraceError(f"{path}: line {number}: not ASCII text; a diskstats recording holds lines of "
                             "/proc/diskstats prefixed with the time") from None
        fields = text.split()
        if not fields:
            continue
        if len(fields) < 4 + _BASIC_FIELDS:
            raise TraceError(f"{path}: line {number}: {len(fields)} fields; a diskstats recording line holds the time, "
                             f"major, minor, device name and at least {_BASIC_FIELDS} counters (Linux 2.6 or later)")
        t = non_negative(fields[0], path, number, "time", "the Unix time in seconds")
        major = whole_number(fields[1], path, number, "major")
        minor = whole_number(fields[2], path, number, "minor")
        yield number, t, major, minor, fields[3], line_counters(fields[4:], path, number, fields[3])


class DiskstatsBatches:
    """A recording's requests made as they are consumed: its lines read one by one, each
    device's intervals gathered, their requests made a batch at a time (an interval of 10^8
    requests in many batches), as the whole read makes them, bit for bit (:class:`Intervals`).
    Memory is a batch's and a few numbers a device, whatever the recording holds.

    Iterating gives (time_s, offset_bytes, size_bytes, is_write as uint8, device numbers,
    service_s, lines) per batch (a disk picked keeps its number, as one picked by number does;
    each request's line is its interval's last snapshot's). Once iterated:
    ``records_read`` (lines), ``skipped``, ``names`` (device number -> name), ``end_s`` (the last
    snapshot, from the first), ``requests``. Errors are the whole read's, met where the line is."""

    def __init__(self, path, disk: Optional[str] = None, batch_records: Optional[int] = None):
        self.path, self.disk, self.batch_records = os.fspath(path), disk, batch_records or BATCH_RECORDS
        self.records_read = self.requests = 0
        self.skipped: dict = {}
        self.names: dict = {}
        self.end_s: Optional[float] = None
        #: The recording's span on the trace's time line: from its first snapshot (0) to its last.
        self.recording_start_s, self.recording_end_s = 0.0, None
        #: The first snapshot's Unix time, the trace's time 0 (once the first line is read).
        self.start_unix_s: Optional[float] = None
        self._closed = False

    def close(self) -> None:
        self._closed = True

    def __iter__(self):
        path = self.path
        devices: dict = {}  # name -> [major, minor, number, last time, last counters, last line, lines, pending missing]
        pending: list = []  # intervals: (start, length, delta..., in flight after, line, number)
        waiting = 0
        origin = None
        current, current_line, seen = None, 0, set()
        resets = others = 0
        snapshots = 0
        with open_input(path) as f:
            for number, t, major, minor, name, values in recording_lines(f, path):
                if self._closed:
                    return
                self.records_read += 1
                if t != current:
                    # A snapshot ends: the devices seen before that have no line in it, for the
                    # whole read's check (an error once the device shows again).
                    if current is not None:
                        for other, d in devices.items():
                            if other not in seen and d[7] is None:
                                d[7] = (current, current_line)
                    current, current_line, seen = t, number, set()
                    snapshots += 1
                    if origin is None:
                        origin = self.start_unix_s = t
                seen.add(name)
                if self.disk is not None and name != self.disk:
                    others += 1
                    devices.setdefault(name, [major, minor, None, None, None, None, 0, None])
                    continue
                d = devices.get(name)
                if d is None:
                    kernel = _core.makedev(major, minor)
                    if kernel is None:
                        raise TraceError(f"{path}: line {number}: device {name} is {major},{minor}; a Linux device has a "
                                         "major below 2^31 and a minor below 2^32")
                    d = devices[name] = [major, minor, kernel, None, None, None, 0, None]
                    self.names[kernel] = name
                elif (d[0], d[1]) != (major, minor):
                    raise TraceError(f"{path}: line {number}: device {name} is {major},{minor} here but {d[0]},{d[1]} "
                                     "before (was it re-attached?)")
                if d[7] is not None:
                    missing_t, missing_line = d[7]
                    raise TraceError(f"{path}: line {missing_line}: the snapshot at {missing_t!r} has no line for {name} (was "
                                     "the disk detached?); record it again or cut the file there")
                if d[3] is not None and not t > d[3]:
                    raise TraceError(f"{path}: line {number}: time {t!r} of {name} is not after the previous snapshot's "
                                     f"{d[3]!r} (line {d[5]}); snapshots must be in time order (was the clock set back?)")
                if d[3] is not None:
                    # The interval as `_intervals` makes it, in plain floats and ints (the same
                    # operations, so the same values): a numpy call an interval cost more than
                    # the requests of a quiet one.
                    delta = [a - b for a, b in zip(values[CUMULATIVE], d[4][CUMULATIVE])]
                    if min(delta) < 0:
                        delta = [0] * len(delta)
                        resets += 1
                    start, end = d[3] - origin, t - origin
                    length = end - start
                    requests = delta[0] + delta[2] + delta[4]
                    if requests / length > MAX_IOPS:
                        raise TraceError(f"{path}: line {number}: {name} completed {requests:,} requests in {t - d[3]:g} s, "
                                         f"more than {MAX_IOPS:.0e} a second: a corrupted counter")
                    pending.append((start, length, *delta, values[IN_FLIGHT], number, d[2]))
                    waiting += requests
                    if waiting >= self.batch_records or len(pending) >= BATCH_INTERVALS:
                        yield from self._made(pending)
                        pending, waiting = [], 0
                d[3], d[4], d[5] = t, values, number
                d[6] += 1
        if not devices:
            raise TraceError(f"{path}: the recording is empty")
        if self.disk is not None and devices.get(self.disk, [None] * 3)[2] is None:
            raise TraceError(f"{path}: no device '{self.disk}' in the recording; devices recorded: {', '.join(devices)}")
        for name, d in devices.items():
            if d[2] is not None and d[6] < 2:
                raise TraceError(f"{path}: device {name} has a single snapshot (line {d[5]}); a recording needs two or more "
                                 "to show what happened between them")
        yield from self._made(pending)
        self.end_s = self.recording_end_s = current - origin
        if not self.requests:
            chosen = [self.disk] if self.disk is not None else list(devices)
            raise TraceError(f"{path}: no read or write completed on {', '.join(chosen)} in the {self.end_s:.3g} s recorded: "
                             "the disk was idle throughout, so there is nothing to replay (and any timeout stops it for good)")
        if others:
            self.skipped[f"lines of other devices (not {self.disk})"] = others
        if resets:
            self.skipped["intervals across a counter reset (a reboot, a re-attached disk), replayed as idle"] = resets

    def _made(self, pending: list):
        """The requests of the gathered intervals, a batch at a time."""
        if not pending:
            return
        columns = np.array(pending, dtype=object)
        delta = columns[:, 2:9].astype(np.int64)
        gathered = Intervals(columns[:, 0].astype(np.float64), columns[:, 1].astype(np.float64), delta,
                             columns[:, 9].astype(np.int64), columns[:, 10].astype(np.int64), columns[:, 11].astype(np.int64))
        for g0 in range(0, gathered.total, self.batch_records):
            t, size, is_write, line, device, service = gathered.requests(g0, min(g0 + self.batch_records, gathered.total))
            self.requests += len(t)
            yield t, np.zeros(len(t), np.int64), size, is_write.astype(np.uint8), device, service, line


__all__ = ["DiskstatsBatches", "SECTOR_BYTES", "disk_snapshots", "interval_requests", "read_diskstats", "recording_lines"]
