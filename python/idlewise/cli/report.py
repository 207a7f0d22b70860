"""`idlewise report`: an HTML report of a trace under policies, or of a sweep's rows."""

from __future__ import annotations

import os

from .. import traces
from ..devices import load_device
from ..policies import expand_spec
from ..errors import IdlewiseError
from ._common import DEMO_POLICIES, _working, _read_trace, _report_read, _streamable


def cmd_report(args) -> int:
    from ..output import check_destination
    from ..reporting import parse_window, report, report_from_rows

    check_destination(args.out, (".html", ".htm"))  # the report is one HTML page, whatever it is called

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
        # A device named rather than numbered (sda) is one of a diskstats or biosnoop recording.
        if _streamable(args) and (args.stream is None or str(args.stream).isdigit()):
            # Read as it is replayed, pass by pass: memory does not grow with the trace.
            out = report(args.trace, devices, policies, args.out, window=window, base_power_w=args.base_power,
                         initial_mode=args.initial_mode, transform=args.transform, title=args.title, format=args.format,
                         stream=args.stream, columns=getattr(args, "columns", None), write_flag=getattr(args, "write_flag", None))
        else:
            trace = _read_trace(args, args.trace)
            _report_read(trace, False)
            trace.require_one_device("a report", "pick it with --stream K")
            trace = traces.apply_transform(trace, args.transform) if args.transform else trace
            out = report(trace, devices, policies, args.out, window=window, base_power_w=args.base_power,
                         initial_mode=args.initial_mode, transform=args.transform, title=args.title)
    print(f"wrote {out} ({out.stat().st_size / 1e3:,.0f} kB; open it in any browser, no network needed)")
    return 0
