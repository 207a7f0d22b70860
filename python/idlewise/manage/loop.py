"""The manager's loop: devices' counters in, each device's model (the engine's ``LiveDisk``: the
very device model and policy a replay runs) fed what its interval stands for, the policy's
decisions carried out off the loop, the drive's real state read back, applications answered.

Live idleness is the drive's: each interval's requests are served in the time the drive
reported it busy (``/proc/diskstats``' ``io_ticks``; ``traces.readers.diskstats.observed_service``),
so an idle period begins when the drive's did, never when a catalog model's own queue would
drain; the model prices what the drive did (its energy is reported beside). A recording replayed
through the same loop (``replay``) is ``simulate --service observed`` on it (to the bit against
a simulation keeping its timeline, which replays each policy on its own).

What the loop books is what the drive did: a command that failed leaves the model in the mode
the drive is in (and is tried again, with backoff); a drive found elsewhere than the model says
(woken by smartd, spun down by its own timer) corrects the model at the probe.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import queue
import select
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from .. import _core
from ..devices import load_device
from ..errors import IdlewiseError, TraceError
from ..policies import policy_columns, run_by_the_drive
from .actuators import Actuator, choose_actuator, stopped_modes
from .commands import Inline, Threaded
from .config import DEFAULT_CONFIG, DiskSetting, Settings, read_config, resolve_disk

#: Where the kernel's I/O counters are (tests point IDLEWISE_PROCFS_ROOT at a tree of their own).
PROCFS_ENV = "IDLEWISE_PROCFS_ROOT"
#: The shortest poll: /proc/diskstats moves no faster (as `idlewise record`).
MIN_INTERVAL_S = 0.01
#: A failed command is tried again after this, doubling to the cap while it keeps failing.
BACKOFF_FIRST_S, BACKOFF_MAX_S = 10.0, 900.0
#: A suspend is told from a pause of the loop by the boot clock running ahead of the monotonic
#: one (which stops in a suspend) by more than this.
SUSPEND_S = 1.0


def live_spec(policy, model, base_power_w: float = 0.0):
    """The policy a live manager runs, as the engine takes it: a built-in's spec, or one written
    in Python (an :class:`idlewise.Policy`, or ``python:FILE.py:Class:key=value``), checked on
    the model before anything is watched."""
    from ..simulate import engine_specs

    specs = engine_specs([policy], model, base_power_w)
    if len(specs) != 1:
        raise IdlewiseError(f"policy '{policy}': a manager runs one policy per disk, not a range of {len(specs)}")
    return specs[0]


def setup_command(policy: str, disk: str) -> Optional[list]:
    """The one command that hands a drive-timer policy to the drive: APST's latency bound for an
    NVMe controller (``power/pm_qos_latency_tolerance_us``, as ``advise`` writes it); EPC timers
    need a vendor tool (openSeaChest, SeaChest), which idlewise does not drive."""
    import re

    columns = policy_columns(policy)
    if columns["family"] == "apst":
        bound = columns.get("param.ps_max_latency_us", 100000)
        controller = re.match(r"nvme\d+", disk)
        name = controller.group(0) if controller else "nvmeX"
        return ["sh", "-c", f"echo {int(float(bound))} > /sys/class/nvme/{name}/power/pm_qos_latency_tolerance_us"]
    return None


def wall_text(unix_s: float) -> str:
    """A Unix time as ISO 8601 in UTC, to the millisecond: every log line says when it happened."""
    return datetime.datetime.fromtimestamp(unix_s, datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Managed:
    """One device the loop manages: its model, actuator and what the loop last saw of it."""

    disk: str
    device: object
    live: object
    actuator: Actuator
    act: bool  # False: watched only (a dry run, or a disk refused for acting on)
    why_not: str = ""
    live_policy: str = ""
    counters: Optional[tuple] = None
    actual_mode: str = ""
    #: The name it was given (a by-id link), resolved again when the disk comes back.
    name: str = ""
    present: bool = True
    last_io_s: Optional[float] = None
    #: The last request fed (its arrival on the loop's clock): a recording's rest is measured from it.
    last_arrival_s: Optional[float] = None
    in_flight: int = 0
    spin_ups: int = 0
    failed_commands: int = 0
    backoff_s: float = 0.0
    hold_until_s: float = -math.inf
    last_probe_s: float = -math.inf
    probe_note: str = ""
    said: set = field(default_factory=set)


class Manager:
    """The loop over managed devices, fed snapshots of their counters (live or from a
    recording), acting through their actuators (``executor``: off the loop, or inline) and
    writing the decisions to ``emit``."""

    def __init__(self, managed: list, emit: Callable[[dict], None], *, executor=None, knob: float = 50.0,
                 check_interval_s: float = 0.0, interval_s: float = 1.0, wall: Optional[Callable[[float], float]] = None,
                 hold_in_flight: bool = True):
        self.managed = {m.disk: m for m in managed}
        self.emit, self.knob = emit, knob
        self.executor = executor if executor is not None else Inline(lambda argv: ("recorded", ""))
        self.check_interval_s, self.interval_s = check_interval_s, interval_s
        self.wall = wall or (lambda now: time.time())
        self.hold_in_flight = hold_in_flight
        self.previous_s: Optional[float] = None

    # --- what the loop writes --------------------------------------------------------------

    def write(self, record: dict, now: float) -> dict:
        self.emit({**record, "wall": wall_text(self.wall(now))})
        return record

    def note(self, m: Optional[Managed], now: float, text: str, *, once: Optional[str] = None) -> None:
        """A note for the log; ``once``: a key under which it is said only once (until cleared)."""
        if m is not None and once is not None:
            if once in m.said:
                return
            m.said.add(once)
        self.write({"time_s": round(now, 9), **({"disk": m.disk} if m else {}), "note": text}, now)

    # --- decisions ----------------------------------------------------------------------------

    def _carry_out(self, m: Managed, d: dict, now: float, overtaken: bool) -> None:
        """Acts on one decision of the model (or says why not); its line is written when the
        command answers (at once for a decision that runs none)."""
        record = {"time_s": round(d["time_s"], 9), "acted_s": round(now, 9), "disk": m.disk, "from_mode": d["from_mode"],
                  "to_mode": d["to_mode"], "reason": d["reason"], "command": None}
        stopped = stopped_modes(m.device)
        if d["cause"] in ("access", "outside"):
            outcome = "by the drive" if d["cause"] == "access" else (
                "woken outside the manager" if d["to_mode"] == m.device.modes[0]["name"] else "moved outside the manager")
            m.actual_mode = d["to_mode"]
            if d["from_mode"] in stopped and d["to_mode"] not in stopped:
                m.spin_ups += 1
            self.write({**record, "outcome": outcome}, now)
            return
        # The drive's own timers make their changes by themselves once set up: the loop logs the
        # model's changes and acts on none.
        own = run_by_the_drive(m.live_policy) and d["cause"] == "plan"
        argv = None if own else m.actuator.wake() if d["cause"] == "hint" else m.actuator.command(d["from_mode"], d["to_mode"])
        record["command"] = _shown(argv)
        if own or overtaken or argv is None or not m.act:
            outcome = ("by the drive: its own timers" if own else "overtaken" if overtaken else
                       "model only: no host command for this mode" if argv is None else
                       "dry-run" if not m.why_not else f"not acted: {m.why_not}")
            if own or argv is None:
                m.actual_mode = d["to_mode"]
            self.write({**record, "outcome": outcome}, now)
            return
        down = d["to_mode"] in stopped or (d["cause"] == "plan" and d["from_mode"] == m.device.modes[0]["name"])
        if down and self.hold_in_flight and m.in_flight > 0:
            self._hold(m, d, now, now + self.interval_s, record, "held: I/O in flight at the last poll; tried again at the next")
            return
        if down and now < m.hold_until_s:
            self._hold(m, d, now, m.hold_until_s, record,
                       f"held: backing off after a failed command; tried again in {m.hold_until_s - now:.0f} s")
            return
        self.executor.submit(m.disk, argv, ("decision", record, d))
        self.collect(now)  # (an inline executor's answer is there already: its line in order)

    def _hold(self, m: Managed, d: dict, now: float, retry_s: float, record: dict, why: str) -> None:
        """A move down not carried out now: the model stays where the drive is, and moves at
        ``retry_s`` if the policy still wants it then."""
        m.live.undo_hop(now, d["time_s"], d["to_mode"], retry_s)
        self.write({**record, "outcome": why}, now)

    def _answered(self, m: Managed, argv: list, tag, outcome: str, output: str, now: float) -> None:
        kind = tag[0]
        if kind == "decision":
            _, record, d = tag
            record["done_s"] = round(now, 9)
            if outcome in ("done", "recorded"):
                m.actual_mode = d["to_mode"]
                m.backoff_s = 0.0
                if d["from_mode"] in stopped_modes(m.device) and d["to_mode"] not in stopped_modes(m.device):
                    m.spin_ups += 1
                self.write({**record, "outcome": outcome}, now)
                return
            m.failed_commands += 1
            m.backoff_s = min(max(2 * m.backoff_s, BACKOFF_FIRST_S), BACKOFF_MAX_S)
            m.hold_until_s = now + m.backoff_s
            if d["to_mode"] == m.device.modes[0]["name"]:
                m.live.correct(now, d["from_mode"])  # a wake-up that did not happen: asleep still
                stays = d["from_mode"]
            else:
                m.live.undo_hop(now, d["time_s"], d["to_mode"], m.hold_until_s)
                stays = d["from_mode"]
            self.write({**record, "outcome": f"{outcome}; the model stays in {stays}, where the drive is; tried again in "
                                             f"{m.backoff_s:.0f} s if the policy still wants it"}, now)
        elif kind == "probe":
            self._probed(m, outcome, output, now)
        elif kind == "setup":
            self.write({"time_s": round(now, 9), "acted_s": round(now, 9), "disk": m.disk, "setup": True,
                        "command": _shown(argv), "outcome": outcome}, now)

    def _probed(self, m: Managed, outcome: str, output: str, now: float) -> None:
        """A state probe's answer: a model found stale is corrected (acting), or said so (dry run)."""
        if outcome != "done":
            if m.probe_note != outcome:
                m.probe_note = outcome
                self.note(m, now, f"cannot read the drive's state ({_shown(m.actuator.probe())}): {outcome}")
            return
        m.probe_note = ""
        model = m.live.status(now, 4096.0)["mode"]
        target = m.actuator.judge(output, model)
        if target is None:
            if not m.act:
                m.actual_mode = m.actual_mode or model
            return
        if m.act:
            for d in m.live.correct(now, target):
                self._carry_out(m, d, now, overtaken=False)
        else:
            m.actual_mode = target
            self.note(m, now, f"the drive is in {target}; the dry run's model says {model} (a dry run sends nothing, so "
                              "they part)", once=f"apart:{target}:{model}")

    def collect(self, now: float) -> None:
        """The answers of commands that came back since the last call."""
        for disk, argv, tag, outcome, output in self.executor.answers():
            m = self.managed.get(disk)
            if m is not None:
                self._answered(m, argv, tag, outcome, output, now)

    def probe_all(self, now: float, force: bool = False) -> None:
        """Reads the drives' real state where it is due (or for all, ``force``), off the loop."""
        for m in self.managed.values():
            argv = m.actuator.probe()
            due = force or (self.check_interval_s > 0 and now - m.last_probe_s >= self.check_interval_s)
            if argv is None or not m.present or not due or self.executor.busy(m.disk):
                continue
            m.last_probe_s = now
            self.executor.submit(m.disk, argv, ("probe",))
        self.collect(now)

    # --- a poll -------------------------------------------------------------------------------

    def poll(self, now: float, snapshot: dict) -> None:
        """One poll at ``now`` (seconds from the start) with each device's counters: the
        interval's requests fed to its model, then what the policy decided by now."""
        self.collect(now)
        for m in self.managed.values():
            counters = snapshot.get(m.disk)
            if counters is None:
                if m.present:
                    m.present = False
                    self.note(m, now, "the disk is gone (no line in /proc/diskstats): its model idles until it is back")
                continue
            if not m.present:
                m.present, m.counters = True, None
                self.note(m, now, "the disk is back: its counters are taken afresh and its state read again")
                m.last_probe_s = -math.inf
            if m.counters is not None and self.previous_s is not None:
                first = None
                for t, size, write, service in _interval(m.disk, self.previous_s, now, m.counters, counters):
                    if not len(t):
                        continue
                    import numpy as np

                    m.last_io_s, m.last_arrival_s = now, float(t[-1])
                    first = float(t[0]) if first is None else first
                    for d in m.live.feed(t, size.astype(np.float64), write, service):
                        # A change the plan made before the interval's first I/O, which the loop
                        # could only have carried out at this poll: the I/O overtook it.
                        self._carry_out(m, d, now, overtaken=d["time_s"] <= first and d["cause"] == "plan")
            m.counters = counters
            m.in_flight = counters[7] if isinstance(counters, tuple) and len(counters) > 7 else 0
            for d in m.live.advance(now):
                self._carry_out(m, d, now, overtaken=False)
        self.previous_s = now
        self.collect(now)

    def hint(self, disk: str, now: float, size_bytes: float) -> list:
        m = self._device(disk)
        decisions = m.live.hint(now, float(size_bytes), self.knob)
        for d in decisions:
            self._carry_out(m, d, now, overtaken=False)
        return [{"disk": m.disk, "from_mode": d["from_mode"], "to_mode": d["to_mode"], "time_s": d["time_s"]} for d in decisions]

    def status(self, now: float, size_bytes: float = 4096.0) -> list:
        out = []
        for m in self.managed.values():
            s = m.live.status(now, float(size_bytes))
            out.append({"disk": m.disk, "name": m.name or m.disk, "device": m.device.name, "mode": s["mode"],
                        "moving": s["moving"], "in_mode_s": max(0.0, now - s["since_s"]), "energy_j": s["energy_j"],
                        "actual_mode": m.actual_mode or None, "acting": m.act, "present": m.present,
                        "spin_ups": m.spin_ups, "since_io_s": None if m.last_io_s is None else max(0.0, now - m.last_io_s),
                        "in_flight": m.in_flight, "failed_commands": m.failed_commands,
                        "command_pending": self.executor.busy(m.disk), "actuator": m.actuator.name,
                        "via": m.actuator.via or None,
                        "access": {"size_bytes": size_bytes, "time_s": s["access_time_s"], "energy_j": s["access_energy_j"]}})
        return out

    def _device(self, disk: str) -> Managed:
        if disk not in self.managed:
            found = next((m for m in self.managed.values() if m.name == disk), None)
            if found is None:
                raise IdlewiseError(f"disk {disk!r} is not managed; managed: {', '.join(self.managed)}")
            return found
        return self.managed[disk]


def _shown(argv: Optional[list]) -> Optional[str]:
    import shlex

    return None if argv is None else shlex.join(argv)


class NetCounters(tuple):
    """An interface's byte counters (``/proc/net/dev``): what a network card's model is fed."""

    def __new__(cls, rx_bytes: int, tx_bytes: int):
        return super().__new__(cls, (rx_bytes, tx_bytes))

    rx_bytes = property(lambda self: self[0])
    tx_bytes = property(lambda self: self[1])


def _interval(disk: str, t0: float, t1: float, before, after):
    """The requests an interval stands for, a batch at a time: a block device's as a
    recording's reader makes them, with the busy time each took (observed service); an
    interface's as one download (a read) of the bytes received and one upload (a write) of the
    bytes sent, spread over the interval as a recording's are (reads first), served as the
    card's model serves them. A counter that went down (an interface re-created) counts nothing."""
    import numpy as np

    if isinstance(after, NetCounters):
        sizes = [max(0, after.rx_bytes - before.rx_bytes), max(0, after.tx_bytes - before.tx_bytes)]
        kept = [(size, write) for size, write in zip(sizes, (False, True)) if size > 0]
        n = len(kept)
        times = np.array([t0 + (j + 0.5) * (t1 - t0) / n for j in range(n)], dtype=np.float64)
        yield (times, np.array([s for s, _ in kept], dtype=np.int64), np.array([w for _, w in kept], dtype=bool), None)
        return
    from ..traces.readers.diskstats import interval_requests

    yield from interval_requests(disk, t0, t1, before, after)


def read_counters(disks, procfs: Optional[str] = None) -> tuple:
    """Each device's counters now (a block device's from /proc/diskstats, a network interface's
    from /proc/net/dev, :class:`NetCounters`), and the problems met: a malformed line is said
    and skipped (its device then misses this poll), never the end of the loop."""
    from ..traces.readers.diskstats import line_counters

    root = procfs or os.environ.get(PROCFS_ENV, "/proc")
    path = os.path.join(root, "diskstats")
    out, problems = {}, []
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for number, line in enumerate(f, start=1):
                fields = line.split()
                if len(fields) >= 3 and fields[2] in disks:
                    try:
                        if len(fields) < 14:
                            raise TraceError(f"{path}: line {number}: {len(fields)} fields; a line of /proc/diskstats has 14 or more")
                        out[fields[2]] = line_counters(fields[3:], path, number, fields[2])
                    except TraceError as e:
                        problems.append((fields[2], str(e)))
    except OSError as e:
        raise IdlewiseError(f"{path}: cannot read: {e.strerror} (idlewise manage runs on Linux)") from None
    if set(disks) - set(out) - {d for d, _ in problems}:
        net = os.path.join(root, "net", "dev")
        try:
            with open(net, encoding="ascii", errors="replace") as f:
                for line in f:
                    name, colon, rest = line.partition(":")
                    fields = rest.split()
                    if colon and name.strip() in disks and len(fields) >= 16:
                        try:
                            out[name.strip()] = NetCounters(int(fields[0]), int(fields[8]))
                        except ValueError:
                            problems.append((name.strip(), f"{net}: a malformed line for {name.strip()}"))
        except OSError:
            pass  # no interfaces to read: the caller names the devices it did not find
    return out, problems


def prepare(settings: list, *, force: bool = False, base_power_w: float = 0.0, start_s: float = 0.0) -> tuple:
    """The devices to manage (``settings``: :class:`DiskSetting`, names resolved to kernel
    names), each with its model and actuator; and the notes for the log (a disk watched but not
    acted on, and why). Refuses acting without the rights to."""
    from ..identify import identify, system_roles

    if any(s.apply for s in settings) and os.geteuid() != 0:
        raise IdlewiseError("--apply (apply = true) needs root: hdparm, sg_start, iw and nvme act on devices only as root; "
                            "run a dry run as any user, or the service as root (docs/manage.md)")
    managed, notes = [], []
    for s in settings:
        disk = s.disk
        found = None
        interface = os.path.isdir(os.path.join(os.environ.get("IDLEWISE_SYSFS_ROOT", "/sys"), "class", "net", disk))
        if s.device == "auto" and interface:
            raise IdlewiseError(f"{disk} is a network interface: name its card's model with --device (idlewise devices: "
                                "the network entries)")
        if s.device == "auto":
            found = identify(disk)
            if found.virtual and not force:
                raise IdlewiseError(f"/dev/{disk} is {found.virtual}: --device auto cannot model it; name a catalog entry "
                                    "with --device (a dry run then watches it)")
            model = load_device(found.catalog)
        else:
            model = load_device(s.device)
        live = _core.LiveDisk(model, live_spec(s.policy, model, base_power_w), base_power_w=base_power_w, start_s=start_s)
        why_not = ""
        if s.apply and not force and model.kind != "network":  # an interface holds no file system
            virtual = found.virtual if found else _virtual_reason(disk)
            roles = system_roles(disk)
            if virtual:
                why_not = f"/dev/{disk} is {virtual}"
            elif roles:
                why_not = f"/dev/{disk} holds {' and '.join(roles)}"
            if why_not:
                notes.append((disk, f"{why_not}: watched, not acted on (--force acts anyway)"))
        actuator = choose_actuator(disk, model, s.actuator)
        if actuator.via:
            notes.append((disk, f"behind {actuator.via}: ATA commands pass through it, or not; the drive's state is read "
                                "back to see which"))
        managed.append(Managed(disk, model, live, actuator, act=s.apply and not why_not, why_not=why_not,
                               actual_mode=model.modes[0]["name"], live_policy=live.policy_name, name=s.name))
    return managed, notes


def _virtual_reason(disk: str) -> Optional[str]:
    from ..identify import _virtual

    sysfs = os.environ.get("IDLEWISE_SYSFS_ROOT", "/sys")
    try:
        with open(os.path.join(sysfs, "block", disk, "device", "model"), encoding="ascii", errors="replace") as f:
            model = f.read().strip()
    except OSError:
        model = ""
    return _virtual(disk, model, os.path.realpath(os.path.join(sysfs, "block", disk, "device")))


def settings_for(disks: Optional[list], policy: Optional[str], *, config: Optional[str] = None, device: str = "auto",
                 actuator: str = "auto", apply: bool = False) -> Settings:
    """What to manage: the disks named on the command line (all under ``policy``, ``device``,
    ``actuator``, ``apply``), or a configuration file's (``config``, else the default one when
    no disk is named and it exists)."""
    if disks:
        if config:
            raise IdlewiseError("name the disks on the command line or in --config, not both")
        if not policy:
            raise IdlewiseError("--policy is needed with disks named on the command line")
        return Settings(disks=[DiskSetting(name=d, policy=policy, device=device, actuator=actuator, apply=apply) for d in disks])
    path = config or (DEFAULT_CONFIG if os.path.exists(DEFAULT_CONFIG) else None)
    if path is None:
        raise IdlewiseError(f"no disk to manage: name them (idlewise manage run sdb --policy timeout:20min) or give a "
                            f"configuration (--config FILE; {DEFAULT_CONFIG} is read when it exists)")
    settings = read_config(path)
    if apply:
        for s in settings.disks:
            s.apply = True
    return settings


#: Lines a run without an end keeps to return (the log holds them all): a daemon's months of
#: lines are not held in memory.
KEPT_LINES = 10_000


class _Log:
    """The decisions' destinations: the log file (reopened on SIGHUP and when rotated under it)
    and a caller's ``emit`` (stdout, whose reader may go away: then only the file). A log that
    cannot be written once the run has begun (a full disk, its directory gone, a link planted
    where it was) is said once on ``emit``, tried again at every line, and said again when it is
    written: the disks are managed all the same. One that cannot be written at the start is an
    error naming it. ``keep``: the most lines kept to return (None: all)."""

    def __init__(self, path: Optional[str], emit: Optional[Callable[[dict], None]], keep: Optional[int] = None):
        import collections

        from .paths import open_log

        self.path, self.emit = path, emit
        self.file = open_log(path) if path else None
        self.decisions = collections.deque(maxlen=keep)
        self.written = False  # (a log never written is an error, not a note: the start)
        self.failing: Optional[str] = None

    def __call__(self, record: dict) -> None:
        self.decisions.append(record)
        line = json.dumps(record, allow_nan=False)
        if self.path:
            self._to_file(line)
        self._emit(record)

    def _emit(self, record: dict) -> None:
        if self.emit:
            try:
                self.emit(record)
            except (BrokenPipeError, OSError):
                self.emit = None  # stdout's reader is gone: the file goes on

    def _to_file(self, line: str) -> None:
        from .paths import open_log

        for attempt in range(2):  # (the second on a file opened again: the first may have been rotated away)
            try:
                if self.file is None:
                    self.file = open_log(self.path)
                self.file.write(line + "\n")
                break
            except (OSError, IdlewiseError) as e:
                self._drop_file()
                if attempt:
                    self._cannot_write(e)
                    return
        self.written = True
        if self.failing is not None:
            self.failing = None
            self._emit({"note": f"the log is written again: {self.path}", "wall": wall_text(time.time())})

    def _cannot_write(self, error: Exception) -> None:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        if not self.written:
            raise IdlewiseError(f"{self.path}: the log cannot be written: {reason}") from None
        if self.failing is None:
            self.failing = reason
            self._emit({"note": f"the log {self.path} cannot be written ({reason}): the disks are managed all the same, "
                                "its lines go to standard output only until it can be", "wall": wall_text(time.time())})

    def _drop_file(self) -> None:
        if self.file is not None:
            try:
                self.file.close()  # (a line it could not flush is dropped with it)
            except OSError:
                pass
            self.file = None

    def reopen(self, only_if_rotated: bool = False) -> bool:
        """Opens the log again (unless ``only_if_rotated`` and it was not); whether it is open."""
        from .paths import open_log, same_file

        if not self.path or (only_if_rotated and self.file and same_file(self.path, self.file)):
            return False
        self._drop_file()
        try:
            self.file = open_log(self.path)
        except (OSError, IdlewiseError) as e:  # tried again at the next line
            self._cannot_write(e)
        return self.file is not None

    def close(self) -> None:
        self._drop_file()


def run(disks: Optional[list] = None, policy: Optional[str] = None, *, config: Optional[str] = None, device: str = "auto",
        interval_s: Optional[float] = None, duration_s: Optional[float] = None, log: Optional[str] = None,
        socket_path: Optional[str] = None, apply: bool = False, force: bool = False, actuator: str = "auto",
        base_power_w: float = 0.0, knob: float = 50.0, emit: Optional[Callable[[dict], None]] = None,
        clock: Callable[[], float] = time.monotonic, textfile: Optional[str] = None,
        check_interval_s: Optional[float] = None, command_timeout_s: Optional[float] = None, executor=None,
        use_socket: bool = True) -> list:
    """Manages disks live until ``duration_s`` passes, SIGTERM or Ctrl-C; returns every line
    logged (the last :data:`KEPT_LINES` of a run without ``duration_s``). The disks and their
    settings come from the arguments or a configuration file (``config``; see
    :mod:`idlewise.manage.config`); arguments given here override the file's manager settings.
    See ``docs/manage.md`` for the log's fields."""
    from .paths import default_socket
    from .server import Server
    from .unit import notify, watchdog_interval_s

    settings = settings_for(disks, policy, config=config, device=device, actuator=actuator, apply=apply)
    interval_s = settings.interval_s if interval_s is None else interval_s
    check_interval_s = settings.check_interval_s if check_interval_s is None else check_interval_s
    command_timeout_s = settings.command_timeout_s if command_timeout_s is None else command_timeout_s
    log, textfile = log or settings.log, textfile or settings.textfile
    if not (math.isfinite(interval_s) and interval_s >= MIN_INTERVAL_S):
        raise IdlewiseError(f"--interval must be at least {MIN_INTERVAL_S * 1e3:g} ms, got {interval_s!r} s")
    if duration_s is not None and not (math.isfinite(duration_s) and duration_s >= 0):
        raise IdlewiseError(f"--for must be a non-negative duration, got {duration_s!r}")
    if not (math.isfinite(check_interval_s) and check_interval_s >= 0):
        raise IdlewiseError(f"--check-interval must be a non-negative duration, got {check_interval_s!r}")
    from_file = config is not None or not disks
    waiting = []
    for s in settings.disks:
        s.disk = resolve_disk(s.name)
    first, problems = read_counters({s.disk for s in settings.disks if s.disk})
    present = [s for s in settings.disks if s.disk in first]
    absent = [s for s in settings.disks if s.disk not in first]
    if absent and not from_file:
        raise IdlewiseError(f"no block device (/proc/diskstats) or network interface (/proc/net/dev) named "
                            f"{', '.join(s.name for s in absent)}" + "".join(f"; {p}" for _, p in problems))
    waiting = absent
    managed, notes = prepare(present, force=force, base_power_w=base_power_w)
    out = _Log(log, emit, keep=None if duration_s is not None else KEPT_LINES)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)

    def wake() -> None:
        try:
            os.write(wake_w, b"!")
        except (BlockingIOError, OSError):
            pass
    executor = executor or Threaded(timeout_s=command_timeout_s, wake=wake)
    start_wall, start = time.time(), clock()
    manager = Manager(managed, out, executor=executor, knob=knob, check_interval_s=check_interval_s,
                      interval_s=interval_s, wall=lambda now: time.time())
    requests: "queue.Queue" = queue.Queue()
    server = None
    flags = {"stop": False, "hup": False}
    previous_handlers: dict = {}
    previous_wakeup = None
    try:
        for disk, note in notes:
            manager.note(manager.managed.get(disk), 0.0, note)
        for s in waiting:
            manager.note(None, 0.0, f"{s.name}: not present: managed once it appears")
        manager.write({"time_s": 0.0, "start": start_wall, "disks": [m.disk for m in managed],
                       "names": {m.disk: m.name for m in managed}, "policies": {m.disk: m.live_policy for m in managed},
                       "apply": {m.disk: m.act for m in managed}, "devices": {m.disk: m.device.name for m in managed},
                       "actuators": {m.disk: m.actuator.name for m in managed}, "interval_s": interval_s,
                       "check_interval_s": check_interval_s, "settings": settings.source}, 0.0)
        for m in managed:
            argv = setup_command(m.live_policy, m.disk)
            if argv:
                if m.act:
                    executor.submit(m.disk, argv, ("setup",))
                else:
                    manager.write({"time_s": 0.0, "acted_s": 0.0, "disk": m.disk, "setup": True, "command": _shown(argv),
                                   "outcome": "dry-run" if not m.why_not else f"not acted: {m.why_not}"}, 0.0)
        if use_socket:
            server = Server(socket_path or default_socket(create=True), requests, wake)
        if threading.current_thread() is threading.main_thread():
            def on_stop(signum, frame):
                flags["stop"] = True

            def on_hup(signum, frame):
                flags["hup"] = True
            for s, handler in ((signal.SIGTERM, on_stop), (signal.SIGINT, on_stop), (signal.SIGHUP, on_hup)):
                previous_handlers[s] = signal.signal(s, handler)
            previous_handlers[signal.SIGPIPE] = signal.signal(signal.SIGPIPE, signal.SIG_IGN)
            previous_wakeup = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        manager.poll(0.0, first)
        manager.probe_all(0.0, force=True)
        for disk, problem in problems:
            manager.note(manager.managed.get(disk), 0.0, f"skipped a malformed line: {problem}", once=problem)
        notify("READY=1\nSTATUS=managing " + ", ".join(m.disk for m in managed))
        keepalive = watchdog_interval_s()
        next_keepalive = 0.0
        next_poll = interval_s
        boot_gap = _boot_minus_monotonic()
        textfile_problem = None
        while not flags["stop"]:
            now = clock() - start
            if duration_s is not None and now >= duration_s:
                break
            until = min(next_poll, duration_s if duration_s is not None else math.inf,
                        next_keepalive if keepalive else math.inf)
            wait = max(0.0, min(until - now, 1.0))
            try:
                select.select([wake_r], [], [], wait)
            except InterruptedError:
                pass
            _drain(wake_r)
            now = clock() - start
            if flags["hup"]:
                flags["hup"] = False
                # (A log that cannot be opened was said once, by the log: not "reopened".)
                manager.note(None, now, "SIGHUP: the log reopened" if out.reopen() else "SIGHUP: the log could not be reopened")
            manager.collect(now)
            while True:
                try:
                    item = requests.get_nowait()
                except queue.Empty:
                    break
                _answer(manager, item, now)
            if keepalive and now >= next_keepalive:
                notify("WATCHDOG=1")
                next_keepalive = now + keepalive
            if now < next_poll and not (duration_s is not None and now >= duration_s):
                continue
            gap = _boot_minus_monotonic()
            if gap is not None and boot_gap is not None and gap - boot_gap > SUSPEND_S:
                manager.note(None, now, f"the machine was suspended for {gap - boot_gap:,.1f} s: not counted as idle time; "
                                        "each drive's state is read again")
                manager.probe_all(now, force=True)
            boot_gap = gap
            try:
                for s in list(waiting):
                    s.disk = resolve_disk(s.name)
                names = {m.disk for m in manager.managed.values()} | {s.disk for s in waiting if s.disk}
                snapshot, problems = read_counters(names)
                for disk, problem in problems:
                    manager.note(manager.managed.get(disk), now, f"skipped a malformed line: {problem}", once=problem)
                _follow_renames(manager, snapshot)
                for s in [s for s in waiting if s.disk in snapshot]:
                    waiting.remove(s)
                    for m in prepare([s], force=force, base_power_w=base_power_w, start_s=now)[0]:
                        manager.managed[m.disk] = m
                        manager.note(m, now, f"{s.name} appeared as {m.disk}: managed from now")
                manager.poll(now, snapshot)
                manager.probe_all(now)
                out.reopen(only_if_rotated=True)
                if textfile:
                    textfile_problem = _exposed(manager, textfile, now, textfile_problem)
            except (IdlewiseError, OSError) as e:
                manager.note(None, now, f"a poll failed and was skipped: {e}", once=None)
            next_poll = (math.floor(now / interval_s) + 1) * interval_s
    finally:
        notify("STOPPING=1")
        if previous_wakeup is not None:
            signal.set_wakeup_fd(previous_wakeup)
        for s, handler in previous_handlers.items():
            signal.signal(s, handler)
        now = clock() - start
        executor.close()
        for m in manager.managed.values():
            st = m.live.status(now, 4096.0)
            manager.write({"time_s": round(now, 9), "disk": m.disk, "stop": True, "mode": st["mode"],
                           "actual_mode": m.actual_mode or None, "energy_j": st["energy_j"], "spin_ups": m.spin_ups}, now)
        if server:
            server.close()
        out.close()
        os.close(wake_r)
        os.close(wake_w)
    return list(out.decisions)


def _follow_renames(manager: Manager, snapshot: dict) -> None:
    """A disk named by a link (by-id) that is gone may be back under another kernel name: the
    managed entry follows it."""
    for m in list(manager.managed.values()):
        if m.disk in snapshot or not m.name or m.name == m.disk:
            continue
        now_named = resolve_disk(m.name)
        if now_named and now_named != m.disk and now_named in snapshot:
            del manager.managed[m.disk]
            m.disk, m.counters = now_named, None
            m.actuator.target = now_named
            manager.managed[now_named] = m


def _boot_minus_monotonic() -> Optional[float]:
    """The boot clock (which counts a suspend) less the monotonic one (which does not)."""
    try:
        return time.clock_gettime(time.CLOCK_BOOTTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)
    except (AttributeError, OSError):
        return None


def _exposed(manager: Manager, textfile: str, now: float, problem: Optional[str]) -> Optional[str]:
    """Writes node_exporter's textfile; returns what kept it from being written (None when it
    was). A textfile that cannot be written is said once, and once more when it is written
    again: the disks are managed all the same (the poll is done), and the log is not filled
    with one line a poll."""
    from .exposition import exposition, write_textfile

    try:
        write_textfile(textfile, exposition(manager.status(now)))
    except (IdlewiseError, OSError) as e:
        if str(e) != problem:
            manager.note(None, now, f"the textfile was not written (the disks are managed all the same): {e}")
        return str(e)
    if problem is not None:
        manager.note(None, now, f"the textfile is written again: {textfile}")
    return None


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except (BlockingIOError, OSError):
        pass


def _answer(manager: Manager, item, now: float) -> None:
    request, reply = item
    try:
        op = request.get("op")
        size = float(request.get("size_bytes", 4096))
        if not (math.isfinite(size) and size >= 0):
            raise IdlewiseError(f"size_bytes must be a non-negative number, got {request.get('size_bytes')!r}")
        if op == "status":
            reply.put({"time_s": now, "devices": manager.status(now, size)})
        elif op == "hint":
            reply.put({"time_s": now, "decisions": manager.hint(str(request.get("disk")), now, size)})
        else:
            raise IdlewiseError(f"unknown op {op!r}: status or hint")
    except (IdlewiseError, ValueError, TypeError) as e:
        reply.put({"error": str(e)})


def spin_down(disk: str, *, apply: bool = False, force: bool = False, device: str = "auto", actuator: str = "auto",
              run_command=None) -> dict:
    """One disk into its stopped mode now (hd-idle's ``-t``), as the loop would send it: a dry
    run (the command said, not run) unless ``apply``; the same refusals (root, a virtual disk,
    one holding root or swap) unless ``force``. Returns what was (or would be) done."""
    from .commands import run_command as default_run

    name = disk
    kernel = resolve_disk(disk)
    if kernel is None:
        raise IdlewiseError(f"{disk}: no such disk now")
    settings = [_with_disk(DiskSetting(name=name, policy="always-on", device=device, actuator=actuator, apply=apply), kernel)]
    managed, notes = prepare(settings, force=force)
    m = managed[0]
    down = stopped_modes(m.device)
    if not down:
        raise IdlewiseError(f"{m.device.name} has no mode whose spindle stops: there is nothing to spin down")
    argv = m.actuator.command(m.device.modes[0]["name"], down[-1])
    if argv is None:
        raise IdlewiseError(f"{m.actuator.name}: no host command puts this device in {down[-1]}")
    result = {"disk": m.disk, "name": name, "command": _shown(argv), "wall": wall_text(time.time())}
    if not m.act:
        result["outcome"] = "dry-run" if not m.why_not else f"not acted: {m.why_not}"
    else:
        result["outcome"] = (run_command or default_run)(argv)[0]
    return result


def _with_disk(setting: DiskSetting, kernel: str) -> DiskSetting:
    setting.disk = kernel
    return setting


__all__ = ["Managed", "Manager", "NetCounters", "prepare", "read_counters", "run", "settings_for",
           "setup_command", "spin_down", "wall_text"]
