"""The ``idlewise`` command line: demo, simulate, devices, policies.

Human output is a table (rich); ``--json`` prints machine-readable results. Errors print one
line naming the file, line or field and exit with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import threading
import warnings
from importlib import resources
from pathlib import Path


from . import __version__, _core
from .devices import catalog_names, load_device, wear_ratings
from .policies import expand_spec
from .errors import IdlewiseError
from .output import check_destination
from .results import Results, json_ready
from .simulate import simulate
from . import traces
from .traces.formats import DESCRIPTIONS, FORMATS


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
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def _fmt_years(years) -> str:
    if years is None:
        return "n/a"
    if not math.isfinite(years):
        return "never"
    return f"{years:,.1f}"


#: Columns of a results table: (header, cell of a result row, shown by default). The default set
#: fits a 100-column terminal; --wide adds the rest.
RESULT_COLUMNS = (
    ("energy J", lambda r: f"{r['energy_j']:,.1f}", True),
    ("system J", lambda r: f"{r['system_energy_j']:,.1f}", False),
    ("vs always-on", lambda r: f"{r['normalized_energy']:.3f}", True),
    ("vs oracle", lambda r: f"{r['energy_vs_oracle']:.3f}", True),
    ("wake-ups", lambda r: f"{r['wakeups']:,}", True),
    # The wake-ups that start a stopped spindle (a rated start/stop cycle): the ones that wear a
    # disk most. Head loads (load_unload_wakeups) count in "years to rated cycles" and the JSON.
    ("cycle wake-ups", lambda r: f"{r['cycle_wakeups']:,}" if "cycle_wakeups" in r else "", True),
    ("cycles/day", lambda r: f"{r['cycle_wakeups_per_day']:,.1f}" if "cycle_wakeups_per_day" in r else "", False),
    ("mean resp", lambda r: _fmt_time(r["mean_response_s"]), True),
    ("p99 resp", lambda r: _fmt_time(r["p99_response_s"]), True),
    ("delayed", lambda r: f"{r['delayed_requests']:,}", True),
    ("resp vs always-on", lambda r: f"{r['normalized_mean_response']:.2f}", False),
    ("years to rated cycles", lambda r: _fmt_years(r["years_to_rated_cycles"]), True),
)


#: The order in which columns give way on a narrow terminal (energy J never does): at 80 columns
#: energy, vs always-on, vs oracle and the mean response stay.
_DROP_FIRST = ("resp vs always-on", "system J", "cycles/day", "years to rated cycles", "cycle wake-ups", "p99 resp", "delayed",
               "wake-ups", "mean resp", "vs oracle", "vs always-on")


def results_table(results: Results, title: str, wide: bool = False, keys: tuple = (), width: int | None = None) -> Table:
    """One row per result. Nothing is cut: on a terminal ``width`` columns wide, whole columns
    give way (the caption says how many) rather than the policy name or a number. ``keys``
    names columns that tell rows apart (trace, device, transform) in a sweep."""
    # Labels as the user wrote the specs (defaults left out); the JSON and tables of rows keep
    # the engine's full label in "policy" too.
    names = [str(r.get("spec") or r["policy"]) for r in results]
    columns = [(name, cell) for name, cell, default in RESULT_COLUMNS if wide or default]
    cells = {name: [cell(r) for r in results] for name, cell in columns}
    key_cells = {k: [str(r.get(k, "")) for r in results] for k in keys}

    def span(header: str, values) -> int:  # a header may wrap at spaces; values may not
        return max([len(word) for word in header.split()] + [len(v) for v in values]) + 3

    hidden = []
    if width is not None:
        used = span("policy", names) + sum(span(k, v) for k, v in key_cells.items()) + 1
        for name in _DROP_FIRST:
            if used + sum(span(n, cells[n]) for n, _ in columns) <= width:
                break
            if any(n == name for n, _ in columns):
                columns = [(n, c) for n, c in columns if n != name]
                hidden.append(name)
    caption = f"{len(hidden)} columns left out to fit the terminal ({', '.join(hidden)}): --wide, or --json for every figure" if hidden else None
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column("policy", justify="left", no_wrap=True, min_width=max(map(len, names), default=6))
    for key, values in key_cells.items():
        table.add_column(key, justify="left", no_wrap=True, min_width=max(map(len, values), default=1))
    # Where the columns fit only with their headers wrapped at spaces (as counted above), the
    # headers are wrapped there; rich would otherwise cut the last column.
    unwrapped = used + sum(max(len(n), *map(len, cells[n])) + 3 for n, _ in columns) if width is not None else 0
    wrap = width is not None and unwrapped > width
    for name, _ in columns:
        header = name.replace(" ", "\n") if wrap else name
        table.add_column(header, justify="right", min_width=max(map(len, cells[name]), default=1))
    for i, name in enumerate(names):
        table.add_row(name, *(v[i] for v in key_cells.values()), *(cells[n][i] for n, _ in columns))
    return table


def _print_results(results: Results, args, title: str) -> None:
    if args.json:
        json.dump(results.to_dicts(json_safe=True), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        console = _console()
        console.print(results_table(results, title, wide=getattr(args, "wide", False), width=console.width))


def cmd_demo(args) -> int:
    folder = resources.files("idlewise") / "data" / "hplajw"
    with resources.as_file(folder / "ajw.1week.srt") as path:
        trace = traces.read_srt(path, disk=0, name="hplajw disk 0")
    results = simulate(trace, args.device, args.policy or DEMO_POLICIES, base_power_w=args.base_power)
    title = (f"{trace.describe()}\nreplayed on {args.device}"
             + (f", base power {args.base_power} W" if args.base_power else "")
             + "\n(HP Labs trace, DiskSim licence: idlewise/data/hplajw/COPYRIGHT.disksim)")
    _print_results(results, args, title)
    return 0


def _read_trace(args, path):
    """The trace a command names, read with the shared trace options (``_trace_options``)."""
    return traces.read_trace(path, format=args.format, sort=args.sort, stream=getattr(args, "stream", None),
                             columns=getattr(args, "columns", None), write_flag=getattr(args, "write_flag", None))


def _report_read(trace, quiet: bool) -> None:
    if not quiet:
        print(f"idlewise: {trace.read_report()}", file=sys.stderr)


def cmd_simulate(args) -> int:
    # Devices and policies are checked before a possibly long read.
    devices = [load_device(d) for d in args.device]
    policies = [spec for policy in args.policy for spec in expand_spec(policy)]
    if _streamable(args):
        return _simulate_streamed(args, devices, policies)
    trace = _read_trace(args, args.trace)
    _report_read(trace, args.json)
    records, per_request = [], []
    read = {"read_report": trace.read_report(), "records_skipped": sum(trace.skipped.values())}
    # The device the user picked (--stream 0, --stream sda), which its rows name.
    picked = {}
    if args.stream is not None:
        number = next(iter(trace.stream_names)) if trace.stream_names else int(args.stream)
        picked = {"stream": number, **({"stream_name": trace.device_name} if trace.device_name else {})}
    for device in devices:
        run = simulate(trace, device, policies, base_power_w=args.base_power, initial_mode=args.initial_mode,
                       replay=args.replay, fold_offsets=args.fold_offsets, response_from=args.response_from,
                       tail_s=args.tail, transition_seed=args.transition_seed, per_request=bool(args.per_request),
                       transform=args.transform)
        if args.per_request:
            per_request.append(_with_run_columns(run.per_request(), device.name, picked.get("stream")))
        for r in run:
            r.update(picked, **read)
            r.setdefault("stream", None)
            records.append(r)
    if args.per_request:
        _write_per_request(per_request, args.per_request, args.json)
    results = Results(records, trace.name)
    title = f"{trace.describe()}" + (f" [{args.transform}]" if args.transform else "") + \
        f"\nreplayed on {', '.join(d.name for d in devices)}"
    if trace.stream is not None and not args.json:
        title += _label_devices(records)
    _print_results(results, args, title)
    return 0


def _with_run_columns(table, device: str, stream):
    """A per-request table with the device it ran on, and the stream the user picked (a split
    trace's rows say their stream already)."""
    import pyarrow as pa

    table = table.add_column(1, "device", pa.array([device] * table.num_rows, pa.string()).dictionary_encode())
    if stream is not None and "stream" not in table.column_names:
        table = table.add_column(2, "stream", pa.array([stream] * table.num_rows, pa.int64()))
    return table


def _write_per_request(tables, path: str, quiet: bool) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .output import written_whole

    table = pa.concat_tables(tables, promote_options="permissive")
    try:
        with written_whole(path) as temporary:
            pq.write_table(table, temporary)
    except OSError as e:
        raise IdlewiseError(f"--per-request {path}: cannot write it ({e.strerror or e})") from None
    if not quiet:
        print(f"idlewise: wrote {table.num_rows:,} per-request rows ({', '.join(table.column_names)}) to {path}", file=sys.stderr)


def _label_devices(records) -> str:
    """Names each row's device of a multi-device trace in its policy column; the title's note."""
    for r in records:
        device = f"#{r.get('stream_name', r['stream'])}"
        r["policy"] = f"{device} {r['policy']}"
        if r.get("spec"):
            r["spec"] = f"{device} {r['spec']}"
    return f", each of {len({r['stream'] for r in records})} devices as its own disk (policy column shows #device)"


def _streamable(args) -> bool:
    """Whether a command's trace can be replayed as it is read (the default): a file in a format
    read in time order, with nothing asked that needs it whole (sorting, a transform, per-request
    rows, a column mapping read by Python)."""
    from .traces.formats import READ_WHOLE

    if any(getattr(args, name, None) for name in ("sort", "transform", "per_request", "columns", "write_flag")):
        return False
    if args.format == "auto":
        from .traces.detect import detect_format

        args.format = detect_format(args.trace)
    return args.format not in READ_WHOLE


def _simulate_streamed(args, devices, policies) -> int:
    from .simulate import simulate_file

    records = []
    for device in devices:
        results = simulate_file(args.trace, device, policies, format=args.format, stream=args.stream,
                                base_power_w=args.base_power, initial_mode=args.initial_mode, replay=args.replay,
                                fold_offsets=args.fold_offsets, response_from=args.response_from, tail_s=args.tail,
                                transition_seed=args.transition_seed)
        records.extend(results)
    if not args.json:
        print(f"idlewise: {records[0]['read_report']}", file=sys.stderr)
    title = f"{results.trace_description}\nreplayed on {', '.join(d.name for d in devices)}"
    if any(r["stream"] is not None for r in records) and not args.json:
        title += _label_devices(records)
    _print_results(Results(records, os.path.basename(args.trace)), args, title)
    return 0


def cmd_report(args) -> int:
    from .report import parse_window, report, report_from_rows

    if args.from_rows:
        given = [name for name, value in (("TRACE", args.trace), ("--device", args.device), ("--policy", args.policy),
                                          ("--window", args.window)) if value]
        if given:
            raise IdlewiseError(f"--from makes a report of a sweep's rows; leave out {', '.join(given)} "
                                "(or leave out --from to run the policies on a trace)")
        with _working(f"making a report of {os.path.basename(args.from_rows)}"):
            out = report_from_rows(args.from_rows, args.out, title=args.title)
    else:
        if not args.trace or not args.device:
            raise IdlewiseError("give a TRACE and at least one --device (or --from RUNS.parquet for a sweep's rows)")
        # Devices, policies and the window are checked before a possibly long read.
        devices = [load_device(d) for d in args.device]
        policies = [spec for policy in (args.policy or DEMO_POLICIES) for spec in expand_spec(policy)]
        window = parse_window(args.window) if args.window else None
        trace = _read_trace(args, args.trace)
        _report_read(trace, False)
        trace.require_one_device("a report", "pick it with --stream K")
        trace = traces.apply_transform(trace, args.transform) if args.transform else trace
        out = report(trace, devices, policies, args.out, window=window, base_power_w=args.base_power,
                     initial_mode=args.initial_mode, transform=args.transform, title=args.title)
    print(f"wrote {out} ({out.stat().st_size / 1e3:,.0f} kB; open it in any browser, no network needed)")
    return 0


def _fmt_bytes(n) -> str:
    if n is None:
        return "inf"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n}B"


def hybrid_table(results: Results, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    streams = any(r.get("stream") is not None for r in results)
    if streams:
        table.add_column("device #", justify="right")
    for name in ("NVCache", "DRAM", "when", "alg", "energy J", "plain J", "saved", "spin-ups", "plain", "mean resp",
                 "flushes", "flush time", "flash part", "disk part", "disk I/Os", "merges", "flushed", "max/spin-down"):
        table.add_column(name, justify="left" if name == "when" else "right")
    for r in results:
        table.add_row(
            *([str(r["stream"])] if streams else []), _fmt_bytes(r["nvcache_bytes"]), _fmt_bytes(r["dram_bytes"]), r["flush_when"], str(r["flush_algorithm"]),
            f"{r['energy_j']:,.0f}", f"{r['plain_disk_energy_j']:,.0f}",
            f"{r['energy_saved_j'] / r['plain_disk_energy_j']:.1%}" if r["plain_disk_energy_j"] else "-",
            f"{r['spinups']:,}", f"{r['plain_disk_spinups']:,}", _fmt_time(r["mean_response_s"]), f"{r['flushes']:,}",
            _fmt_time(r["flush_time_s"]), _fmt_time(r["flush_nvcache_time_s"]), _fmt_time(r["flush_disk_time_s"]),
            f"{r['flush_disk_ios']:,}", f"{r['merges']:,}", _fmt_bytes(r["bytes_flushed"]),
            _fmt_bytes(r["max_bytes_cached_per_spindown"]),
        )
    return table


def cmd_hybrid(args) -> int:
    from .hybrid import hybrid, prepare

    # Parts, sizes and the policy are checked before a possibly long read.
    setup = prepare(args.disk, args.flash, description=args.hybrid, nvcache=args.nvcache, dram=args.dram,
                    flush_when=args.flush_when, flush_algorithm=args.flush_algorithm, policy=args.policy,
                    base_power_w=args.base_power)
    if args.initial_mode is not None:
        setup.disk.mode_index(args.initial_mode)
    trace = _read_trace(args, args.trace)
    _report_read(trace, args.json)
    records = []
    for stream, part in trace.split_streams().items():
        part = traces.apply_transform(part, args.transform) if args.transform else part
        for r in hybrid(part, setup=setup, initial_mode=args.initial_mode, replay=args.replay,
                        response_from=args.response_from, tail_s=args.tail, transition_seed=args.transition_seed):
            r.update(stream=stream)
            for key in ("bytes_cached_per_spindown", "spindown_ends_s"):
                column = r.pop(key)
                if args.json:
                    r[key] = column.tolist()
            records.append(r)
    results = Results(records, trace.name)
    if args.json:
        json.dump(results.to_dicts(json_safe=True), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        policy = records[0]["policy"] if records else args.policy
        title = (f"{trace.describe()}" + (f" [{args.transform}]" if args.transform else "")
                 + f"\nhybrid disk: {setup.disk.name} with {setup.flash.name} as NVCache, policy {policy}; "
                 "plain = the same disk and policy without an NVCache")
        _console().print(hybrid_table(results, title))
    return 0


def cmd_trace_convert(args) -> int:
    trace = _read_trace(args, args.input)
    if not args.output.endswith(".parquet"):
        raise IdlewiseError(f"{args.output}: convert writes Parquet; name the output *.parquet")
    traces.write_parquet(trace, args.output)
    print(f"{trace.read_report()}\nwrote {len(trace):,} records to {args.output}")
    return 0


def cmd_trace_stats(args) -> int:
    from .traces.stats import plot_gap_histogram, trace_stats

    trace = _read_trace(args, args.trace)
    _report_read(trace, args.json)
    parts = trace.split_streams()
    stats = [trace_stats(traces.apply_transform(p, args.transform) if args.transform else p, args.device) for p in parts.values()]
    for (stream, _), st in zip(parts.items(), stats):
        st["stream"] = stream
    if args.plot:
        plot_gap_histogram(stats, args.plot)
    if args.json:
        json.dump(stats, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    console = _console()
    for st in stats:
        sz, g = st["size_bytes"], st["gaps"]
        console.print(f"[bold]{st['trace']}[/bold]" + (f" device {st['stream']}" if st["stream"] is not None else "")
                      + f": {st['requests']:,} requests over {st['span_s']:,.1f} s; {st['read_fraction']:.1%} reads; "
                      f"{st['bytes_read'] / 1e6:,.1f} MB read, {st['bytes_written'] / 1e6:,.1f} MB written")
        console.print(f"  sizes (bytes): min {sz['min']:,}  median {sz['p50']:,.0f}  mean {sz['mean']:,.0f}  "
                      f"p90 {sz['p90']:,.0f}  p99 {sz['p99']:,.0f}  max {sz['max']:,}")
        console.print(f"  idle gaps ({g['definition']}): {g['count']:,}, {g['idle_total_s']:,.1f} s in all; "
                      f"median {_fmt_time(g['median_s'])}, mean {_fmt_time(g['mean_s'])}, max {_fmt_time(g['max_s'])}")
        table = Table(title="idle-gap histogram (log scale, 10 bins per decade)", title_justify="left")
        for column in ("gap length", "gaps", "idle time", "share of idle time"):
            table.add_column(column, justify="right")
        total = g["idle_total_s"] or 1.0
        for h in g["histogram"]:
            table.add_row(f"{_fmt_time(h['from_s'])} - {_fmt_time(h['to_s'])}", f"{h['count']:,}", f"{h['idle_s']:,.1f} s",
                          f"{h['idle_s'] / total:.1%}")
        console.print(table)
        for m in st.get("modes", []):
            console.print(f"  {m['mode']}: break-even {_fmt_time(m['break_even_s'])}; {m['gaps_longer']:,} gaps longer, "
                          f"holding {m['idle_share_longer']:.1%} of idle time (the most any policy could use)")
    if args.plot:
        console.print(f"wrote {args.plot}")
    return 0


def cmd_trace_formats(args) -> int:
    table = Table(title="trace formats (--format; auto recognises each from its content)", title_justify="left")
    table.add_column("format")
    table.add_column("what it is")
    for name, description in DESCRIPTIONS.items():
        table.add_row(name, description)
    _console().print(table)
    return 0


def cmd_sweep(args) -> int:
    from .sweeps import SweepInterrupted, TraceSource, plot_tradeoff, sweep, write_rows

    if args.out:
        check_destination(args.out, (".parquet", ".csv"))
    sources = [TraceSource(path=p, format=args.format, stream=args.stream) for p in args.traces]
    try:
        results = sweep(sources, args.device, args.policy, transforms=args.transform or ["none"], base_power_w=args.base_power,
                        jobs=args.jobs, scheduler=args.scheduler, response_from=args.response_from)
    except SweepInterrupted as stop:
        stop.detail = f"{stop.runs_done:,} of {stop.runs_planned:,} runs finished"
        if args.out and stop.rows:
            partial = partial_path(args.out)
            write_rows(Results(stop.rows, "partial"), str(partial), partial_of=stop.runs_planned)
            stop.detail += f"; their rows are in {partial} (marked partial), {args.out} was not written"
        raise
    if args.out:
        write_rows(results, args.out)
    if args.plot:
        plot_tradeoff(results, args.plot)
    if args.json:
        json.dump(results.to_dicts(json_safe=True), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        from .sweeps import GROUP_KEYS, summary

        rows = results.to_dicts()
        keys = tuple(k for k in GROUP_KEYS if len({str(r.get(k)) for r in rows}) > 1)
        title = f"{len(results):,} runs" + (f"; rows in {args.out}" if args.out else "") + (f"; plot in {args.plot}" if args.plot else "")
        if args.out:
            # Every run is in the file: the terminal gets the runs worth reading first.
            rows = summary(rows)
            keys += ("why",)
            title += (f"\nshown: {len(rows):,} of them, the energy/response frontier and each family's least energy "
                      "(always-on for reference)")
        console = _console()
        console.print(results_table(rows, title, wide=args.wide, keys=keys, width=console.width))
    return 0


def cmd_workload(args) -> int:
    from .system import mail_workload, web_workload, write_app_trace

    if args.kind == "mail":
        trace = mail_workload(seed=args.seed)
    else:
        if not args.log:
            raise IdlewiseError("workload web needs --log NASA.tsv (the NASA access log, e.g. tests/data/web/nasa_19950801.tsv)")
        trace = web_workload(args.log, seed=args.seed, cached_fraction=1.0 if args.all_cached else 0.5)
    write_app_trace(trace, args.out)
    notes = ", ".join(f"{k} {v}" for k, v in trace.notes.items())
    print(f"wrote {len(trace)} events ({int(trace.cached.sum())} of them on cached objects) to {args.out}" + (f"; {notes}" if notes else ""))
    return 0


CACHE_KEYS = ("mean_response_s", "energy_j", "storage_energy_j", "network_energy_j", "io_cpu_energy_j", "storage_reads", "network_reads",
              "ghost_hints", "spin_ups", "writes_pending_at_end", "energy_lower_bound_j")


def cmd_cache(args) -> int:
    from .system import read_app_trace, run_cache

    trace = read_app_trace(args.workload)
    r = run_cache(trace, storage=args.storage, network=args.network, cache=args.cache, knob=args.knob,
                  ghost_hints=not args.no_ghost_hints, base_power_w=args.base_power, io_cpu_power_w=args.io_cpu_power,
                  storage_policy=args.storage_policy, network_policy=args.network_policy)
    if args.json:
        json.dump(r, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return 0
    table = Table(title=f"{trace.name} on {r['storage']} + {r['network']}: {args.cache} cache, knob {args.knob:g}"
                  + ("" if r["ghost_hints_enabled"] else ", no ghost hints"), title_justify="left")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in CACHE_KEYS + ("makespan_s", "hint_spin_ups", "writes_queued", "writes_flushed", "storage_policy", "network_policy"):
        value = r.get(key)
        table.add_row(key, f"{value:,.3f}" if isinstance(value, float) else str(value))
    _console().print(table)
    return 0


def cmd_experiment(args) -> int:
    from .experiments import DEVICE_EXPERIMENTS, EXPERIMENTS, NO_WORKLOAD, TRACE_EXPERIMENTS

    if args.device and args.name not in DEVICE_EXPERIMENTS:
        raise IdlewiseError(f"experiment {args.name} takes no --device")
    if args.traces and args.name not in TRACE_EXPERIMENTS:
        raise IdlewiseError(f"experiment {args.name} takes no trace arguments" +
                            ("" if args.name in NO_WORKLOAD else " (give application traces with --workload)"))
    if args.name in TRACE_EXPERIMENTS:
        if not args.traces:
            raise IdlewiseError(f"experiment {args.name} needs one or more trace files: idlewise experiment {args.name} TRACE...")
        result = EXPERIMENTS[args.name](args.traces, plot=args.plot, device=args.device, format=args.format,
                                        stream=args.stream, sort=args.sort)
    elif args.name in DEVICE_EXPERIMENTS:
        result = EXPERIMENTS[args.name](None, plot=args.plot, device=args.device)
    else:
        if args.name not in NO_WORKLOAD and not args.workload:
            raise IdlewiseError(f"experiment {args.name} needs --workload (an application trace CSV; repeatable)")
        result = EXPERIMENTS[args.name](args.workload, plot=args.plot)
    if args.json:
        json.dump(result, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    elif args.name in EXPERIMENT_PRINTERS:
        EXPERIMENT_PRINTERS[args.name](result)
    else:
        _print_system_rows(result, f"experiment {args.name}")
    if args.plot and not args.json:
        print(f"plot written to {args.plot}")
    return 0


def _print_arm_power(rows) -> None:
    """Seed 001 Figure 1(b): mechanical power against the range of random blocks."""
    table = Table(title="seed 001 Figure 1(b): mechanical power under random reads (seed: ~1.7 W with no arm movement, "
                        "almost 3 W at movements of 27-30 %)", title_justify="left")
    for column in ("range of blocks", "mean arm movement", "mean service", "mechanical power W"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(f"{r['range_fraction']:.0%}", f"{r['mean_movement_fraction']:.1%}", _fmt_time(r["mean_service_s"]),
                      f"{r['mechanical_power_w']:.2f}")
    _console().print(table)


def _print_system_rows(rows, title: str) -> None:
    """Seed 000's system experiments (static-vs-adaptive, knob, ghost-hints): one row per run."""
    table = Table(title=title, title_justify="left")
    keys = ["workload", "variant", "knob", "mean_response_s", "energy_j", "energy_lower_bound_j", "storage_reads",
            "network_reads", "ghost_hints", "spin_ups"]
    for k in keys:
        table.add_column(k, justify="left" if k in ("workload", "variant") else "right")
    for row in rows:
        table.add_row(*[f"{row[k]:,.3f}" if isinstance(row[k], float) else str(row[k]) for k in keys])
    _console().print(table)


def _print_nvcache_flushing(result) -> None:
    """Seed 003 on hplajw: Figure 5's table, the claims with ours, and the sweeps' ends."""
    console = _console()
    title = (f"seed 003 Figure 5 on {result['trace']} ({result['requests']:,} requests): hybrid {result['disk']} + "
             f"{result['flash']}, DRAM 16 MiB, NVCache 64 MiB, {result['policy'].split(':')[0]}")
    console.print(hybrid_table(Results(result["figure5"]), title))
    inf = result["infinite"]
    console.print(f"infinite NVCache: {_fmt_bytes(inf['bytes_cached'])} cached over the week in {inf['spindown_periods']:,} "
                  f"spin-down periods, at most {_fmt_bytes(inf['max_bytes_per_spindown'])} in one; plain disk "
                  f"{result['plain_disk']['energy_j']:,.0f} J, {result['plain_disk']['spinups']:,} spin-ups")
    table = Table(title="seed 003's claims, and ours on hplajw", title_justify="left")
    for column in ("claim", "seed", "ours", "holds"):
        table.add_column(column)

    def show(v):
        if isinstance(v, float):
            return f"{v:.1%}"
        if isinstance(v, int) and v > 100_000:
            return _fmt_bytes(v)
        return str(v)

    for c in result["claims"]:
        ours = "; ".join(
            f"{k}: " + (", ".join(f"{a}: {show(x)}" for a, x in v.items()) if isinstance(v, dict) else show(v))
            for k, v in c["ours"].items())
        table.add_row(c["claim"], c["seed"], ours, "yes" if c["holds"] else "no")
    console.print(table)


def _print_swap_reshaping(rows) -> None:
    """Seed 002 Table 3: ours next to the seed's, execution time and swapping energy."""
    table = Table(title="seed 002 Table 3, matrix product, closed loop: idlewise / seed "
                        "(± one s.d. over drawn wake-up times)", title_justify="left")
    for column in ("device", "DPM", "time s original", "time s reshaped", "ratio", "energy J original", "energy J reshaped", "ratio"):
        table.add_column(column, justify="left" if column in ("device", "DPM") else "right")

    def cell(row, key, variant, digits):
        ours, seed = row[f"{key}_{variant}"], row["seed"][f"{key}_{variant}"]
        if ours is None:
            return "-"
        spread = row[f"{key}_{variant}_std"]
        return f"{ours:.{digits}f}" + (f" ± {spread:.{digits}f}" if spread else "") + f" / {seed:.{digits}f}"

    def ratio(row, key, ours):
        seed = row["seed"]
        if ours is None:
            return "-"
        return f"{ours:.2f} / {seed[f'{key}_reshaped'] / seed[f'{key}_original']:.2f}"

    for r in rows:
        table.add_row(r["device"], r["dpm"] + (f" ({r['policy']})" if r["dpm"] != "none" else ""),
                      cell(r, "exec_time_s", "original", 2), cell(r, "exec_time_s", "reshaped", 2),
                      ratio(r, "exec_time_s", r["exec_time_ratio"]),
                      cell(r, "energy_j", "original", 3), cell(r, "energy_j", "reshaped", 3), ratio(r, "energy_j", r["energy_ratio"]))
    _console().print(table)


def _print_hint_conditions(rows) -> None:
    """Seed 000: where ghost hints beat the same knob without them on both response and energy."""
    table = Table(title="seed 000: bursts of cached reads on a sleeping disk, ghost hints against none at the same knob",
                  title_justify="left")
    for column in ("reads", "size", "think", "knob", "with hints", "without", "hint spin-ups", "strictly better"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(f"{r['reads']}", f"{r['size_bytes'] // 1024} KB", f"{r['think_s']:g} s", f"{r['knob']}",
                      f"{_fmt_time(r['with_hints_mean_response_s'])}, {r['with_hints_energy_j']:,.1f} J",
                      f"{_fmt_time(r['without_mean_response_s'])}, {r['without_energy_j']:,.1f} J", f"{r['hint_spin_ups']}",
                      "yes" if r["dominates"] else "no")
    _console().print(table)


def _print_static_baselines(rows) -> None:
    """Seed 000 Figure 7 against every static baseline the seed leaves open."""
    table = Table(title="seed 000 Figure 7: adaptive (knob 50) against each static baseline (seed: mail -42 % / -5 %, "
                        "web -27 % / -9 %)", title_justify="left")
    for column in ("workload", "static baseline (disk)", "static response", "static energy", "change: response / energy"):
        table.add_column(column, justify="left" if column in ("workload", "static baseline (disk)") else "right")
    for r in rows:
        table.add_row(r["workload"], r["baseline"], _fmt_time(r["static_mean_response_s"]), f"{r['static_energy_j']:,.0f} J",
                      f"{r['response_change']:+.0%} / {r['energy_change']:+.0%}")
    _console().print(table)


def _print_purple(result) -> None:
    """Seed 001 Figures 2-5: the central claim per stand-in drive and workload."""
    table = Table(title=f"seed 001 on {result['trace']} ({result['replay']} replay, normalised against the unmodified trace "
                        "always on): energy down 80 % with delay near 1?", title_justify="left")
    for column in ("drive", "workload", "delay, shortest timeout", "energy, shortest timeout", "least energy with delay <= 1.25",
                   "spin-ups", "holds"):
        table.add_column(column, justify="left" if column in ("drive", "workload") else "right")
    for v in result["claim"]:
        least = "none" if v["least_energy_with_delay_near_1"] is None else f"{v['least_energy_with_delay_near_1']:.2f} at {v['at_timeout_s']:g} s"
        table.add_row(v["drive"], v["workload"], f"x{v['delay_at_shortest_timeout']:.1f}", f"{v['energy_at_shortest_timeout']:.2f}",
                      least, f"{v['spinups_at_shortest_timeout']:,}", "yes" if v["claim_holds"] else "no")
    _console().print(table)


def _print_mems_optimum(rows) -> None:
    """Seed 004's optimum on mobile workloads: the best timeout and what 1 ms and 10 ms cost."""
    table = Table(title=f"seed 004 on mobile workloads ({rows[0]['requests']:,} requests each, closed loop): "
                        "least energy by timeout", title_justify="left")
    for column in ("locality", "idle < 1 ms", "shutdown", "best timeout", "E(1 ms)/E(0)", "E(10 ms)/E(0)", "R(10 ms)/R(0)"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(f"{r['locality']:.0%}", f"{r['sub_ms_share']:.0%}", r["shutdown"].upper(), f"{r['best_timeout_ms']} ms",
                      f"{r['energy_1ms_j'] / r['energy_0ms_j'] - 1:+.2%}", f"{r['energy_10ms_j'] / r['energy_0ms_j'] - 1:+.2%}",
                      f"{r['response_10ms_s'] / r['response_0ms_s'] - 1:+.2%}")
    _console().print(table)


def _print_mems_timeout(rows) -> None:
    """Seed 004's Tables 2 (PE) and 3 (EE): energy J / mean response ms per timeout and trace."""
    traces = list(dict.fromkeys(r["trace"] for r in rows))
    console = _console()
    for shutdown, table_no in (("pe", 2), ("ee", 3)):
        mine = [r for r in rows if r["shutdown"] == shutdown]
        table = Table(title=f"seed 004 Table {table_no} layout, {shutdown.upper()} shutdown, {rows[0]['device']}: "
                            "energy J / mean response ms", title_justify="left")
        table.add_column("timeout ms", justify="right")
        for t in traces:
            table.add_column(t, justify="right")
        for timeout_s in dict.fromkeys(r["timeout_s"] for r in mine):
            cells = {r["trace"]: r for r in mine if r["timeout_s"] == timeout_s}
            table.add_row(f"{timeout_s * 1e3:g}", *[f"{cells[t]['energy_j']:.4g} / {cells[t]['mean_response_s'] * 1e3:.3g}" for t in traces])
        first = {r["trace"]: r for r in reversed(mine)}
        table.add_row("theoretical min.", *[f"{first[t]['theoretical_min_energy_j']:.4g} / "
                                            f"{first[t]['theoretical_min_response_s'] * 1e3:.3g}" for t in traces])
        console.print(table)
    for t in traces:
        if any(r["folded"] for r in rows if r["trace"] == t):
            console.print(f"note: {t} does not fit {rows[0]['device']}: its block numbers were folded onto the device "
                          "(block mod (capacity - size))")


def _print_mems_shutdown(rows) -> None:
    table = Table(title=f"seed 004 section 6.2: shutdown from rest along one axis, {rows[0]['device']} (idlewise | seed)",
                  title_justify="left")
    for column in ("policy", "from", "time ms", "actuator energy uJ"):
        table.add_column(column, justify="left" if column == "policy" else "right")
    for r in rows[:-1]:
        table.add_row(r["shutdown"].upper(), f"{r['distance_m'] * 1e6:g} um",
                      f"{r['time_s'] * 1e3:.3f} | {r['seed_time_s'] * 1e3:.1f}", f"{r['energy_j'] * 1e6:.2f}")
    _console().print(table)
    field = rows[-1]
    print(f"over the probe field: EE saves at least {field['least_energy_saving']:.1%} of the shutdown energy "
          f"(seed: at least 40 %); EE takes up to {field['largest_time_increase']:.0%} longer than PE "
          "(1 um from the centre, the grid's nearest point; the seed: up to 600 %)")


def _print_swap_cost(rows) -> None:
    table = Table(title="seed 002 Table 1: swapping one 4096-byte page (idlewise from the catalog | seed)",
                  title_justify="left")
    for column in ("device", "protocol", "read-only ms", "mJ", "mW", "write-back ms", "mJ ", "mW "):
        table.add_column(column, justify="left" if column in ("device", "protocol") else "right")
    for r in rows:
        ro, wb = r["seed_read_only"], r["seed_write_back"]
        table.add_row(r["device"], r["protocol"],
                      f"{r['read_only_time_s'] * 1e3:.1f} | {ro['time_s'] * 1e3:.1f}",
                      f"{r['read_only_energy_j'] * 1e3:.3f} | {ro['energy_j'] * 1e3:.3f}",
                      f"{r['read_only_power_w'] * 1e3:.0f} | {ro['power_w'] * 1e3:.0f}",
                      f"{r['write_back_time_s'] * 1e3:.1f} | {wb['time_s'] * 1e3:.1f}",
                      f"{r['write_back_energy_j'] * 1e3:.3f} | {wb['energy_j'] * 1e3:.3f}",
                      f"{r['write_back_power_w'] * 1e3:.0f} | {wb['power_w'] * 1e3:.0f}")
    _console().print(table)


def cmd_devices(args) -> int:
    console = _console()
    if not args.name:
        table = Table(title="catalog devices (idlewise devices NAME for details)", title_justify="left")
        for column in ("name", "kind", "modes", "description"):
            table.add_column(column)
        for name in catalog_names():
            d = load_device(name)
            table.add_row(name, d.kind, ", ".join(f"{m['name']} {m['power_w']:g} W" for m in d.modes), d.description)
        console.print(table)
        return 0
    if args.name == "validate":
        return _validate_device(console, args.file)
    if args.toml:
        print(_device_toml(args.name), end="")
        return 0
    d = load_device(args.name)
    if args.json:
        json.dump({"name": d.name, "kind": d.kind, "description": d.description, "source": d.source,
                   "assumptions": d.assumptions, "modes": d.modes, "transitions": d.transitions, "service": d.service,
                   "start_stop_cycles": d.start_stop_cycles, "load_unload_cycles": d.load_unload_cycles},
                  sys.stdout, indent=2, default=lambda x: None)
        sys.stdout.write("\n")
        return 0
    _print_device(console, d, shown_as=args.name)
    return 0


def _device_toml(name: str) -> str:
    """A catalog entry's file (or a device file's text), to start a new device file from."""
    import importlib.resources

    if os.path.exists(name):
        with open(name, encoding="utf-8") as f:
            return f.read()
    if name not in catalog_names():
        load_device(name)  # the catalog's error, naming the devices it has
    return (importlib.resources.files("idlewise") / "catalog" / f"{name}.toml").read_text(encoding="utf-8")


def _validate_device(console, path) -> int:
    from rich.markup import escape

    if not path:
        raise IdlewiseError("devices validate needs a device file: idlewise devices validate my-disk.toml")
    if not os.path.exists(path):
        raise IdlewiseError(f"{path}: no such file")
    d = load_device(path)
    unsourced = [m["name"] for m in d.modes if not (m.get("source") or m.get("assumed"))]
    unsourced += [f"{t['from']}->{t['to']}" for t in d.transitions if not (t.get("source") or t.get("assumed"))]
    console.print(escape(f"{path}: valid: {d.name} ({d.kind}), {len(d.modes)} modes, {len(d.transitions)} transitions"
                         + "".join(f", rated for {n:,.0f} {kind} cycles" for kind, n, _ in wear_ratings(d))),
                  highlight=False)
    for warning in d.warnings:
        console.print(escape(f"warning: {warning}"), highlight=False)
    if unsourced:
        console.print(escape(f"note: no source or assumption for {', '.join(unsourced)}: say where each value comes from"),
                      highlight=False)
    return 0


def _provenance(item: dict) -> str:
    """Where a value comes from, in words: its source, and what was assumed and why."""
    parts = [item["source"]] if item.get("source") else []
    if item.get("assumed"):
        parts.append(f"assumed: {item['assumed']}")
    return "; ".join(parts) or "(no source given)"


def _print_device(console, d, shown_as: str) -> None:
    from rich.markup import escape

    origin = "" if shown_as == d.name else f" (from {shown_as})"
    console.print(f"[bold]{escape(d.name)}[/bold]{escape(origin)} ({d.kind}): {escape(d.description)}")
    console.print(f"source: {escape(d.source)}" if d.source else "source: (none given)", highlight=False)
    modes = Table(title="modes (the first serves requests)", title_justify="left")
    for column in ("mode", "power W", "break-even", "EPC timer", "source"):
        modes.add_column(column)
    for m in d.modes:
        modes.add_row(escape(m["name"]), f"{m['power_w']:g}", _fmt_time(m["break_even_s"]) if m["break_even_s"] else "-",
                      _fmt_time(m["epc_timer_s"]) if "epc_timer_s" in m else "", escape(_provenance(m)))
    console.print(modes)
    transitions = Table(title="transitions", title_justify="left")
    for column in ("from", "to", "time", "energy J", "source"):
        transitions.add_column(column)
    for t in d.transitions:
        time = _fmt_time(t["time_s"]) + (f" ± {_fmt_time(t['time_std_s'])} ({t['time_distribution']})" if "time_std_s" in t else "")
        transitions.add_row(escape(t["from"]), escape(t["to"]), time, f"{t['energy_j']:g}", escape(_provenance(t)))
    console.print(transitions)
    s = d.service
    console.print(escape(f"service: {s['overhead_s'] * 1e3:g} ms + size / ({s['read_bandwidth_bytes_per_s']:g} B/s read, "
                         f"{s['write_bandwidth_bytes_per_s']:g} B/s write) at {s['read_power_w']:g} W read, "
                         f"{s['write_power_w']:g} W write\n  {_provenance(s)}"), highlight=False)
    if s.get("seek"):
        k = s["seek"]
        console.print(escape(
            f"seek curve: {k['sqrt_intercept_s'] * 1e3:g} ms + {k['sqrt_coeff_s'] * 1e3:g} ms·√d up to "
            f"{k['boundary_cylinders']:,.0f} cylinders, then {k['linear_intercept_s'] * 1e3:g} ms + "
            f"{k['linear_coeff_s'] * 1e3:g} ms·d; {k['bytes_per_cylinder']:,.0f} B a cylinder"
            + (f", {k['capacity_bytes'] / 1e9:,.4g} GB in all; " if k.get("capacity_bytes") else " (capacity not given: offsets unchecked); ")
            + f"+ {k['half_rotation_s'] * 1e3:g} ms half a rotation; {k['seek_power_w']:g} W extra while seeking\n"
            f"  seek time at " + ", ".join(f"{d_:,.0f} cyl: {t * 1e3:.2f} ms" for d_, t in k["curve_s"])
            + f"\n  {_provenance(k)}"), highlight=False)
    for kind, n, counted in wear_ratings(d):
        console.print(f"rated {kind} cycles: {n:,.0f} (the wake-ups that use one are counted as {counted} in results)")
    for note in d.assumptions:
        console.print(f"assumption: {escape(note)}", highlight=False)


def cmd_policies(args) -> int:
    families = _core.policy_families()
    if args.json:
        json.dump(families, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    table = Table(title="policies (durations take units: us, ms, s, min, h)", title_justify="left", show_lines=True)
    for column in ("policy", "what it does", "parameters (default)", "example"):
        table.add_column(column)
    for f in families:
        params = "\n".join(f"{p['name']}" + (f" ({p['default']})" if p["default"] else "") + f": {p['help']}" for p in f["params"])
        table.add_row(f["name"], f["summary"], params or "-", f["example"])
    _console().print(table)
    return 0


def cmd_record(args) -> int:
    from .record import record

    console = _console(stderr=True)
    where = ", ".join(args.disk) if args.disk else "every disk"
    length = f" for {_fmt_time(args.duration)}" if args.duration is not None else " until Ctrl-C"
    console.print(f"recording {where} every {_fmt_time(args.interval)}{length} into {args.out}")
    snapshots = record(args.out, disks=args.disk, interval_s=args.interval, duration_s=args.duration)
    console.print(f"{snapshots:,} snapshots in {args.out}; next: idlewise advise {args.out} --device NAME")
    return 0


def cmd_advise(args) -> int:
    from .advisor import Limits, advise, plot_advice

    device = load_device(args.device)  # checked before a possibly long read
    trace = _read_trace(args, args.trace)
    _report_read(trace, args.json)
    limits = Limits(max_wakeups_per_day=args.max_wakeups_per_day, lifetime_years=args.lifetime_years,
                    max_delayed_per_hour=args.max_delayed_per_hour, max_added_delay_s=args.max_added_delay,
                    price_per_kwh=args.price_per_kwh)
    advice = advise(trace, device, limits=limits, disk=args.stream if isinstance(args.stream, str) else None)
    if args.plot:
        plot_advice(advice, args.plot)
    if args.json:
        json.dump(json_ready(advice), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
        return 0
    _print_advice(advice, args)
    return 0


def _print_advice(advice: dict, args) -> None:
    console = _console()
    from .traces.trace import span_text

    console.print(f"[bold]{advice['device']}[/bold] on {advice['trace']}: {advice['requests']:,} requests recorded over "
                  f"{span_text(advice['recorded_s'])}; extrapolated to a year, always on it draws "
                  f"{advice['always_on_kwh_per_year']:.1f} kWh, the offline optimum saves "
                  f"{advice['oracle_kwh_saved_per_year']:.1f}")
    table = Table(title="every setting tried (per year unless said)", title_justify="left")
    for column in ("setting", "saves kWh", "money", "wake-ups/day", "years to rated cycles", "delayed/hour",
                   "added delay", "within limits"):
        table.add_column(column, justify="left" if column == "setting" else "right", no_wrap=column == "setting")
    for r in advice["candidates"]:
        chosen = r["policy"] == advice["policy"]
        money = "" if r["money_saved_per_year"] is None else f"{r['money_saved_per_year']:.2f}"
        table.add_row(("→ " if chosen else "") + r["policy"], f"{r['kwh_saved_per_year']:.2f}", money,
                      f"{r['wakeups_per_day']:.1f}", _fmt_years(r["years_to_rated_cycles"]),
                      f"{r['delayed_requests_per_hour']:.2f}", _fmt_time(r["mean_added_delay_s"]) if r["mean_added_delay_s"] else "0",
                      "yes" if r["meets_limits"] else "no: " + "; ".join(r["breaks"]),
                      style="bold green" if chosen else None)
    console.print(table)
    for warning in advice["warnings"]:
        console.print(f"[yellow]note: {warning}[/yellow]")
    if not advice["advised"]:
        keep = "Leave the disk spinning: hdparm -S 0" if advice["device_kind"] == "disk" else "Keep the drive in its ready state"
        console.print(f"[bold red]{advice['verdict']}[/bold red]. {keep}")
        return
    price = advice["limits"]["price_per_kwh"]
    setting = f" (hdparm -S {advice['hdparm_S']})" if advice["hdparm_S"] else ""
    console.print(f"[bold green]Recommended: {advice['policy']}{setting}[/bold green]")
    money = "" if price is None else f", worth {advice['money_saved_per_year']:.2f} a year at {price:.2f} per kWh"
    console.print(f"  saves {advice['kwh_saved_per_year']:.2f} kWh a year{money}; "
                  f"{advice['wakeups_per_day']:.1f} wake-ups a day"
                  + (f", rated cycles last {_fmt_years(advice['years_to_rated_cycles'])} years" if advice["years_to_rated_cycles"] else "")
                  + f"; {advice['delayed_requests_per_hour']:.2f} requests an hour wait for a wake-up, "
                  f"{_fmt_time(advice['mean_added_delay_s'])} each on average")
    if advice.get("hd_idle"):
        h = advice["hd_idle"]
        console.print(f"  with hd-idle instead (it polls, so the disk stops a little later): saves "
                      f"{h['kwh_saved_per_year']:.2f} kWh a year at {h['wakeups_per_day']:.1f} wake-ups a day")
    console.print("apply it with one of:")
    for command in advice["commands"]:
        console.print(f"  {command}", highlight=False)


def _watts(text: str) -> float:
    """A power with or without its unit: 1.44, 1.44W or 1440mW (the engine's parser, as in
    policy parameters such as stpm:base=1.44W)."""
    try:
        return _core.parse_power_w(text)
    except _core.IdlewiseError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _seconds(text: str) -> float:
    """A duration with its unit (2s, 500ms, 1h), as in policy specs."""
    try:
        return _core.parse_duration_s(text)
    except (_core.IdlewiseError, ValueError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _response_option(parser) -> None:
    parser.add_argument("--response-from", choices=("issue", "original"), default="issue",
                        help="measure responses from when a request is issued, or from its original time before a "
                             "transform issued it early (compress: successful read-ahead, so prefetched data waits 0)")


def _stream_key(text: str):
    """A device's number, or its name (diskstats and biosnoop files name their devices)."""
    return int(text) if text.isdigit() else text


def _stream_option(parser) -> None:
    parser.add_argument("--stream", type=_stream_key, metavar="K",
                        help="only device K of a multi-device trace (its number, or its name in a diskstats or biosnoop file)")


def _wide_option(parser) -> None:
    parser.add_argument("--wide", action="store_true", help="every column (default: those that fit the terminal)")


def _trace_options(parser, stream: bool = True) -> None:
    parser.add_argument("--format", default="auto", choices=("auto",) + FORMATS, help="trace format (default: recognise)")
    if stream:
        _stream_option(parser)
    parser.add_argument("--sort", action="store_true", help="sort records by time instead of refusing out-of-order times")
    parser.add_argument("--columns", metavar="KEY=COLUMN,...",
                        help="read a CSV with its own header: which column holds what, in which unit, e.g. "
                             "time_ms=ts,size_bytes=len,op=rw (keys: time[_s]|time_ms|time_us|time_ns, size[_bytes]|size_sectors"
                             "|size_kib, optional offset[_bytes]|offset_sectors|offset_kib, op, optional stream)")
    parser.add_argument("--write-flag", choices=("0", "1"),
                        help="with --columns: the op column holds 0/1 flags and this value means a write")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="idlewise", description="Replay I/O traces against power-managed devices and policies.")
    parser.add_argument("--version", action="version", version=f"idlewise {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="replay the bundled hplajw week on a catalog laptop disk under several policies")
    demo.add_argument("--device", default=DEMO_DEVICE, help=f"catalog name or TOML path (default {DEMO_DEVICE})")
    demo.add_argument("--policy", action="append", help="policy spec (repeatable; default: a representative set)")
    demo.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power for system energy")
    demo.add_argument("--json", action="store_true", help="print results as JSON")
    _wide_option(demo)
    demo.set_defaults(func=cmd_demo)

    sim = sub.add_parser("simulate", help="replay a trace on a device under one or more policies")
    sim.add_argument("trace", help="trace file (simple CSV 'time_s,offset_bytes,size_bytes,op' or HP SRT)")
    sim.add_argument("--device", action="append", required=True, help="catalog name or TOML path (repeatable: each device is simulated)")
    sim.add_argument("--policy", action="append", required=True, help="policy spec, e.g. timeout:2s or a range timeout:0s..10s/2s (repeatable)")
    sim.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power added to system energy")
    sim.add_argument("--initial-mode", default=None, metavar="MODE", help="mode the device is in at the first request (default: ready)")
    sim.add_argument("--replay", choices=("open", "closed", "sync"), default="open",
                     help="open: requests at their trace times; closed: each issued its trace gap after the previous completes; "
                          "sync: each at its trace time or when the previous completes, whichever is later (seed 001)")
    sim.add_argument("--fold-offsets", action="store_true",
                     help="fold offsets onto a device with a fixed capacity (MEMS: block mod (capacity - size); a disk whose file gives its cylinders: offset mod capacity for the seek)")
    _response_option(sim)
    sim.add_argument("--tail", type=_seconds, default=0.0, metavar="DURATION",
                     help="the run goes on this long after the last request completes, the device idling under its policy")
    sim.add_argument("--transition-seed", type=int, metavar="N",
                     help="draw wake-up times that vary (time_std_s in the device) from seed N; default: their means")
    _trace_options(sim)
    sim.add_argument("--transform", metavar="T", help="workload transform, e.g. compress-reorder:64ops (chain with +)")
    sim.add_argument("--json", action="store_true", help="print a JSON list, one object per policy")
    sim.add_argument("--per-request", metavar="FILE.parquet",
                     help="also write every request of every run to Parquet: policy, device, request, arrival_s, start_s, "
                          "finish_s, response_s, wait_s, mode_at_arrival")
    _wide_option(sim)
    sim.add_argument("--chunks", action="store_true",
                     help="accepted for older scripts and ignored: a trace is replayed as it is read whenever it can be "
                          "(in time order, no --sort, --transform or --per-request), at memory bounded whatever its length")
    sim.set_defaults(func=cmd_simulate)

    rp = sub.add_parser("report", help="write one self-contained HTML report: the trace's idle gaps, a sortable results "
                                        "table, energy by mode, the energy-response trade-off, wake-ups, a mode timeline")
    rp.add_argument("trace", nargs="?", help="trace file (leave out with --from)")
    rp.add_argument("--device", action="append", help="catalog name or TOML path (repeatable)")
    rp.add_argument("--policy", action="append", help="policy spec or range, e.g. timeout:1s..60s/5s (repeatable; "
                                                       "default: a representative set); always-on and the oracle are added")
    rp.add_argument("--from", dest="from_rows", metavar="RUNS.parquet",
                    help="make the report of a sweep's rows (idlewise sweep --out RUNS.parquet or .csv) instead")
    rp.add_argument("--window", metavar="FROM..TO", help="mode timeline window, times from the first request, e.g. 2h..150min "
                                                         "(default: the half hour where policies differ most)")
    rp.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power added to system energy")
    rp.add_argument("--initial-mode", default=None, metavar="MODE", help="mode the device is in at the first request")
    rp.add_argument("--transform", metavar="T", help="workload transform, e.g. compress:64ops")
    _trace_options(rp)
    rp.add_argument("--title", help="the report's title (default: names the trace)")
    rp.add_argument("--out", required=True, metavar="REPORT.html", help="where to write the report")
    rp.set_defaults(func=cmd_report)

    hy = sub.add_parser("hybrid", help="replay a trace on a hybrid disk with a flash NVCache (seed 003): when and how to flush")
    hy.add_argument("trace", help="trace file")
    hy.add_argument("--hybrid", metavar="NAME|FILE", help="a hybrid description naming its parts and sizes "
                    "(bundled: seed003-e7k100-ultra-ii); the options below override it")
    hy.add_argument("--disk", help="the rotating media: catalog name or TOML path")
    hy.add_argument("--flash", help="the NVCache: catalog name or TOML path")
    hy.add_argument("--nvcache", action="append", metavar="SIZE", help="NVCache size, e.g. 64MiB, 1GB or inf "
                    "(repeatable; default 64MiB)")
    hy.add_argument("--dram", action="append", metavar="SIZE", help="DRAM buffer for flushing, e.g. 16MiB, 100KB "
                    "(repeatable; default 16MiB)")
    hy.add_argument("--flush-when", action="append", choices=("each", "full"),
                    help="flush after each spin-up, or only when full (repeatable; default full)")
    hy.add_argument("--flush-algorithm", action="append", type=int, choices=(1, 2, 3, 4),
                    help="1 one request at a time, 2 DRAM chunks, 3 double-buffered, 4 double-buffered sorted and merged "
                         "(repeatable; default 4)")
    hy.add_argument("--policy", help="the disk's spin-down policy (default experts, as seed 003)")
    hy.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power (policies that weigh delay)")
    hy.add_argument("--initial-mode", default=None, metavar="MODE", help="the disk's mode at the first request (default: ready)")
    hy.add_argument("--replay", choices=("open", "closed", "sync"), default="open")
    _response_option(hy)
    hy.add_argument("--tail", type=_seconds, default=0.0, metavar="DURATION", help="run on this long after the last request")
    hy.add_argument("--transition-seed", type=int, metavar="N", help="draw varying wake-up times from seed N")
    _trace_options(hy)
    hy.add_argument("--transform", metavar="T", help="workload transform, e.g. compress-reorder:64ops")
    hy.add_argument("--json", action="store_true", help="print a JSON list, one object per (NVCache, DRAM, when, algorithm)")
    hy.set_defaults(func=cmd_hybrid)

    tr = sub.add_parser("trace", help="convert traces and look at workloads")
    trsub = tr.add_subparsers(dest="trace_command", required=True)
    conv = trsub.add_parser("convert", help="convert a trace to Parquet, the native format")
    conv.add_argument("input")
    conv.add_argument("output", help="OUT.parquet")
    _trace_options(conv, stream=False)
    conv.set_defaults(func=cmd_trace_convert)
    st = trsub.add_parser("stats", help="request mix, sizes and the idle-gap distribution")
    st.add_argument("trace")
    st.add_argument("--device", help="catalog name or TOML path: gaps as that device sees them, and its break-even shares")
    _trace_options(st)
    st.add_argument("--transform", metavar="T", help="workload transform first")
    st.add_argument("--plot", metavar="FILE", help="draw the idle-gap histogram (PNG, PDF or SVG)")
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=cmd_trace_stats)
    fm = trsub.add_parser("formats", help="list the trace formats idlewise reads")
    fm.set_defaults(func=cmd_trace_formats)

    sw = sub.add_parser("sweep", help="run every trace x transform x device x policy, in parallel")
    sw.add_argument("traces", nargs="+", help="trace files (each device of a multi-device trace is its own disk)")
    sw.add_argument("--device", action="append", required=True, help="catalog name or TOML path (repeatable)")
    sw.add_argument("--policy", action="append", required=True, help="spec, with at most one range START..STOP/STEP, "
                    "e.g. timeout:0s..60s/2s or stpm:knob=0..100/10 (repeatable)")
    sw.add_argument("--transform", action="append", help="workload transform (repeatable; each is a separate set of runs; 'none' = as is)")
    sw.add_argument("--format", default="auto", choices=("auto",) + FORMATS)
    _stream_option(sw)
    sw.add_argument("--chunks", action="store_true",
                    help="accepted for older scripts and ignored: each trace is replayed as it is read, every policy on the one "
                         "pass, wherever its format and the transform allow")
    sw.add_argument("--base-power", type=_watts, default=0.0, metavar="W")
    _response_option(sw)
    sw.add_argument("--jobs", type=int, help="threads on this machine (default: all cores)")
    sw.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on an existing Dask cluster instead")
    sw.add_argument("--out", metavar="FILE", help="write one row per run to FILE.parquet or FILE.csv")
    sw.add_argument("--plot", metavar="FILE", help="draw energy against mean response, normalised to always-on")
    sw.add_argument("--json", action="store_true")
    _wide_option(sw)
    sw.set_defaults(func=cmd_sweep)

    wl = sub.add_parser("workload", help="write an application trace: a mail session or a web stream (seed 000)")
    wl.add_argument("kind", choices=("mail", "web"))
    wl.add_argument("--seed", type=int, default=0, help="random seed (sizes and think times for mail; the cached half for web)")
    wl.add_argument("--log", help="web: the NASA access log (TSV)")
    wl.add_argument("--all-cached", action="store_true", help="web: every object in the disk cache at the start")
    wl.add_argument("--out", required=True, help="CSV with columns time_s,object,size_bytes,op,cached")
    wl.set_defaults(func=cmd_workload)

    ca = sub.add_parser("cache", help="run an application trace on a disk and an 802.11 card with the energy-aware cache")
    ca.add_argument("workload", help="application trace CSV (time_s,object,size_bytes,op,cached)")
    ca.add_argument("--storage", default="hitachi-microdrive-1gb", help="catalog name or TOML path")
    ca.add_argument("--network", default="cisco-350", help="catalog name or TOML path")
    ca.add_argument("--cache", choices=("adaptive", "static"), default="adaptive")
    ca.add_argument("--knob", type=float, default=50.0, help="0 = energy ... 100 = performance (default 50)")
    ca.add_argument("--no-ghost-hints", action="store_true")
    ca.add_argument("--base-power", type=_watts, default=1.44, metavar="W", help="platform base power (default 1.44 W, the iPAQ)")
    ca.add_argument("--io-cpu-power", type=_watts, default=_core.SEED000_IO_CPU_POWER_W, metavar="W",
                    help=f"what the platform draws above its base power while a device serves (default "
                         f"{_core.SEED000_IO_CPU_POWER_W:g} W, fitted to seed 000's Figure 3)")
    ca.add_argument("--storage-policy", help="override (default: stpm at the knob; static: timeout:10s)")
    ca.add_argument("--network-policy", help="override (default: stpm at the knob; static: psm)")
    ca.add_argument("--json", action="store_true")
    ca.set_defaults(func=cmd_cache)

    ex = sub.add_parser("experiment", help="the seeds' experiments: static-vs-adaptive, static-baselines, knob, ghost-hints, ghost-hint-conditions (000), arm-power, purple-timeouts (001), "
                                           "swap-cost, swap-reshaping (002), nvcache-flushing (003), mems-timeout, mems-shutdown, mems-optimum (004)")
    ex.add_argument("name", choices=("static-vs-adaptive", "static-baselines", "knob", "ghost-hints", "ghost-hint-conditions", "arm-power", "purple-timeouts", "swap-cost", "swap-reshaping",
                                     "nvcache-flushing", "mems-timeout", "mems-shutdown", "mems-optimum"))
    ex.add_argument("traces", nargs="*", metavar="TRACE", help="trace files (mems-timeout)")
    ex.add_argument("--device", help="catalog name or TOML path (mems-timeout, mems-shutdown; default ibm-mems-seed004)")
    _trace_options(ex)
    ex.add_argument("--workload", action="append", help="application trace CSV (repeatable; seed 000's experiments)")
    ex.add_argument("--plot", metavar="FILE")
    ex.add_argument("--json", action="store_true")
    ex.set_defaults(func=cmd_experiment)

    dev = sub.add_parser("devices", help="list catalog devices, or show one")
    dev.add_argument("name", nargs="?", help="catalog name or TOML path; or 'validate' followed by a device file")
    dev.add_argument("file", nargs="?", help=argparse.SUPPRESS)
    dev.add_argument("--toml", action="store_true", help="print the device's file, to start a new device from it")
    dev.add_argument("--json", action="store_true")
    dev.set_defaults(func=cmd_devices)

    rec = sub.add_parser("record", help="record /proc/diskstats snapshots of this machine's disks, for advise and simulate")
    rec.add_argument("--disk", action="append", metavar="NAME", help="a disk to record, e.g. sda (repeatable; default: every disk)")
    rec.add_argument("--interval", type=_seconds, default=1.0, metavar="DURATION", help="time between snapshots (default 1s)")
    rec.add_argument("--duration", type=_seconds, metavar="DURATION", help="how long to record (default: until Ctrl-C)")
    rec.add_argument("--out", required=True, metavar="FILE", help="the recording, e.g. sda.diskstats")
    rec.set_defaults(func=cmd_record)

    adv = sub.add_parser("advise", help="recommend a spin-down timeout (or NVMe APST latency) for a recorded workload")
    adv.add_argument("trace", help="a diskstats recording (idlewise record) or any trace idlewise reads")
    adv.add_argument("--device", required=True, help="catalog name or TOML path of the disk")
    _trace_options(adv)
    adv.add_argument("--disk", dest="stream", type=_stream_key, metavar="NAME", help="the same as --stream: sda")
    adv.add_argument("--max-wakeups-per-day", type=float, metavar="N", help="at most N spin-ups a day")
    adv.add_argument("--lifetime-years", type=float, default=5.0, metavar="Y",
                     help="the rated start/stop cycles must last Y years (default 5)")
    adv.add_argument("--max-delayed-per-hour", type=float, metavar="N", help="at most N requests an hour wait for a wake-up")
    adv.add_argument("--max-added-delay", type=_seconds, metavar="DURATION", help="at most this mean wait for a delayed request")
    adv.add_argument("--price-per-kwh", type=float, default=0.30, metavar="P", help="electricity price (default 0.30)")
    adv.add_argument("--plot", metavar="FILE", help="draw energy against wake-ups a day (PNG, PDF or SVG)")
    adv.add_argument("--json", action="store_true")
    adv.set_defaults(func=cmd_advise)

    pol = sub.add_parser("policies", help="list policies and their parameters")
    pol.add_argument("--json", action="store_true")
    pol.set_defaults(func=cmd_policies)
    return parser


def _terminate(signum, frame):
    """SIGTERM stops a command as Ctrl-C does: the engine is asked to stop and waited for."""
    stop = KeyboardInterrupt()
    stop.signal = signal.SIGTERM
    raise stop


def partial_path(out) -> Path:
    """Where an interrupted sweep leaves the rows it finished: ``runs.partial.parquet`` beside
    ``runs.parquet``."""
    out = Path(out)
    return out.with_name(f"{out.stem}.partial{out.suffix}")


def _print_warning(message, category, filename, lineno, file=None, line=None):
    """A warning on the terminal is one line of idlewise's, not Python's with a source line."""
    print(f"idlewise: warning: {message}", file=sys.stderr if file is None else file)


def main(argv: list[str] | None = None) -> int:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    warnings.showwarning = _print_warning
    args = build_parser().parse_args(argv)
    try:
        # Every file a command will write is checked before its work, which can take hours.
        for option in ("out", "plot", "per_request"):
            if getattr(args, option, None):
                check_destination(getattr(args, option))
        return args.func(args)
    except BrokenPipeError:
        # The reader (head, less) closed the pipe: stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (IdlewiseError, OSError) as e:
        print(f"idlewise: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        # One line, what was finished, and the usual code: 130 for Ctrl-C, 143 for SIGTERM.
        detail = getattr(e, "detail", None)
        print("idlewise: interrupted" + (f": {detail}" if detail else ""), file=sys.stderr)
        return 143 if getattr(e, "signal", None) == signal.SIGTERM else 130


#: How `idlewise experiment NAME` prints its result (without --json); seed 000's system
#: experiments share one table.
EXPERIMENT_PRINTERS = {
    "swap-cost": _print_swap_cost, "arm-power": _print_arm_power, "swap-reshaping": _print_swap_reshaping,
    "nvcache-flushing": _print_nvcache_flushing, "mems-timeout": _print_mems_timeout, "mems-shutdown": _print_mems_shutdown,
    "mems-optimum": _print_mems_optimum, "purple-timeouts": _print_purple, "static-baselines": _print_static_baselines,
    "ghost-hint-conditions": _print_hint_conditions,
}


if __name__ == "__main__":
    sys.exit(main())

