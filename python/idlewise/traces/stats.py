"""What a workload looks like before it is simulated: request mix, sizes, and the idle-gap
distribution, with the share of idle time a device's low-power modes could use.

With a device, idle gaps are the ones an always-on device sees (completion to next arrival, from
the engine's own FIFO replay); without one, they are the inter-arrival times. The key number is
the share of total idle time in gaps longer than each mode's break-even time: no policy can save
energy in shorter gaps, so it bounds what any policy could save.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from ..devices import load_device
from ..errors import TraceRecordError
from .trace import Trace
from ..output import save_figure

#: Log-spaced gap bins, 10 per decade from 1 ms to 10^4 s (ALGORITHMS.md 8.1).
BIN_EDGES_S = np.logspace(-3, 4, 71)


def idle_gaps_s(trace: Trace, device=None, fold_offsets: bool = False) -> np.ndarray:
    if device is None:
        gaps = np.diff(trace.time_s)
        return gaps[gaps > 0]
    device = load_device(device)
    try:
        return _core.idle_gaps(trace.time_s, trace.offset_bytes, trace.size_bytes, trace.is_write, device,
                               fold_offsets=fold_offsets)
    except TraceRecordError as e:
        raise trace.record_error(e) from None


def trace_stats(trace: Trace, device=None) -> dict:
    """Statistics of one single-device trace as a dict (JSON-ready)."""
    device = None if device is None else load_device(device)
    n = len(trace)
    reads = int(n - trace.is_write.sum())
    sizes = trace.size_bytes
    gaps = idle_gaps_s(trace, device)
    idle_total = float(gaps.sum())
    counts, _ = np.histogram(gaps, bins=BIN_EDGES_S)
    idle_by_bin, _ = np.histogram(gaps, bins=BIN_EDGES_S, weights=gaps)
    stats = {
        "trace": trace.name,
        "requests": n,
        "span_s": trace.span_s,
        "reads": reads,
        "writes": n - reads,
        "read_fraction": reads / n if n else 0.0,
        "bytes_read": int(sizes[trace.is_write == 0].sum()),
        "bytes_written": int(sizes[trace.is_write == 1].sum()),
        "size_bytes": {"min": int(sizes.min()), "p50": float(np.percentile(sizes, 50)), "mean": float(sizes.mean()),
                       "p90": float(np.percentile(sizes, 90)), "p99": float(np.percentile(sizes, 99)), "max": int(sizes.max())},
        "gaps": {
            "definition": "completion to next arrival on an always-on device" if device is not None else "inter-arrival time",
            "count": int(len(gaps)),
            "idle_total_s": idle_total,
            "median_s": float(np.median(gaps)) if len(gaps) else 0.0,
            "mean_s": float(gaps.mean()) if len(gaps) else 0.0,
            "max_s": float(gaps.max()) if len(gaps) else 0.0,
            "below_1ms": int((gaps < BIN_EDGES_S[0]).sum()),
            "above_10000s": int((gaps >= BIN_EDGES_S[-1]).sum()),
            "histogram": [{"from_s": float(a), "to_s": float(b), "count": int(c), "idle_s": float(w)}
                          for a, b, c, w in zip(BIN_EDGES_S[:-1], BIN_EDGES_S[1:], counts, idle_by_bin) if c],
        },
    }
    if device is not None:
        modes = []
        for m in device.modes[1:]:
            be = m["break_even_s"]
            longer = gaps > be
            modes.append({"mode": m["name"], "break_even_s": be, "gaps_longer": int(longer.sum()),
                          "idle_share_longer": float(gaps[longer].sum() / idle_total) if idle_total else 0.0})
        stats["device"] = device.name
        stats["modes"] = modes
    return stats


def draw_gap_histogram(ax, stats: dict) -> None:
    """One trace's idle-gap histogram on ``ax`` (log scale, count and cumulative share of idle
    time), each mode's break-even time marked, as seed 004 Figure 4a."""
    hist = stats["gaps"]["histogram"]
    left = [h["from_s"] for h in hist]
    width = [h["to_s"] - h["from_s"] for h in hist]
    ax.bar(left, [h["count"] for h in hist], width=width, align="edge", color="#4c72b0", edgecolor="white", label="gaps")
    ax.set_xscale("log")
    ax.set_xlabel("idle gap length (s)")
    ax.set_ylabel("number of gaps")
    share = ax.twinx()
    total = stats["gaps"]["idle_total_s"] or 1.0
    share.step([h["to_s"] for h in hist], np.cumsum([h["idle_s"] for h in hist]) / total, where="pre",
               color="#dd8452", label="cumulative share of idle time")
    share.set_ylim(0, 1.02)
    share.set_ylabel("share of idle time")
    for m in stats.get("modes", []):
        if np.isfinite(m["break_even_s"]):
            ax.axvline(m["break_even_s"], color="#55a868", linestyle="--")
            ax.text(m["break_even_s"], ax.get_ylim()[1] * (0.95 - 0.17 * stats["modes"].index(m)), f" {m['mode']} break-even\n {m['idle_share_longer']:.0%} of idle time beyond",
                    fontsize=7, va="top", color="#2d6a3e")
    ax.set_title(f"{stats['trace']}: {stats['gaps']['count']:,} idle gaps ({stats['gaps']['definition']})"
                 + (f", {stats['device']}" if "device" in stats else ""), fontsize=9)


def plot_gap_histogram(stats_list: list[dict], path: str) -> None:
    """Idle-gap histograms, one panel per stream (:func:`draw_gap_histogram`), to an image file."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(stats_list), 1, figsize=(8, 3.2 * len(stats_list)), squeeze=False)
    for ax, stats in zip(axes[:, 0], stats_list):
        draw_gap_histogram(ax, stats)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)


__all__ = ["BIN_EDGES_S", "draw_gap_histogram", "idle_gaps_s", "plot_gap_histogram", "trace_stats"]
