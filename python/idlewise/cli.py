"""The ``idlewise`` command line: demo, simulate, devices, policies.

Human output is a table (rich); ``--json`` prints machine-readable results. Errors print one
line naming the file, line or field and exit with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from importlib import resources

from rich.console import Console
from rich.table import Table

from . import _core
from .devices import catalog_names, load_device
from .errors import IdlewiseError
from .results import Results
from .simulate import simulate
from .traces import read_srt, read_trace
from .traces import FORMATS

DEMO_DEVICE = "hitachi-travelstar-5k320"
DEMO_POLICIES = ["always-on", "timeout:60s", "timeout:10s", "timeout:2s", "breakeven", "randomized:seed=1",
                 "stpm:knob=50", "experts", "predictive", "oracle"]


def _console(stderr: bool = False) -> Console:
    """A console that does not truncate tables when output goes to a file or pipe."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr) if stream.isatty() else Console(stderr=stderr, width=200)


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


def results_table(results: Results, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for name, justify in [("policy", "left"), ("energy J", "right"), ("system J", "right"), ("vs always-on", "right"),
                          ("vs oracle", "right"), ("wake-ups", "right"), ("mean resp", "right"), ("p99 resp", "right"),
                          ("delayed", "right"), ("resp vs always-on", "right"), ("years to rated cycles", "right")]:
        table.add_column(name, justify=justify)
    for r in results:
        table.add_row(
            r["policy"], f"{r['energy_j']:,.1f}", f"{r['system_energy_j']:,.1f}", f"{r['normalized_energy']:.3f}",
            f"{r['energy_vs_oracle']:.3f}", f"{r['wakeups']:,}", _fmt_time(r["mean_response_s"]),
            _fmt_time(r["p99_response_s"]), f"{r['delayed_requests']:,}", f"{r['normalized_mean_response']:.2f}",
            _fmt_years(r["years_to_rated_cycles"]),
        )
    return table


def _print_results(results: Results, args, title: str) -> None:
    if args.json:
        json.dump(results.to_dicts(json_safe=True), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        _console().print(results_table(results, title))


def cmd_demo(args) -> int:
    folder = resources.files("idlewise") / "data" / "hplajw"
    with resources.as_file(folder / "ajw.1week.srt") as path:
        trace = read_srt(path, disk=0, name="hplajw week, disk 0")
    results = simulate(trace, args.device, args.policy or DEMO_POLICIES, base_power_w=args.base_power)
    title = (f"{trace.describe()}\nreplayed on {args.device}"
             + (f", base power {args.base_power} W" if args.base_power else "")
             + "\n(trace: HP Labs hplajw, DiskSim licence; see idlewise/data/hplajw/COPYRIGHT.disksim)")
    _print_results(results, args, title)
    return 0


def cmd_simulate(args) -> int:
    trace = read_trace(args.trace, format=args.format, sort=args.sort)
    console = _console(stderr=True)
    if trace.records_moved and not args.json:
        console.print(f"sorted by time: moved {trace.records_moved:,} records")
    elif trace.records_moved:
        print(f"idlewise: sorted by time: moved {trace.records_moved:,} records", file=sys.stderr)
    for reason, count in trace.skipped.items():
        print(f"idlewise: skipped {count:,} {reason}", file=sys.stderr)
    results = simulate(trace, args.device, args.policy, base_power_w=args.base_power, initial_mode=args.initial_mode)
    _print_results(results, args, f"{trace.describe()}\nreplayed on {args.device}")
    return 0


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
    d = load_device(args.name)
    if args.json:
        json.dump({"name": d.name, "kind": d.kind, "description": d.description, "source": d.source,
                   "assumptions": d.assumptions, "modes": d.modes, "transitions": d.transitions, "service": d.service,
                   "start_stop_cycles": d.start_stop_cycles},
                  sys.stdout, indent=2, default=lambda x: None)
        sys.stdout.write("\n")
        return 0
    console.print(f"[bold]{d.name}[/bold] ({d.kind}): {d.description}\nsource: {d.source}")
    modes = Table(title="modes (the first serves requests)", title_justify="left")
    for column in ("mode", "power W", "break-even", "source"):
        modes.add_column(column)
    for m in d.modes:
        modes.add_row(m["name"], f"{m['power_w']:g}", _fmt_time(m["break_even_s"]) if m["break_even_s"] else "-",
                      m.get("source", "") + (f" [assumed: {m['assumed']}]" if m.get("assumed") else ""))
    console.print(modes)
    transitions = Table(title="transitions", title_justify="left")
    for column in ("from", "to", "time", "energy J", "source"):
        transitions.add_column(column)
    for t in d.transitions:
        transitions.add_row(t["from"], t["to"], _fmt_time(t["time_s"]), f"{t['energy_j']:g}",
                            t.get("source", "") + (f" [assumed: {t['assumed']}]" if t.get("assumed") else ""))
    console.print(transitions)
    s = d.service
    console.print(f"service: {s['overhead_s'] * 1e3:g} ms + size / ({s['read_bandwidth_bytes_per_s']:g} B/s read, "
                  f"{s['write_bandwidth_bytes_per_s']:g} B/s write) at {s['read_power_w']:g} W read, {s['write_power_w']:g} W write"
                  + (f"\n  source: {s['source']}" if s.get("source") else "")
                  + (f"\n  assumed: {s['assumed']}" if s.get("assumed") else ""))
    if d.start_stop_cycles:
        console.print(f"rated start/stop (load/unload) cycles: {d.start_stop_cycles:,.0f}")
    for note in d.assumptions:
        console.print(f"assumption: {note}")
    return 0


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


def _watts(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a power in watts, got {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a non-negative number of watts, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="idlewise", description="Replay I/O traces against power-managed devices and policies.")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="replay the bundled hplajw week on a catalog laptop disk under several policies")
    demo.add_argument("--device", default=DEMO_DEVICE, help=f"catalog name or TOML path (default {DEMO_DEVICE})")
    demo.add_argument("--policy", action="append", help="policy spec (repeatable; default: a representative set)")
    demo.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power for system energy")
    demo.add_argument("--json", action="store_true", help="print results as JSON")
    demo.set_defaults(func=cmd_demo)

    sim = sub.add_parser("simulate", help="replay a trace on a device under one or more policies")
    sim.add_argument("trace", help="trace file (simple CSV 'time_s,offset_bytes,size_bytes,op' or HP SRT)")
    sim.add_argument("--device", required=True, help="catalog name or TOML path")
    sim.add_argument("--policy", action="append", required=True, help="policy spec, e.g. timeout:2s (repeatable)")
    sim.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power added to system energy")
    sim.add_argument("--initial-mode", default=None, metavar="MODE", help="mode the device is in at the first request (default: ready)")
    sim.add_argument("--format", default="auto", choices=("auto",) + FORMATS, help="trace format (default: recognise)")
    sim.add_argument("--sort", action="store_true", help="sort records by time instead of refusing out-of-order times")
    sim.add_argument("--json", action="store_true", help="print a JSON list, one object per policy")
    sim.set_defaults(func=cmd_simulate)

    dev = sub.add_parser("devices", help="list catalog devices, or show one")
    dev.add_argument("name", nargs="?", help="catalog name or TOML path")
    dev.add_argument("--json", action="store_true")
    dev.set_defaults(func=cmd_devices)

    pol = sub.add_parser("policies", help="list policies and their parameters")
    pol.add_argument("--json", action="store_true")
    pol.set_defaults(func=cmd_policies)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (IdlewiseError, OSError) as e:
        print(f"idlewise: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
