"""`idlewise experiment` and `idlewise cache`: the seeds' experiments and their tables."""

from __future__ import annotations

import json
import sys

from ..errors import IdlewiseError
from ..results import Results
from ._common import Table, _console, _fmt_time, _fmt_bytes
from .hybrid import hybrid_table


CACHE_KEYS = ("mean_response_s", "energy_j", "storage_energy_j", "network_energy_j", "io_cpu_energy_j", "storage_reads", "network_reads",
              "ghost_hints", "spin_ups", "writes_pending_at_end", "energy_lower_bound_j")


def cmd_cache(args) -> int:
    from ..system import read_app_trace, run_cache

    trace = read_app_trace(args.workload)
    r = run_cache(trace, storage=args.storage, network=args.network, cache=args.cache, knob=args.knob,
                  ghost_hints=not args.no_ghost_hints, base_power_w=args.base_power, io_cpu_power_w=args.io_cpu_power,
                  storage_policy=args.storage_policy, network_policy=args.network_policy)
    if args.json:
        json.dump(r, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return 0
    table = Table(title=f"{trace.name} on {r['storage']} + {r['network']}: {args.cache} cache, knob {args.knob:g}"
                  + ("" if r["ghost_hints_enabled"] else ", no ghost hints"), title_justify="left")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in CACHE_KEYS + ("makespan_s", "hint_spin_ups", "writes_queued", "writes_flushed", "storage_policy", "network_policy"):
        value = r.get(key)
        table.add_row(key, f"{value:,.3f}" if isinstance(value, float) else str(value))
    _console().print(table)
    return 0


def cmd_experiment(args) -> int:
    from ..experiments import DEVICE_EXPERIMENTS, EXPERIMENTS, NO_WORKLOAD, TRACE_EXPERIMENTS

    if args.device and args.name not in DEVICE_EXPERIMENTS:
        raise IdlewiseError(f"experiment {args.name} takes no --device")
    if args.traces and args.name not in TRACE_EXPERIMENTS:
        raise IdlewiseError(f"experiment {args.name} takes no trace arguments" +
                            ("" if args.name in NO_WORKLOAD else " (give application traces with --workload)"))
    if args.probe_power and args.name != "mems-timeout":
        raise IdlewiseError(f"experiment {args.name} takes no --probe-power (mems-timeout does)")
    if args.name in TRACE_EXPERIMENTS:
        if not args.traces:
            raise IdlewiseError(f"experiment {args.name} needs one or more trace files: idlewise experiment {args.name} TRACE...")
        extra = {"probe_power": args.probe_power} if args.probe_power else {}
        result = EXPERIMENTS[args.name](args.traces, plot=args.plot, device=args.device, format=args.format,
                                        stream=args.stream, sort=args.sort, **extra)
    elif args.name in DEVICE_EXPERIMENTS:
        result = EXPERIMENTS[args.name](None, plot=args.plot, device=args.device)
    else:
        if args.name not in NO_WORKLOAD and not args.workload:
            raise IdlewiseError(f"experiment {args.name} needs --workload (an application trace CSV; repeatable)")
        result = EXPERIMENTS[args.name](args.workload, plot=args.plot)
    if args.json:
        json.dump(result, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    elif args.name in EXPERIMENT_PRINTERS:
        EXPERIMENT_PRINTERS[args.name](result)
    else:
        _print_system_rows(result, f"experiment {args.name}")
    if args.plot and not args.json:
        print(f"plot written to {args.plot}")
    return 0


def _print_arm_power(rows) -> None:
    """Seed 001 Figure 1(b): mechanical power against the range of random blocks."""
    table = Table(title="seed 001 Figure 1(b): mechanical power under random reads (seed: ~1.7 W with no arm movement, "
                        "almost 3 W at movements of 27-30 %)", title_justify="left")
    for column in ("range of blocks", "mean arm movement", "mean service", "mechanical power W"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(f"{r['range_fraction']:.0%}", f"{r['mean_movement_fraction']:.1%}", _fmt_time(r["mean_service_s"]),
                      f"{r['mechanical_power_w']:.2f}")
    _console().print(table)


def _print_system_rows(rows, title: str) -> None:
    """Seed 000's system experiments (static-vs-adaptive, knob, ghost-hints): one row per run."""
    table = Table(title=title, title_justify="left")
    keys = ["workload", "variant", "knob", "mean_response_s", "energy_j", "energy_lower_bound_j", "storage_reads",
            "network_reads", "ghost_hints", "spin_ups"]
    for k in keys:
        table.add_column(k, justify="left" if k in ("workload", "variant") else "right")
    for row in rows:
        table.add_row(*[f"{row[k]:,.3f}" if isinstance(row[k], float) else str(row[k]) for k in keys])
    _console().print(table)


def _print_nvcache_flushing(result) -> None:
    """Seed 003 on hplajw: Figure 5's table, the claims with ours, and the sweeps' ends."""
    console = _console()
    title = (f"seed 003 Figure 5 on {result['trace']} ({result['requests']:,} requests): hybrid {result['disk']} + "
             f"{result['flash']}, DRAM 16 MiB, NVCache 64 MiB, {result['policy'].split(':')[0]}")
    console.print(hybrid_table(Results(result["figure5"]), title))
    inf = result["infinite"]
    console.print(f"infinite NVCache: {_fmt_bytes(inf['bytes_cached'])} cached over the week in {inf['spindown_periods']:,} "
                  f"spin-down periods, at most {_fmt_bytes(inf['max_bytes_per_spindown'])} in one; plain disk "
                  f"{result['plain_disk']['energy_j']:,.0f} J, {result['plain_disk']['spinups']:,} spin-ups")
    table = Table(title="seed 003's claims, and ours on hplajw", title_justify="left")
    for column in ("claim", "seed", "ours", "holds"):
        table.add_column(column)

    def show(v):
        if isinstance(v, float):
            return f"{v:.1%}"
        if isinstance(v, int) and v > 100_000:
            return _fmt_bytes(v)
        return str(v)

    for c in result["claims"]:
        ours = "; ".join(
            f"{k}: " + (", ".join(f"{a}: {show(x)}" for a, x in v.items()) if isinstance(v, dict) else show(v))
            for k, v in c["ours"].items())
        table.add_row(c["claim"], c["seed"], ours, "yes" if c["holds"] else "no")
    console.print(table)


def _print_swap_reshaping(rows) -> None:
    """Seed 002 Table 3: ours next to the seed's, execution time and swapping energy."""
    table = Table(title="seed 002 Table 3, matrix product, closed loop: idlewise / seed "
                        "(± one s.d. over drawn wake-up times)", title_justify="left")
    for column in ("device", "DPM", "time s original", "time s reshaped", "ratio", "energy J original", "energy J reshaped", "ratio"):
        table.add_column(column, justify="left" if column in ("device", "DPM") else "right")

    def cell(row, key, variant, digits):
        ours, seed = row[f"{key}_{variant}"], row["seed"][f"{key}_{variant}"]
        if ours is None:
            return "-"
        spread = row[f"{key}_{variant}_std"]
        return f"{ours:.{digits}f}" + (f" ± {spread:.{digits}f}" if spread else "") + f" / {seed:.{digits}f}"

    def ratio(row, key, ours):
        seed = row["seed"]
        if ours is None:
            return "-"
        return f"{ours:.2f} / {seed[f'{key}_reshaped'] / seed[f'{key}_original']:.2f}"

    for r in rows:
        table.add_row(r["device"], r["dpm"] + (f" ({r['policy']})" if r["dpm"] != "none" else ""),
                      cell(r, "exec_time_s", "original", 2), cell(r, "exec_time_s", "reshaped", 2),
                      ratio(r, "exec_time_s", r["exec_time_ratio"]),
                      cell(r, "energy_j", "original", 3), cell(r, "energy_j", "reshaped", 3), ratio(r, "energy_j", r["energy_ratio"]))
    _console().print(table)


def _print_hint_conditions(rows) -> None:
    """Seed 000: where ghost hints beat the same knob without them on both response and energy."""
    table = Table(title="seed 000: bursts of cached reads on a sleeping disk, ghost hints against none at the same knob",
                  title_justify="left")
    for column in ("reads", "size", "think", "knob", "with hints", "without", "hint spin-ups", "strictly better"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(f"{r['reads']}", f"{r['size_bytes'] // 1024} KB", f"{r['think_s']:g} s", f"{r['knob']}",
                      f"{_fmt_time(r['with_hints_mean_response_s'])}, {r['with_hints_energy_j']:,.1f} J",
                      f"{_fmt_time(r['without_mean_response_s'])}, {r['without_energy_j']:,.1f} J", f"{r['hint_spin_ups']}",
                      "yes" if r["dominates"] else "no")
    _console().print(table)


def _print_static_baselines(rows) -> None:
    """Seed 000 Figure 7 against every static baseline the seed leaves open."""
    table = Table(title="seed 000 Figure 7: adaptive (knob 50) against each static baseline (seed: mail -42 % / -5 %, "
                        "web -27 % / -9 %)", title_justify="left")
    for column in ("workload", "static baseline (disk)", "static response", "static energy", "change: response / energy"):
        table.add_column(column, justify="left" if column in ("workload", "static baseline (disk)") else "right")
    for r in rows:
        table.add_row(r["workload"], r["baseline"], _fmt_time(r["static_mean_response_s"]), f"{r['static_energy_j']:,.0f} J",
                      f"{r['response_change']:+.0%} / {r['energy_change']:+.0%}")
    _console().print(table)


def _print_purple(result) -> None:
    """Seed 001 Figures 2-5: the central claim per stand-in drive and workload."""
    table = Table(title=f"seed 001 on {result['trace']} ({result['replay']} replay, normalised against the unmodified trace "
                        "always on): energy down 80 % with delay near 1?", title_justify="left")
    for column in ("drive", "workload", "delay, shortest timeout", "energy, shortest timeout", "least energy with delay <= 1.25",
                   "spin-ups", "holds"):
        table.add_column(column, justify="left" if column in ("drive", "workload") else "right")
    for v in result["claim"]:
        least = "none" if v["least_energy_with_delay_near_1"] is None else f"{v['least_energy_with_delay_near_1']:.2f} at {v['at_timeout_s']:g} s"
        table.add_row(v["drive"], v["workload"], f"x{v['delay_at_shortest_timeout']:.1f}", f"{v['energy_at_shortest_timeout']:.2f}",
                      least, f"{v['spinups_at_shortest_timeout']:,}", "yes" if v["claim_holds"] else "no")
    _console().print(table)


def _print_mems_optimum(rows) -> None:
    """Seed 004's optimum on mobile workloads: the best timeout and what 1 ms and 10 ms cost."""
    table = Table(title=f"seed 004 on mobile workloads ({rows[0]['requests']:,} requests each, closed loop): "
                        "least energy by timeout", title_justify="left")
    for column in ("locality", "idle < 1 ms", "shutdown", "best timeout", "E(1 ms)/E(0)", "E(10 ms)/E(0)", "R(10 ms)/R(0)"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(f"{r['locality']:.0%}", f"{r['sub_ms_share']:.0%}", r["shutdown"].upper(), f"{r['best_timeout_ms']} ms",
                      f"{r['energy_1ms_j'] / r['energy_0ms_j'] - 1:+.2%}", f"{r['energy_10ms_j'] / r['energy_0ms_j'] - 1:+.2%}",
                      f"{r['response_10ms_s'] / r['response_0ms_s'] - 1:+.2%}")
    _console().print(table)


def _print_mems_timeout(rows) -> None:
    """Seed 004's Tables 2 (PE) and 3 (EE): energy J / mean response ms per timeout and trace."""
    traces = list(dict.fromkeys(r["trace"] for r in rows))
    console = _console()
    for shutdown, table_no in (("pe", 2), ("ee", 3)):
        mine = [r for r in rows if r["shutdown"] == shutdown]
        table = Table(title=f"seed 004 Table {table_no} layout, {shutdown.upper()} shutdown, {rows[0]['device']}: "
                            "energy J / mean response ms", title_justify="left")
        table.add_column("timeout ms", justify="right")
        for t in traces:
            table.add_column(t, justify="right")
        for timeout_s in dict.fromkeys(r["timeout_s"] for r in mine):
            cells = {r["trace"]: r for r in mine if r["timeout_s"] == timeout_s}
            table.add_row(f"{timeout_s * 1e3:g}", *[f"{cells[t]['energy_j']:.4g} / {cells[t]['mean_response_s'] * 1e3:.3g}" for t in traces])
        first = {r["trace"]: r for r in reversed(mine)}
        table.add_row("theoretical min.", *[f"{first[t]['theoretical_min_energy_j']:.4g} / "
                                            f"{first[t]['theoretical_min_response_s'] * 1e3:.3g}" for t in traces])
        console.print(table)
    for t in traces:
        if any(r["folded"] for r in rows if r["trace"] == t):
            console.print(f"note: {t} does not fit {rows[0]['device']}: its block numbers were folded onto the device "
                          "(block mod (capacity - size))")


def _print_mems_shutdown(rows) -> None:
    table = Table(title=f"seed 004 section 6.2: shutdown from rest along one axis, {rows[0]['device']} (idlewise | seed)",
                  title_justify="left")
    for column in ("policy", "from", "time ms", "actuator energy uJ"):
        table.add_column(column, justify="left" if column == "policy" else "right")
    for r in rows[:-1]:
        table.add_row(r["shutdown"].upper(), f"{r['distance_m'] * 1e6:g} um",
                      f"{r['time_s'] * 1e3:.3f} | {r['seed_time_s'] * 1e3:.1f}", f"{r['energy_j'] * 1e6:.2f}")
    _console().print(table)
    field = rows[-1]
    print(f"over the probe field: EE saves at least {field['least_energy_saving']:.1%} of the shutdown energy "
          f"(seed: at least 40 %); EE takes up to {field['largest_time_increase']:.0%} longer than PE "
          "(1 um from the centre, the grid's nearest point; the seed: up to 600 %)")


def _print_swap_cost(rows) -> None:
    table = Table(title="seed 002 Table 1: swapping one 4096-byte page (idlewise from the catalog | seed)",
                  title_justify="left")
    for column in ("device", "protocol", "read-only ms", "mJ", "mW", "write-back ms", "mJ ", "mW "):
        table.add_column(column, justify="left" if column in ("device", "protocol") else "right")
    for r in rows:
        ro, wb = r["seed_read_only"], r["seed_write_back"]
        table.add_row(r["device"], r["protocol"],
                      f"{r['read_only_time_s'] * 1e3:.1f} | {ro['time_s'] * 1e3:.1f}",
                      f"{r['read_only_energy_j'] * 1e3:.3f} | {ro['energy_j'] * 1e3:.3f}",
                      f"{r['read_only_power_w'] * 1e3:.0f} | {ro['power_w'] * 1e3:.0f}",
                      f"{r['write_back_time_s'] * 1e3:.1f} | {wb['time_s'] * 1e3:.1f}",
                      f"{r['write_back_energy_j'] * 1e3:.3f} | {wb['energy_j'] * 1e3:.3f}",
                      f"{r['write_back_power_w'] * 1e3:.0f} | {wb['power_w'] * 1e3:.0f}")
    _console().print(table)


#: How `idlewise experiment NAME` prints its result (without --json); seed 000's system
#: experiments share one table.
EXPERIMENT_PRINTERS = {
    "swap-cost": _print_swap_cost, "arm-power": _print_arm_power, "swap-reshaping": _print_swap_reshaping,
    "nvcache-flushing": _print_nvcache_flushing, "mems-timeout": _print_mems_timeout, "mems-shutdown": _print_mems_shutdown,
    "mems-optimum": _print_mems_optimum, "purple-timeouts": _print_purple, "static-baselines": _print_static_baselines,
    "ghost-hint-conditions": _print_hint_conditions,
}
