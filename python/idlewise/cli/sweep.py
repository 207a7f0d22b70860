"""`idlewise sweep`: every trace x device x transform x policy, its rows to a file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..output import check_destination
from ..results import Results
from ._common import TERMINAL_ROWS_MAX, _console, busiest, print_results_table, say_saturated


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
            finished = Results(stop.rows, "partial")
            finished.command = args.command_line
            write_rows(finished, str(partial), partial_of=stop.of_planned.replace(",", ""))
            stop.detail += f"; their rows are in {partial} (marked partial), {args.out} was not written"
        raise
    results.command = args.command_line
    say_saturated(results)
    if args.out:
        write_rows(results, args.out)
    if args.plot:
        plot_tradeoff(results, args.plot)
    if args.json:
        json.dump(results.to_dicts(json_safe=True), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        from ..results import GROUP_KEYS, group_keys
        from ..sweeps import families, summary_picks

        # The rows to show are picked on columns and made whole after (a sweep of a million
        # runs made every run's dict to show 200).
        runs = results.columns()
        every = group_keys(runs)
        keys = tuple(k for k in GROUP_KEYS if len(set(map(str, runs.get(k)))) > 1)
        title = f"{len(results):,} runs" + (f"; rows in {args.out}" if args.out else "") + (f"; plot in {args.plot}" if args.plot else "")
        picks = [(i, None) for i in range(len(runs))]
        if args.out:
            # Every run is in the file: the terminal gets the runs worth reading first.
            picks = summary_picks(every, runs.get("energy_j"), runs.get("mean_response_s"), families(runs), runs.get("policy"))
            keys += ("why",)
            title += (f"\nshown: {len(picks):,} of them, the energy/response frontier and each family's least energy "
                      "(always-on for reference)")
        requests = runs.get("requests")
        chosen, left_out = busiest([every[i] for i, _ in picks], [requests[i] or 0 for i, _ in picks], TERMINAL_ROWS_MAX)
        shown = [row if why is None else {**row, "why": why} for row, (_, why) in
                 zip(results.records_at([picks[j][0] for j in chosen]), (picks[j] for j in chosen))]
        if left_out:
            title += (f"\nthe {len(shown):,} rows of the busiest devices; {left_out:,} more rows of "
                      f"{'the file' if args.out else 'the sweep'} are not shown (--json or --out for every run)")
        console = _console()
        grouped = tuple(k for k in keys if k != "why")
        groups: dict = {}
        for r in shown:
            groups.setdefault(tuple(str(r.get(k)) for k in grouped), []).append(r)
        if not grouped or len(groups) > HEADED_TABLES_MAX:
            print_results_table(console, shown, title, wide=args.wide, keys=keys)
            return 0
        # A few traces, devices or transforms: a table each, headed by what it is, so that the
        # figures, not the long names repeated on every row, have the terminal's width.
        console.print(title)
        for values, members in groups.items():
            heading = ", ".join(f"{k} {v}" for k, v in zip(grouped, values))
            print_results_table(console, members, heading, wide=args.wide, keys=tuple(k for k in keys if k == "why"))
    return 0


#: Groups (trace, device, transform) printed as a table each under a heading; more share one table.
HEADED_TABLES_MAX = 8
def partial_path(out) -> Path:
    """Where an interrupted sweep leaves the rows it finished: ``runs.partial.parquet`` beside
    ``runs.parquet``."""
    out = Path(out)
    return out.with_name(f"{out.stem}.partial{out.suffix}")
