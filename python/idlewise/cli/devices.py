"""`idlewise devices` and `idlewise policies`: the catalog, device files and policy families."""

from __future__ import annotations

import json
import os
import sys

from .. import _core
from .._package import package_text
from ..devices import catalog_names, load_device, wear_ratings
from ..errors import IdlewiseError
from ._common import Table, _console, _fmt_time


#: The catalog listing shows descriptions from this terminal width on.
DESCRIBED_WIDTH_MIN = 120


def cmd_devices(args) -> int:
    console = _console()
    if not args.name:
        # The names are what a user types: never cut. The descriptions give way on a narrow terminal.
        names = catalog_names()
        described = console.width >= DESCRIBED_WIDTH_MIN
        table = Table(title="catalog devices (idlewise devices NAME for details)", title_justify="left",
                      caption=None if described else f"each device's description: idlewise devices NAME "
                                                     f"(shown here from {DESCRIBED_WIDTH_MIN} columns)",
                      caption_justify="left")
        table.add_column("name", no_wrap=True, min_width=max(map(len, names)))
        table.add_column("kind", no_wrap=True)
        table.add_column("modes")
        if described:
            table.add_column("description", ratio=2)
        for name in names:
            d = load_device(name)
            modes = ", ".join(f"{m['name']}\u00a0{m['power_w']:g}\u00a0W" for m in d.modes)  # a mode and its power stay on one line
            table.add_row(name, d.kind, modes, *([d.description] if described else []))
        console.print(table)
        return 0
    if args.name == "validate":
        return _validate_device(console, args.file)
    if args.toml:
        print(_device_toml(args.name), end="")
        return 0
    d = load_device(args.name)
    if args.json:
        json.dump({"name": d.name, "kind": d.kind, "description": d.description, "source": d.source,
                   "assumptions": d.assumptions, "modes": d.modes, "transitions": d.transitions, "service": d.service,
                   "start_stop_cycles": d.start_stop_cycles, "load_unload_cycles": d.load_unload_cycles},
                  sys.stdout, indent=2, default=lambda x: None)
        sys.stdout.write("\n")
        return 0
    _print_device(console, d, shown_as=args.name)
    return 0


def _device_toml(name: str) -> str:
    """A catalog entry's file (or a device file's text), to start a new device file from."""
    if os.path.exists(name):
        try:
            with open(name, encoding="utf-8") as f:
                return f.read()
        except UnicodeDecodeError as e:
            raise IdlewiseError(f"{name}: not a TOML device file: byte {e.start} is not UTF-8 text") from None
    if name not in catalog_names():
        load_device(name)  # the catalog's error, naming the devices it has
    return package_text("catalog", f"{name}.toml")


def _validate_device(console, path) -> int:
    from rich.markup import escape

    if not path:
        raise IdlewiseError("devices validate needs a device file: idlewise devices validate my-disk.toml")
    if not os.path.exists(path):
        raise IdlewiseError(f"{path}: no such file")
    d = load_device(path)
    unsourced = [m["name"] for m in d.modes if not (m.get("source") or m.get("assumed"))]
    unsourced += [f"{t['from']}->{t['to']}" for t in d.transitions if not (t.get("source") or t.get("assumed"))]
    console.print(escape(f"{path}: valid: {d.name} ({d.kind}), {len(d.modes)} modes, {len(d.transitions)} transitions"
                         + "".join(f", rated for {n:,.0f} {kind} cycles" for kind, n, _ in wear_ratings(d))),
                  highlight=False)
    for warning in d.warnings:
        console.print(escape(f"warning: {warning}"), highlight=False)
    if unsourced:
        console.print(escape(f"note: no source or assumption for {', '.join(unsourced)}: say where each value comes from"),
                      highlight=False)
    return 0


def _provenance(item: dict) -> str:
    """Where a value comes from, in words: its source, and what was assumed and why."""
    parts = [item["source"]] if item.get("source") else []
    if item.get("assumed"):
        parts.append(f"assumed: {item['assumed']}")
    return "; ".join(parts) or "(no source given)"


class _Notes:
    """The numbered notes a device's tables point to: each distinct provenance once, so a table
    keeps to what fits a terminal and a source reads whole, however narrow the screen."""

    def __init__(self):
        self.texts: list[str] = []

    def mark(self, item: dict) -> str:
        text = _provenance(item)
        if text not in self.texts:
            self.texts.append(text)
        return f"[{self.texts.index(text) + 1}]"


def _print_device(console, d, shown_as: str) -> None:
    from .._compat import tomllib

    from rich.markup import escape

    from ..references import cited, strings_of
    from ._common import paragraph

    origin = "" if shown_as == d.name else f" (from {shown_as})"
    paragraph(console, f"{d.name}{origin} ({d.kind}): {d.description}", hanging="  ")
    paragraph(console, f"source: {d.source}" if d.source else "source: (none given)", hanging="  ")
    notes = _Notes()
    epc = any("epc_timer_s" in m for m in d.modes)
    modes = Table(title="modes (the first serves requests)", title_justify="left")
    for column in ("mode", "power W", "break-even", *(["EPC timer"] if epc else []), "note"):
        modes.add_column(column, no_wrap=column in ("mode", "note"))
    for m in d.modes:
        timer = [_fmt_time(m["epc_timer_s"]) if "epc_timer_s" in m else ""] if epc else []
        modes.add_row(escape(m["name"]), f"{m['power_w']:g}", _fmt_time(m["break_even_s"]) if m["break_even_s"] else "-",
                      *timer, notes.mark(m))
    console.print(modes)
    transitions = Table(title="transitions", title_justify="left")
    for column in ("from", "to", "time", "energy J", "note"):
        transitions.add_column(column, no_wrap=column in ("from", "to", "note"))
    for t in d.transitions:
        time = _fmt_time(t["time_s"]) + (f" ± {_fmt_time(t['time_std_s'])} ({t['time_distribution']})" if "time_std_s" in t else "")
        transitions.add_row(escape(t["from"]), escape(t["to"]), time, f"{t['energy_j']:g}", notes.mark(t))
    console.print(transitions)
    s = d.service
    paragraph(console, f"service: {s['overhead_s'] * 1e3:g} ms + size / ({s['read_bandwidth_bytes_per_s']:,.0f} B/s read, "
                       f"{s['write_bandwidth_bytes_per_s']:,.0f} B/s write) at {s['read_power_w']:g} W read, "
                       f"{s['write_power_w']:g} W write {notes.mark(s)}", hanging="  ")
    if s.get("seek"):
        k = s["seek"]
        paragraph(console,
                  f"seek curve: {k['sqrt_intercept_s'] * 1e3:g} ms + {k['sqrt_coeff_s'] * 1e3:g} ms·√d up to "
                  f"{k['boundary_cylinders']:,.0f} cylinders, then {k['linear_intercept_s'] * 1e3:g} ms + "
                  f"{k['linear_coeff_s'] * 1e3:g} ms·d; {k['bytes_per_cylinder']:,.0f} B a cylinder"
                  + (f", {k['capacity_bytes'] / 1e9:,.4g} GB in all; " if k.get("capacity_bytes") else " (capacity not given: offsets unchecked); ")
                  + f"+ {k['half_rotation_s'] * 1e3:g} ms half a rotation; {k['seek_power_w']:g} W extra while seeking "
                  + notes.mark(k), hanging="  ")
        paragraph(console, "seek time at " + ", ".join(f"{d_:,.0f} cyl: {t * 1e3:.2f} ms" for d_, t in k["curve_s"]),
                  indent="  ")
    if d.stated_capacity:
        c = d.stated_capacity
        paragraph(console, f"capacity: {c['bytes']:,.0f} bytes; a request larger than the device is refused "
                           f"{notes.mark(c)}", hanging="  ")
    for kind, n, counted in wear_ratings(d):
        paragraph(console, f"rated {kind} cycles: {n:,.0f} (the wake-ups that use one are counted as {counted} in "
                           f"results)", hanging="  ")
    for note in d.assumptions:
        paragraph(console, f"assumption: {note}", hanging="  ")
    console.print("notes:", highlight=False)
    for number, text in enumerate(notes.texts, 1):
        mark = f"[{number}] "
        paragraph(console, text, indent="  " + mark, hanging=" " * (2 + len(mark)))
    refs = cited(strings_of(tomllib.loads(_device_toml(shown_as))))
    if refs:
        console.print("references:", highlight=False)
        for ref in refs:
            paragraph(console, f"{ref.key}: {ref.cite}", indent="  ", hanging="    ")


def cmd_policies(args) -> int:
    from ._common import paragraph

    families = _core.policy_families()
    if args.json:
        json.dump(families, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    # A list, not a table: a family's parameters and examples are read whole at any width, and
    # an example (a spec to copy) is never cut.
    console = _console()
    paragraph(console, "policies (durations take a unit: ns, us, ms, s, min, h, d, w; powers W, mW or none; "
                       "idlewise policies --json for all of it as data)")
    for f in families:
        console.print()
        console.print(f"[bold]{f['name']}[/bold]", highlight=False)
        paragraph(console, f["summary"], indent="  ")
        for p in f["params"]:
            default = "" if not p["default"] else " (required)" if p["default"] == "required" else f" (default {p['default']})"
            paragraph(console, f"{p['name']}{default}: {p['help']}", indent="  - ", hanging="    ")
        paragraph(console, f"e.g. {f['example']}", indent="  ")
    return 0
