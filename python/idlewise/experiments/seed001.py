"""Seed 001 (PuRPLe): Figure 1(b), the mechanical power of a WD1200-class disk under random reads
over a growing fraction of its blocks, drawn from the engine's seek curve and arm power.

Each point replays :func:`~idlewise.traces.synthetic.random_blocks` closed loop with no think time
(the disk always busy, as the seed's benchmark keeps it) on the catalog's ``wd-caviar-wd1200jb``
under ``always-on``; the mechanical power is the run's energy over its time. Only the arm power
(``seek_power_w``) is fitted, to one point of the figure; the curve's shape between comes from
the datasheet seek curve.
"""

from __future__ import annotations

import numpy as np

from ..simulate import simulate
from ..traces.synthetic import random_blocks

DEVICE = "wd-caviar-wd1200jb"
#: The WD1200JB's capacity (Tom's Hardware review: 120 GB), which the seek curve's 60,000
#: cylinders of 2 MB cover.
CAPACITY_BYTES = 120e9
#: Seed 001 section 2: about 1.7 W with practically no arm movement, almost 3 W when movements
#: average 27-30 % of the block range.
SEED_FIGURE_1B = {"no_movement_w": 1.7, "busy_w": 3.0, "busy_mean_movement": (0.27, 0.30)}


def arm_power(workloads=None, plot=None, fractions=None, requests: int = 2000, seed: int = 0) -> list[dict]:
    """One row per range fraction (0..1 of the disk): mechanical power, mean arm movement as a
    fraction of the disk, mean service time and the share of it spent seeking."""
    if fractions is None:
        # Fine steps near zero, where the first short seeks change the power most.
        fractions = [0.0, 0.001, 0.002, 0.005, 0.01, 0.02] + [round(f, 10) for f in np.linspace(0.05, 1.0, 20)]
    rows = []
    for f in fractions:
        trace = random_blocks(float(f), CAPACITY_BYTES, requests=requests, seed=seed)
        r = simulate(trace, DEVICE, "always-on", replay="closed", progress=False)[0]
        movement = np.abs(np.diff(trace.offset_bytes.astype(np.float64))).mean() / CAPACITY_BYTES
        rows.append({"range_fraction": float(f), "mechanical_power_w": r["energy_j"] / r["execution_time_s"],
                     "mean_movement_fraction": float(movement), "mean_service_s": r["execution_time_s"] / requests,
                     "device": DEVICE, "requests": requests})
    if plot:
        plot_arm_power(rows, plot)
    return rows


def plot_arm_power(rows: list[dict], path: str) -> None:
    """Figure 1(b): mechanical power against the range of blocks, with the seed's two readings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["range_fraction"] * 100 for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(x, [r["mechanical_power_w"] for r in rows], "o-", color="tab:blue", label="idlewise (seek curve + fitted arm power)")
    low, high = SEED_FIGURE_1B["busy_mean_movement"]
    # The seed states movement, not range: a uniform range moves the arm a third of it on average.
    ax.axvspan(3 * low * 100, 3 * high * 100, color="tab:orange", alpha=0.15,
               label="seed: almost 3 W at movements of 27-30 % (ranges of 81-90 %)")
    ax.axhline(SEED_FIGURE_1B["no_movement_w"], color="grey", ls=":", label="seed: about 1.7 W with no arm movement")
    ax.axhline(SEED_FIGURE_1B["busy_w"], color="tab:orange", ls=":")
    ax.set_xlabel("range of blocks read at random (% of the disk)")
    ax.set_ylabel("mechanical power (W)")
    ax.set_xlim(0, 100)
    ax.set_ylim(1.5, 3.2)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("Seed 001 Figure 1(b): WD1200JB mechanical power, random 4 KiB reads back to back", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


EXPERIMENTS = {"arm-power": arm_power}
"""Seed 001 experiments by name."""
