"""What every command prints with: the console, number formats, the results table, the trace a command reads."""

from __future__ import annotations

import json
import math
import os
import sys

from .. import traces
from ..traces.describe import grouped
from ..results import Results


# rich, NumPy and Arrow load where a command uses them, so `idlewise --help` starts fast.
def Table(*args, **kwargs):  # noqa: N802 - stands in for rich.table.Table
    from rich.table import Table as RichTable

    return RichTable(*args, **kwargs)


def Console(*args, **kwargs):  # noqa: N802 - stands in for rich.console.Console
    from rich.console import Console as RichConsole

    return RichConsole(*args, **kwargs)


DEMO_DEVICE = "hitachi-travelstar-5k320"


DEMO_POLICIES = ["always-on", "timeout:60s", "timeout:10s", "timeout:2s", "breakeven", "randomized:seed=1",
                 "stpm:knob=50", "experts", "predictive", "oracle"]


def _console(stderr: bool = False) -> Console:
    """A console that does not truncate tables when output goes to a file or pipe."""
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return Console(stderr=stderr)
    # A file or pipe: as wide as COLUMNS says (a script's own layout), else 200 columns.
    columns = os.environ.get("COLUMNS", "")
    return Console(stderr=stderr, width=int(columns) if columns.isdigit() and int(columns) >= 40 else 200)


def stderr_width() -> int | None:
    """The width lines to stderr wrap at: COLUMNS where set, the terminal's where it is one,
    else none (a log keeps each line whole)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) >= 40:
        return int(columns)
    if sys.stderr.isatty():
        import shutil

        return shutil.get_terminal_size().columns
    return None


def wrapped(text: str, width: int, indent: str = "", hanging: str | None = None) -> list[str]:
    """``text`` wrapped at spaces to ``width`` columns: the first line after ``indent``, the rest
    after ``hanging`` (``indent`` unless given). A word longer than a line (a path, a command, a
    URL) stands whole on a line of its own rather than being cut."""
    import textwrap

    rest = indent if hanging is None else hanging
    return textwrap.wrap(text, max(width, 20), initial_indent=indent, subsequent_indent=rest, break_on_hyphens=False,
                         break_long_words=False) or [indent.rstrip()]


def paragraph(console, text: str, indent: str = "", hanging: str | None = None) -> None:
    """Prints ``text`` on ``console`` wrapped as :func:`wrapped` does (rich would split a long
    name at the margin)."""
    from rich.text import Text

    for line in wrapped(text, console.width, indent, hanging):
        console.print(Text(line), soft_wrap=True, highlight=False)


def say(text: str, file=None) -> None:
    """A line of idlewise's own on stderr (``idlewise: ...``), wrapped at spaces to the
    terminal's width, continuations indented; a path or a name is never broken."""
    from ..traces.inputs import shown

    stream = sys.stderr if file is None else file
    line = f"idlewise: {shown(text)}"
    width = stderr_width() if file is None else None
    if width is None or len(line) <= width:
        print(line, file=stream)
        return
    print("\n".join(wrapped(line, width, hanging="  ")), file=stream)


def _working(what: str):
    """A spinner on a terminal's stderr while a step with no count of its own runs (nothing
    elsewhere)."""
    import contextlib

    if not sys.stderr.isatty():
        return contextlib.nullcontext()
    return _console(stderr=True).status(what)


def _fmt_time(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "-"
    if seconds < 1e-3 and seconds > 0:
        return f"{seconds * 1e6:.3g} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    if seconds >= 1e5:  # a day and more: a short number (a saturated run's responses)
        return f"{seconds:.3g} s"
    return f"{seconds:.2f} s"


def _fmt_years(years) -> str:
    if years is None:
        return "n/a"
    if not math.isfinite(years):
        return "never"
    return grouped(years)


def _fmt_rate(value: float) -> str:
    """A count per day or per hour as a reader takes it in: whole from 100 up (45,729, not
    45728.9), three significant figures below."""
    if value >= 99.95:
        return grouped(value, 0)
    if value >= 9.995:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _fmt_ratio(value, digits: int = 3) -> str:
    """A ratio to a reference run, or "n/a" where the references were not replayed
    (``--no-references``)."""
    return "n/a" if value is None else f"{value:.{digits}f}"


#: Columns of a results table: (header, cell of a result row, shown by default). The default set
#: fits a 100-column terminal; --wide adds the rest.
RESULT_COLUMNS = (
    ("energy J", lambda r: grouped(r["energy_j"]), True),
    ("system J", lambda r: grouped(r["system_energy_j"]), False),
    ("vs always-on", lambda r: _fmt_ratio(r["normalized_energy"]), True),
    ("vs oracle", lambda r: _fmt_ratio(r["energy_vs_oracle"]), True),
    # Every return to the ready mode, from any low-power mode (a shallow idle mode's too): said in
    # its header, so that it is never read as spin-ups (an oracle's 19,290 a week, of them 1,557).
    ("wake-ups (any mode)", lambda r: f"{r['wakeups']:,}", True),
    # The wake-ups that start a stopped spindle (a rated start/stop cycle): the ones that wear a
    # disk most. Head loads (load_unload_wakeups) count in "years to rated cycles" and the JSON.
    ("spin-ups", lambda r: f"{r['cycle_wakeups']:,}" if "cycle_wakeups" in r else "", True),
    ("cycles/day", lambda r: grouped(r["cycle_wakeups_per_day"]) if "cycle_wakeups_per_day" in r else "", False),
    ("mean resp", lambda r: _fmt_time(r["mean_response_s"]), True),
    ("p99 resp", lambda r: _fmt_time(r["p99_response_s"]), True),
    ("delayed", lambda r: f"{r['delayed_requests']:,}", True),
    ("resp vs always-on", lambda r: _fmt_ratio(r["normalized_mean_response"], 2), False),
    ("years to rated cycles", lambda r: _fmt_years(r["years_to_rated_cycles"]), True),
)


#: The order in which columns give way on a narrow terminal (energy J never does): wear goes
#: last, so a narrow table that shows wake-ups shows the spin-ups beside them.
# The mean response goes last but the energy: the trade-off is between the two.
_DROP_FIRST = ("resp vs always-on", "system J", "cycles/day", "p99 resp", "delayed", "wake-ups (any mode)",
               "years to rated cycles", "vs oracle", "mean resp", "vs always-on", "spin-ups")


def results_table(results: Results, title: str, wide: bool = False, keys: tuple = (), width: int | None = None) -> Table:
    """One row per result. Nothing is cut: on a terminal ``width`` columns wide, whole columns
    give way (the caption says how many) rather than the policy name or a number. ``keys``
    names columns that tell rows apart (trace, device, transform) in a sweep."""
    # Labels as the user wrote the specs (defaults left out); the JSON and tables of rows keep
    # the engine's full label in "policy" too.
    names = [str(r.get("spec") or r["policy"]) for r in results]
    columns = [(name, cell) for name, cell, default in RESULT_COLUMNS if wide or default]
    return fitted_table(title, [("policy", names)] + [(k, [str(r.get(k, "")) for r in results]) for k in keys],
                        [(name, [cell(r) for r in results]) for name, cell in columns], _DROP_FIRST, width,
                        more="--wide, or --json for every figure")


def print_results_table(console: Console, results, title: str, wide: bool = False, keys: tuple = ()) -> None:
    """A results table on ``console``: fitted to its width, or with ``wide`` every column, as
    wide as the table is (the terminal then wraps what it cannot show; a pipe keeps it whole)."""
    if not wide:
        console.print(results_table(results, title, keys=keys, width=console.width))
        return
    from rich.measure import Measurement

    table = results_table(results, title, wide=True, keys=keys, width=None)
    natural = Measurement.get(console, console.options.update(width=100_000), table).maximum
    Console(file=console.file, width=max(console.width, natural), force_terminal=console.is_terminal,
            color_system=console.color_system, no_color=console.no_color).print(table)


def fitted_table(title: str, keys: list, columns: list, drop_first, width: int | None, more: str = "--json for every figure",
                 caption: str | None = None) -> Table:
    """A table that fits ``width`` columns with nothing cut: ``keys`` (header, values), the
    columns that say which row is which, stay whole; of ``columns`` (header, values), numbers
    right-aligned, whole columns give way in the order ``drop_first`` names (the caption says
    which, and ``more`` where to find them), and headers wrap at their spaces before any does.
    One home for every command's tables of figures."""
    def span(header: str, values) -> int:  # a header may wrap at spaces; values may not
        return max([len(word) for word in header.split()] + [len(v) for v in values]) + 3

    hidden = []
    used = sum(span(k, v) for k, v in keys) + 1
    if width is not None:
        for name in drop_first:
            if used + sum(span(n, v) for n, v in columns) <= width:
                break
            if any(n == name for n, _ in columns):
                columns = [(n, v) for n, v in columns if n != name]
                hidden.append(name)
    notes = [caption] if caption else []
    if hidden:
        # One line that fits the table, which may be narrower than the terminal: the columns'
        # names where they fit, else only how many (``--wide`` shows them).
        limit = min(width, used + sum(span(n, v) for n, v in columns))
        said = [f"{len(hidden)} columns left out to fit the terminal ({', '.join(hidden)}): {more}",
                f"{len(hidden)} columns left out to fit the terminal: {more}", f"{len(hidden)} columns left out: {more}"]
        notes.append(next((line for line in said if len(line) <= limit), said[-1]))
    table = Table(title=title, title_justify="left", caption="\n".join(notes) or None, caption_justify="left")
    for key, values in keys:
        table.add_column(key, justify="left", no_wrap=True, min_width=max(map(len, values), default=len(key)))
    # Where the columns fit only with their headers wrapped at spaces (as counted above), the
    # headers are wrapped there; rich would otherwise cut the last column.
    unwrapped = used + sum(max(len(n), *map(len, v)) + 3 for n, v in columns) if width is not None else 0
    wrap = width is not None and unwrapped > width
    for name, values in columns:
        header = name.replace(" ", "\n") if wrap else name
        table.add_column(header, justify="right", no_wrap=True, min_width=max(map(len, values), default=1))
    rows = len(keys[0][1]) if keys else 0
    for i in range(rows):
        table.add_row(*(v[i] for _, v in keys), *(v[i] for _, v in columns))
    return table


def _print_results(results: Results, args, title: str) -> None:
    say_saturated(results.raw_records())
    if args.json:
        json.dump(results.to_dicts(json_safe=True), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        console = _console()
        rows = results.raw_records()
        shown, left_out = busiest_groups(rows, TERMINAL_ROWS_MAX)
        if left_out:
            title += f"\nthe {len(shown):,} rows of the busiest devices; {left_out:,} more are not shown (--json for every run)"
        print_results_table(console, shown if left_out else results, title, wide=getattr(args, "wide", False))


def say_saturated(rows) -> None:
    """Says on stderr which device models cannot keep up with their traces (``offered_load``);
    ``rows``: dicts, or :class:`~idlewise.results.Results` (whose saturated runs alone are made
    dicts)."""
    from ..results import Results, saturation_notes

    if isinstance(rows, Results):
        load = rows.columns().get("offered_load")
        rows = rows.records_at([i for i, x in enumerate(load) if x is not None and x >= 1.0])
    for note in saturation_notes(rows):
        say(f"note: {note}")


#: Rows a results table prints at most: a run of thousands of devices is read in its file or its
#: JSON, and a terminal table of it took longer than the runs (a sweep of 100,000 devices: 106 of
#: 114 s; a simulate: 204 s against 11 s).
TERMINAL_ROWS_MAX = 200


def busiest_groups(rows: list, limit: int) -> tuple:
    """The rows of whole groups (a trace's device under a transform on a device), the groups with
    the most requests first, up to ``limit`` rows; and how many rows were left out."""
    from ..results import group_keys

    shown, left_out = busiest(group_keys(rows), [r.get("requests") or 0 for r in rows], limit)
    return [rows[i] for i in shown], left_out


def busiest(keys: list, requests: list, limit: int) -> tuple:
    """:func:`busiest_groups` on columns: the rows (numbers) shown, each row's group in ``keys``."""
    if len(keys) <= limit:
        return list(range(len(keys))), 0
    groups: dict = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    shown: list = []
    for members in sorted(groups.values(), key=lambda m: -max(requests[i] for i in m)):
        if shown and len(shown) + len(members) > limit:
            break
        shown += members
    return shown, len(keys) - len(shown)


def _read_trace(args, path):
    """The trace a command names, read with the shared trace options (``_trace_options``)."""
    return traces.read_trace(path, format=args.format, sort=args.sort, stream=getattr(args, "stream", None),
                             columns=getattr(args, "columns", None), write_flag=getattr(args, "write_flag", None))


def _streamable(args) -> bool:
    """Whether a command's trace can be replayed as it is read (the default): a file in a format
    read in time order, unless sorting is asked; a mapped CSV is read as it goes too, a transform
    is applied as the trace is read (its ``stream:K`` picks the device read, as ``--stream K``),
    and per-request rows are written as they come."""
    from ..traces.formats import reads_whole

    if getattr(args, "sort", None):
        return False
    if getattr(args, "columns", None) or getattr(args, "write_flag", None) is not None:
        return True  # a mapped CSV is read a block at a time (simulate_file checks the options)
    if args.format == "auto":
        from ..traces.detect import detect_format

        args.format = detect_format(args.trace)
    return not reads_whole(args.trace, args.format)


def _picked(args, trace) -> dict:
    """The device the user picked (--stream 0, --stream sda) of a trace read whole, as a streamed
    read's rows name it: its number, its name if it has one, and the file as the trace (the device
    is in its own columns)."""
    if getattr(args, "stream", None) is None:
        return {}
    number = next(iter(trace.stream_names)) if trace.stream_names else int(args.stream)
    return {"stream": number, "stream_name": trace.device_name or str(number), "trace": os.path.basename(args.trace)}


def _report_read(trace, quiet: bool) -> None:
    if not quiet:
        say(trace.read_report())


def _label_devices(records) -> str:
    """Names each row's device of a multi-device trace in its policy column; the title's note."""
    for r in records:
        device = f"#{r.get('stream_name', r['stream'])}"
        r["policy"] = f"{device} {r['policy']}"
        if r.get("spec"):
            r["spec"] = f"{device} {r['spec']}"
    devices = len({r["stream"] for r in records})
    return f", each of its {devices:,} devices as its own disk (the policy column shows #device)"


def _fmt_bytes(n) -> str:
    if n is None:
        return "inf"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n}B"
