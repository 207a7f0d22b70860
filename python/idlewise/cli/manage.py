"""`idlewise manage`: the power manager, live (run, status, hint, spin-down, unit) and on a
recording (replay)."""

from __future__ import annotations

import json
import sys

from ._common import _console, _fmt_time, say


def _print_line(record: dict) -> None:
    sys.stdout.write(json.dumps(record, allow_nan=False) + "\n")
    sys.stdout.flush()


def cmd_manage_run(args) -> int:
    from ..manage import run

    if not args.apply:
        say("a dry run unless the configuration says apply = true: decisions are logged, no command is run "
              "(--apply to act)")
    run(args.disks or None, args.policy, config=args.config, device=args.device, interval_s=args.interval,
        duration_s=args.duration, log=args.log, socket_path=args.socket, apply=args.apply, force=args.force,
        actuator=args.actuator, base_power_w=args.base_power, knob=args.knob, emit=_print_line, textfile=args.textfile,
        check_interval_s=args.check_interval, command_timeout_s=args.command_timeout)
    return 0


def cmd_manage_status(args) -> int:
    from ..manage import Client, exposition

    devices = Client(args.socket).status(args.size)
    if args.prometheus:
        sys.stdout.write(exposition(devices))
        return 0
    if args.json:
        json.dump(devices, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
        return 0
    console = _console()
    for d in devices:
        moving = " (changing into it)" if d["moving"] else ""
        actual = f"; the drive said {d['actual_mode']}" if d.get("actual_mode") and d["actual_mode"] != d["mode"] else ""
        since_io = "no I/O seen yet" if d.get("since_io_s") is None else f"last I/O {_fmt_time(d['since_io_s'])} ago"
        lines = [
            f"[bold]{d['disk']}[/bold] ({d['device']}{', ' + d['name'] if d.get('name') not in (None, d['disk']) else ''})",
            f"  {d['mode']}{moving} for {_fmt_time(d['in_mode_s'])}{actual}",
            f"  {d.get('spin_ups', 0):,} spin-ups; {since_io}; {d.get('in_flight') or 0} I/Os in flight",
            f"  {d['energy_j']:,.1f} J so far by the model; reading {d['access']['size_bytes']:,.0f} bytes now takes "
            f"{_fmt_time(d['access']['time_s'])} and {d['access']['energy_j']:.3g} J",
        ]
        if not d["acting"]:
            lines.append("  watched, not acted on (a dry run)")
        if d.get("failed_commands"):
            lines.append(f"  {d['failed_commands']:,} commands failed (each tried again with backoff)")
        if d.get("via"):
            lines.append(f"  behind {d['via']}")
        for line in lines:
            console.print(line, highlight=False)
    return 0


def cmd_manage_hint(args) -> int:
    from ..manage import Client

    decisions = Client(args.socket).hint(args.disk, args.size)
    if args.json:
        json.dump(decisions, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif decisions:
        for d in decisions:
            print(f"{d['disk']}: {d['from_mode']} -> {d['to_mode']}")
    else:
        print(f"{args.disk}: the policy kept its mode (the hint did not pay for a wake-up)")
    return 0


def cmd_manage_spin_down(args) -> int:
    from ..manage import spin_down

    done = spin_down(args.disk, apply=args.apply, force=args.force, device=args.device, actuator=args.actuator)
    _print_line(done)
    if done["outcome"] == "dry-run":
        say(f"a dry run: {done['command']} was not sent (--apply to send it)")
    return 0 if done["outcome"] in ("done", "dry-run") else 1


def cmd_manage_unit(args) -> int:
    from ..manage import read_config, unit_text

    import os

    if os.path.exists(args.config):
        disks = read_config(args.config).disks
    else:
        disks = []
        say(f"{args.config} does not exist yet: write it (docs/manage.md) before starting the service")
    wifi = any(s.actuator == "wifi" or s.name.startswith(("wl", "wlan")) for s in disks)
    nvme = any(s.policy.startswith("apst") for s in disks)
    sys.stdout.write(unit_text(args.config, wifi=wifi, nvme=nvme))
    return 0


def cmd_manage_replay(args) -> int:
    from ..manage import open_log, replay

    log = open_log(args.log, truncate=True) if args.log else None

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
    late = [d["acted_s"] - d["time_s"] for d in decisions if d.get("outcome") == "recorded"]
    say(f"{len(decisions):,} decisions; the model used {result['energy_j']:,.1f} J with {result['wakeups']:,} "
        f"wake-ups (as idlewise simulate --service observed on the same recording); acted at most "
        f"{_fmt_time(max(late) if late else 0.0)} after the policy decided (one poll interval)")
    return 0
