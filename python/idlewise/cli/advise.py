"""`idlewise advise` and `idlewise record`: what to set a disk's timeout to, from a recording."""

from __future__ import annotations

from rich.padding import Padding
from rich.text import Text

import json
from dataclasses import asdict
import sys

from ..devices import load_device
from ..errors import IdlewiseError
from ..results import json_ready
from ._common import _console, _fmt_rate, _fmt_time, _fmt_years, _read_trace, _report_read, _streamable, paragraph, say


def cmd_record(args) -> int:
    from ..record import record

    console = _console(stderr=True)
    length = f" for {_fmt_time(args.duration)}" if args.duration is not None else " until Ctrl-C"

    def chosen(disks: list[str]) -> None:
        where = ", ".join(disks) + ("" if args.disk else " (every physical disk; --disk NAME for others)")
        paragraph(console, f"recording {where} every {_fmt_time(args.interval)}{length} "
                           f"{'onto the end of' if args.append else 'into'} {args.out}", hanging="  ")

    snapshots = record(args.out, disks=args.disk, interval_s=args.interval, duration_s=args.duration, append=args.append,
                       chosen=chosen)
    paragraph(console, f"{snapshots:,} snapshots in {args.out}; next:")
    console.print(f"  idlewise advise {args.out} --device auto", soft_wrap=True, highlight=False)
    return 0


def cmd_advise(args) -> int:
    from ..advisor import Limits, advise, plot_advice
    from ..identify import identify

    named = args.stream if isinstance(args.stream, str) else None
    auto = args.device == "auto"
    # The device is checked before a possibly long read, where its name is known by then.
    identified = identify(named) if auto and named else None
    device = None if auto else load_device(args.device)
    limits = Limits(max_wakeups_per_day=args.max_wakeups_per_day, lifetime_years=args.lifetime_years,
                    max_delayed_per_hour=args.max_delayed_per_hour, max_added_delay_s=args.max_added_delay,
                    price_per_kwh=args.price_per_kwh, currency=args.currency)
    limits.check()
    # A recording read whole names the disk --device auto looks up; streamed, --disk must.
    from ..traces.sources import NAMED_DEVICES

    if _streamable(args) and not (auto and identified is None and args.format in NAMED_DEVICES):
        # Replayed as it is read, every setting in one pass (memory bounded by a chunk's). Only
        # diskstats and biosnoop recordings name their disk.
        if auto and identified is None:
            raise IdlewiseError(f"{args.trace}: --device auto needs the disk's name, which this trace does not give: "
                                "add --disk NAME (sda, nvme0n1)")
        trace = args.trace
        # A format that does not name its devices (a blktrace of sda, a CSV): --disk NAME names
        # the disk in the commands, and the trace's one device is the one advised on. A diskstats
        # recording and biosnoop's output name them: --disk picks that device's requests.
        stream = args.stream if named is None or args.format in NAMED_DEVICES else None
        read_options = dict(format=args.format, stream=stream, columns=getattr(args, "columns", None),
                            write_flag=getattr(args, "write_flag", None))
    else:
        trace, read_options = _read_trace(args, args.trace), {}
        _report_read(trace, args.json)
    if auto and identified is None:
        if not trace.device_name:
            raise IdlewiseError(f"{args.trace}: --device auto needs the disk's name, which this trace does not give: "
                                "add --disk NAME (sda, nvme0n1)")
        identified = identify(trace.device_name)
    if auto and identified.virtual:
        raise IdlewiseError(f"--device auto: /dev/{identified.disk} is {identified.virtual}: there is no spindle behind it to "
                            "stop, and hdparm -S reaches the emulation, not a disk. Spinning disks down is the host's to "
                            "decide: record and advise there, or name a catalog entry with --device to see what a real disk "
                            "would do on this workload")
    if auto:
        device = load_device(identified.catalog)
    if identified and not args.json:
        say(f"--device auto: {identified.describe()}")
    advice = advise(trace, device, limits=limits, disk=named, **read_options)
    if read_options and not args.json:
        say(advice["read_report"])
    if identified:
        advice["device_identified"] = asdict(identified)
        for role in identified.holds:
            # The recording holds the system's own I/O to it; what it cannot show is that a
            # request waiting here can be the whole system waiting.
            wait = advice.get("mean_added_delay_s") or 0.0
            advice["warnings"].append(
                f"/dev/{identified.disk} holds {role}: the system itself writes to it (journal, logs) and waits on it "
                + ("(a program start or a page-in stalls for the wake-up"
                   + (f", {_fmt_time(wait)} on average here)" if wait else ")")
                   if "swap" in role or "root" in role else "")
                + "; the figures include the writes recorded, so keep the wake-ups a day limit strict, or keep it ready "
                  f"(hdparm -S 0 /dev/{identified.disk}) if those stalls matter")
        if identified.usb:
            advice["warnings"].append(f"/dev/{identified.disk} is behind a USB bridge: many ignore the ATA standby timer "
                                      "that hdparm -S sets; hd-idle, which sends its own stop command, usually works")
        if not identified.matched:
            advice["warnings"].append(f"no catalog entry for model '{identified.model}': the {identified.kind} class default "
                                      f"{identified.catalog} stands in for it; a device file from its datasheet is better "
                                      "(idlewise devices NAME --toml)")
    if args.plot:
        plot_advice(advice, args.plot)
    if args.json:
        json.dump(json_ready(advice), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
        return 0
    _print_advice(advice, args)
    return 0


#: The advice table's columns give way in this order on a narrow terminal (the setting, what it
#: saves and whether it keeps within the limits never do).
_ADVICE_DROP_FIRST = ("delayed/hour", "money saved/yr", "wake-ups/day (any mode)", "added delay", "cycles last yr")
#: The money column's header, with the currency in place of "money".
MONEY = "money saved/yr"


def _advice_table(advice: dict, width: int):
    """Every setting tried, one row each, fitted to ``width``: numbers whole; why a setting breaks
    a limit is said under the table, not in a column that wraps."""
    rows = advice["candidates"]
    price = advice["limits"]["price_per_kwh"]
    settings = [("→ " if r["policy"] == advice["policy"] else "  ") + r["policy"] for r in rows]
    columns = [
        ("kWh saved/yr", [f"{r['kwh_saved_per_year']:,.2f}" for r in rows]),
        (MONEY, ["" if r["money_saved_per_year"] is None else f"{r['money_saved_per_year']:,.2f}" for r in rows]),
        ("wake-ups/day (any mode)", [_fmt_rate(r['wakeups_per_day']) for r in rows]),
        ("cycles last yr", [_fmt_years(r["years_to_rated_cycles"]) for r in rows]),
        ("delayed/hour", [_fmt_rate(r['delayed_requests_per_hour']) for r in rows]),
        ("added delay", [_fmt_time(r["mean_added_delay_s"]) if r["mean_added_delay_s"] else "0" for r in rows]),
        ("in limits", ["yes" if r["meets_limits"] else f"no ({i + 1})" for i, r in enumerate(rows)]),
    ]
    broken = [f"({i + 1}) {r['policy']}: {'; '.join(r['breaks'])}" for i, r in enumerate(rows) if not r["meets_limits"]]
    currency = advice["limits"]["currency"]
    caption = "\n".join(([f"money in {currency}, at {price:.2f} {currency} per kWh"] if price is not None else []) + broken)
    from ._common import fitted_table

    return fitted_table("every setting tried (→ the one advised)", [("setting", settings)], columns, _ADVICE_DROP_FIRST,
                        width, more="--json for every figure", caption=caption or None)


def _cycles_last(years: float) -> str:
    import math

    return ", the rated cycles never run out" if not math.isfinite(years) else f", the rated cycles last {_fmt_years(years)} years"


def _steps(console, steps: list, indent: str = "  ") -> None:
    """Steps as the advice gives them: what, wrapped to the terminal, then its command on a line
    of its own, never broken (it is copied as it is)."""
    for step in steps:
        if step["what"]:
            console.print(Padding(Text(step["what"]), (0, 0, 0, len(indent))), highlight=False)
        if step["command"]:
            console.print(Text(indent + "  " + step["command"]), highlight=False, soft_wrap=True)


def _print_advice(advice: dict, args) -> None:
    console = _console()
    from ..traces.trace import span_text

    console.print(f"[bold]{advice['device']}[/bold] on {advice['trace']}: {advice['requests']:,} requests recorded over "
                  f"{span_text(advice['recorded_s'])}; extrapolated to a year, always on it draws "
                  f"{advice['always_on_kwh_per_year']:,.1f} kWh, the offline optimum saves "
                  f"{advice['oracle_kwh_saved_per_year']:,.1f} kWh")
    from ..activity import described

    for line in described(advice["activity"]):
        console.print(line, highlight=False)
    console.print(_advice_table(advice, console.width))
    for warning in advice["warnings"]:
        console.print(Text(f"note: {warning}", style="yellow"))
    if not advice["advised"]:
        keep = ("Leave the disk spinning:" if advice["commands"] else
                "No command: the disk is an emulation (the note above)." if advice.get("emulated") else "Keep the drive in its ready state.")
        console.print(f"[bold red]{advice['verdict']}[/bold red]. {keep}")
        _steps(console, advice["commands"])
        return
    price, currency = advice["limits"]["price_per_kwh"], advice["limits"]["currency"]
    setting = f" (hdparm -S {advice['hdparm_S']})" if advice["hdparm_S"] else ""
    console.print(f"[bold green]Recommended: {advice['policy']}{setting}[/bold green]")
    money = "" if price is None else f", worth {advice['money_saved_per_year']:,.2f} {currency} a year at {price:.2f} {currency} per kWh"
    console.print(Padding(Text(f"saves {advice['kwh_saved_per_year']:,.2f} kWh a year{money}; "
                               f"{_fmt_rate(advice['wakeups_per_day'])} wake-ups a day"
                               + (_cycles_last(advice["years_to_rated_cycles"]) if advice["years_to_rated_cycles"] else "")
                               + f"; {_fmt_rate(advice['delayed_requests_per_hour'])} requests an hour wait for a wake-up, "
                               f"{_fmt_time(advice['mean_added_delay_s'])} each on average"), (0, 0, 0, 2)))
    if advice.get("hd_idle"):
        h = advice["hd_idle"]
        console.print(Padding(Text(f"with hd-idle instead (it polls, so the disk stops a little later): saves "
                                   f"{h['kwh_saved_per_year']:,.2f} kWh a year at {_fmt_rate(h['wakeups_per_day'])} wake-ups a day"),
                              (0, 0, 0, 2)))
    if advice.get("emulated"):
        console.print("No command: the disk is an emulation (the note above).")
        return
    console.print("apply it:")
    _steps(console, advice["commands"])
    if advice.get("persist"):
        console.print("make it last (the commands above last until a reboot, or the drive's own power cycle):")
        _steps(console, advice["persist"])
    if advice.get("defeated_by"):
        console.print("what commonly undoes it:")
        _steps(console, advice["defeated_by"])