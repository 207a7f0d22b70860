"""`idlewise demo` and `idlewise simulate`: a trace replayed as read (the default) or whole."""

from __future__ import annotations

import os
import sys

from .. import traces
from .._package import HPLAJW_WEEK
from ..devices import load_device
from ..policies import expand_spec
from ..errors import IdlewiseError
from ..results import Results
from rich.text import Text

from ._common import (DEMO_POLICIES, _console, _label_devices, _picked, _print_results, _read_trace, _report_read,
                      _streamable, paragraph, say)


def cmd_demo(args) -> int:
    from ..simulate import simulate

    trace = traces.read_srt(HPLAJW_WEEK, disk=0, name="hplajw disk 0")
    results = simulate(trace, args.device, args.policy or DEMO_POLICIES, base_power_w=args.base_power)
    title = (f"{trace.describe()}\nreplayed on {args.device}"
             + (f", base power {args.base_power} W" if args.base_power else "")
             + "\n(HP Labs trace, DiskSim licence: idlewise/data/hplajw/COPYRIGHT.disksim)")
    _print_results(results, args, title)
    if not args.json:
        # A first run ends with where to go from here: the same on one's own trace, then the
        # question most users come with. Commands on lines of their own, to be copied whole.
        console = _console(stderr=True)
        paragraph(console, "next, on a trace of your own (any format `idlewise trace formats` lists; "
                           "NAME from `idlewise devices`):")
        for command in ("idlewise simulate TRACE --device NAME --policy timeout:10s --policy oracle",
                        "idlewise sweep TRACE --device NAME --policy timeout:5s..600s/5s",
                        "idlewise advise TRACE --device auto"):
            console.print(Text("  " + command), soft_wrap=True, highlight=False)
    return 0


def _references(args, device) -> bool:
    """Whether a device's references are replayed: as the command line says, else yes, except
    on a MEMS sled, whose always-on and oracle are event-by-event replays of the sled as costly
    as the policy's own (a sled's oracle cannot ride along always-on's replay as a disk's does),
    so they are replayed only when asked (``--references``)."""
    return args.references if args.references is not None else device.mems_blocks is None


def _say_where_references_wait(args, devices) -> None:
    """Says on stderr which devices' references were left for ``--references``."""
    if args.references is not None:
        return
    sleds = [d.name for d in devices if not _references(args, d)]
    if sleds and not args.json:
        say(f"{', '.join(sleds)}: vs always-on, vs oracle and the theoretical minima are replayed only "
              "when asked (--references: two more event-by-event replays of the sled)")


def _replay_choices(args, device) -> dict:
    """How ``simulate``'s command line asks a trace to be replayed on ``device``, once for a trace
    read whole and a file replayed as it is read: the API makes them one ``ReplayOptions``."""
    return {"base_power_w": args.base_power, "initial_mode": args.initial_mode, "replay": args.replay,
            "fold_offsets": args.fold_offsets, "response_from": args.response_from, "tail_s": args.tail,
            "transition_seed": args.transition_seed, "transform": args.transform,
            "references": _references(args, device), "service": args.service}


def cmd_simulate(args) -> int:
    from ..simulate import simulate

    # Devices and policies are checked before a possibly long read.
    devices = [load_device(d) for d in args.device]
    policies = [spec for policy in args.policy for spec in expand_spec(policy)]
    _say_where_references_wait(args, devices)
    if _streamable(args):
        # (simulate_file refuses --service observed on a trace that records no busy times.)
        return _simulate_streamed(args, devices, policies)
    trace = _read_trace(args, args.trace)
    _report_read(trace, args.json)
    records, per_request = [], []
    read = {"read_report": trace.read_report(), "records_skipped": sum(trace.skipped.values())}
    picked = _picked(args, trace)
    for device in devices:
        run = simulate(trace, device, policies, per_request=bool(args.per_request), **_replay_choices(args, device))
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
    """A per-request table saying the device it ran on, and the stream the user picked (a split
    trace's rows say their stream already)."""
    import pyarrow as pa

    n = table.num_rows
    table = table.set_column(table.column_names.index("device"), "device",
                             pa.DictionaryArray.from_arrays(pa.array([0] * n, pa.int32()), pa.array([device])))
    if stream is not None and table.column("stream").null_count == n:
        table = table.set_column(table.column_names.index("stream"), "stream", pa.array([stream] * n, pa.int64()))
    return table


def _write_per_request(tables, path: str, quiet: bool) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..output import written_whole

    table = pa.concat_tables(tables, promote_options="permissive")
    try:
        with written_whole(path) as temporary:
            pq.write_table(table, temporary)
    except OSError as e:
        raise IdlewiseError(f"--per-request {path}: cannot write it ({e.strerror or e})") from None
    if not quiet:
        say(f"wrote {table.num_rows:,} per-request rows ({', '.join(table.column_names)}) to {path}")


def _join_per_request(parts: list, path: str, quiet: bool) -> None:
    """The devices' per-request files, one after another, as one file (a row group at a time)."""
    import pyarrow.parquet as pq

    from ..output import written_whole

    rows, columns = 0, []
    try:
        with written_whole(path) as temporary:
            out = None
            for part in parts:
                source = pq.ParquetFile(part)
                for group in range(source.num_row_groups):
                    table = source.read_row_group(group)
                    out = out or pq.ParquetWriter(temporary, table.schema)
                    out.write_table(table)
                    rows += table.num_rows
                    columns = table.column_names
            if out is not None:
                out.close()
    except OSError as e:
        raise IdlewiseError(f"--per-request {path}: cannot write it ({e.strerror or e})") from None
    finally:
        for part in parts:
            if os.path.exists(part):
                os.remove(part)
    if not quiet:
        say(f"wrote {rows:,} per-request rows ({', '.join(columns)}) to {path}")


def _simulate_streamed(args, devices, policies) -> int:
    from ..simulate import simulate_file

    records, per_request = [], []
    try:
        for i, device in enumerate(devices):
            if args.per_request:
                per_request.append(f"{args.per_request}.{i}.part")
            results = simulate_file(args.trace, device, policies, format=args.format, stream=args.stream,
                                    columns=getattr(args, "columns", None), write_flag=getattr(args, "write_flag", None),
                                    per_request=per_request[-1] if args.per_request else None, **_replay_choices(args, device))
            records.extend(results)
        if not args.json:
            say(records[0]["read_report"])
        if args.per_request:
            _join_per_request(per_request, args.per_request, args.json)
    finally:
        # Interrupted (Ctrl-C, SIGTERM) or failed between a device's part and the join: no
        # part is left beside the file that was not written.
        for part in per_request:
            if os.path.exists(part):
                os.remove(part)
    title = f"{results.trace_description}" + (f" [{args.transform}]" if args.transform else "") + \
        f"\nreplayed on {', '.join(d.name for d in devices)}"
    if len({r["stream"] for r in records if r["stream"] is not None}) > 1 and not args.json:
        title += _label_devices(records)
    _print_results(Results(records, os.path.basename(args.trace)), args, title)
    return 0
