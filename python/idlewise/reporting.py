"""`idlewise report`: one self-contained HTML file a researcher or administrator can open
anywhere (no network): the trace's summary and idle-gap histogram against each mode's
break-even time, a sortable results table, energy by mode, the energy–response trade-off,
wake-ups against rated cycles, and a mode timeline for a window.

The figures are matplotlib SVGs (text kept as text) placed in a Jinja2 template; the runs are
the flat rows of :meth:`Results.to_pandas` — the same rows `idlewise sweep --out` writes, so a
sweep's Parquet file makes a report too (without the trace's own sections)."""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import __version__
from .devices import WEAR_RATINGS
from .errors import IdlewiseError
from .plotting import lay_out, place_labels, seconds_label, spread_order, subplots, unit_axis
from .traces.inputs import trace_name

#: Lifetime over which rated start/stop cycles are spread in the wake-ups figure (the advisor's).
LIFETIME_YEARS = 5.0
#: The mode timeline's default window length (see :func:`busiest_window`).
DEFAULT_WINDOW_S = 1800.0

_READY = "#6cc08b"
_SERVING = "#1f4e79"
_WAKE = "#e4572e"
_DOWN = "#f2a541"
_LOW = ["#9aa5b1", "#6b7785", "#434c57", "#262b31"]


@dataclass
class Section:
    """One part of the report: a heading, an SVG figure or a note, and a caption."""
    title: str
    svg: str | None = None
    note: str | None = None
    caption: str | None = None


@dataclass
class ReportContent:
    title: str
    summary: list[tuple[str, str]] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    rows: list[list[tuple[str, object]]] = field(default_factory=list)


def _svg(fig, name: str) -> str:
    """The figure as inline SVG markup: text stays text (small, searchable), ids salted by the
    figure's name so several SVGs in one page never share a clip path, no date (reports of the
    same runs are byte-identical)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight", dpi=150)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _fmt_time(seconds) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    if seconds == 0:
        return "0 s"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 7200:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"


def _finite(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def point_label(row, alone: bool = False) -> str:
    """A run's short label on a plot: a timeout's value, a knob, the family when it is the
    only run of its family (``alone``), else the policy."""
    from .policies import family_of

    family = family_of(row)
    timeout = _finite(row.get("timeout_s"))
    knob = _finite(row.get("knob"))
    if timeout is not None:
        # In the trade-off's axis style: 562 s, not 9.37 min.
        return seconds_label(timeout) if family == "timeout" else f"{family} {seconds_label(timeout)}"
    if knob is not None:
        return f"{family} {knob:g}"
    return family if alone else str(row["policy"])


#: Panels a figure draws at most: a sweep of many traces, devices and transforms gets the first
#: ones plotted (the caption says how many of how many) and every run in the table. 64 panels
#: of labelled points took 45 s to draw and were not read.
MAX_PANELS = 6


def _panels(rows, limit: int | None = MAX_PANELS):
    """Rows grouped by what they ran on (trace, stream, transform, device): points of
    different groups are never joined or compared on one set of axes. The first ``limit``."""
    return _groups(rows)[:limit]


def _groups(rows):
    from .results import GROUP_KEYS

    keys = [k for k in GROUP_KEYS if k in rows.columns]
    if not keys:
        return [("", rows)]
    groups = []
    for key, group in rows.groupby(keys, dropna=False, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        name = ", ".join(f"{k} {v}" if k == "stream" else str(v) for k, v in zip(keys, key)
                         if v is not None and not (isinstance(v, float) and math.isnan(v)) and str(v) not in ("", "none"))
        groups.append((name, group))
    return groups


def _references(group) -> dict:
    """Always-on and the oracle of a panel, from the rows themselves when they ran, else from
    any row's normalisations (energy / normalized energy is always-on's energy)."""
    out = {}
    for name in ("always-on", "oracle"):
        own = group[group["policy"] == name]
        if len(own):
            out[name] = (float(own["mean_response_s"].iloc[0]), float(own["energy_j"].iloc[0]))
    row = group.iloc[0]
    on_energy = _finite(row["energy_j"] / row["normalized_energy"]) if row.get("normalized_energy") else None
    on_response = _finite(row["mean_response_s"] / row["normalized_mean_response"]) if row.get("normalized_mean_response") else None
    if "always-on" not in out and on_energy is not None and on_response is not None:
        out["always-on"] = (on_response, on_energy)
    oracle_energy = _finite(row["energy_j"] / row["energy_vs_oracle"]) if row.get("energy_vs_oracle") else None
    if "oracle" not in out and oracle_energy is not None and on_response is not None:
        # The oracle never delays a request: its responses are always-on's.
        out["oracle"] = (on_response, oracle_energy)
    return out


def tradeoff_figure(rows) -> str:
    """Energy against mean response, one panel per (trace, device); the runs of one swept
    family joined in parameter order, always-on and the oracle marked. The references and each
    family's two ends are always labelled; the other runs where a label fits, spread along
    their line (the rest are in the table): a sweep of 601 timeouts reads like one of 12."""
    from matplotlib.ticker import EngFormatter

    import matplotlib

    panels = _panels(rows)
    fig, axes = subplots(len(panels), 1, figsize=(9, 4.6 * len(panels)), squeeze=False)
    cmap = matplotlib.colormaps["tab10"]
    for ax, (name, group) in zip(axes[:, 0], panels):
        policies = group[~group["policy"].isin(["always-on", "oracle"])]
        families = list(dict.fromkeys(policies["family"])) if "family" in policies else [None]
        labels, optional = [], []
        for i, family in enumerate(families):
            runs = policies if family is None else policies[policies["family"] == family]
            order = [c for c in ("timeout_s", "knob") if c in runs and runs[c].notna().any()]
            runs = runs.sort_values(order[0]) if order else runs
            color = cmap(i % 10)
            ax.plot(runs["mean_response_s"], runs["energy_j"], marker="o", markersize=4 if len(runs) > 40 else 6,
                    color=color, linewidth=1 if order else 0, label=family or "policies")
            records = runs.to_dict("records")
            for place, k in enumerate(spread_order(len(records))):
                r = records[k]
                label = (r["mean_response_s"], r["energy_j"], point_label(r, alone=len(records) == 1), color)
                (labels if place < 2 else optional).append(label)
        refs = _references(group)
        # The axes fit the policies and the oracle; always-on usually spends several times more
        # and would flatten them against the floor, so past the top it is an arrow with its value.
        fit_x = np.concatenate([policies["mean_response_s"].to_numpy(float), [v[0] for k, v in refs.items() if k == "oracle"]])
        fit_y = np.concatenate([policies["energy_j"].to_numpy(float), [v[1] for k, v in refs.items() if k == "oracle"]])
        top = fit_y.max() * 1.15 if len(fit_y) else None
        if "oracle" in refs:
            x, y = refs["oracle"]
            ax.scatter([x], [y], marker="*", s=160, color="#27ae60", zorder=4, label="oracle (offline optimum)")
            labels.append((x, y, "oracle", "#27ae60"))
        if "always-on" in refs:
            x, y = refs["always-on"]
            if top is None or y <= top:
                ax.scatter([x], [y], marker="s", s=70, color="#c0392b", zorder=4, label="always-on")
                labels.append((x, y, "always-on", "#c0392b"))
            else:
                # A marker on the top edge at its response, its energy in the legend: no text
                # over the runs' labels.
                ax.scatter([x], [top], marker="^", s=70, color="#c0392b", zorder=4, clip_on=False,
                           label=f"always-on: {EngFormatter(unit='J', places=3)(y)}, above the axes")
                fit_x = np.append(fit_x, x)
        if len(fit_x) and np.all(fit_x > 0) and fit_x.max() / fit_x.min() > 20:
            ax.set_xscale("log")
        if top is not None:
            ax.set_ylim(0, top)
        unit_axis(ax.yaxis, "J")
        unit_axis(ax.xaxis, "s")
        ax.set_xlabel("mean response time")
        ax.set_ylabel("device energy")
        ax.grid(alpha=0.3)
        # Beside the axes, never over a point.
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        left_out = place_labels(ax, labels, optional=optional)
        ax.set_title(name + (f" ({left_out:,} runs not labelled where labels would overlap: every run is in the table)"
                             if left_out else ""), fontsize=9)
    lay_out(fig, len(panels))
    return _svg(fig, "tradeoff")


#: Bars a panel draws at most: past this, the runs worth reading (sweeps.summary: the frontier,
#: each family's least energy, always-on and the oracle); every run stays in the table.
BARS_MAX = 40


def _readable(group, most: int = BARS_MAX):
    """A panel's runs, or, of a sweep of more than ``most``, those worth reading (at most
    ``most``), in the sweep's order."""
    if len(group) <= most:
        return group
    from .sweeps import summary

    # Each row carries its place in the frame through the summary, which copies and reorders rows.
    chosen = {r["_row"] for r in summary([{**r, "_row": i} for i, r in enumerate(group.to_dict("records"))])}
    chosen = sorted(chosen)
    if len(chosen) > most:
        # Always-on and the oracle stay; the rest are spread along the sweep, its ends included.
        policy = group["policy"].to_numpy()
        references = [i for i in chosen if policy[i] in ("always-on", "oracle")]
        rest = [i for i in chosen if policy[i] not in ("always-on", "oracle")]
        room = max(most - len(references), 1)
        rest = rest if len(rest) <= room else [rest[round(k * (len(rest) - 1) / max(room - 1, 1))] for k in range(room)]
        chosen = sorted(set(references + rest))
    return group.iloc[chosen]


def _bar_panels(rows):
    """A figure of horizontal-bar panels, one per (trace, device), each as tall as its runs
    need (a panel of hundreds of runs shows those worth reading: :func:`_readable`); returns it
    and (axes, (name, rows)) pairs."""
    panels = []
    for name, group in _panels(rows):
        shown = _readable(group)
        if len(shown) < len(group):
            name += f" (the {len(shown)} runs of the frontier and each family's least energy, of {len(group):,})"
        panels.append((name, shown))
    heights = [max(2.2, 0.32 * len(g) + 1.4) for _, g in panels]
    fig, axes = subplots(len(panels), 1, figsize=(9, sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    return fig, list(zip(axes[:, 0], panels))


def _label_bars(ax, labels) -> None:
    """Run names down the side, the first at the top."""
    ax.set_yticks(np.arange(len(labels)), labels, fontsize=7)
    ax.invert_yaxis()


def energy_by_mode_figure(rows) -> str:
    """Each run's energy split into residency in each mode, transitions and service: stacked
    horizontal bars, one panel per (trace, device)."""

    fig, panels = _bar_panels(rows)
    for ax, (name, group) in panels:
        modes = [c for c in group.columns if c.startswith("energy_by_mode_j.") and group[c].fillna(0).any()]
        parts = [(c.removeprefix("energy_by_mode_j."), group[c].fillna(0).to_numpy(float)) for c in modes]
        parts.append(("transitions", group["transition_energy_j"].fillna(0).to_numpy(float)))
        parts.append(("service", group["service_energy_j"].fillna(0).to_numpy(float)))
        colors = [_READY] + _LOW * 3
        labels = [str(p) for p in group["policy"]]
        y = np.arange(len(labels))
        left = np.zeros(len(labels))
        for i, (part, values) in enumerate(parts):
            color = _DOWN if part == "transitions" else _SERVING if part == "service" else colors[min(i, len(colors) - 1)]
            ax.barh(y, values, left=left, color=color, edgecolor="white", linewidth=0.5, label=part)
            left += values
        _label_bars(ax, labels)
        unit_axis(ax.xaxis, "J")
        ax.set_xlabel("device energy")
        ax.set_title(name, fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        ax.grid(axis="x", alpha=0.3)
    lay_out(fig, len(panels))
    return _svg(fig, "energy-by-mode")


#: Bar and line colours of each wear rating (devices.WEAR_RATINGS, in order).
_RATING_COLOURS = ((_WAKE, "#8e44ad"), ("#e6a23c", "#b35900"))


def wakeups_figure(rows) -> str | None:
    """Wake-ups a day that consume a rated start/stop or load/unload cycle (and all wake-ups),
    against the rate that uses up each rating in :data:`LIFETIME_YEARS` years."""
    if "cycle_wakeups_per_day" not in rows:
        return None
    from matplotlib.ticker import StrMethodFormatter

    fig, panels = _bar_panels(rows)
    for ax, (name, group) in panels:
        labels = [str(p) for p in group["policy"]]
        y = np.arange(len(labels))
        ax.barh(y, group["wakeups_per_day"].fillna(0), color="#c7d3e0", label="all wake-ups")
        ratings = [(kind, _finite(group[f"rated_{attribute}"].iloc[0]), f"{count}_per_day", bar, line)
                   for (kind, attribute, count), (bar, line) in zip(WEAR_RATINGS, _RATING_COLOURS)
                   if f"rated_{attribute}" in group and f"{count}_per_day" in group and _finite(group[f"rated_{attribute}"].iloc[0])]
        height = 0.5 if len(ratings) < 2 else 0.3
        for i, (kind, rated, per_day, bar, line) in enumerate(ratings):
            offset = 0.0 if len(ratings) < 2 else (i - 0.5) * height
            ax.barh(y + offset, group[per_day].fillna(0), height=height, color=bar, label=f"wake-ups that use a rated {kind} cycle")
            budget = rated / (LIFETIME_YEARS * 365.25)
            ax.axvline(budget, color=line, linestyle="--",
                       label=f"{rated:,.0f} rated {kind} cycles over {LIFETIME_YEARS:g} years = {budget:,.0f} a day")
        if not ratings:
            ax.barh(y, group["cycle_wakeups_per_day"].fillna(0), height=0.5, color=_WAKE, label="wake-ups out of a stopped spindle")
        _label_bars(ax, labels)
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
        ax.set_xlabel("wake-ups per day")
        ax.set_title(name + ("" if ratings else " (the device rates no start/stop or load/unload cycles)"), fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        ax.grid(axis="x", alpha=0.3)
    lay_out(fig, len(panels))
    return _svg(fig, "wakeups")


def _activity_color(activity: str, modes: list[str]) -> str:
    if activity == "serving":
        return _SERVING
    if "→" in activity:
        return _WAKE if activity.endswith("→" + modes[0]) else _DOWN
    depth = modes.index(activity) if activity in modes else 1
    return _READY if depth == 0 else _LOW[min(depth - 1, len(_LOW) - 1)]


#: Policies a mode timeline draws at most (those worth reading, :func:`_readable`); a row
#: each, so more would not be read.
TIMELINE_ROWS = 12
#: Columns of the picture a timeline's segments are painted into: a segment is at least one
#: column wide, so a millisecond of service in a half-hour window still shows.
_TIMELINE_PIXELS = 1800
_SUB = 20


def _rgba(color: str) -> np.ndarray:
    from matplotlib.colors import to_rgba

    return np.array(to_rgba(color))


def _painted(spans: np.ndarray, width: int) -> np.ndarray:
    """Which of ``width`` columns the ``(start, end)`` spans (in columns) cover, each span at
    least one column wide: a running count of spans begun less spans ended."""
    first = np.clip(np.floor(spans[:, 0]).astype(np.int64), 0, width - 1)
    last = np.clip(np.maximum(np.ceil(spans[:, 1]).astype(np.int64), first + 1), 1, width)
    counts = np.zeros(width + 1, np.int64)
    np.add.at(counts, first, 1)
    np.add.at(counts, last, -1)
    return np.cumsum(counts[:-1]) > 0


def timeline_figure(timeline, arrivals_s, window_s: tuple[float, float], modes: list[str], title: str) -> str:
    """What the device did in the window under each policy: one row per policy, a colour per
    mode (the deeper, the darker), wake-ups red, spin-downs amber, service blue; the requests'
    arrivals as ticks above. Times from the window's start.

    The rows are painted into one picture (thousands of segments drawn one by one took seconds
    and made the page megabytes), transitions and service last so that a short one shows."""
    from matplotlib.patches import Patch

    import pandas as pd

    rows, policies = pd.factorize(timeline["policy"])
    policies = [str(p) for p in policies]
    codes, activities = pd.factorize(timeline["activity"])
    start, end = window_s
    scale, unit = (60.0, "min") if end - start > 600 else (1.0, "s")
    fig, ax = subplots(figsize=(10, 0.55 * len(policies) + 1.9))
    per_column = (end - start) / _TIMELINE_PIXELS
    # Each policy's row: 14 of _SUB picture rows coloured, the rest a gap to the next.
    picture = np.zeros((_SUB * (len(policies) + 1), _TIMELINE_PIXELS, 4), np.float32)
    seen = {}
    spans = np.column_stack([(timeline["start_s"].to_numpy(float) - start) / per_column,
                             (timeline["end_s"].to_numpy(float) - start) / per_column])
    for code in sorted(range(len(activities)), key=lambda c: (activities[c] == "serving" or "→" in activities[c], activities[c])):
        name = str(activities[code])
        color = seen[name] = _activity_color(name, modes)
        of_it = codes == code
        for row in np.unique(rows[of_it]):
            covered = _painted(spans[of_it & (rows == row)], _TIMELINE_PIXELS)
            picture[_SUB * row + 3: _SUB * row + 17, covered] = _rgba(color)
    arrivals = np.asarray(arrivals_s, dtype=float)
    if len(arrivals):
        at = (arrivals - start) / per_column
        covered = _painted(np.column_stack([at, at]), _TIMELINE_PIXELS)
        picture[_SUB * len(policies) + 4: _SUB * len(policies) + 16, covered] = _rgba("#333333")
    length = (end - start) / scale
    ax.imshow(picture, aspect="auto", interpolation="nearest", extent=(0, length, len(policies) + 0.5, -0.5))
    ax.set_yticks(list(range(len(policies))) + [len(policies)],
                  policies + [f"requests ({len(arrivals):,})"], fontsize=7)
    ax.set_ylim(len(policies) + 0.6, -0.6)
    ax.set_xlim(0, length)
    ax.set_xlabel(f"time from {_fmt_time(start)} into the trace ({unit})")
    ax.set_title(title, fontsize=9)
    order = sorted(seen, key=lambda a: (a != "serving", "→" in a, modes.index(a) if a in modes else 99, a))
    ax.legend(handles=[Patch(color=seen[a], label=a) for a in order], fontsize=7, ncol=min(4, len(order)),
              loc="upper center", bbox_to_anchor=(0.5, -0.28 if len(policies) < 4 else -0.12))
    return _svg(fig, "timeline")


def gap_histogram_figure(stats_list: list[dict]) -> str:
    from .traces.stats import draw_gap_histogram

    fig, axes = subplots(len(stats_list), 1, figsize=(9, 3.4 * len(stats_list)), squeeze=False)
    for ax, stats in zip(axes[:, 0], stats_list):
        draw_gap_histogram(ax, stats)
    lay_out(fig, len(stats_list))
    return _svg(fig, "gaps")


#: The results table: (header, row column, how to show it).
TABLE = [
    ("policy", "policy", str),
    ("device", "device", str),
    ("energy (J)", "energy_j", lambda v: f"{v:,.1f}"),
    ("vs always-on", "normalized_energy", lambda v: f"{v:.3f}"),
    ("vs oracle", "energy_vs_oracle", lambda v: f"{v:.3f}"),
    ("mean response", "mean_response_s", _fmt_time),
    ("p99 response", "p99_response_s", _fmt_time),
    ("delayed requests", "delayed_requests", lambda v: f"{int(v):,}"),
    ("wake-ups (any mode)", "wakeups", lambda v: f"{int(v):,}"),
    ("wake-ups a day (any mode)", "wakeups_per_day", lambda v: f"{v:,.1f}"),
    ("spin-ups a day", "cycle_wakeups_per_day", lambda v: f"{v:,.1f}"),
    ("head loads a day", "load_unload_wakeups_per_day", lambda v: f"{v:,.1f}"),
    ("years to rated cycles", "years_to_rated_cycles", lambda v: "never" if v == math.inf else f"{v:,.1f}"),
]


def _table(rows) -> tuple[list[str], list[list[tuple[str, object]]]]:
    """Headers, and cells as (text, sort key): numbers sort as numbers, missing ones last."""
    # What every row shares (one device, one trace) is in the summary, not in a column.
    shown = [(h, c, f) for h, c, f in TABLE if c in rows.columns and not (c == "device" and rows[c].astype(str).nunique() == 1)]
    for key in ("trace", "stream", "transform"):
        if key in rows.columns and rows[key].astype(str).nunique() > 1:
            shown.insert(1, (key, key, str))
    out = []
    for _, r in rows.iterrows():
        cells = []
        for _, column, show in shown:
            value = r[column]
            if value is None or (isinstance(value, float) and math.isnan(value)):
                cells.append(("-", ""))
            elif isinstance(value, str):
                cells.append((value, value))
            else:
                number = float(value)
                cells.append((show(value), "1e308" if number == math.inf else repr(number)))
        out.append(cells)
    return [h for h, _, _ in shown], out


def render(content: ReportContent) -> str:
    """The page: the Jinja2 template of this package, autoescaped; figures are trusted SVG."""
    import jinja2
    from markupsafe import Markup

    env = jinja2.Environment(loader=jinja2.PackageLoader("idlewise", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    template = env.get_template("report.html.j2")
    sections = [Section(s.title, Markup(s.svg) if s.svg else None, s.note, s.caption)
                for s in content.sections]
    return template.render(title=content.title, summary=content.summary, sections=sections, columns=content.columns,
                           rows=content.rows, version=__version__)


def _results_sections(rows) -> list[Section]:
    groups = len(_groups(rows))
    shown = (f" The first {MAX_PANELS} of {groups:,} groups (trace, stream, transform, device) are plotted; every run "
             "is in the table." if groups > MAX_PANELS else "")
    sections = [
        Section("Energy and response", tradeoff_figure(rows),
                caption="Each run's device energy against its mean response time; a swept family's runs are joined in "
                        "parameter order and labelled with their value where a label fits (every run is in the table). "
                        "Always-on (a square, or a triangle on the top edge when it spends far more) and the offline "
                        "oracle (star) bound what a policy can reach." + shown),
        Section("Energy by mode", energy_by_mode_figure(rows),
                caption="Where each run's energy went: residency in each mode, transitions, and serving requests." + shown),
    ]
    wakeups = wakeups_figure(rows)
    if wakeups:
        sections.append(Section("Wake-ups and rated cycles", wakeups,
                                caption="Wake-ups a day; those out of modes that park the heads or stop the spindle use a "
                                        "rated start/stop (or load/unload) cycle." + shown))
    return sections


def _write(html: str, out) -> Path:
    from .output import written_whole

    out = Path(out)
    try:
        with written_whole(out) as temporary:
            Path(temporary).write_text(html, encoding="utf-8")
    except OSError as e:
        raise IdlewiseError(f"{out}: cannot write the report ({e.strerror or e})") from None
    return out


def parse_window(text: str) -> tuple[float, float]:
    """``FROM..TO``: durations into the trace from its first request (``1h..2h``, ``0..600s``)."""
    from . import _core

    start, sep, end = text.partition("..")
    if not sep:
        raise IdlewiseError(f"window {text!r}: write it FROM..TO, e.g. 1h..2h (times from the trace's first request)")
    try:
        window = (_core.parse_duration_s(start or "0s"), _core.parse_duration_s(end))
    except (_core.IdlewiseError, ValueError) as e:
        raise IdlewiseError(f"window {text!r}: {e}") from None
    if not window[1] > window[0]:
        raise IdlewiseError(f"window {text!r}: TO must be later than FROM")
    return window


class BusiestWindow:
    """:func:`busiest_window` of arrivals fed a part at a time in time order, in memory of one
    count per window of the trace."""

    def __init__(self, device, length_s: float = DEFAULT_WINDOW_S):
        self.length_s = length_s
        break_evens = [m["break_even_s"] for m in device.modes[1:] if m["break_even_s"] and math.isfinite(m["break_even_s"])]
        self.shortest = min(break_evens, default=1.0)
        self.first_s = self.last_s = self.last_offset = None
        self.counts: dict = {}

    def push(self, times: np.ndarray) -> None:
        if not len(times):
            return
        if self.first_s is None:
            self.first_s = float(times[0])
        # Gaps between offsets from the first arrival, as a whole trace's are taken.
        offsets = times - self.first_s
        before = offsets[:-1] if self.last_offset is None else np.concatenate([[self.last_offset], offsets[:-1]])
        gaps = (offsets[1:] if self.last_offset is None else offsets) - before
        self.last_offset, self.last_s = offsets[-1], float(times[-1])
        telling = (gaps > self.shortest) & (gaps < self.length_s / 4)
        if telling.any():
            bins, counts = np.unique((before[telling] // self.length_s).astype(np.int64), return_counts=True)
            for b, c in zip(bins.tolist(), counts.tolist()):
                self.counts[b] = self.counts.get(b, 0) + c

    def result(self) -> tuple[float, float]:
        span = max(self.last_s - self.first_s, 1e-9) if self.first_s is not None else 1e-9
        if span <= self.length_s:
            return (0.0, span)  # the whole trace is the window
        if not self.counts:
            return (0.0, self.length_s)
        counts = np.zeros(max(self.counts) + 1, dtype=np.int64)
        counts[list(self.counts)] = list(self.counts.values())
        start = float(np.argmax(counts)) * self.length_s
        return (start, start + self.length_s) if start + self.length_s <= span else (span - self.length_s, span)


def busiest_window(trace, device, length_s: float = DEFAULT_WINDOW_S) -> tuple[float, float]:
    """The window (offsets from the first request) where policies differ most: of the trace's
    consecutive windows of ``length_s``, the one with the most idle periods between the
    device's shortest break-even time and a quarter of the window — gaps a policy may or may
    not sleep through, so the timelines show their choices."""
    window = BusiestWindow(device, length_s)
    window.push(trace.time_s)
    return window.result()


@dataclass
class _Survey:
    """What a report says of its trace before any policy runs: its name, first arrival, each
    device's statistics (sizes, idle gaps) and the busiest window of the first device."""
    name: str
    first_s: float
    stats: list
    busiest: tuple


def _survey_trace(trace, devices) -> _Survey:
    from .traces.stats import trace_stats

    return _Survey(trace.name, float(trace.time_s[0]) if len(trace) else 0.0, [trace_stats(trace, d) for d in devices],
                   busiest_window(trace, devices[0]))


def _survey_file(path: str, read: dict, transform, devices) -> _Survey:
    from .traces.stats import TraceStats
    from .traces.streaming import device_parts

    # As a trace read whole, picked and transformed is named.
    name = (trace_name(path) + (f"#{read['stream']}" if read.get("stream") is not None else "")
            + (f" [{transform}]" if transform else ""))
    stats = [TraceStats(name, d, fold_offsets=read.get("fold_offsets", False)) for d in devices]
    window = BusiestWindow(devices[0])
    first = None
    for part in device_parts(path, read, transform):
        if part is None or not len(part):
            continue
        first = float(part.time_s[0]) if first is None else first
        for st in stats:
            st.push(part)
        window.push(part.time_s)
    if first is None:
        raise IdlewiseError(f"{path}: no records to report on")
    return _Survey(name, first, [st.result() for st in stats], window.result())


def _listed(specs: list[str], most: int = 12) -> str:
    """The policies run, or of a sweep of more, the first and last few and how many."""
    if len(specs) <= most:
        return ", ".join(specs)
    return f"{', '.join(specs[:4])}, …, {', '.join(specs[-4:])} ({len(specs):,} in all; every one in the table)"


def _import_in_background(*modules: str) -> None:
    """Starts importing what the figures need while the trace is read and replayed (the engine
    lets go of the interpreter as it runs): a third of a second of a small report's time."""
    import importlib
    import threading

    def load() -> None:
        for module in modules:
            try:
                importlib.import_module(module)
            except ImportError:  # the figures will say what is missing, in the main thread
                return

    threading.Thread(target=load, name="idlewise-report-imports", daemon=True).start()


def report(trace, devices, policies, out, *, window=None, base_power_w: float = 0.0, initial_mode=None,
           transform=None, progress=None, title: str | None = None, format: str = "auto", stream=None, columns=None,
           write_flag=None) -> Path:
    """Runs policies on a trace for each device and writes one self-contained HTML report.

    The report holds the idle-gap histogram against each mode's break-even time, a sortable
    results table, the energy-response trade-off, energy by mode, wake-ups against the rated
    cycles and a mode timeline. Always-on and the oracle are added to the policies.

    Parameters
    ----------
    trace : Trace, str or os.PathLike
        A :class:`Trace` (already transformed: ``transform`` only labels it) or a file's path,
        read as it is replayed in memory that does not grow with it (``format``, ``stream``,
        ``columns`` and ``write_flag`` read it as :func:`read_trace` does; ``transform`` is
        applied as it is read).
    devices : str, Device or list of them
        Catalog names, device files or :class:`Device` objects.
    policies : str or list of str
        Policy specs (ranges expand).
    out : str or os.PathLike
        The HTML file to write.
    window : (float, float), optional
        Seconds from the first request for the mode timeline (default: the half hour where the
        policies differ most).
    base_power_w, initial_mode, progress
        As :func:`idlewise.simulate`.
    title : str, optional
        The page's title.

    Returns
    -------
    pathlib.Path
        The report written.
    """
    _import_in_background("matplotlib.figure", "matplotlib.ticker", "matplotlib.patches", "pandas")
    import pandas as pd

    from .devices import load_device
    from .policies import expand_specs
    from .simulate import simulate, simulate_file
    from .traces import Trace

    devices = [load_device(d) for d in ([devices] if isinstance(devices, (str, Path)) or hasattr(devices, "modes") else devices)]
    specs = expand_specs([policies] if isinstance(policies, str) else policies)
    specs += [ref for ref in ("always-on", "oracle") if ref not in specs]
    from .traces.transforms import split_selection

    if isinstance(trace, Trace):
        picked, transform = split_selection(transform)
        trace = trace if picked is None else trace.select_stream(picked)  # a chain's stream:K picks the device
        trace.require_one_device("a report", "pick it with trace.select_stream(K) (--stream K on the command line)")
        survey = _survey_trace(trace, devices)

        def run(device, window_s):
            return simulate(trace, device, specs, base_power_w=base_power_w, initial_mode=initial_mode,
                            timeline_s=window_s, progress=progress)

        def arrivals_in(window_s):
            return trace.time_s[(trace.time_s >= window_s[0]) & (trace.time_s < window_s[1])]
    else:
        path = os.fspath(trace)
        from .traces.streaming import file_format

        file_in, mapping = file_format(path, format, columns, write_flag)
        stream, transform = split_selection(transform, stream, f"{path}: ")  # a chain's stream:K is the device read
        read = dict(format=file_in, mapping=mapping, stream=None if stream is None else int(stream), write_flag=write_flag)
        survey = _survey_file(path, read, transform, devices)

        def run(device, window_s):
            results = simulate_file(path, device, specs, format=format, stream=stream, base_power_w=base_power_w,
                                    initial_mode=initial_mode, progress=progress, columns=columns, write_flag=write_flag,
                                    transform=transform, timeline_s=window_s)
            for r in results:  # as the trace read whole names its rows
                r["trace"] = survey.name
                for key in ("stream", "stream_name", "read_report", "records_skipped"):
                    r.pop(key, None)
            return results

        def arrivals_in(window_s):
            from .traces.streaming import device_parts

            kept = [part.time_s[(part.time_s >= window_s[0]) & (part.time_s < window_s[1])]
                    for part in device_parts(path, read, transform) if part is not None and len(part)]
            return np.concatenate(kept) if kept else np.zeros(0)
    offset = window or survey.busiest
    span_s = survey.stats[0]["span_s"]
    if window is not None and window[0] > span_s:
        raise IdlewiseError(f"window {_fmt_time(window[0])}..{_fmt_time(window[1])} starts after the trace's last request, "
                            f"{_fmt_time(span_s)} ({span_s:,.1f} s) from its first: choose one within it")
    window_s = (survey.first_s + offset[0], survey.first_s + offset[1])
    in_window = arrivals_in(window_s)
    frames, sections_timeline = [], []
    for device in devices:
        results = run(device, window_s)
        frame = pd.DataFrame(results._wide())
        frame["transform"] = transform or "none"
        frames.append(frame)
        shown = _readable(frame, TIMELINE_ROWS)
        timeline = results.timeline(set(shown["policy"])).to_pandas()
        which = ("each policy" if len(shown) == len(frame) else
                 f"the {len(shown)} policies worth reading of {len(frame):,} (the frontier and each family's least energy; "
                 "every run is in the table)")
        sections_timeline.append(Section(
            f"Mode timeline: {device.name}",
            timeline_figure(timeline, in_window, window_s, [m["name"] for m in device.modes],
                            f"{survey.name} on {device.name}, {_fmt_time(offset[0])} to {_fmt_time(offset[1])} from the first request"),
            caption=f"What the device did under {which} in this window (--window FROM..TO to choose another)."))
    rows = pd.concat(frames, ignore_index=True)
    first = survey.stats[0]
    summary = [
        ("trace", survey.name),
        ("requests", f"{first['requests']:,} ({first['reads']:,} reads, {first['writes']:,} writes)"),
        ("span", f"{_fmt_time(first['span_s'])} ({first['span_s']:,.1f} s)"),
        ("devices", ", ".join(d.name for d in devices)),
        ("policies", _listed(specs)),
    ]
    if transform:
        summary.append(("transform", transform))
    if base_power_w:
        summary.append(("base power", f"{base_power_w:g} W"))
    for st in survey.stats:
        g = st["gaps"]
        summary.append((f"idle gaps on {st['device']}", f"{g['count']:,}, median {_fmt_time(g['median_s'])}, "
                        f"longest {_fmt_time(g['max_s'])}, {g['idle_total_s']:,.0f} s idle in all"))
    content = ReportContent(title=title or f"idlewise report: {survey.name}", summary=summary)
    content.sections.append(Section("Idle gaps", gap_histogram_figure(survey.stats),
                                    caption="Idle gaps (completion to next arrival on the always-on device), the share of idle "
                                            "time they hold, and each low-power mode's break-even time: only gaps beyond it "
                                            "can save energy there."))
    content.sections += _results_sections(rows)
    content.sections += sections_timeline
    content.columns, content.rows = _table(rows)
    return _write(render(content), out)


def _partial(path: Path) -> str | None:
    """What an interrupted sweep's rows say of themselves (``296 of 1184 runs``), or None for a
    whole sweep's: a Parquet file's ``idlewise.partial`` metadata; a CSV has none, and is known
    by the name the sweep gave it (``runs.partial.csv``)."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        metadata = pq.read_schema(path).metadata or {}
        if b"idlewise.partial" in metadata:
            return metadata[b"idlewise.partial"].decode("utf-8", "replace")
    return "runs missing" if ".partial." in path.name else None


def widen(rows):
    """A results file's rows (the results schema: per-mode map columns) as the report reads
    them, each mode a column of its own (``energy_by_mode_j.<mode>``, ``param.<name>``). A map
    cell is a dict (pyarrow), a list of pairs (``pd.read_parquet``) or JSON text (CSV)."""
    import json

    import pandas as pd

    def as_dict(cell) -> dict:
        if isinstance(cell, dict):
            return cell
        if isinstance(cell, str):
            return json.loads(cell)
        if isinstance(cell, (list, tuple, np.ndarray)):
            return dict(tuple(pair) for pair in cell)
        return {}

    spread = []
    for column, prefix in (("energy_by_mode_j", "energy_by_mode_j."), ("time_by_mode_s", "time_by_mode_s."),
                           ("transitions", "transitions."), ("params", "param.")):
        if column in rows.columns:
            cells = [as_dict(c) for c in rows[column]]
            keys = list(dict.fromkeys(k for c in cells for k in c))
            spread.append(pd.DataFrame({prefix + k: [c.get(k) for c in cells] for k in keys}, index=rows.index, dtype=float))
            rows = rows.drop(columns=[column])
    return pd.concat([rows, *spread], axis=1) if spread else rows


def report_from_rows(path, out, *, title: str | None = None) -> Path:
    """A report of a sweep's rows.

    Parameters
    ----------
    path : str or os.PathLike
        ``idlewise sweep --out runs.parquet`` (or ``.csv``): the results schema, or the wide
        columns of files written before it. An interrupted sweep's rows are reported as partial.
    out : str or os.PathLike
        The HTML file to write.
    title : str, optional
        The page's title.

    Returns
    -------
    pathlib.Path
        The report written.
    """
    import pandas as pd

    path = Path(path)
    try:
        rows = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    except FileNotFoundError:
        raise IdlewiseError(f"{path}: no such file") from None
    except Exception as e:  # pyarrow and pandas raise many kinds for a file that is not rows
        raise IdlewiseError(f"{path}: not a table of runs ({e})") from None
    try:
        rows = widen(rows)
    except (ValueError, TypeError) as e:
        raise IdlewiseError(f"{path}: a per-mode column is not a map of numbers ({e})") from None
    needed = ["policy", "energy_j", "mean_response_s", "normalized_energy", "normalized_mean_response",
              "energy_vs_oracle", "transition_energy_j", "service_energy_j"]
    missing = [c for c in needed if c not in rows.columns]
    if missing or not len(rows):
        raise IdlewiseError(f"{path}: not the rows of idlewise sweep --out (missing {', '.join(missing) or 'rows'})")
    if "family" not in rows.columns:
        from .policies import policy_columns

        rows["family"] = [policy_columns(p)["family"] for p in rows["policy"].astype(str)]
    traces = sorted(set(rows["trace"].astype(str))) if "trace" in rows else []
    devices = sorted(set(rows["device"].astype(str))) if "device" in rows else []
    summary = [("runs", f"{len(rows):,} from {path.name}"), ("traces", ", ".join(traces) or "-"),
               ("devices", ", ".join(devices) or "-")]
    partial = _partial(path)
    if partial:
        summary.insert(0, ("PARTIAL", f"an interrupted sweep's rows ({partial}): the runs it did not finish are "
                                      "missing, so no comparison here covers the whole sweep"))
    content = ReportContent(title=title or f"idlewise report: {path.name}" + (" (partial)" if partial else ""), summary=summary)
    content.sections.append(Section("Idle gaps and mode timeline", note=(
        "A sweep's rows hold results, not the trace: run idlewise report TRACE --device ... --policy ... for the "
        "idle-gap histogram and the mode timeline.")))
    content.sections += _results_sections(rows)
    content.columns, content.rows = _table(rows)
    return _write(render(content), out)


__all__ = ["parse_window", "point_label", "render", "report", "report_from_rows"]
