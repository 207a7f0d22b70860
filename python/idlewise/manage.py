"""The power manager, live (``idlewise manage``): seed 000's system on this machine's devices.

The loop watches block devices' activity in ``/proc/diskstats``, feeds each device's model (the
engine's :class:`_core.LiveDisk`: the very device model and policy object a replay runs) the
requests each interval stands for, exactly as a recording's reader makes them, and carries out
the mode changes the policy decides, at wall-clock time, through a small named actuator. A dry
run (the default) only logs what it would do.

Every decision is one JSON line: ``time_s`` (when the policy made it, seconds from the start),
``acted_s`` (when the loop acted: the first poll at or after ``time_s``), ``disk``,
``from_mode``, ``to_mode`` (the model's mode names), ``reason``, ``command`` (run, or that would
be run; null where no host command applies) and ``outcome`` (``dry-run``, ``done``, the failure,
``overtaken`` for a change the plan made inside an interval that turned out to hold I/O, or
``by the drive`` for a wake-up the device makes itself on access).

Applications ask through a Unix socket (``idlewise manage status``, ``idlewise manage hint``,
:class:`Client`): each device's mode, since when, the model's energy so far and what an access
would cost now; and ghost hints, which the policy takes as the simulated system does.

``replay`` runs the same loop over a recording on a virtual clock with a recording actuator: on
the same recording and policy its decisions are the simulation's, planned times exact, acted
within one interval. ``docs/manage.md`` says how to run it as a service and what it never does.
"""

from __future__ import annotations

import json
import math
import os
import queue
import re
import shlex
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Callable, NamedTuple, Optional

from . import _core
from .devices import load_device
from .errors import IdlewiseError

#: Where the kernel's I/O counters are (tests point IDLEWISE_PROCFS_ROOT at a tree of their own).
PROCFS_ENV = "IDLEWISE_PROCFS_ROOT"
#: Where the socket is by default: root's runtime directory, or the user's.
DEFAULT_SOCKET = "/run/idlewise-manage.sock" if os.geteuid() == 0 else os.path.join(
    os.environ.get("XDG_RUNTIME_DIR") or "/tmp", f"idlewise-manage-{os.getuid()}.sock")
#: A command the actuator runs may take this long (a spin-up can take ~10 s on a large disk).
COMMAND_TIMEOUT_S = 30.0
#: The shortest poll: /proc/diskstats moves no faster (as `idlewise record`).
MIN_INTERVAL_S = 0.01


# --- actuators ------------------------------------------------------------------------------

class Actuator:
    """What carries a mode change out on one kind of device: the command for entering a mode
    (or None where the device does it itself, or no host command applies). ``name`` says which
    backend in the log."""

    name = "none"

    def __init__(self, target: str, device):
        self.target, self.device = target, device

    def command(self, from_mode: str, to_mode: str) -> Optional[list[str]]:
        return None

    def wake(self) -> Optional[list[str]]:
        """The command that wakes the device without I/O of an application's (a ghost hint)."""
        return None


class AtaStandby(Actuator):
    """An ATA disk: a mode with the spindle stopped is ATA STANDBY IMMEDIATE (``hdparm -y``);
    modes between (heads unloaded, lower speed) are the drive's own (APM, EPC), with no host
    command; the drive spins up by itself on access; a hint wakes it with one direct read."""

    name = "ata"

    def command(self, from_mode, to_mode):
        if to_mode in _stopped_modes(self.device):
            return ["hdparm", "-y", f"/dev/{self.target}"]
        if from_mode in _stopped_modes(self.device):
            return self.wake()  # a wake-up the policy plans (predictive's pre-wake)
        return None

    def wake(self):
        return ["dd", f"if=/dev/{self.target}", "of=/dev/null", "bs=4096", "count=1", "iflag=direct", "status=none"]


class ScsiStop(Actuator):
    """A SCSI or SAS disk: START STOP UNIT (``sg_start --stop``, sg3_utils) into a stopped mode,
    ``sg_start --start`` to wake it for a hint (a SCSI disk stopped this way may not start itself)."""

    name = "scsi"

    def command(self, from_mode, to_mode):
        if to_mode in _stopped_modes(self.device):
            return ["sg_start", "--stop", f"/dev/{self.target}"]
        if from_mode in _stopped_modes(self.device):
            return ["sg_start", "--start", f"/dev/{self.target}"]
        return None

    def wake(self):
        return ["sg_start", "--start", f"/dev/{self.target}"]


class WifiPowerSave(Actuator):
    """An 802.11 interface: the ready mode is CAM (power save off), a mode that serves is PSM
    (``iw dev IF set power_save on``), seed 000's two modes of the card."""

    name = "wifi"

    def command(self, from_mode, to_mode):
        modes = {m["name"]: m for m in self.device.modes}
        if to_mode == self.device.modes[0]["name"]:
            return ["iw", "dev", self.target, "set", "power_save", "off"]
        if modes[to_mode].get("serves"):
            return ["iw", "dev", self.target, "set", "power_save", "on"]
        return None

    def wake(self):
        return ["iw", "dev", self.target, "set", "power_save", "off"]


class NvmePowerState(Actuator):
    """An NVMe controller: Power Management (feature 0x02) set to the power state a mode named
    ``psN`` is, through nvme-cli; the controller leaves a non-operational state by itself on I/O."""

    name = "nvme"

    def command(self, from_mode, to_mode):
        if to_mode.startswith("ps") and to_mode[2:].isdigit():
            controller = re.match(r"nvme\d+", self.target)
            return ["nvme", "set-feature", f"/dev/{controller.group(0) if controller else self.target}", "-f", "0x02",
                    "-v", to_mode[2:]]
        return None


ACTUATORS = {a.name: a for a in (AtaStandby, ScsiStop, WifiPowerSave, NvmePowerState)}

#: Policies that are the drive's own timers: the drive makes their changes by itself once set up,
#: so the loop sets them up once (``setup_command``) and logs the model's changes, acting on none.
OWN_TIMERS = ("apst", "epc")


def setup_command(policy: str, disk: str, device) -> Optional[list[str]]:
    """The one command that hands a drive-timer policy to the drive: APST's latency bound for
    an NVMe controller (``power/pm_qos_latency_tolerance_us``, as ``advise`` writes it); EPC
    timers need a vendor tool (openSeaChest, SeaChest), which idlewise does not drive."""
    family, _, rest = policy.partition(":")
    if family == "apst":
        bound = dict(p.split("=", 1) for p in rest.split(",") if "=" in p).get("ps_max_latency_us", "100000")
        controller = re.match(r"nvme\d+", disk)
        name = controller.group(0) if controller else "nvmeX"
        return ["sh", "-c", f"echo {int(float(bound))} > /sys/class/nvme/{name}/power/pm_qos_latency_tolerance_us"]
    return None


def _stopped_modes(device) -> set:
    """The modes whose spindle is stopped: leaving one uses a rated start/stop cycle (the
    catalog's ``start_stop_modes``)."""
    return {m["name"] for m in device.modes if m.get("stops_spindle")}


def choose_actuator(disk: str, device, kind: str = "auto", sysfs: Optional[str] = None) -> Actuator:
    """The backend for ``disk``: named, or chosen from the device model and what sysfs says
    (an NVMe namespace, a network interface, an ATA disk behind libata, else SCSI)."""
    if kind != "auto":
        if kind not in ACTUATORS:
            raise IdlewiseError(f"--actuator {kind}: unknown; known: auto, {', '.join(ACTUATORS)}")
        return ACTUATORS[kind](disk, device)
    if device.kind == "network":
        return WifiPowerSave(disk, device)
    if disk.startswith("nvme"):
        return NvmePowerState(disk, device)
    root = sysfs or os.environ.get("IDLEWISE_SYSFS_ROOT", "/sys")
    try:
        with open(os.path.join(root, "block", disk, "device", "vendor"), encoding="ascii", errors="replace") as f:
            vendor = f.read().strip()
    except OSError:
        vendor = "ATA"  # a disk sysfs does not describe: the common case
    return AtaStandby(disk, device) if vendor in ("ATA", "") else ScsiStop(disk, device)


# --- the loop -------------------------------------------------------------------------------

def _fmt_command(argv: Optional[list[str]]) -> Optional[str]:
    return None if argv is None else shlex.join(argv)


@dataclass
class Managed:
    """One device the loop manages: its model, actuator and what the loop last saw."""

    disk: str
    device: object
    live: object
    actuator: Actuator
    act: bool  # False: watched only (a dry run, or a disk refused for acting on)
    why_not: str = ""
    live_policy: str = ""
    counters: Optional[tuple] = None
    actual_mode: str = ""


def _runner(argv: list[str]) -> str:
    """Runs an actuator's command; returns "done" or the failure, never raises."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    except FileNotFoundError:
        return f"failed: {argv[0]} is not installed"
    except subprocess.TimeoutExpired:
        return f"failed: no answer in {COMMAND_TIMEOUT_S:g} s"
    except OSError as e:
        return f"failed: {e.strerror or e}"
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        return f"failed: exit {done.returncode}" + (f": {detail[-1][:200]}" if detail else "")
    return "done"


class Manager:
    """The loop over managed devices, fed snapshots of their counters (live or from a
    recording), acting through their actuators and writing the decisions to ``emit``."""

    def __init__(self, managed: list[Managed], emit: Callable[[dict], None], *, run: Callable[[list[str]], str] = _runner,
                 knob: float = 50.0):
        self.managed = {m.disk: m for m in managed}
        self.emit, self.run, self.knob = emit, run, knob
        self.previous_s: Optional[float] = None

    def _carry_out(self, m: Managed, d: dict, now: float, overtaken: bool) -> dict:
        """Acts on one decision of the model (or says why not) and logs it; returns the record."""
        woken_by_io = d["cause"] == "access"
        own = m.live_policy.partition(":")[0] in OWN_TIMERS and d["cause"] == "plan"
        if woken_by_io or own:
            argv = None
        elif d["cause"] == "hint":
            argv = m.actuator.wake()
        else:
            argv = m.actuator.command(d["from_mode"], d["to_mode"])
        if woken_by_io:
            outcome = "by the drive"
        elif own:
            outcome = "by the drive: its own timers"
        elif overtaken:
            outcome = "overtaken"
        elif argv is None:
            outcome = "model only: no host command for this mode"
        elif not m.act:
            outcome = "dry-run" if not m.why_not else f"not acted: {m.why_not}"
        else:
            outcome = self.run(argv)
        if outcome in ("done", "recorded", "by the drive", "by the drive: its own timers", "model only: no host command for this mode"):
            m.actual_mode = d["to_mode"]  # a failed command leaves the device where it was
        record = {"time_s": round(d["time_s"], 9), "acted_s": round(now, 9), "disk": m.disk, "from_mode": d["from_mode"],
                  "to_mode": d["to_mode"], "reason": d["reason"], "command": _fmt_command(argv), "outcome": outcome}
        self.emit(record)
        return record

    def poll(self, now: float, snapshot: dict) -> None:
        """One poll at ``now`` (seconds from the start) with each device's counters: the
        interval's requests fed to its model, then what the policy decided by now."""
        for m in self.managed.values():
            counters = snapshot.get(m.disk)
            if counters is None:
                continue
            if m.counters is not None and self.previous_s is not None:
                import numpy as np  # here, not at import: the command line's parser reads this module's defaults

                t, size, write = _interval(m.disk, self.previous_s, now, m.counters, counters)
                if len(t):
                    first = float(t[0])
                    for d in m.live.feed(t, size.astype(np.float64), write):
                        # A change the plan made before the interval's first I/O, which the loop
                        # could only have carried out at this poll: the I/O overtook it.
                        self._carry_out(m, d, now, overtaken=d["time_s"] <= first and d["cause"] == "plan")
            m.counters = counters
            for d in m.live.advance(now):
                self._carry_out(m, d, now, overtaken=False)
        self.previous_s = now

    def hint(self, disk: str, now: float, size_bytes: float) -> list[dict]:
        m = self._device(disk)
        return [self._carry_out(m, d, now, overtaken=False) for d in m.live.hint(now, float(size_bytes), self.knob)]

    def status(self, now: float, size_bytes: float = 4096.0) -> list[dict]:
        out = []
        for m in self.managed.values():
            s = m.live.status(now, float(size_bytes))
            out.append({"disk": m.disk, "device": m.device.name, "mode": s["mode"], "moving": s["moving"],
                        "in_mode_s": max(0.0, now - s["since_s"]), "energy_j": s["energy_j"],
                        "actual_mode": m.actual_mode or None, "acting": m.act,
                        "access": {"size_bytes": size_bytes, "time_s": s["access_time_s"], "energy_j": s["access_energy_j"]}})
        return out

    def _device(self, disk: str) -> Managed:
        if disk not in self.managed:
            raise IdlewiseError(f"disk {disk!r} is not managed; managed: {', '.join(self.managed)}")
        return self.managed[disk]


class NetCounters(NamedTuple):
    """An interface's byte counters (``/proc/net/dev``): what a network card's model is fed."""

    rx_bytes: int
    tx_bytes: int


def _interval(disk: str, t0: float, t1: float, before, after):
    """The requests an interval stands for: a block device's as a recording's reader makes them;
    an interface's as one download (a read) of the bytes received and one upload (a write) of
    the bytes sent, spread over the interval as a recording's are (reads first). A counter that
    went down (an interface re-created) counts nothing."""
    if isinstance(after, NetCounters):
        import numpy as np

        sizes = [max(0, after.rx_bytes - before.rx_bytes), max(0, after.tx_bytes - before.tx_bytes)]
        kept = [(size, write) for size, write in zip(sizes, (False, True)) if size > 0]
        n = len(kept)
        times = np.array([t0 + (j + 0.5) * (t1 - t0) / n for j in range(n)], dtype=np.float64)
        return (times, np.array([s for s, _ in kept], dtype=np.int64), np.array([w for _, w in kept], dtype=bool))
    from .traces.readers.diskstats import interval_requests

    return interval_requests(disk, t0, t1, before, after)


def read_counters(disks, procfs: Optional[str] = None) -> dict:
    """Each device's counters now: a block device's from /proc/diskstats, a network
    interface's from /proc/net/dev (:class:`NetCounters`); a device in neither is left out."""
    from .traces.readers.diskstats import line_counters

    root = procfs or os.environ.get(PROCFS_ENV, "/proc")
    path = os.path.join(root, "diskstats")
    out = {}
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for number, line in enumerate(f, start=1):
                fields = line.split()
                if len(fields) >= 14 and fields[2] in disks:
                    out[fields[2]] = line_counters(fields[3:], path, number, fields[2])
    except OSError as e:
        raise IdlewiseError(f"{path}: cannot read: {e.strerror} (idlewise manage runs on Linux)") from None
    if set(disks) - set(out):
        net = os.path.join(root, "net", "dev")
        try:
            with open(net, encoding="ascii", errors="replace") as f:
                for line in f:
                    name, colon, rest = line.partition(":")
                    fields = rest.split()
                    if colon and name.strip() in disks and len(fields) >= 16:
                        out[name.strip()] = NetCounters(int(fields[0]), int(fields[8]))
        except (OSError, ValueError):
            pass  # no interfaces to read: the caller names the devices it did not find
    return out


def prepare(disks: list[str], policy: str, device: str = "auto", *, apply: bool = False, force: bool = False,
            actuator: str = "auto", base_power_w: float = 0.0, start_s: float = 0.0) -> tuple[list[Managed], list[str]]:
    """The devices to manage, each with its model and actuator; and the notes for the log
    (a disk watched but not acted on, and why). Refuses ``apply`` without the rights to act."""
    from .identify import identify, system_roles

    if apply and os.geteuid() != 0:
        raise IdlewiseError("--apply needs root: hdparm, sg_start, iw and nvme act on devices only as root; run a dry run "
                            "(without --apply) as any user, or the service as root (docs/manage.md)")
    managed, notes = [], []
    for disk in disks:
        found = None
        interface = os.path.isdir(os.path.join(os.environ.get("IDLEWISE_SYSFS_ROOT", "/sys"), "class", "net", disk))
        if device == "auto" and interface:
            raise IdlewiseError(f"{disk} is a network interface: name its card's model with --device (idlewise devices: "
                                "the network entries)")
        if device == "auto":
            found = identify(disk)
            if found.virtual and not force:
                raise IdlewiseError(f"/dev/{disk} is {found.virtual}: --device auto cannot model it; name a catalog entry "
                                    "with --device (a dry run then watches it)")
            model = load_device(found.catalog)
        else:
            model = load_device(device)
        live = _core.LiveDisk(model, policy, base_power_w=base_power_w, start_s=start_s)
        why_not = ""
        if apply and not force and model.kind != "network":  # an interface holds no file system
            virtual = found.virtual if found else _virtual_reason(disk)
            roles = system_roles(disk)
            if virtual:
                why_not = f"/dev/{disk} is {virtual}"
            elif roles:
                why_not = f"/dev/{disk} holds {' and '.join(roles)}"
            if why_not:
                notes.append(f"{why_not}: watched, not acted on (--force acts anyway)")
        managed.append(Managed(disk, model, live, choose_actuator(disk, model, actuator), act=apply and not why_not,
                               why_not=why_not, actual_mode=model.modes[0]["name"], live_policy=policy))
    return managed, notes


def _virtual_reason(disk: str) -> Optional[str]:
    from .identify import _virtual

    sysfs = os.environ.get("IDLEWISE_SYSFS_ROOT", "/sys")
    try:
        with open(os.path.join(sysfs, "block", disk, "device", "model"), encoding="ascii", errors="replace") as f:
            model = f.read().strip()
    except OSError:
        model = ""
    return _virtual(disk, model, os.path.realpath(os.path.join(sysfs, "block", disk, "device")))


def run(disks: list[str], policy: str, *, device: str = "auto", interval_s: float = 1.0, duration_s: Optional[float] = None,
        log: Optional[str] = None, socket_path: Optional[str] = DEFAULT_SOCKET, apply: bool = False, force: bool = False,
        actuator: str = "auto", base_power_w: float = 0.0, knob: float = 50.0, emit: Optional[Callable[[dict], None]] = None,
        clock: Callable[[], float] = time.monotonic) -> list[dict]:
    """Manages ``disks`` live until ``duration_s`` passes, SIGTERM or Ctrl-C; returns every
    decision. See the module's doc for the log's fields."""
    if not (math.isfinite(interval_s) and interval_s >= MIN_INTERVAL_S):
        raise IdlewiseError(f"--interval must be at least {MIN_INTERVAL_S * 1e3:g} ms, got {interval_s!r} s")
    if duration_s is not None and not (math.isfinite(duration_s) and duration_s >= 0):
        raise IdlewiseError(f"--for must be a non-negative duration, got {duration_s!r}")
    first = read_counters(set(disks))
    missing = [d for d in disks if d not in first]
    if missing:
        raise IdlewiseError(f"no block device (/proc/diskstats) or network interface (/proc/net/dev) named {', '.join(missing)}")
    managed, notes = prepare(disks, policy, device, apply=apply, force=force, actuator=actuator, base_power_w=base_power_w)
    out_file = open(log, "a", encoding="utf-8") if log else None
    decisions: list[dict] = []

    def write(record: dict) -> None:
        decisions.append(record)
        line = json.dumps(record, allow_nan=False)
        if out_file:
            out_file.write(line + "\n")
            out_file.flush()  # the log is complete whenever the loop is stopped
        if emit:
            emit(record)

    start_wall = time.time()
    for note in notes:
        write({"time_s": 0.0, "note": note})
    write({"time_s": 0.0, "start": start_wall, "disks": disks, "policy": policy, "apply": apply,
           "devices": {m.disk: m.device.name for m in managed}, "actuators": {m.disk: m.actuator.name for m in managed},
           "interval_s": interval_s})
    manager = Manager(managed, write, knob=knob)
    for m in managed:
        argv = setup_command(policy, m.disk, m.device)
        if argv:
            outcome = manager.run(argv) if m.act else ("dry-run" if not m.why_not else f"not acted: {m.why_not}")
            write({"time_s": 0.0, "acted_s": 0.0, "disk": m.disk, "setup": True, "command": _fmt_command(argv), "outcome": outcome})
    requests: "queue.Queue" = queue.Queue()
    server = _serve(socket_path, requests) if socket_path else None
    stop = threading.Event()
    previous = {}

    def on_signal(signum, frame):
        stop.set()
        requests.put(None)
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGTERM, signal.SIGINT):
            previous[s] = signal.signal(s, on_signal)
    start = clock()
    try:
        manager.poll(0.0, first)
        next_poll = interval_s
        while not stop.is_set():
            now = clock() - start
            if duration_s is not None and now >= duration_s:
                break
            wait = min(next_poll, duration_s if duration_s is not None else math.inf) - now
            try:
                item = requests.get(timeout=max(wait, 0.0)) if wait > 0 else None
            except queue.Empty:
                item = None
            now = clock() - start
            if item is not None:
                _answer(manager, item, now)
                continue
            if now >= next_poll or (duration_s is not None and now >= duration_s):
                manager.poll(now, read_counters(set(disks)))
                next_poll = (math.floor(now / interval_s) + 1) * interval_s
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        now = clock() - start
        for m in managed:
            st = m.live.status(now, 4096.0)
            write({"time_s": round(now, 9), "disk": m.disk, "stop": True, "mode": st["mode"], "energy_j": st["energy_j"]})
        if server:
            server.close()
        if out_file:
            out_file.close()
    return decisions


# --- the applications' interface: a Unix socket ---------------------------------------------

def _serve(path: str, requests: "queue.Queue"):
    """A Unix socket whose clients send one JSON request a line; each is answered by the loop
    (which owns the models) through ``requests``."""
    if os.path.exists(path):
        try:
            probe = socket.socket(socket.AF_UNIX)
            probe.connect(path)
            probe.close()
            raise IdlewiseError(f"{path}: another manager answers there; stop it or pass --socket")
        except OSError:
            os.unlink(path)  # a stale socket of a manager that died
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o660)
    listener.listen(8)

    class Server:
        def close(self):
            listener.close()
            try:
                os.unlink(path)
            except OSError:
                pass

    def accept():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=_client, args=(conn, requests), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
    return Server()


def _client(conn, requests: "queue.Queue") -> None:
    with conn, conn.makefile("rw", encoding="utf-8") as f:
        for line in f:
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("a request is a JSON object")
            except ValueError as e:
                f.write(json.dumps({"error": f"not a request: {e}"}) + "\n")
                f.flush()
                continue
            reply: "queue.Queue" = queue.Queue()
            requests.put((request, reply))
            f.write(json.dumps(reply.get(), allow_nan=False) + "\n")
            f.flush()


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


class Client:
    """An application's side of the manager's socket (seed 000's two interfaces)."""

    def __init__(self, path: str = DEFAULT_SOCKET, timeout_s: float = 10.0):
        self.path, self.timeout_s = path, timeout_s

    def _ask(self, request: dict) -> dict:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(self.timeout_s)
                s.connect(self.path)
                s.sendall((json.dumps(request) + "\n").encode())
                answer = s.makefile("r", encoding="utf-8").readline()
        except OSError as e:
            raise IdlewiseError(f"{self.path}: no manager answers ({e.strerror or e}); start one with idlewise manage run") from None
        reply = json.loads(answer or "{}")
        if "error" in reply:
            raise IdlewiseError(reply["error"])
        return reply

    def status(self, size_bytes: float = 4096.0) -> list[dict]:
        """Each managed device: ``mode``, ``in_mode_s``, ``energy_j`` (the model's, so far) and
        ``access`` (what reading ``size_bytes`` would cost now: ``time_s``, ``energy_j``)."""
        return self._ask({"op": "status", "size_bytes": size_bytes})["devices"]

    def hint(self, disk: str, size_bytes: float = 4096.0) -> list[dict]:
        """A ghost hint: an application would have read ``size_bytes`` from ``disk`` had it been
        ready. Returns the wake-up it caused, if the policy took it."""
        return self._ask({"op": "hint", "disk": disk, "size_bytes": size_bytes})["decisions"]


# --- replay: the same loop on a recording ---------------------------------------------------

def replay(recording: str, policy: str, device: str, *, disk: Optional[str] = None, interval_s: Optional[float] = None,
           knob: float = 50.0, emit: Optional[Callable[[dict], None]] = None) -> tuple[list[dict], dict]:
    """Runs the manager's loop over a diskstats recording on a virtual clock (one poll a
    snapshot), with a recording actuator. Returns the decisions and the model's account at the
    recording's end (the row ``simulate`` gives)."""
    from .traces.readers.diskstats import _parse

    devices, snapshots = _parse(os.fspath(recording))
    if disk is None:
        if len(devices) != 1:
            raise IdlewiseError(f"{recording}: the recording holds {', '.join(devices)}: pick one with --stream NAME")
        disk = next(iter(devices))
    if disk not in devices:
        raise IdlewiseError(f"{recording}: no device '{disk}' in the recording; devices recorded: {', '.join(devices)}")
    _, _, _, times, values = devices[disk]
    origin = times[0]
    model = load_device(device)
    # As a replay of the recording does (and a live manager started with it), the model's run
    # begins at the recording's start, the first snapshot, idle until the first request.
    from .traces import read_trace

    requests = read_trace(recording, format="diskstats", stream=disk)
    live = _core.LiveDisk(model, policy, start_s=0.0)
    recorded: list[list[str]] = []

    def recording_runner(argv):
        recorded.append(argv)
        return "recorded"
    decisions: list[dict] = []

    def write(record):
        decisions.append(record)
        if emit:
            emit(record)
    m = Managed(disk, model, live, choose_actuator(disk, model, "ata" if model.kind == "disk" else "auto"), act=True,
                actual_mode=model.modes[0]["name"], live_policy=policy)
    manager = Manager([m], write, run=recording_runner, knob=knob)
    for t, counters in zip(times, values):
        manager.poll(t - origin, {disk: counters})
    # As simulate: the run goes on after the last completion as long as the recording went on
    # after its last request (a saturated model's completions run past the recording's end);
    # what the policy decides up to then is acted on at that end.
    end = live.last_finish_s() + requests.idle_tail_s
    for d in live.advance(end):
        manager._carry_out(m, d, max(end, d["time_s"]), overtaken=False)
    return decisions, live.finish(end)
