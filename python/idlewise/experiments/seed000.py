"""Seed 000's three experiments, each a function of application traces that returns rows and can
draw its figure:

- ``static-vs-adaptive`` (Figure 7): the static cache (always read cached data from the disk;
  the card in PSM, a fixed disk timeout) against the adaptive cache with STPM at knob 50: mean
  response time and total energy.
- ``knob`` (Figures 8-9): the adaptive cache at knobs 0-100, with the §5.3 energy lower bound.
- ``ghost-hints`` (Figures 10-12): the knob sweep with and without ghost hints.
- ``static-baselines``: Figure 7 against every static baseline the seed leaves open. Its static
  strategy leaves the microdrive to "the microdrive's ABLE adaptive power manager", whose timers
  it does not give: fixed standby timeouts, two-stage ABLE-like managers (low-power idle, then
  standby), the multiple-experts adaptive learner, and no power management.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..system import AppTrace, read_app_trace, run_cache
from ..output import save_figure

KNOBS = (0, 50, 70, 90, 95, 99, 100)


def _row(trace, variant, **kw):
    r = run_cache(trace, **kw)
    r["variant"] = variant
    return r


#: Seed 000's Figure 3 reads: what, served by the disk (else the network), bytes, and the
#: serving device's mode at the read (the other rests in its low-power mode: the card in PSM,
#: the disk in standby).
FIGURE3_READS = (
    ("32 KB from the microdrive in performance idle", True, 32768, "performance-idle"),
    ("32 KB from the server, card in CAM", False, 32768, "cam"),
    ("32 KB from the microdrive in standby", True, 32768, "standby"),
    ("512 KB from the microdrive in standby", True, 524288, "standby"),
    ("512 KB from the server, card in CAM", False, 524288, "cam"),
    ("32 KB from the server, card in PSM", False, 32768, "psm"),
)


def figure3(storage="hitachi-microdrive-1gb", network="cisco-350") -> list[dict]:
    """Figure 3's reads, one at a time through the system engine (the static cache, no device's
    power management acting): each read's response time and the whole system's energy, the
    platform at its base power and, while a device serves, the fitted CPU power."""
    rows = []
    for what, from_disk, size, mode in FIGURE3_READS:
        trace = AppTrace(np.array([0.0]), np.array(["object"]), np.array([size]), np.array([False]), np.array([from_disk]),
                         name=what)
        r = run_cache(trace, storage=storage, network=network, cache="static", storage_policy="always-on",
                      network_policy="always-on", storage_initial_mode=mode if from_disk else "standby",
                      network_initial_mode="psm" if from_disk else mode)
        rows.append({"read": what, "from": "disk" if from_disk else "network", "size_bytes": size, "mode": mode,
                     "response_s": r["mean_response_s"], "energy_j": r["energy_j"]})
    return rows


def static_vs_adaptive(workloads, plot=None):
    rows = []
    for path in workloads:
        trace = read_app_trace(path)
        rows.append(_row(trace, "static", cache="static"))
        rows.append(_row(trace, "adaptive", cache="adaptive", knob=50))
    if plot:
        _bars(rows, plot)
    return rows


#: The static baseline's disk management, which the seed leaves to the microdrive's ABLE: every
#: plausible reading, from no power management to aggressive timeouts.
STATIC_BASELINES = (
    ("no disk power management", "always-on"),
    *((f"standby after {t} s", f"timeout:standby={t}s") for t in (2, 5, 10, 20, 30, 60)),
    *((f"ABLE-like: low-power idle after {a}, standby after {b} s", f"timeout:low-power-idle={a},standby={b}s")
      for a in ("500ms", "2s") for b in (10, 30)),
    ("adaptive learner (multiple experts)", "experts"),
)


def static_baselines(workloads, plot=None):
    """One row per (workload, static baseline): the static cache under that disk management, the
    adaptive cache at knob 50, and Figure 7's change from the one to the other."""
    rows = []
    for path in workloads:
        trace = read_app_trace(path)
        adaptive = run_cache(trace, cache="adaptive", knob=50)
        for label, policy in STATIC_BASELINES:
            static = run_cache(trace, cache="static", storage_policy=policy)
            rows.append({"workload": trace.name, "baseline": label, "storage_policy": policy,
                         "static_mean_response_s": static["mean_response_s"], "static_energy_j": static["energy_j"],
                         "adaptive_mean_response_s": adaptive["mean_response_s"], "adaptive_energy_j": adaptive["energy_j"],
                         "response_change": adaptive["mean_response_s"] / static["mean_response_s"] - 1,
                         "energy_change": adaptive["energy_j"] / static["energy_j"] - 1})
    return rows


#: Bursts of cached reads on a sleeping disk: how many, how large, how far apart; and the knob.
HINT_BURSTS = {"reads": (10, 40, 100, 400), "size_bytes": (4096, 16384, 65536), "think_s": (0.1, 0.5, 2.0), "knob": (50, 90, 99)}


def burst_of_cached_reads(reads: int, size_bytes: int, think_s: float) -> AppTrace:
    """`reads` cached objects of `size_bytes`, read `think_s` apart (a user paging through mail or
    photos already on the device)."""
    return AppTrace(time_s=np.arange(reads) * float(think_s), object=np.array([f"item-{i}" for i in range(reads)]),
                    size_bytes=np.full(reads, size_bytes), is_write=np.zeros(reads, dtype=bool), cached=np.ones(reads, dtype=bool),
                    name=f"{reads} x {size_bytes // 1024} KB every {think_s:g} s")


def ghost_hint_conditions(workloads=None, plot=None):
    """When do ghost hints give a strictly better point (faster *and* cheaper) than the same knob
    without them? Bursts of cached reads (``HINT_BURSTS``) on a disk that starts in standby, with
    and without hints; one row per burst and knob, ``dominates`` when hints win on both counts."""
    rows = []
    for reads, size, think, k in itertools.product(*HINT_BURSTS.values()):
        trace = burst_of_cached_reads(reads, size, think)
        with_hints = run_cache(trace, knob=k, storage_initial_mode="standby")
        without = run_cache(trace, knob=k, ghost_hints=False, storage_initial_mode="standby")
        rows.append({"reads": reads, "size_bytes": size, "think_s": think, "knob": k,
                     "with_hints_mean_response_s": with_hints["mean_response_s"], "with_hints_energy_j": with_hints["energy_j"],
                     "without_mean_response_s": without["mean_response_s"], "without_energy_j": without["energy_j"],
                     "hint_spin_ups": with_hints["hint_spin_ups"],
                     "dominates": with_hints["mean_response_s"] < without["mean_response_s"] and with_hints["energy_j"] < without["energy_j"]})
    return rows


def knob(workloads, plot=None):
    rows = [_row(read_app_trace(p), "adaptive", knob=k) for p in workloads for k in KNOBS]
    if plot:
        _curves(rows, plot, by="variant")
    return rows


def ghost_hints(workloads, plot=None):
    rows = []
    for path in workloads:
        trace = read_app_trace(path)
        for k in KNOBS:
            rows.append(_row(trace, "with hints", knob=k))
            rows.append(_row(trace, "without hints", knob=k, ghost_hints=False))
    if plot:
        _curves(rows, plot, by="variant")
    return rows


def _figure(n):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, n, figsize=(5.5 * n, 7), squeeze=False)
    return plt, fig, axes


def _bars(rows, path):
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    plt, fig, axes = _figure(len(workloads))
    for col, w in enumerate(workloads):
        mine = [r for r in rows if r["workload"] == w]
        names = [r["variant"] for r in mine]
        axes[0, col].bar(names, [r["mean_response_s"] for r in mine], color=["#999999", "#4c72b0"])
        axes[0, col].set_ylabel("mean response time (s)")
        axes[0, col].set_title(w, fontsize=9)
        axes[1, col].bar(names, [r["energy_j"] for r in mine], color=["#999999", "#4c72b0"])
        axes[1, col].axhline(mine[0]["energy_lower_bound_j"], linestyle=":", color="black", label="lower bound (§5.3)")
        axes[1, col].set_ylabel("total energy (J)")
        axes[1, col].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)


def _curves(rows, path, by):
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    plt, fig, axes = _figure(len(workloads))
    for col, w in enumerate(workloads):
        mine = [r for r in rows if r["workload"] == w]
        for variant in dict.fromkeys(r[by] for r in mine):
            curve = [r for r in mine if r[by] == variant]
            style = "-" if variant != "without hints" else "--"
            axes[0, col].plot([r["knob"] for r in curve], [r["mean_response_s"] for r in curve], style, marker="o", label=variant)
            axes[1, col].plot([r["knob"] for r in curve], [r["energy_j"] for r in curve], style, marker="o", label=variant)
        axes[1, col].plot([r["knob"] for r in mine], [r["energy_lower_bound_j"] for r in mine], ":", color="black", label="lower bound (§5.3)")
        axes[0, col].set_title(w, fontsize=9)
        axes[0, col].set_ylabel("mean response time (s)")
        axes[1, col].set_ylabel("total energy (J)")
        for ax in axes[:, col]:
            ax.set_xlabel("knob (0 = energy, 100 = performance)")
            ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)


EXPERIMENTS = {"static-baselines": static_baselines, "ghost-hint-conditions": ghost_hint_conditions, "static-vs-adaptive": static_vs_adaptive, "knob": knob, "ghost-hints": ghost_hints}
"""Seed 000 experiments by name: each takes application trace paths and an optional plot path."""
