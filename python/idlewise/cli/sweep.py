"""`idlewise sweep`: every trace x device x transform x policy, its rows to a file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..output import check_destination
from ..results import Results
from ._common import _console, results_table


def cmd_sweep(args) -> int:
    from ..sweeps import SweepInterrupted, TraceSource, plot_tradeoff, sweep, write_rows

    if args.out:
        check_destination(args.out, (".parquet", ".csv"))
    sources = [TraceSource(path=p, format=args.format, stream=args.stream) for p in args.traces]
    try:
        results = sweep(sources, args.device, args.policy, transforms=args.transform or ["none"], base_power_w=args.base_power,
                        jobs=args.jobs, scheduler=args.scheduler, response_from=args.response_from,
                        volume_parts=args.volume_parts)
    except SweepInterrupted as stop:
        stop.detail = f"{stop.of_planned} finished"
        if args.out and stop.rows:
            partial = partial_path(args.out)
            write_rows(Results(stop.rows, "partial"), str(partial), partial_of=stop.of_planned.replace(",", ""))
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
        from ..sweeps import GROUP_KEYS, summary

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


def partial_path(out) -> Path:
    """Where an interrupted sweep leaves the rows it finished: ``runs.partial.parquet`` beside
    ``runs.parquet``."""
    out = Path(out)
    return out.with_name(f"{out.stem}.partial{out.suffix}")
