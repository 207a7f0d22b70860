"""What every idlewise figure shares: axes made without pyplot, one unit style per axis (SI
prefixes of the axis' unit, minor ticks unlabelled on a log scale), and point labels thinned to
what fits, so a figure reads the same for 3 runs or 601."""

from __future__ import annotations

import math

#: Where a point's label may go, in points from the point, in the order they are tried.
_LABEL_SPOTS = [(5, 4), (5, -10), (-5, 4), (-5, -10), (5, 12), (5, -18), (-5, 12), (-5, -18), (12, -3), (-12, -3)]


def subplots(nrows: int = 1, ncols: int = 1, **kwargs):
    """A figure and its axes, made without pyplot: no global figure list to close, and no wait
    for pyplot's import (a tenth of a small report's time)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=kwargs.pop("figsize", None))
    return fig, fig.subplots(nrows, ncols, **kwargs)


def lay_out(fig, panels: int) -> None:
    """Spaces stacked panels so that no title or axis label overlaps the panel above; a single
    panel needs nothing (its file is cut to what it holds, ``bbox_inches="tight"``), and
    leaving out the extra layout pass saves about 0.03 s a figure."""
    if panels > 1:
        fig.tight_layout()


def seconds_label(seconds: float) -> str:
    """A time on an axis: SI prefixes of the second up to seconds, then whole seconds with
    thousands separators (``1 ms``, ``200 ms``, ``5 s``, ``3,600 s``), never ``3×10⁰``."""
    if seconds == 0:
        return "0 s"
    magnitude = abs(seconds)
    for scale, unit in ((1e-6, "µs"), (1e-3, "ms"), (1.0, "s")):
        if magnitude < scale * 1000 or unit == "s":
            value = seconds / scale
            if unit == "s" and magnitude >= 1000:
                return f"{value:,.0f} s"
            return f"{value:.3g} {unit}"
    raise AssertionError("unreachable")


def unit_axis(axis, unit: str) -> None:
    """Labels ``axis`` in one style: seconds by :func:`seconds_label`, any other unit with SI
    prefixes (``kJ``); on a log scale a tick at each decade, and at 2 and 5 times it where
    the axis spans three decades or less, the minor ticks left unlabelled (their labels were
    ``3×10⁻²`` beside ``100 ms``, and collided)."""
    from matplotlib.ticker import EngFormatter, FuncFormatter, LogLocator, NullFormatter

    formatter = FuncFormatter(lambda value, _: seconds_label(value)) if unit == "s" else EngFormatter(unit=unit)
    axis.set_major_formatter(formatter)
    if axis.get_scale() == "log":
        low, high = axis.get_view_interval()
        decades = math.log10(high / low) if low > 0 and high > low else math.inf
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades <= 3 else (1.0,)))
        axis.set_minor_formatter(NullFormatter())


def spread_order(count: int) -> list[int]:
    """Indices 0..count-1 in the order that spreads them along a line: both ends, the middle,
    the quarters, and so on; labels placed in this order, each only where it fits, thin a
    dense sweep evenly."""
    if count <= 2:
        return list(range(count))
    order, seen = [0, count - 1], {0, count - 1}
    spans = [(0, count - 1)]
    while spans:
        following = []
        for low, high in spans:
            middle = (low + high) // 2
            if middle not in seen:
                seen.add(middle)
                order.append(middle)
            if middle - low > 1:
                following.append((low, middle))
            if high - middle > 1:
                following.append((middle, high))
        spans = following
    return order


def place_labels(ax, labels, fontsize: float = 7, optional=()) -> int:
    """Labels each point of ``labels`` (``(x, y, text, colour)``) beside it, in the first of
    :data:`_LABEL_SPOTS` where it overlaps no label placed before and no point (boxes
    estimated from the text's length); if none is free, in the least crowded one. Labels of
    ``optional`` (``(x, y, text, colour)`` too, placed after ``labels``, in their order) go only
    where one is free: the rest are left to the table. Call once the axes' limits and scales are
    final. Returns how many optional labels were left out."""
    fig = ax.figure
    scale = fig.dpi / 72.0
    char_w, line_h = 0.6 * fontsize * scale, 1.2 * fontsize * scale
    everything = list(labels) + list(optional)
    points = [ax.transData.transform((x, y)) for x, y, _, _ in everything]
    # The boxes taken so far, filed in a grid of cells a label wide: a candidate is tested only
    # against the boxes in the cells it touches (a sweep of 601 timeouts made 5.3M tests of
    # every label against every other).
    cell = max(char_w * 12, line_h)
    grid: dict = {}

    def cells(box):
        for i in range(int(box[0] // cell), int(box[2] // cell) + 1):
            for j in range(int(box[1] // cell), int(box[3] // cell) + 1):
                yield i, j

    def take(box) -> None:
        for c in cells(box):
            grid.setdefault(c, []).append(box)

    def crowd(box) -> float:
        near = {id(t): t for c in cells(box) for t in grid.get(c, ())}
        return sum(overlap(box, t) for t in near.values())

    def taken(box) -> float:
        return float(any(overlap(box, t) > 0 for c in cells(box) for t in grid.get(c, ())))

    def overlap(a, b) -> float:
        w = min(a[2], b[2]) - max(a[0], b[0])
        h = min(a[3], b[3]) - max(a[1], b[1])
        return w * h if w > 0 and h > 0 else 0.0

    # Runs with the same result (every timeout longer than the longest gap) sit on one point:
    # one box for them all, or a free spot would be tested against hundreds of copies.
    for px, py in {(round(px), round(py)) for px, py in points}:
        take((px - 4 * scale, py - 4 * scale, px + 4 * scale, py + 4 * scale))
    left_out = 0
    for k, ((x, y, text, color), (px, py)) in enumerate(zip(everything, points)):
        width = char_w * len(text)
        best = None
        # An optional label asks only whether a spot is free, not how crowded it is.
        measure = crowd if k < len(labels) else taken
        for dx, dy in _LABEL_SPOTS:
            left = px + dx * scale - (width if dx < 0 else 0)
            box = (left, py + dy * scale, left + width, py + dy * scale + line_h)
            crowded = measure(box)
            if best is None or crowded < best[0]:
                best = (crowded, dx, dy, box)
            if crowded == 0:
                break
        crowded, dx, dy, box = best
        if crowded > 0 and k >= len(labels):
            left_out += 1
            continue
        take(box)
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy), fontsize=fontsize, color=color,
                    ha="right" if dx < 0 else "left", va="bottom")
    return left_out


__all__ = ["lay_out", "place_labels", "seconds_label", "spread_order", "subplots", "unit_axis"]
