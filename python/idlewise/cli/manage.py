"""`idlewise manage`: the power manager, live (run, status, hint) and on a recording (replay)."""

from __future__ import annotations

import json
import sys

from ._common import _console, _fmt_time


def _print_line(record: dict) -> None:
    sys.stdout.write(json.dumps(record, allow_nan=False) + "\n")
    sys.stdout.flush()


def cmd_manage_run(args) -> int:
    from ..manage import DEFAULT_SOCKET, run

    if not args.apply:
        print("idlewise: dry run: decisions are logged, no command is run (--apply to act)", file=sys.stderr)
    run(args.disks, args.policy, device=args.device, interval_s=args.interval, duration_s=args.duration, log=args.log,
        socket_path=args.socket or DEFAULT_SOCKET, apply=args.apply, force=args.force, actuator=args.actuator, base_power_w=args.base_power,
        knob=args.knob, emit=_print_line)
    return 0


def cmd_manage_status(args) -> int:
    from ..manage import DEFAULT_SOCKET, Client

    devices = Client(args.socket or DEFAULT_SOCKET).status(args.size)
    if args.json:
        json.dump(devices, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
        return 0
    console = _console()
    for d in devices:
        moving = " (changing into it)" if d["moving"] else ""
        console.print(f"[bold]{d['disk']}[/bold] ({d['device']}): {d['mode']}{moving} for {_fmt_time(d['in_mode_s'])}; "
                      f"{d['energy_j']:,.1f} J so far by the model; reading {d['access']['size_bytes']:,.0f} bytes now takes "
                      f"{_fmt_time(d['access']['time_s'])} and {d['access']['energy_j']:.3g} J"
                      + ("" if d["acting"] else "; watched, not acted on"), highlight=False)
    return 0


def cmd_manage_hint(args) -> int:
    from ..manage import DEFAULT_SOCKET, Client

    decisions = Client(args.socket or DEFAULT_SOCKET).hint(args.disk, args.size)
    if args.json:
        json.dump(decisions, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif decisions:
        for d in decisions:
            print(f"{d['disk']}: {d['from_mode']} -> {d['to_mode']} ({d['outcome']})")
    else:
        print(f"{args.disk}: the policy kept its mode (the hint did not pay for a wake-up)")
    return 0


def cmd_manage_replay(args) -> int:
    from ..manage import replay

    log = open(args.log, "w", encoding="utf-8") if args.log else None

    def emit(record):
        line = json.dumps(record, allow_nan=False)
        if log:
            log.write(line + "\n")
        if not args.quiet:
            print(line)
    try:
        decisions, result = replay(args.recording, args.policy, args.device, disk=args.stream, knob=args.knob, emit=emit)
    finally:
        if log:
            log.close()
    late = [d["acted_s"] - d["time_s"] for d in decisions if d["outcome"] == "recorded"]
    print(f"idlewise: {len(decisions):,} decisions; the model used {result['energy_j']:,.1f} J with {result['wakeups']:,} "
          f"wake-ups (as idlewise simulate on the same recording); acted at most "
          f"{_fmt_time(max(late) if late else 0.0)} after the policy decided (one poll interval)", file=sys.stderr)
    return 0
