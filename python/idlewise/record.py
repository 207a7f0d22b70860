"""``idlewise record``: sample ``/proc/diskstats`` into a recording idlewise reads back (the
format is :mod:`idlewise.traces.readers.diskstats`'s). Each snapshot's lines carry the Unix time
they were read; snapshots are taken on a fixed schedule (``start + k × interval``) so a slow
write does not make the intervals drift, and every snapshot is flushed to the file, so a
recording stopped with Ctrl-C or a reboot is readable up to its last line. ``append`` adds to a
recording (a service restarted after a reboot, or a resumed recording); the reader takes the
counters' reset at the reboot in its stride (see the diskstats reader). A recording is never
overwritten by accident: an existing file needs ``append`` or another name."""

from __future__ import annotations

import math
import time
from typing import Callable, Optional

from .errors import IdlewiseError

DISKSTATS = "/proc/diskstats"
SYS_BLOCK = "/sys/block"


def physical_disks(names: set, sys_block: str = SYS_BLOCK) -> Optional[list[str]]:
    """The whole disks among ``names`` that are hardware: those under ``sys_block`` with a
    ``device`` of their own. Loop, RAM and zram devices, device-mapper and md volumes (which sit
    on disks already counted) and partitions are left out. None where ``sys_block`` cannot be
    read (not Linux's sysfs): then nothing is left out."""
    import os

    if not os.path.isdir(sys_block):
        return None
    return sorted(name for name in names if os.path.exists(os.path.join(sys_block, name, "device")))


def _snapshot(source: str, disks: Optional[set]) -> list[str]:
    try:
        with open(source, encoding="ascii") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise IdlewiseError(f"{source}: cannot read: {e.strerror} (idlewise record runs on Linux)") from None
    if disks is None:
        return lines
    return [line for line in lines if _name(line) in disks]


def _name(line: str) -> Optional[str]:
    """The device name of a /proc/diskstats line (its third field)."""
    fields = line.split(None, 3)
    return fields[2] if len(fields) > 3 else None


#: The shortest time between snapshots: /proc/diskstats counts I/O completions, which a disk
#: makes at best every ~0.1 ms; at 1 ns a minute wrote gigabytes of the same counters.
MIN_INTERVAL_S = 0.01


def record(out: str, *, disks: Optional[list[str]] = None, interval_s: float = 1.0, duration_s: Optional[float] = None,
           source: str = DISKSTATS, clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep,
           progress: Optional[Callable[[int, float], None]] = None, append: bool = False,
           sys_block: Optional[str] = None, chosen: Optional[Callable[[list[str]], None]] = None) -> int:
    """Records snapshots of ``source`` every ``interval_s`` for ``duration_s`` (None: until
    interrupted) into ``out``; keeps only ``disks`` when given, else every physical disk
    (:func:`physical_disks` under ``sys_block``, by default this machine's sysfs when ``source``
    is its /proc/diskstats; ``chosen`` is told which); ``append`` adds to an existing recording.
    Returns the snapshots written."""
    if not (math.isfinite(interval_s) and interval_s >= MIN_INTERVAL_S):
        raise IdlewiseError(f"--interval must be at least {MIN_INTERVAL_S * 1e3:g} ms (the kernel's counters do not move "
                            f"faster, and each snapshot is a line per disk), got {interval_s!r} s")
    if duration_s is not None and not (math.isfinite(duration_s) and duration_s >= 0):
        raise IdlewiseError(f"--duration must be a non-negative duration, got {duration_s!r}")
    wanted = None if not disks else set(disks)
    first = _snapshot(source, None)
    present = {_name(line) for line in first} - {None}
    missing = sorted((wanted or set()) - present)
    if missing:
        raise IdlewiseError(f"{source}: no disk {', '.join(missing)}; disks present: {', '.join(sorted(present))}")
    if wanted is None:
        physical = physical_disks(present, sys_block or (SYS_BLOCK if source == DISKSTATS else ""))
        if physical == []:
            raise IdlewiseError(f"{source}: no physical disk among {', '.join(sorted(present))} (loop, zram, "
                                f"device-mapper and the like are left out); name one with --disk NAME")
        if physical is not None:
            wanted = set(physical)
    if chosen is not None:
        chosen(sorted(wanted) if wanted is not None else sorted(present))
    start = clock()
    snapshots = 0
    import os

    if not append and os.path.exists(out) and os.path.getsize(out) > 0:
        raise IdlewiseError(f"{out}: a recording is there already ({os.path.getsize(out):,} bytes); add to it with --append "
                            "(after a reboot, say), or give another --out")
    try:
        f = open(out, "a" if append else "w", encoding="ascii")
    except OSError as e:
        raise IdlewiseError(f"{out}: cannot write: {e.strerror}") from None
    with f:
        try:
            while True:
                now = clock()
                lines = _snapshot(source, wanted)
                f.write("".join(f"{now:.6f} {line}\n" for line in lines))
                f.flush()
                snapshots += 1
                if progress:
                    progress(snapshots, now - start)
                due = start + snapshots * interval_s
                if duration_s is not None and due > start + duration_s + 1e-9:
                    break
                wait = due - clock()
                if wait > 0:
                    sleep(wait)
        except KeyboardInterrupt:
            pass
    return snapshots


def shell_loop(disk: str = "sda", interval_s: float = 1.0) -> str:
    """The same recording without idlewise on the machine."""
    return (f"while :; do t=$(date +%s.%N); awk -v t=\"$t\" '$3==\"{disk}\" {{print t, $0}}' /proc/diskstats; "
            f"sleep {interval_s:g}; done > {disk}.diskstats")


__all__ = ["DISKSTATS", "physical_disks", "record", "shell_loop"]
