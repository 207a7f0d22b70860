"""Seed 004 (Khatib & Hartel, *Power Management of MEMS-Based Storage Devices for Mobile Systems*):
the fixed timeout on a MEMS device with the performance- and energy-efficient shutdown policies.

- ``mems-timeout``: Tables 2 and 3 (energy and mean response per timeout, 0-10 ms by 1 ms and
  20-50 ms by 10 ms, with the theoretical minima), Figure 4a (the idle-period histogram) and
  Figures 4b/8 (the energy-response trade-off), on any traces.
- ``mems-shutdown``: section 6.2's shutdown times next to the seed's, and Figure 7 (the relative
  time and energy difference of the two policies over the probe field).
- ``mems-optimum``: where the least energy lies as the share of sub-millisecond idle periods and
  the locality of a mobile workload vary (``mobile_workload``: what the seed states of its iPAQ
  traces), and which term decides it.

Everything comes from the engine (``simulate`` and the device's sled model); this module only
chooses the runs and lays out their results.
"""

from __future__ import annotations

import os

import numpy as np

from ..devices import load_device
from ..errors import IdlewiseError
from ..simulate import simulate
from ..traces import Trace, read_trace
from ..traces.stats import idle_gaps_s
from ..output import save_figure
from .._compat import zip_exact

DEFAULT_DEVICE = "ibm-mems-seed004"
#: Seed 004 section 5.1: 0-10 ms in 1 ms steps, then 10 ms steps up to 50 ms.
TIMEOUTS_MS = tuple(range(0, 11)) + (20, 30, 40, 50)
SHUTDOWNS = ("pe", "ee")

#: Seed 004 Tables 2 (PE) and 3 (EE): (energy J, mean response ms) per timeout for its four iPAQ
#: traces; the last row is the theoretical minimum.
SEED_TRACES = ("ext3-4K", "ext3-1K", "ext2-4K", "ext2-1K")
SEED_TABLE = {
    "pe": {0: ((11.0, 3.0), (10.4, 1.8), (9.9, 3.3), (9.7, 2.6)), 1: ((10.9, 2.9), (10.3, 1.7), (9.9, 3.2), (9.7, 2.6)),
           2: ((11.0, 2.9), (10.4, 1.7), (9.9, 3.2), (9.7, 2.6)), 3: ((11.0, 2.8), (10.4, 1.7), (9.9, 3.2), (9.7, 2.6)),
           4: ((11.0, 2.8), (10.4, 1.6), (9.9, 3.2), (9.8, 2.6)), 5: ((11.0, 2.8), (10.4, 1.6), (9.9, 3.2), (9.8, 2.5)),
           10: ((11.1, 2.8), (10.5, 1.6), (10.0, 3.2), (9.8, 2.5)), 20: ((11.3, 2.7), (10.7, 1.6), (10.0, 3.2), (9.9, 2.5)),
           30: ((11.5, 2.7), (10.9, 1.6), (10.1, 3.2), (10.0, 2.5)), 40: ((11.6, 2.7), (11.1, 1.6), (10.1, 3.2), (10.1, 2.5)),
           50: ((11.8, 2.7), (11.2, 1.6), (10.1, 3.2), (10.1, 2.5)), "min": ((10.5, 2.5), (9.8, 1.4), (9.6, 2.8), (9.4, 2.2))},
    "ee": {0: ((10.7, 3.0), (10.4, 1.8), (9.8, 3.3), (9.7, 2.6)), 1: ((10.8, 2.9), (10.3, 1.7), (9.8, 3.2), (9.7, 2.6)),
           2: ((10.8, 2.9), (10.4, 1.7), (9.8, 3.2), (9.7, 2.6)), 3: ((10.8, 2.8), (10.4, 1.7), (9.8, 3.2), (9.7, 2.6)),
           4: ((10.8, 2.8), (10.4, 1.6), (9.8, 3.2), (9.8, 2.6)), 5: ((10.9, 2.8), (10.4, 1.6), (9.8, 3.2), (9.8, 2.5)),
           10: ((11.0, 2.8), (10.5, 1.6), (9.9, 3.2), (9.8, 2.5)), 20: ((11.2, 2.7), (10.7, 1.6), (9.9, 3.2), (9.9, 2.5)),
           30: ((11.4, 2.7), (10.9, 1.6), (10.0, 3.2), (10.0, 2.5)), 40: ((11.6, 2.7), (11.1, 1.6), (10.0, 3.2), (10.1, 2.5)),
           50: ((11.7, 2.7), (11.2, 1.6), (10.1, 3.2), (10.1, 2.5)), "min": ((10.5, 2.5), (9.8, 1.4), (9.6, 2.8), (9.4, 2.2))},
}

#: Seed 004 section 6.2: shutdown times (ms) from 5 um and 45 um, per policy.
SEED_SHUTDOWN_MS = {("pe", 5e-6): 0.6, ("pe", 45e-6): 1.6, ("ee", 5e-6): 1.6, ("ee", 45e-6): 2.0}


def _mems_device(device):
    d = load_device(device or DEFAULT_DEVICE)
    if d.kind != "mems" or d.mems_shutdown is None:
        raise IdlewiseError(f"device {d.name}: the MEMS experiments need a MEMS device with a sled shutdown model "
                            f"([service.mems.shutdown]), such as {DEFAULT_DEVICE}")
    return d


def _fits(trace, device) -> bool:
    """Whether every request lies within the device (otherwise it is folded onto it)."""
    try:
        idle_gaps_s(trace, device)
    except IdlewiseError as e:
        if "beyond device" in str(e):
            return False
        raise
    return True


def mems_timeout(traces, plot=None, device=None, format="auto", stream=None, sort=False, replay="open",
                 probe_power=None) -> list[dict]:
    """One row per (trace, timeout, shutdown policy): energy, mean response, the theoretical
    minima and the number of shutdowns. ``traces`` are paths or :class:`Trace` objects (such as
    :func:`mobile_workload`'s, replayed ``closed`` so that their gaps are the idle periods).
    Traces that do not fit the device are folded onto it (``fold_offsets``), and their rows say so.
    A path is read as it is replayed (a pass for the idle periods and whether it fits, one for
    each shutdown policy's runs), with the rows of the file read whole; ``sort``, diskstats and
    biosnoop read it whole. ``probe_power`` (``"per-tip"`` or ``"all-tips"``, seed 004's 1 W
    whenever data move) overrides the device's convention."""
    base = _mems_device(device)
    if probe_power is not None:
        base = base.with_probe_power(probe_power)
    if not traces:
        raise IdlewiseError("experiment mems-timeout needs one or more traces")
    rows, histograms = [], {}
    for item in traces:
        if isinstance(item, Trace) or sort or _read_whole(item, format):
            trace = item if isinstance(item, Trace) else read_trace(item, format=format, stream=stream, sort=sort)
            # One device's idle periods: several devices' requests would mix in one replay.
            trace.require_one_device("mems-timeout", "pick it with --stream K")
            folded = not _fits(trace, base)
            gaps = idle_gaps_s(trace, base, fold_offsets=folded)
            histograms[trace.name] = _idle_period_counts(gaps)
            rows += _timeout_rows(trace, base, folded, replay)
        else:
            name, folded, counts = _survey_file(os.fspath(item), format, stream, base)
            histograms[name] = counts
            rows += _timeout_rows_of_file(os.fspath(item), name, format, stream, base, folded, replay)
    if plot:
        _plot_timeouts(rows, histograms, plot)
    return rows


#: Figure 4a's bins: 1 ms wide to 50 ms, and a last one for 50 ms and longer.
_PERIOD_EDGES_MS = np.append(np.arange(0, 51, 1.0), 51)


def _idle_period_counts(gaps_s: np.ndarray) -> np.ndarray:
    """Idle periods per bin of Figure 4a."""
    return np.histogram(np.minimum(gaps_s * 1e3, 50.5), bins=_PERIOD_EDGES_MS)[0]


def _read_whole(path, format: str) -> bool:
    from ..traces.detect import detect_format
    from ..traces.formats import reads_whole

    return reads_whole(os.fspath(path), detect_format(os.fspath(path)) if format == "auto" else format)


def _survey_file(path: str, format: str, stream, base) -> tuple[str, bool, np.ndarray]:
    """A file's name (as a whole read names it), whether it fits the device, and its idle
    periods binned, in one pass: the periods on the device as it is and as folded are followed
    together until a request lies beyond it."""
    from .. import _core
    from ..traces.detect import detect_format
    from ..traces.streaming import device_parts

    read = dict(format=detect_format(path) if format == "auto" else format, stream=None if stream is None else int(stream))
    as_is, folded_gaps = _core.IdleGapStream(base, fold_offsets=False), _core.IdleGapStream(base, fold_offsets=True)
    counts = {False: np.zeros(len(_PERIOD_EDGES_MS) - 1, dtype=np.int64), True: np.zeros(len(_PERIOD_EDGES_MS) - 1, dtype=np.int64)}
    fits = True
    for part in device_parts(path, read, None, what="mems-timeout"):
        write = np.ascontiguousarray(part.is_write, dtype=np.uint8)
        counts[True] += _idle_period_counts(folded_gaps.feed(part.time_s, part.offset_bytes, part.size_bytes, write))
        if fits:
            try:
                counts[False] += _idle_period_counts(as_is.feed(part.time_s, part.offset_bytes, part.size_bytes, write))
            except IdlewiseError as e:
                if "beyond device" not in str(e):
                    raise
                fits = False
    counts[True] += _idle_period_counts(folded_gaps.finish())
    if fits:
        counts[False] += _idle_period_counts(as_is.finish())
    name = os.path.basename(path) + (f"#{stream}" if stream is not None else "")
    return name, not fits, counts[not fits]


def _timeout_rows_of_file(path, name, format, stream, base, folded, replay) -> list[dict]:
    from ..simulate import simulate_file

    specs = [f"timeout:{ms}ms" for ms in TIMEOUTS_MS]
    rows = []
    for shutdown in SHUTDOWNS:
        results = simulate_file(path, base.with_mems_shutdown(shutdown), specs, format=format, stream=stream,
                                fold_offsets=folded, replay=replay, progress=False)
        rows += [_timeout_row(name, base, ms, shutdown, folded, r) for ms, r in zip_exact(TIMEOUTS_MS, results)]
    return rows


def _timeout_rows(trace, base, folded=False, replay="open") -> list[dict]:
    """Every timeout of Tables 2/3 under both shutdown policies, with each run's energy terms."""
    specs = [f"timeout:{ms}ms" for ms in TIMEOUTS_MS]
    rows = []
    for shutdown in SHUTDOWNS:
        d = base.with_mems_shutdown(shutdown)
        results = simulate(trace, d, specs, fold_offsets=folded, replay=replay, progress=False)
        rows += [_timeout_row(trace.name, base, ms, shutdown, folded, r) for ms, r in zip_exact(TIMEOUTS_MS, results)]
    return rows


def _timeout_row(name, base, ms, shutdown, folded, r) -> dict:
    return {
        "trace": name, "device": base.name, "probe_power": base.probe_power, "timeout_s": ms / 1e3, "shutdown": shutdown,
        "energy_j": r["energy_j"], "mean_response_s": r["mean_response_s"],
        "theoretical_min_energy_j": r["theoretical_min_energy_j"],
        "theoretical_min_response_s": r["theoretical_min_response_s"],
        "shutdowns": r["transitions"].get("idle->inactive", 0),
        "requests": r["requests"], "makespan_s": r["makespan_s"], "folded": folded,
        "shutdown_energy_j": r["transition_energy_j"], "service_energy_j": r["service_energy_j"],
        "idle_energy_j": r["energy_by_mode_j"].get("idle", 0.0),
        "inactive_energy_j": r["energy_by_mode_j"].get("inactive", 0.0),
    }


#: What seed 004 states of its iPAQ workloads: requests of file-system blocks (4 KB ext3 and FAT,
#: 1 KB ext3/ext2), in sequential runs (streaming, copying, launching programs); "short —but
#: many— and long (but few) idle periods", 48 % of them within 0-10 ms (§5.2.1, Figure 4a). The
#: rest is ours, and a parameter: the share of idle periods under 1 ms, and the locality.
MOBILE_SHORT_SHARE = 0.48


def mobile_workload(requests=3000, sub_ms_share=0.2, locality=0.9, block_bytes=4096, seed=4, device=None) -> Trace:
    """A workload of seed 004's mobile scenarios from what the seed states of them. Gaps are idle
    periods (think times): replay it ``closed``. Of the idle periods, ``sub_ms_share`` are under
    1 ms (uniform), the rest of the seed's 48 % within 0-10 ms lie in 1-10 ms (uniform), and the
    others are longer, log-uniform from 10 ms to 5 s (few, and long). A ``sub_ms_share`` above
    48 % leaves Figure 4a (like the seed's scenario 6, copying files): then every short idle period
    is under 1 ms and the rest are long. Each request reads or writes one
    file-system block (a third are writes); with probability ``locality`` it continues where the
    previous one ended (sequential runs), otherwise it goes anywhere on the device."""
    if not 0.0 <= sub_ms_share < 1.0:
        raise IdlewiseError(f"sub_ms_share must lie in 0-1 (the share of idle periods under 1 ms), got {sub_ms_share}")
    if not 0.0 <= locality <= 1.0:
        raise IdlewiseError(f"locality must lie in 0-1, got {locality}")
    rng = np.random.default_rng(seed)
    # File-system blocks that fit the device (seed 004's by default).
    blocks = _mems_device(device).mems_blocks // (block_bytes // 512) - 1
    kind = rng.random(requests)
    gaps = np.where(kind < sub_ms_share, rng.uniform(0.0, 1e-3, requests),
                    np.where(kind < max(MOBILE_SHORT_SHARE, sub_ms_share), rng.uniform(1e-3, 10e-3, requests),
                             np.exp(rng.uniform(np.log(10e-3), np.log(5.0), requests))))
    gaps[0] = 0.0
    start = rng.integers(0, blocks, requests)
    sequential = rng.random(requests) < locality
    block = np.empty(requests, dtype=np.int64)
    at = int(start[0])
    for i in range(requests):
        at = at + 1 if (i > 0 and sequential[i] and at + 1 < blocks) else int(start[i])
        block[i] = at
    name = f"mobile(sub-ms {sub_ms_share:.0%}, locality {locality:.0%}, {block_bytes // 1024} KB)"
    return Trace.from_arrays(np.cumsum(gaps), np.full(requests, block_bytes), op=(rng.random(requests) < 1 / 3).astype(np.int8),
                             offset_bytes=block * block_bytes, name=name)


#: Up to the seed's 48 % within 0-10 ms (Figure 4a), then beyond it to find where 1 ms would win.
SUB_MS_SHARES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.48, 0.6, 0.7, 0.8)
LOCALITIES = (0.0, 0.5, 0.9, 0.99)
#: The bursty family's grid: finer in locality, three shares of sub-millisecond idle periods.
BURSTY_LOCALITIES = (0.0, 0.25, 0.47, 0.5, 0.75, 0.9, 0.99)
BURSTY_SUB_MS_SHARES = (0.2, 0.5, 0.8)


def bursty_workload(requests=3000, sub_ms_share=0.5, locality=0.75, burst=16, block_bytes=4096, seed=4, device=None) -> Trace:
    """Requests in bursts, as an application's reads and writes come: a burst holds a geometric
    number of requests (``burst`` on average) whose idle periods are under 1 ms (``sub_ms_share``
    of them) or 1-10 ms; between bursts the device rests 10 ms-5 s (log-uniform). Blocks as
    :func:`mobile_workload` places them (``locality``: the chance a request continues where the
    previous one ended). Replay it ``closed``."""
    if not 0.0 <= sub_ms_share <= 1.0 or not 0.0 <= locality <= 1.0 or burst < 1:
        raise IdlewiseError(f"bursty workload: sub_ms_share and locality lie in 0-1 and burst is at least 1, got "
                            f"{sub_ms_share}, {locality}, {burst}")
    rng = np.random.default_rng(seed)
    blocks = _mems_device(device).mems_blocks // (block_bytes // 512) - 1
    ends_burst = rng.random(requests) < 1.0 / burst
    within = np.where(rng.random(requests) < sub_ms_share, rng.uniform(0.0, 1e-3, requests), rng.uniform(1e-3, 10e-3, requests))
    gaps = np.where(ends_burst, np.exp(rng.uniform(np.log(10e-3), np.log(5.0), requests)), within)
    gaps[0] = 0.0
    start = rng.integers(0, blocks, requests)
    sequential = rng.random(requests) < locality
    block = np.empty(requests, dtype=np.int64)
    at = int(start[0])
    for i in range(requests):
        at = at + 1 if (i > 0 and sequential[i] and at + 1 < blocks) else int(start[i])
        block[i] = at
    name = f"bursty(sub-ms {sub_ms_share:.0%}, locality {locality:.0%}, bursts of {burst})"
    return Trace.from_arrays(np.cumsum(gaps), np.full(requests, block_bytes), op=(rng.random(requests) < 1 / 3).astype(np.int8),
                             offset_bytes=block * block_bytes, name=name)


def mems_optimum(traces=None, plot=None, device=None, requests=3000, family="mobile") -> list[dict]:
    """Where the least energy lies, per shutdown policy, on :func:`mobile_workload` (``family``
    "mobile") or :func:`bursty_workload` ("bursty") as the share of sub-millisecond idle periods
    and the locality vary: one row per (workload, shutdown) with the best timeout, the energy and
    response at 0, 1 and 10 ms, and the energy terms at 0 ms and at 1 ms (shutdowns, service =
    seeks and media, idle sweeping, inactive)."""
    if family not in ("mobile", "bursty"):
        raise IdlewiseError(f"family must be 'mobile' or 'bursty', got {family!r}")
    base = _mems_device(device)
    out = []
    localities, shares = (LOCALITIES, SUB_MS_SHARES) if family == "mobile" else (BURSTY_LOCALITIES, BURSTY_SUB_MS_SHARES)
    for locality in localities:
        for share in shares:
            trace = (mobile_workload if family == "mobile" else bursty_workload)(requests, share, locality)
            rows = _timeout_rows(trace, base, replay="closed")
            for shutdown in SHUTDOWNS:
                mine = {round(r["timeout_s"] * 1e3): r for r in rows if r["shutdown"] == shutdown}
                best = min(mine.values(), key=lambda r: r["energy_j"])
                row = {"family": family, "sub_ms_share": share, "locality": locality, "shutdown": shutdown, "requests": requests,
                       "best_timeout_ms": round(best["timeout_s"] * 1e3), "least_energy_j": best["energy_j"]}
                for ms in (0, 1, 10, 50):
                    row[f"energy_{ms}ms_j"] = mine[ms]["energy_j"]
                    row[f"response_{ms}ms_s"] = mine[ms]["mean_response_s"]
                for ms in (0, 1):
                    for term in ("shutdown_energy_j", "service_energy_j", "idle_energy_j", "inactive_energy_j"):
                        row[f"{term[:-2]}_{ms}ms_j"] = mine[ms][term]
                out.append(row)
    if plot:
        _plot_optimum(out, plot)
    return out


def _plot_optimum(rows, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    markers = dict(zip_exact(LOCALITIES, ("o", "s", "^", "D")))
    for locality in LOCALITIES:
        for shutdown, style in (("pe", "-"), ("ee", "--")):
            mine = [r for r in rows if r["locality"] == locality and r["shutdown"] == shutdown]
            x = [r["sub_ms_share"] * 100 for r in mine]
            label = f"locality {locality:.0%}, {shutdown.upper()}"
            axes[0].plot(x, [100 * (r["energy_1ms_j"] / r["energy_0ms_j"] - 1) for r in mine], style, marker=markers[locality], label=label)
            axes[1].plot(x, [100 * (r["energy_10ms_j"] / r["energy_0ms_j"] - 1) for r in mine], style, marker=markers[locality], label=label)
            if shutdown == "pe":
                axes[2].plot(x, [100 * (r["response_10ms_s"] / r["response_0ms_s"] - 1) for r in mine], style,
                             marker=markers[locality], label=f"locality {locality:.0%}")
    for ax, title in ((axes[0], "energy at 1 ms against 0 ms (%)"), (axes[1], "energy at 10 ms against 0 ms (%)"),
                      (axes[2], "mean response at 10 ms against 0 ms (%), PE")):
        ax.axhline(0, color="black", lw=0.8)
        ax.axvline(48, color="gray", lw=0.8, ls=":")
        ax.set_xlabel("idle periods under 1 ms (% of all)")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("above 0: a timeout of 0 ms is cheaper")
    axes[1].legend(fontsize=7, ncol=2)
    axes[2].legend(fontsize=7)
    fig.suptitle("seed 004 on ibm-mems-seed004: mobile workloads (4 KB blocks, closed loop); dotted: the seed's 48 % of "
                 "idle periods within 0-10 ms (Figure 4a), beyond which the workload leaves it", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def _plot_timeouts(rows, histograms, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(histograms)
    fig, axes = plt.subplots(len(names), 2, figsize=(11, 4 * len(names)), squeeze=False)
    for (hist_ax, trade_ax), name in zip(axes, names):
        hist_ax.bar(_PERIOD_EDGES_MS[:-1], histograms[name], width=0.9, align="edge", color="tab:gray")
        hist_ax.set_xlabel("idle period (ms; last bar: 50 ms and longer)")
        hist_ax.set_ylabel("idle periods")
        hist_ax.set_title(f"{name}: idle periods (seed 004 Figure 4a)", fontsize=10)
        for shutdown, color in (("pe", "tab:blue"), ("ee", "tab:green")):
            mine = [r for r in rows if r["trace"] == name and r["shutdown"] == shutdown]
            x = [r["mean_response_s"] * 1e3 for r in mine]
            y = [r["energy_j"] for r in mine]
            trade_ax.plot(x, y, "o-", color=color, label=f"{shutdown.upper()} shutdown", markersize=4)
            for r, xi, yi in zip(mine, x, y):
                if shutdown == "pe" and r["timeout_s"] * 1e3 in (0, 1, 5, 10, 20, 50):
                    trade_ax.annotate(f"{r['timeout_s'] * 1e3:g} ms", (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=7)
        least = next(r for r in rows if r["trace"] == name)
        trade_ax.plot([least["theoretical_min_response_s"] * 1e3], [least["theoretical_min_energy_j"]], "k*", markersize=10,
                      label="theoretical minimum")
        trade_ax.set_xlabel("mean response time (ms)")
        trade_ax.set_ylabel("energy (J)")
        trade_ax.set_title(f"{name}: energy against response, by timeout (Figures 4b, 8)", fontsize=10)
        trade_ax.legend(fontsize=8)
        trade_ax.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


def mems_shutdown(traces=None, plot=None, device=None) -> list[dict]:
    """Section 6.2: shutdown time and actuator energy of both policies from 5 um and 45 um (one
    axis), next to the seed's times; with ``plot``, Figure 7 over the probe field."""
    pe = _mems_device(device).with_mems_shutdown("pe")
    ee = pe.with_mems_shutdown("ee")
    rows = []
    for distance_m in (5e-6, 45e-6):
        for name, d in (("pe", pe), ("ee", ee)):
            time_s, energy_j = d.mems_shutdown_cost(distance_m, 0.0)
            rows.append({"device": pe.name, "shutdown": name, "distance_m": distance_m, "time_s": time_s, "energy_j": energy_j,
                         "seed_time_s": SEED_SHUTDOWN_MS[(name, distance_m)] / 1e3})
    field = _shutdown_field(pe, ee)
    rows.append({"device": pe.name, "shutdown": "ee-vs-pe", "least_energy_saving": float(np.nanmin(field["energy"])),
                 "largest_time_increase": float(np.nanmax(field["time"]))})
    if plot:
        _plot_field(field, plot, pe.name)
    return rows


def _shutdown_field(pe, ee, step_m=1e-6, half_m=50e-6) -> dict:
    """Relative differences over the field: (t_EE - t_PE)/t_PE and (E_PE - E_EE)/E_PE."""
    axis = np.round(np.arange(-half_m, half_m + step_m / 2, step_m), 12)
    time = np.full((len(axis), len(axis)), np.nan)
    energy = np.full_like(time, np.nan)
    for i, y in enumerate(axis):
        for j, x in enumerate(axis):
            t_pe, e_pe = pe.mems_shutdown_cost(x, y)
            t_ee, e_ee = ee.mems_shutdown_cost(x, y)
            if t_pe > 0:
                time[i, j] = (t_ee - t_pe) / t_pe
                energy[i, j] = (e_pe - e_ee) / e_pe
    return {"axis_m": axis, "time": time, "energy": energy}


def _plot_field(field, path, name) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm

    um = field["axis_m"] * 1e6
    extent = (um[0], um[-1], um[0], um[-1])
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.6))
    im = a.imshow(field["time"] * 100, origin="lower", extent=extent, norm=LogNorm(), cmap="viridis")
    fig.colorbar(im, ax=a, label="(t_EE - t_PE) / t_PE  (%)")
    a.set_title(f"{name}: shutdown time, EE vs PE (Fig. 7a)", fontsize=10)
    im = b.imshow(field["energy"] * 100, origin="lower", extent=extent, cmap="viridis")
    fig.colorbar(im, ax=b, label="(E_PE - E_EE) / E_PE  (%)")
    b.set_title("shutdown energy saved by EE (Fig. 7b)", fontsize=10)
    for ax in (a, b):
        ax.set_xlabel("x offset from the centre (µm)")
        ax.set_ylabel("y offset from the centre (µm)")
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


EXPERIMENTS = {"mems-timeout": mems_timeout, "mems-shutdown": mems_shutdown, "mems-optimum": mems_optimum}
"""Seed 004 experiments by name."""
