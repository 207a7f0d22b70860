"""`idlewise trace stats|convert|formats` and `idlewise workload`: traces themselves."""

from __future__ import annotations

import json
import sys

from .. import traces
from ..errors import IdlewiseError
from ..traces.describe import grouped
from ..traces.trace import counted, span_text
from ._common import Table, _console, _fmt_time, _picked, _read_trace, _report_read, _streamable, say


def cmd_trace_convert(args) -> int:
    args.trace = args.input
    if _streamable(args):
        # Written a batch at a time as it is read: memory does not grow with the file.
        from ..traces.streaming import FileRead, convert_to_parquet, file_format

        args.format, mapping = file_format(args.input, args.format, getattr(args, "columns", None), getattr(args, "write_flag", None))
        read = FileRead(args.input, args.format, mapping=mapping, write_flag=getattr(args, "write_flag", None))
        convert_to_parquet(read, args.output)
        print(f"{read.report()}\nwrote {read.records:,} records to {args.output}")
        return 0
    trace = _read_trace(args, args.input)
    traces.write_parquet(trace, args.output)
    print(f"{trace.read_report()}\nwrote {len(trace):,} records to {args.output}")
    return 0


def cmd_trace_stats(args) -> int:
    from ..traces.stats import file_stats, plot_gap_histogram, trace_stats

    if _streamable(args):
        # Read as it goes, every device at once (or the one picked): memory does not grow with the file.
        stats, report = file_stats(args.trace, args.device, format=args.format, transform=args.transform,
                                   columns=getattr(args, "columns", None), write_flag=getattr(args, "write_flag", None),
                                   stream=args.stream)
        if not args.json:
            say(report)
    else:
        trace = _read_trace(args, args.trace)
        _report_read(trace, args.json)
        parts = trace.split_streams()
        stats = [trace_stats(traces.apply_transform(p, args.transform) if args.transform else p, args.device) for p in parts.values()]
        picked = _picked(args, trace).get("stream")  # a device picked is named
        for (stream, _), st in zip(parts.items(), stats):
            st["stream"] = picked if stream is None else stream
    drawn = plot_gap_histogram(stats, args.plot) if args.plot else 0
    if args.json:
        json.dump(stats, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    console = _console()
    if len(stats) > 1:
        _print_devices_summary(console, stats)
    detailed = stats if len(stats) <= DETAILED_DEVICES_MAX else []
    from ..traces.stats import BIN_EDGES_S
    if not detailed:
        console.print(f"each device's sizes, gaps and histogram: --json for all {len(stats):,}, --stream K for one")
    for st in detailed:
        sz, g = st["size_bytes"], st["gaps"]
        console.print(f"[bold]{st['trace']}[/bold]" + (f" device {st['stream']}" if st["stream"] is not None else "")
                      + f": {counted(st['requests'], 'request')} over {span_text(st['span_s'])}; {st['read_fraction']:.1%} reads; "
                      f"{st['bytes_read'] / 1e6:,.1f} MB read, {st['bytes_written'] / 1e6:,.1f} MB written")
        console.print(f"  sizes (bytes): min {sz['min']:,}  median {sz['p50']:,.0f}  mean {sz['mean']:,.0f}  "
                      f"p90 {sz['p90']:,.0f}  p99 {sz['p99']:,.0f}  max {sz['max']:,}")
        console.print(f"  idle gaps ({g['definition']}): {g['count']:,}, {span_text(g['idle_total_s'])} in all; "
                      f"median {_fmt_time(g['median_s'])}, mean {_fmt_time(g['mean_s'])}, max {_fmt_time(g['max_s'])}")
        table = Table(title="idle-gap histogram (log scale, 10 bins per decade)", title_justify="left")
        for column in ("gap length", "gaps", "idle time", "share of idle time"):
            table.add_column(column, justify="right")
        total = g["idle_total_s"] or 1.0
        # Gaps outside the bins have rows of their own: every gap and all idle time are in the
        # table (a week's nights, hours long, hold most of it).
        under = [(f"under {_fmt_time(BIN_EDGES_S[0])}", g["below_1ms"], g["below_1ms_idle_s"])] if g["below_1ms"] else []
        over = [(f"over {_fmt_time(BIN_EDGES_S[-1])}", g["above_10000s"], g["above_10000s_idle_s"])] if g["above_10000s"] else []
        rows = under + [(f"{_fmt_time(h['from_s'])} - {_fmt_time(h['to_s'])}", h["count"], h["idle_s"]) for h in g["histogram"]] + over
        for label, count, idle_s in rows:
            table.add_row(label, f"{count:,}", f"{grouped(idle_s)} s", f"{idle_s / total:.1%}")
        console.print(table)
        for m in st.get("modes", []):
            console.print(f"  {m['mode']}: break-even {_fmt_time(m['break_even_s'])}; {m['gaps_longer']:,} gaps longer, "
                          f"holding {m['idle_share_longer']:.1%} of idle time (the most any policy could use)")
    if args.plot:
        which = "" if drawn == len(stats) else f" (the {drawn} busiest of {len(stats)} devices; --stream K for another)"
        console.print(f"wrote {args.plot}{which}")
    return 0


#: Devices shown one by one in full (sizes, gaps, histogram); more get the summary table only.
DETAILED_DEVICES_MAX = 4
#: Devices the summary lists by name, the busiest first; the rest are counted.
SUMMARY_ROWS_MAX = 20


def _print_devices_summary(console, stats: list) -> None:
    """A trace of several devices: the totals, then the busiest devices one row each."""
    requests = sum(st["requests"] for st in stats)
    span = max(st["span_s"] for st in stats)
    console.print(f"[bold]{len(stats):,} devices[/bold]: {counted(requests, 'request')} over {span_text(span)}; "
                  f"{sum(st['bytes_read'] for st in stats) / 1e6:,.1f} MB read, "
                  f"{sum(st['bytes_written'] for st in stats) / 1e6:,.1f} MB written")
    busiest = sorted(stats, key=lambda st: -st["requests"])[:SUMMARY_ROWS_MAX]
    shown = f"the {len(busiest)} busiest of {len(stats):,}" if len(busiest) < len(stats) else "each"
    table = Table(title=f"devices ({shown}, by requests)", title_justify="left")
    for column, justify in (("device", "left"), ("requests", "right"), ("reads", "right"), ("span", "right"),
                            ("median gap", "right"), ("longest gap", "right")):
        table.add_column(column, justify=justify, no_wrap=True)
    for st in busiest:
        g = st["gaps"]
        table.add_row(str(st["stream"]), f"{st['requests']:,}", f"{st['read_fraction']:.0%}", span_text(st["span_s"]),
                      _fmt_time(g["median_s"]) if g["count"] else "-", _fmt_time(g["max_s"]) if g["count"] else "-")
    console.print(table)


def cmd_trace_formats(args) -> int:
    from ..traces.formats import TABLE

    if args.json:
        rows = [{**f, "magic": f["magic"].decode("ascii", "replace") if f["magic"] else None} for f in TABLE]
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    console = _console()
    # How each is recognised takes a column of its own where the terminal has room for it.
    recognised = console.width >= 140
    table = Table(title="trace formats (--format; auto recognises each from its content)", title_justify="left",
                  caption=None if recognised else "--json for each format's fields, how it is recognised, and more",
                  caption_justify="left")
    table.add_column("format", no_wrap=True)
    table.add_column("what it is")
    if recognised:
        table.add_column("recognised by")
    for f in TABLE:
        table.add_row(f["name"], f["description"], *([f["recognised_by"]] if recognised else []))
    console.print(table)
    return 0


def cmd_workload(args) -> int:
    from ..system import mail_workload, web_workload, write_app_trace

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
