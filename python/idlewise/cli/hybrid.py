"""`idlewise hybrid`: a hybrid disk with an NVCache, flushed when and how asked (seed 003)."""

from __future__ import annotations

import json
import os
import sys

from .. import traces
from ..results import Results
from ._common import Table, _console, _fmt_bytes, _fmt_time, _picked, _read_trace, _report_read, _streamable, say


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
    from ..hybrid import hybrid, hybrid_file, prepare

    # Parts, sizes and the policy are checked before a possibly long read.
    setup = prepare(args.disk, args.flash, description=args.hybrid, nvcache=args.nvcache, dram=args.dram,
                    flush_when=args.flush_when, flush_algorithm=args.flush_algorithm, policy=args.policy, final_flush=args.final_flush,
                    base_power_w=args.base_power)
    if args.initial_mode is not None:
        setup.disk.mode_index(args.initial_mode)
    options = dict(setup=setup, initial_mode=args.initial_mode, replay=args.replay, response_from=args.response_from,
                   tail_s=args.tail, transition_seed=args.transition_seed)
    if _streamable(args):
        # Replayed as the file is read (each device's requests transformed as they go): the rows
        # of the trace read whole, in memory that does not grow with it.
        from ..traces.trace import describe_text

        results, read = hybrid_file(args.trace, format=args.format, stream=getattr(args, "stream", None), transform=args.transform,
                                    columns=args.columns, write_flag=args.write_flag, **options)
        if not args.json:
            say(read.report())
        name, described = results.trace_name, describe_text(os.path.basename(args.trace), read.records, read.writes,
                                                            read.last_s - read.first_s if read.records else 0.0)
        rows = list(results)
    else:
        trace = _read_trace(args, args.trace)
        _report_read(trace, args.json)
        name, described, rows = trace.name, trace.describe(), []
        picked = _picked(args, trace).get("stream")  # a device picked is named, as a streamed read names it
        for stream, part in trace.split_streams().items():
            part = traces.apply_transform(part, args.transform) if args.transform else part
            rows.extend(r | {"stream": picked if stream is None else stream} for r in hybrid(part, **options))
    records = []
    for r in rows:
        for key in ("bytes_cached_per_spindown", "spindown_ends_s"):
            column = r.pop(key)
            if args.json:
                r[key] = column.tolist()
        records.append(r)
    results = Results(records, name)
    if args.json:
        json.dump(results.to_dicts(json_safe=True), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        policy = records[0]["policy"] if records else args.policy
        title = (described + (f" [{args.transform}]" if args.transform else "")
                 + f"\nhybrid disk: {setup.disk.name} with {setup.flash.name} as NVCache, policy {policy}; "
                 "plain = the same disk and policy without an NVCache")
        _console().print(hybrid_table(results, title))
    return 0
