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

import numpy as np

from ... import _core
from ...errors import TraceError
from ..inputs import bounded_lines, open_input
from ..trace import Trace
from ._fields import non_negative, whole_number

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


def interval_requests(name: str, t0: float, t1: float, before: tuple, after: tuple):
    """The requests one interval between two snapshots of ``name``'s counters stands for, as a
    recording's reader makes them (spread evenly, reads first; none across a reset), with the
    time each kept the device busy (:func:`observed_service`): what a live manager feeds its
    model each poll. Returns (time_s, size_bytes, is_write, service_s)."""
    times = np.array([t0, t1], dtype=np.float64)
    counters = np.array([before, after], dtype=np.int64)
    t, size, is_write, _, service = _requests("/proc/diskstats", name, times, counters, np.zeros(2, np.int64), 0.0)
    return t, size, is_write, service


def _parse(path: str):
    """Per device: (major, minor, [line numbers], [times], [counter tuples]); and the snapshot
    times in file order with the line each starts on."""
    devices: dict = {}
    snapshots: list = []  # (time, first line)
    with open_input(path) as f:
        for number, raw in bounded_lines(f, path):
            try:
                text = raw.decode("ascii")
            except UnicodeDecodeError:
                raise TraceError(f"{path}: line {number}: not ASCII text; a diskstats recording holds lines of /proc/diskstats "
                                 "prefixed with the time") from None
            fields = text.split()
            if not fields:
                continue
            if len(fields) < 4 + _BASIC_FIELDS:
                raise TraceError(f"{path}: line {number}: {len(fields)} fields; a diskstats recording line holds the time, "
                                 f"major, minor, device name and at least {_BASIC_FIELDS} counters (Linux 2.6 or later)")
            t = non_negative(fields[0], path, number, "time", "the Unix time in seconds")
            major = whole_number(fields[1], path, number, "major")
            minor = whole_number(fields[2], path, number, "minor")
            name = fields[3]
            values = line_counters(fields[4:], path, number, name)
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


def _check_fits(path: str, name: str, requests: int) -> None:
    """Refuses a recording whose counters claim more requests than memory can hold (a counter
    corrupted on a long interval claimed 10^12), before building them: the budget is
    ``IDLEWISE_MEMORY_BUDGET`` or the memory available, as for any trace read whole."""
    from ..budget import BYTES_PER_RECORD, memory_budget_bytes

    budget = memory_budget_bytes()
    if budget is not None and requests * BYTES_PER_RECORD > budget:
        raise TraceError(f"{path}: the counters of {name} claim {requests:,} requests, which need about "
                         f"{requests * BYTES_PER_RECORD / 2**30:,.1f} GiB, more than the {budget / 2**30:,.1f} GiB "
                         "memory budget (IDLEWISE_MEMORY_BUDGET or the memory available): a corrupted counter, "
                         "or a recording to cut into parts")


def _requests(path: str, name: str, times: np.ndarray, counters: np.ndarray, lines: np.ndarray, origin: float):
    """Each interval's reads then writes, spread evenly over it; none across a reset; and the
    time each kept the device busy (:func:`observed_service`)."""
    delta = np.diff(counters[:, CUMULATIVE], axis=0)
    delta[_resets(counters)] = 0
    rate = (delta[:, 0] + delta[:, 2] + delta[:, 4]) / np.diff(times)
    if len(rate) and rate.max() > MAX_IOPS:
        i = int(np.argmax(rate))
        raise TraceError(f"{path}: line {lines[i + 1]}: {name} completed {int(delta[i, 0] + delta[i, 2] + delta[i, 4]):,} "
                         f"requests in {float(times[i + 1] - times[i]):g} s, more than {MAX_IOPS:.0e} a second: "
                         "a corrupted counter")
    reads = delta[:, 0]
    writes = delta[:, 2] + delta[:, 4]
    read_sectors = delta[:, 1]
    write_sectors = delta[:, 3] + delta[:, 5]
    per_interval = reads + writes
    total = int(per_interval.sum())
    _check_fits(path, name, total)
    interval = np.repeat(np.arange(len(per_interval)), per_interval)
    first = np.repeat(np.cumsum(per_interval) - per_interval, per_interval)
    j = np.arange(total, dtype=np.int64) - first
    start, length = times[:-1] - origin, np.diff(times)
    n = per_interval[interval]
    time_s = start[interval] + (j + 0.5) * length[interval] / n
    r = reads[interval]
    is_write = j >= r
    k = np.where(is_write, j - r, j)  # index among the interval's reads, or among its writes
    count = np.where(is_write, writes[interval], r)
    sectors = np.where(is_write, write_sectors[interval], read_sectors[interval])
    safe = np.maximum(count, 1)
    size = (sectors // safe + (k < sectors % safe)) * SECTOR_BYTES
    service = observed_service(times - origin, delta[:, 6], counters[1:, IN_FLIGHT], per_interval, interval, time_s)
    return time_s, size.astype(np.int64), is_write, lines[1:][interval], service


def observed_service(times: np.ndarray, busy_ms: np.ndarray, in_flight_after: np.ndarray, per_interval: np.ndarray,
                     interval: np.ndarray, time_s: np.ndarray) -> np.ndarray:
    """How long each request kept the device busy, as the counters say (the convention a live
    manager decides by, and ``simulate --service observed``): an interval's busy time (the
    kernel's ``io_ticks``, at most the interval) shared equally by its requests; and where I/O
    was still in flight at an interval's end, the last request so far served until that end, so
    the device is busy there as it was. Idle periods then begin where the device's did (to the
    interval), whatever a device model would take to serve the same requests."""
    length = np.diff(times)
    busy_s = np.minimum(busy_ms / 1e3, length)
    service = (busy_s / np.maximum(per_interval, 1))[interval]
    last_so_far = np.cumsum(per_interval) - 1
    held = np.nonzero((in_flight_after > 0) & (last_so_far >= 0))[0]
    if len(held):
        np.maximum.at(service, last_so_far[held], times[1:][held] - time_s[last_so_far[held]])
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
        t[order], size[order], is_write=is_write[order], name=name or os.path.basename(path), path=path,
        lines=line[order], sort=sort, skipped=skipped, records_read=lines_read,
        stream=None if disk is not None else stream[order], format="diskstats",
        stream_names=names, end_time_s=end, service_s=service[order])
    return trace


__all__ = ["read_diskstats", "SECTOR_BYTES"]
