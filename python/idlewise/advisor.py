"""``idlewise advise``: what should *my* disk's spin-down timeout be?

Replays a machine's recorded I/O (a diskstats recording, blktrace, biosnoop or any trace) on its
device under every candidate setting and recommends the one with the lowest energy that keeps
within the user's limits: wake-ups a day (and the rated start/stop or load/unload cycles spread
over the years the disk should last), requests delayed by a wake-up per hour, and the delay each
such request suffers. It answers in the tools administrators use:

- a hard disk: the drive's standby timer set with ``hdparm -S N`` (N encoded as ATA's IDLE
  command defines it, :func:`hdparm_standby_value`), the same value for TLP's
  ``DISK_SPINDOWN_TIMEOUT_ON_AC``, and the ``hd-idle`` arguments (hd-idle polls, so its disk
  stops somewhat later; that run is reported beside);
- an NVMe SSD: ``nvme_core.default_ps_max_latency_us``, the latency bound the Linux driver
  builds its APST table from;
- a SATA SSD with Device Sleep: ``libahci.devslp_idle_timeout`` (ms), the idle time after which
  the AHCI host puts the drive in DEVSLP once link power management is ``min_power``.

Spinning down is not advised when no setting saves energy within the limits, or when the best
saves less than ``min_saving_fraction`` of the always-on energy: then the saving does not pay
for the wake-ups' wear and delays.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Optional

from .activity import Activity
from .devices import WEAR_RATINGS, load_device, wear_ratings
from .errors import IdlewiseError
from .results import saturation_note
from .simulate import simulate
from .output import save_figure
from .traces.describe import SECONDS_PER_YEAR
from .traces.trace import span_text
from ._compat import zip_exact

JOULES_PER_KWH = 3.6e6
#: Timeouts tried on a hard disk: each one ``hdparm -S`` can set exactly.
DEFAULT_TIMEOUTS_S = (5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 300, 420, 600, 900, 1200, 1800, 3600, 7200,
                      10800, 19800)
#: Latency bounds the Linux default and the documentation suggest, tried on an NVMe SSD beside
#: each power state's own entry + exit latency (where the table changes).
NVME_LATENCIES_US = (0, 5500, 25000, 100000)
#: DEVSLP idle timeouts tried on a SATA SSD (ms); libahci's default is 1000.
DEVSLP_TIMEOUTS_MS = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000)


# --- hdparm -S ------------------------------------------------------------------------------



#: A recording shorter than this gets a warning: a year extrapolated from less than a day of a
#: machine's life misses its daily rhythm.
RECOMMENDED_RECORDING_S = 86_400.0

def hdparm_standby_timeout_s(value: int) -> Optional[float]:
    """The standby timeout an ``hdparm -S`` value sets, as ATA's IDLE command encodes it:
    0 off (None); 1-240 N × 5 s; 241-251 (N − 240) × 30 min; 252 21 min; 253 the vendor's
    choice (8-12 h: None); 254 reserved; 255 21 min 15 s."""
    if not isinstance(value, int) or not 0 <= value <= 255:
        raise IdlewiseError(f"hdparm -S takes 0 to 255, got {value!r}")
    if value == 0 or value == 253:
        return None
    if value <= 240:
        return value * 5.0
    if value <= 251:
        return (value - 240) * 1800.0
    if value == 252:
        return 1260.0
    if value == 255:
        return 1275.0
    raise IdlewiseError("hdparm -S 254 is reserved")


#: Every exactly-settable timeout, ascending, with its value.
_HDPARM_STEPS = sorted((hdparm_standby_timeout_s(v), v) for v in (*range(1, 253), 255))


def hdparm_standby_value(timeout_s: float) -> tuple[int, float]:
    """The ``hdparm -S`` value for a standby timeout: the smallest one whose timeout is at least
    ``timeout_s`` (a drive never stops sooner than asked), and the timeout it sets."""
    if not (isinstance(timeout_s, (int, float)) and math.isfinite(timeout_s) and timeout_s > 0):
        raise IdlewiseError(f"a standby timeout must be a positive number of seconds, got {timeout_s!r}")
    for applied, value in _HDPARM_STEPS:
        if applied >= timeout_s:
            return value, applied
    raise IdlewiseError(f"{timeout_s:g} s is longer than hdparm -S can set (5.5 h, -S 251); use hd-idle for longer timeouts")


def hd_idle_args(disk: str, timeout_s: float) -> str:
    """hd-idle's arguments to stop ``disk`` after ``timeout_s`` of no I/O and leave others alone."""
    return f"-i 0 -a {disk} -i {math.ceil(timeout_s)}"


# --- the advice -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """What the user will accept. None: no limit."""

    max_wakeups_per_day: Optional[float] = None
    #: Years the disk should last on its rated start/stop (load/unload) cycles.
    lifetime_years: Optional[float] = 5.0
    max_delayed_per_hour: Optional[float] = None
    #: Mean delay a request that waits for a wake-up may suffer.
    max_added_delay_s: Optional[float] = None
    #: Price of a kWh, for the money saved.
    price_per_kwh: Optional[float] = 0.30
    #: The currency of the price (a code or a sign: EUR, USD, £), said with every sum of money.
    currency: str = "EUR"
    #: A best saving smaller than this share of the always-on energy is not worth the wear.
    min_saving_fraction: float = 0.01

    def check(self) -> None:
        for name, value in asdict(self).items():
            if name == "currency":
                if not isinstance(value, str) or not value.strip() or len(value) > 8 or any(c.isspace() for c in value):
                    raise IdlewiseError(f"currency: expected a code or sign such as EUR, USD or £, got {value!r}")
                continue
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise IdlewiseError(f"{name.replace('_', '-')}: expected a non-negative number, got {value!r}")
        if self.lifetime_years == 0:
            raise IdlewiseError("lifetime-years must be more than 0")


def _is_nvme(device) -> bool:
    return device.interface == "nvme"


def _devslp(device) -> bool:
    """A SATA SSD whose low-power mode is Device Sleep."""
    return device.kind != "disk" and [m["name"] for m in device.modes[1:]] == ["devslp"]


def _candidates(device, timeouts_s) -> list[tuple[str, dict]]:
    """(policy spec, what applying it means) for each setting tried."""
    if device.kind == "disk":
        out = []
        for t in timeouts_s:
            value, applied = hdparm_standby_value(t)
            out.append((f"timeout:{applied:g}s", {"timeout_s": applied, "hdparm_S": value}))
        if any("epc_timer_s" in m for m in device.modes):
            out.append(("epc", {"timeout_s": None, "hdparm_S": None}))
        return out
    if _is_nvme(device):
        ready = device.modes[0]["name"]
        total_us: dict = {}  # each state's entry + exit latency
        for t in device.transitions:
            if ready in (t["from"], t["to"]):
                state = t["to"] if t["from"] == ready else t["from"]
                total_us[state] = total_us.get(state, 0.0) + t["time_s"] * 1e6
        bounds = sorted({*NVME_LATENCIES_US, *(math.ceil(v) for v in total_us.values())})
        return [(f"apst:ps_max_latency_us={b}", {"ps_max_latency_us": b}) for b in bounds if b > 0]
    if _devslp(device):
        return [(f"timeout:{ms / 1000:g}s", {"timeout_s": ms / 1000, "devslp_idle_timeout_ms": ms}) for ms in DEVSLP_TIMEOUTS_MS]
    raise IdlewiseError(f"{device.name} has no low-power mode to advise on (kind {device.kind}, modes "
                        f"{', '.join(m['name'] for m in device.modes)})")


def _figures(row: dict, reference: dict, seconds: float, price: Optional[float]) -> dict:
    per_year = SECONDS_PER_YEAR / seconds
    saved_j = (reference["energy_j"] - row["energy_j"]) * per_year
    if abs(saved_j) <= 1e-9 * reference["energy_j"] * per_year:
        # Rounding, not a saving: a timeout that never fires sums always-on's energy in another
        # order when timeouts share one replay (docs/semantics.md).
        saved_j = 0.0
    delayed = row["delayed_requests"]
    added_s = max(0.0, (row["mean_response_s"] - reference["mean_response_s"]) * row["requests"])
    return {
        "energy_j": row["energy_j"],
        "energy_j_saved_per_year": saved_j,
        "kwh_saved_per_year": saved_j / JOULES_PER_KWH,
        "money_saved_per_year": None if price is None else saved_j / JOULES_PER_KWH * price,
        "wakeups_per_day": row["wakeups"] * 86400 / seconds,
        **{f"{count}_per_day": row[count] * 86400 / seconds for _, _, count in WEAR_RATINGS},
        "years_to_rated_cycles": row.get("years_to_rated_cycles"),
        "delayed_requests_per_hour": delayed * 3600 / seconds,
        "mean_added_delay_s": added_s / delayed if delayed else 0.0,
        "max_response_s": row["max_response_s"],
    }


def _budgets(device, limits: Limits) -> list[tuple[str, float, str, float]]:
    """(kind, rated cycles, figure, cycles a day that last the lifetime) for each rating given."""
    if limits.lifetime_years is None:
        return []
    return [(kind, rated, f"{count}_per_day", rated / (limits.lifetime_years * 365.25))
            for kind, rated, count in wear_ratings(device)]


def _breaks(figures: dict, limits: Limits, budgets) -> list[str]:
    """Which limits a candidate breaks, in words."""
    broken = []
    if limits.max_wakeups_per_day is not None and figures["wakeups_per_day"] > limits.max_wakeups_per_day:
        broken.append(f"{figures['wakeups_per_day']:,.1f} wake-ups a day > {limits.max_wakeups_per_day:,g}")
    for kind, rated, figure, budget in budgets:
        if figures[figure] > budget:
            broken.append(f"{figures[figure]:,.1f} {kind} cycles a day > {budget:,.1f} "
                          f"({rated:,.0f} rated over {limits.lifetime_years:g} years)")
    if limits.max_delayed_per_hour is not None and figures["delayed_requests_per_hour"] > limits.max_delayed_per_hour:
        broken.append(f"{figures['delayed_requests_per_hour']:,.2f} delayed requests an hour > {limits.max_delayed_per_hour:,g}")
    if limits.max_added_delay_s is not None and figures["mean_added_delay_s"] > limits.max_added_delay_s:
        broken.append(f"{figures['mean_added_delay_s']:.3g} s added per delayed request > {limits.max_added_delay_s:g} s")
    return broken


@dataclass
class _Recording:
    """What the advice says of the recording, from a trace in memory or a file replayed as read."""
    name: str
    device_name: Optional[str]
    requests: int
    recorded_s: float
    read_report: str
    #: What it held (:class:`idlewise.activity.Activity`'s summary).
    activity: dict


def _replayed(trace, device, specs, progress, read_options) -> tuple["_Recording", list]:
    """The rows of ``specs`` (always-on and the oracle first) on one device's requests, and what
    the recording was. A path in a format read in time order is replayed as it is read, so memory
    stays bounded however long the recording (a diskstats recording too); biosnoop files are read whole."""
    from .traces import Trace, read_trace
    from .traces.formats import reads_whole

    if not isinstance(trace, Trace):
        import os

        if not isinstance(trace, (str, os.PathLike)):
            raise IdlewiseError(f"advise() needs a Trace or a trace file's path, got {type(trace).__name__}")
        from .traces.inputs import local_path

        path = local_path(trace, fresh=True)
        format = read_options.get("format", "auto")
        if format == "auto" and not read_options.get("columns"):
            from .traces.detect import detect_format

            format = detect_format(path)
        if reads_whole(path, format) or read_options.get("sort"):
            trace = read_trace(path, **{**read_options, "format": format})
        else:
            return _replayed_as_read(path, device, specs, progress, {**read_options, "format": format})
    if trace.stream is not None and len(trace.streams()) == 1:
        trace = trace.select_stream(trace.streams()[0])  # the only device that did I/O
    trace.require_one_device("advice", "advise on one: --disk NAME or --stream K")
    if len(trace) == 0:
        raise IdlewiseError(f"{trace.path or trace.name}: no requests: the disk was never used, so any timeout "
                            "stops it once and for good")
    results = simulate(trace, device, specs, progress=progress)
    first = float(trace.time_s[0]) - trace.idle_lead_s  # a recording's start, its first snapshot
    end = trace.end_time_s if trace.end_time_s is not None else float(trace.time_s[-1])
    activity = Activity(first, trace.start_unix_s)
    activity.add(trace.time_s)
    return (_Recording(trace.name, trace.device_name, len(trace), end - first, trace.read_report(), activity.summary(end)),
            list(results))


def _replayed_as_read(path, device, specs, progress, read_options) -> tuple["_Recording", list]:
    from .simulate import simulate_file

    activity = None

    def observe(time_s, reader) -> None:
        # What the recording held, seen in the replay's own pass (its wall clock, where it has one).
        nonlocal activity
        if activity is None:
            activity = Activity(reader.recording_start_s, getattr(reader, "start_unix_s", None))
        activity.add(time_s)

    results = simulate_file(path, device, specs, progress=progress, format=read_options["format"],
                            stream=read_options.get("stream"), columns=read_options.get("columns"),
                            write_flag=read_options.get("write_flag"), observe=observe)
    volumes = sorted({r["stream"] for r in results}, key=str)
    if len(volumes) > 1:
        raise IdlewiseError(f"{path}: advice is for one device; this trace has {len(volumes)} "
                            f"({', '.join(map(str, volumes[:8]))}{', ...' if len(volumes) > 8 else ''}): "
                            "advise on one: --disk NAME or --stream K")
    rows = list(results)
    requests = rows[0]["requests"]
    if requests == 0:
        raise IdlewiseError(f"{path}: no requests: the disk was never used, so any timeout stops it once and for good")
    recorded_s = (results.recording_s[1] - results.recording_s[0] if results.recording_s is not None
                  else results.last_time_s - results.first_time_s)
    name, device_name = results.trace_name, results.device_name
    if volumes[0] is not None and read_options.get("stream") is None and rows[0].get("stream_name"):
        # The only device of several that did I/O: advised on, and named, as a whole read picks it.
        name, device_name = f"{name}#{rows[0]['stream_name']}", device_name or rows[0]["stream_name"]
    end_s = results.recording_s[1] if results.recording_s is not None else results.last_time_s
    return _Recording(name, device_name, requests, recorded_s, rows[0]["read_report"], activity.summary(end_s)), rows


def advise(trace, device, *, limits: Limits = Limits(), disk: Optional[str] = None, timeouts_s=DEFAULT_TIMEOUTS_S,
           progress: Optional[bool] = None, **read_options) -> dict:
    """Recommends a power-management setting for a device on a recorded workload.

    Every setting the tools can apply is replayed (``hdparm -S`` timeouts and hd-idle's polling
    for a disk, APST latency bounds for NVMe, DEVSLP for SATA SSDs) beside always-on and the
    oracle, and the lowest-energy one within the limits is advised.

    Parameters
    ----------
    trace : Trace, str or os.PathLike
        One device's requests: a :class:`Trace` or a file's path, replayed as it is read, every
        setting in one pass, so a recording of any length fits in memory.
    device : str or Device
        The catalog entry (or device file) that models the disk.
    limits : Limits, optional
        Wake-ups a day, rated cycles over a lifetime, delayed requests an hour, added delay, the
        price of a kWh.
    disk : str, optional
        The disk's name in the commands (default: the recording's own name for it, else
        ``DISK``, with a warning).
    timeouts_s : sequence of float, optional
        The timeouts tried on a disk.
    progress : bool, optional
        Show a progress bar.
    **read_options
        :func:`read_trace`'s ``format``, ``stream``, ``columns``, ``write_flag``, ``sort``.

    Returns
    -------
    dict
        JSON-ready: the verdict, the setting, what it saves and costs a year, the commands to
        apply it (``commands``), to make it last (``persist``) and what commonly undoes it
        (``defeated_by``), warnings, and every candidate with the same figures.
    """
    limits.check()
    device = load_device(device)
    candidates = _candidates(device, timeouts_s)
    specs = [spec for spec, _ in candidates]
    # hd-idle beside each hdparm timeout, in the same pass: the best one's is reported.
    hd_idle_specs = [f"hd-idle:{setting['timeout_s']:g}s" for _, setting in candidates
                     if device.kind == "disk" and setting.get("timeout_s")]
    recording, results = _replayed(trace, device, ["always-on", "oracle", *specs, *hd_idle_specs], progress, read_options)
    # The commands name the disk the recording names (or the caller does), never a guess.
    disk = disk or recording.device_name or "DISK"
    reference = next(r for r in results if r["policy"] == "always-on")
    oracle = next(r for r in results if r["policy"] == "oracle")
    seconds = reference["makespan_s"]
    budgets = _budgets(device, limits)

    rows = []
    tried = [r for r in results if r["policy"] not in ("always-on", "oracle")][:len(candidates)]
    for (spec, setting), result in zip_exact(candidates, tried):
        figures = _figures(result, reference, seconds, limits.price_per_kwh)
        broken = _breaks(figures, limits, budgets)
        rows.append({"policy": result["policy"], **setting, **figures, "meets_limits": not broken, "breaks": broken})
    hd_idle_rows = {spec: r for spec, r in zip_exact(hd_idle_specs, results[2 + len(candidates):])}

    always_on_j_per_year = reference["energy_j"] * SECONDS_PER_YEAR / seconds
    eligible = [r for r in rows if r["meets_limits"] and r["energy_j_saved_per_year"] > 0]
    if device.kind == "disk":
        eligible = [r for r in eligible if r["timeout_s"] is not None]  # EPC is shown, not applied by these tools
    best = min(eligible, key=lambda r: (r["energy_j"], -(r.get("timeout_s") or 0))) if eligible else None
    verdict, advised = _verdict(best, rows, always_on_j_per_year, limits, device, idle=recording.recorded_s > 0)
    if not advised:
        best = None

    recorded_s = recording.recorded_s
    warnings = []
    if device.kind == "flash" and _is_nvme(device) and disk != "DISK" and not re.match(r"nvme\d+", disk):
        warnings.append(f"the recording is of {disk}, which is not an NVMe namespace: the NVMe settings below are for the "
                        f"drive {device.name} stands for; name its controller in place of nvmeX")
    if disk == "DISK":
        warnings.append("the trace does not name its disk: the commands say /dev/DISK; name it with --disk (sda, nvme0n1)")
    from .identify import virtual_by_name

    emulated = virtual_by_name(disk)
    if emulated:
        warnings.append(f"{disk} is {emulated}: hdparm and hd-idle reach the hypervisor's emulation, not a drive, so no "
                        f"command is given; the figures say what a {device.name} would do on this workload, and spinning "
                        "disks down is the host's to decide (record and advise there)")
    if recorded_s < RECOMMENDED_RECORDING_S:
        # Every yearly figure is this recording repeated: a short one misses the nightly backup,
        # the weekly scrub, the idle weekend.
        warnings.append(f"the recording covers {span_text(recorded_s)}; every yearly figure repeats it for a year. Record at "
                        f"least a day, a week to catch weekly jobs (`idlewise record`)")
    saturated = saturation_note(reference)
    if saturated:
        warnings.append(saturated + "; every idle period below is the model's, too short because it queues")
    out = {
        "device": device.name,
        "device_kind": device.kind,
        "trace": recording.name,
        "recorded_s": recorded_s,
        "replayed_s": seconds,
        "warnings": warnings,
        "requests": recording.requests,
        "read_report": recording.read_report,
        # What the recording held: busy hours, the longest quiet, what woke the disk on a schedule.
        "activity": recording.activity,
        "advised": advised,
        "verdict": verdict,
        "policy": best["policy"] if best else None,
        "recommended_timeout_s": best.get("timeout_s") if best else None,
        "hdparm_S": best.get("hdparm_S") if best else None,
        "hd_idle_args": hd_idle_args(disk, best["timeout_s"]) if best and best.get("hdparm_S") else None,
        "tlp": (f'DISK_DEVICES="{disk}" DISK_SPINDOWN_TIMEOUT_ON_AC="{best["hdparm_S"]}" '
                f'DISK_SPINDOWN_TIMEOUT_ON_BAT="{best["hdparm_S"]}"') if best and best.get("hdparm_S") else None,
        "ps_max_latency_us": best.get("ps_max_latency_us") if best else None,
        "devslp_idle_timeout_ms": best.get("devslp_idle_timeout_ms") if best else None,
        # Why the disk is an emulation no command reaches, where it is one (vda, xvdb).
        "emulated": emulated,
        "commands": [] if emulated else _commands(best, disk) if advised else _keep_ready_commands(device, disk),
        # How to make it last, and what commonly undoes it (steps: what, and its command apart).
        "persist": _lasting(best, device, disk)[0] if advised and not emulated else [],
        "defeated_by": _lasting(best, device, disk)[1] if advised and not emulated else [],
        "always_on_kwh_per_year": always_on_j_per_year / JOULES_PER_KWH,
        "oracle_kwh_saved_per_year": (reference["energy_j"] - oracle["energy_j"]) * SECONDS_PER_YEAR / seconds / JOULES_PER_KWH,
        "rated_start_stop_cycles": device.start_stop_cycles,
        "rated_load_unload_cycles": device.load_unload_cycles,
        # Each rating's cycles a day that last the lifetime (the plot's wear lines).
        "cycle_budgets_per_day": {kind: budget for kind, _, _, budget in budgets},
        "limits": asdict(limits),
    }
    for key in ("energy_j_saved_per_year", "kwh_saved_per_year", "money_saved_per_year", "wakeups_per_day",
                "cycle_wakeups_per_day", "load_unload_wakeups_per_day", "years_to_rated_cycles", "delayed_requests_per_hour", "mean_added_delay_s"):
        out[key] = best[key] if best else (0.0 if key != "years_to_rated_cycles" else None)
    if best and best.get("timeout_s") and device.kind == "disk":
        row = hd_idle_rows[f"hd-idle:{best['timeout_s']:g}s"]
        out["hd_idle"] = {"policy": row["policy"], **_figures(row, reference, seconds, limits.price_per_kwh)}
    out["candidates"] = rows
    return out


def _verdict(best, rows, always_on_j_per_year, limits: Limits, device, idle: bool = True) -> tuple[str, bool]:
    savers = [r for r in rows if r["energy_j_saved_per_year"] > 0]
    stop = "spinning down" if device.kind == "disk" else "deeper power states"
    if not savers and not idle:  # (one request, or all at one time: nothing to weigh)
        return (f"{stop} is not advised: the recording holds no idle period to weigh (its requests all came at one "
                "time); record a day or more (`idlewise record`)"), False
    if not savers:
        return (f"{stop} is not advised: no setting tried uses less energy than staying ready on this workload "
                "(every idle period is too short to pay for a wake-up)"), False
    if best is None:
        # The nearest miss: fewest limits broken, then the gentlest (longest timeout, largest bound).
        nearest = min(savers, key=lambda r: (len(r["breaks"]), -(r.get("timeout_s") or r.get("ps_max_latency_us") or 0)))
        return (f"{stop} is not advised: every setting that saves energy breaks a limit "
                f"(the nearest, {nearest['policy']}: {'; '.join(nearest['breaks'])})"), False
    share = best["energy_j_saved_per_year"] / always_on_j_per_year if always_on_j_per_year else 0.0
    if share < limits.min_saving_fraction:
        return (f"{stop} is not advised: the best setting within the limits ({best['policy']}) saves only "
                f"{best['kwh_saved_per_year']:,.2f} kWh a year, {share:.1%} of the always-on energy, less than the "
                f"{limits.min_saving_fraction:.0%} that pays for its {best['wakeups_per_day']:,.1f} wake-ups a day"), False
    return (f"{best['policy']} saves {best['kwh_saved_per_year']:,.2f} kWh a year ({share:.0%}) at "
            f"{best['wakeups_per_day']:,.1f} wake-ups a day"), True


def _nvme_controller(disk: str) -> str:
    """The controller of a namespace (nvme0n1 -> nvme0), where the latency tolerance is set;
    ``nvmeX`` for a disk that is not an NVMe namespace (the advice then says to name it)."""
    match = re.match(r"nvme\d+", disk)
    return match.group(0) if match else "nvmeX"


def _step(what: str, command: Optional[str] = None) -> dict:
    """One thing to do or know: ``what`` in words, and the ``command`` (a line to type or put
    in a file) where there is one, kept whole."""
    return {"what": what, "command": command}


def _lasting(best, device, disk: str) -> tuple[list[dict], list[dict]]:
    """How to make the advised setting survive a reboot (and a drive's own power cycle, which
    forgets hdparm -S), and what commonly defeats it: the files each tool reads, as the Debian
    and Fedora packages install them. Each a step: what, and the command or line, apart."""
    if not best:
        return [], []
    if best.get("hdparm_S"):
        value = best["hdparm_S"]
        return ([_step(f"Debian, Ubuntu: in /etc/hdparm.conf (applied at boot and on hot-plug), naming the disk by its "
                       f"/dev/disk/by-id link (ls -l /dev/disk/by-id | grep {disk}$), since sdX names can change between boots",
                       f"/dev/disk/by-id/<{disk}'s id> {{ spindown_time = {value} }}"),
                 _step("any distribution: a udev rule in /etc/udev/rules.d/69-spindown.rules",
                       f'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="{disk}", RUN+="/usr/sbin/hdparm -S {value} /dev/%k"'),
                 _step("or hd-idle as a service: in /etc/default/hd-idle (Debian's package; START_HD_IDLE=true), then "
                       "systemctl enable --now hd-idle", f'HD_IDLE_OPTS="{hd_idle_args(disk, best["timeout_s"])}"')],
                [_step("APM: levels 128-254 do not permit spin-down (hdparm(8)); if hdparm -B says 128 or more, add "
                       "apm = 127 to the hdparm.conf stanza, or now:", f"hdparm -B 127 /dev/{disk}"),
                 _step("smartd: its checks (every 30 min by default) wake a disk in standby unless /etc/smartd.conf says "
                       f"-n standby on the line for /dev/{disk} (or on DEVICESCAN)"),
                 _step("anything else that polls the disk: monitoring agents running smartctl or hddtemp, udisks2, updatedb, "
                       "a file system mounted without noatime read by a backup or indexer")])
    if best.get("devslp_idle_timeout_ms") is not None:
        n = best["devslp_idle_timeout_ms"]
        return ([_step("in /etc/modprobe.d/libahci.conf (then update-initramfs -u, or dracut -f, where libahci loads from "
                       "the initramfs)", f"options libahci devslp_idle_timeout={n}"),
                 _step("a udev rule for the link",
                       'ACTION=="add", SUBSYSTEM=="scsi_host", KERNEL=="host*", ATTR{link_power_management_policy}="min_power"')],
                [_step("a BIOS with DEVSLP or aggressive link power management disabled; a controller without DEVSLP "
                       "(dmesg | grep -i devslp); power-profiles-daemon or TLP writing another link policy")])
    if best.get("ps_max_latency_us") is not None:
        n = best["ps_max_latency_us"]
        controller = _nvme_controller(disk)
        return ([_step("where nvme_core is a module, in /etc/modprobe.d/nvme.conf", f"options nvme_core default_ps_max_latency_us={n}"),
                 _step("else on the kernel command line: in /etc/default/grub, then update-grub (grub2-mkconfig on Fedora)",
                       f'GRUB_CMDLINE_LINUX_DEFAULT="... nvme_core.default_ps_max_latency_us={n}"'),
                 _step("check after a reboot (APST enabled, its table)", f"nvme get-feature /dev/{controller} -f 0x0c -H")],
                [_step("the kernel's quirk list turns APST off for drives known to fail with it (dmesg | grep -i apst); a "
                       "BIOS that leaves APST off; a latency tolerance of 0 set by another tool (TLP's NVMe settings)")])
    return [], []


def _keep_ready_commands(device, disk: str) -> list[dict]:
    """Where spinning down is not advised: the settings that keep the disk ready, naming it (the
    text and the JSON give the same)."""
    if device.kind != "disk":
        return []
    return [_step("now, with hdparm", f"hdparm -S 0 /dev/{disk}"),
            _step(f"with hd-idle: no -i for {disk}, or leave it out of its -a list", "hd-idle -i 0")]


def _commands(best, disk: str) -> list[dict]:
    """How to apply the advised setting: what each way is, and its command, apart."""
    if not best:
        return []
    if best.get("hdparm_S"):
        value = best["hdparm_S"]
        return [_step("now, with hdparm", f"hdparm -S {value} /dev/{disk}"),
                _step("or with hd-idle", f"hd-idle {hd_idle_args(disk, best['timeout_s'])}"),
                _step("or with TLP, in /etc/tlp.conf",
                      f'DISK_DEVICES="{disk}" DISK_SPINDOWN_TIMEOUT_ON_AC="{value}" DISK_SPINDOWN_TIMEOUT_ON_BAT="{value}"')]
    if best.get("devslp_idle_timeout_ms") is not None:
        n = best["devslp_idle_timeout_ms"]
        return [_step("on the kernel command line (with link power management min_power)", f"libahci.devslp_idle_timeout={n}"),
                _step("now: the module's timeout, then the links' policy",
                      f"echo {n} | sudo tee /sys/module/libahci/parameters/devslp_idle_timeout"),
                _step("", "echo min_power | sudo tee /sys/class/scsi_host/host*/link_power_management_policy"),
                _step("or with TLP, in /etc/tlp.conf (the idle timeout stays the module's)",
                      'SATA_LINKPWR_ON_AC="min_power" SATA_LINKPWR_ON_BAT="min_power"')]
    if best.get("ps_max_latency_us") is not None:
        n = best["ps_max_latency_us"]
        return [_step("on the kernel command line", f"nvme_core.default_ps_max_latency_us={n}"),
                _step("now, for one drive", f"echo {n} | sudo tee /sys/class/nvme/{_nvme_controller(disk)}/power/pm_qos_latency_tolerance_us")]
    return []


def _short_label(row: dict) -> str:
    """A candidate's name on the advice's plot: its timeout, or APST's latency bound (read off
    its label by the engine, ``policies.policy_columns``)."""
    t = row.get("timeout_s")
    if t is None:
        from .policies import policy_columns

        bound = policy_columns(row["policy"]).get("param.ps_max_latency_us")
        return f"{bound:.0f} µs" if isinstance(bound, float) else row["policy"]
    return f"{t / 60:g} min" if t >= 120 else f"{t:g} s"


def plot_advice(advice: dict, path: str) -> None:
    """Energy a year against wake-ups a day for every candidate, the recommendation marked."""
    from .plotting import place_labels, subplots

    rows = advice["candidates"]
    fig, ax = subplots(figsize=(8, 5))
    always_on = advice["always_on_kwh_per_year"]
    xs = [r["wakeups_per_day"] for r in rows]
    ys = [always_on - r["kwh_saved_per_year"] for r in rows]
    ok = [r["meets_limits"] for r in rows]
    ax.scatter([x for x, k in zip(xs, ok) if k], [y for y, k in zip(ys, ok) if k], color="tab:blue", label="within the limits", zorder=3)
    ax.scatter([x for x, k in zip(xs, ok) if not k], [y for y, k in zip(ys, ok) if not k], color="tab:gray", marker="x",
               label="breaks a limit", zorder=3)
    groups: dict = {}  # settings that give the same point (every timeout longer than the longest gap) share a label
    for r, x, y in zip(rows, xs, ys):
        groups.setdefault((round(x, 6), round(y, 6)), []).append(_short_label(r))
    point_labels = [(x, y, labels[0] if len(labels) == 1 else f"{labels[0]} … {labels[-1]}", "black")
                    for (x, y), labels in groups.items()]
    ax.axhline(always_on, color="tab:red", linestyle="--", linewidth=1, label=f"always on: {always_on:.1f} kWh/year")
    for (kind, budget), color in zip(advice["cycle_budgets_per_day"].items(), ("tab:orange", "tab:brown")):
        ax.axvline(budget, color=color, linestyle=":", linewidth=1,
                   label=f"rated {kind} cycles over {advice['limits']['lifetime_years']:g} years")
    if advice["limits"]["max_wakeups_per_day"] is not None:
        ax.axvline(advice["limits"]["max_wakeups_per_day"], color="tab:purple", linestyle="-.", linewidth=1,
                   label=f"--max-wakeups-per-day {advice['limits']['max_wakeups_per_day']:g}")
    if advice["advised"]:
        chosen = next(r for r in rows if r["policy"] == advice["policy"])
        ax.scatter([chosen["wakeups_per_day"]], [always_on - chosen["kwh_saved_per_year"]], s=220, marker="*",
                   color="tab:green", zorder=4, label=f"recommended: {advice['policy']}")
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlim(left=0)  # a count a day: the axis' margin once showed negative wake-ups
    ax.set_xlabel("wake-ups per day")
    ax.set_ylabel("energy, kWh per year")
    ax.set_title(f"{advice['device']} on {advice['trace']}")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    place_labels(ax, point_labels)  # beside each point, where it overlaps no other (the report's placer)
    save_figure(fig, path)


__all__ = ["DEFAULT_TIMEOUTS_S", "Limits", "advise", "hd_idle_args", "hdparm_standby_timeout_s",
           "hdparm_standby_value", "plot_advice"]
