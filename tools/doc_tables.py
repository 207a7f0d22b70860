"""The seed pages' tables of numbers, rendered from the runs `tools/check-docs` regenerates: each
function takes those runs (by their names in `check-docs`'s RUNS) and returns the Markdown of one
generated block (`<!-- check-docs: NAME -->`), so a page's table is never typed in.
"""

from __future__ import annotations

from typing import Callable


def signed(x: float, digits: int = 0, space: bool = True) -> str:
    """A change as a signed percentage with a true minus sign: -0.52 -> '−52 %'."""
    return (f"{x * 100:+.{digits}f}" + (" %" if space else "%")).replace("-", "−")


# --- seed 000 ------------------------------------------------------------------------------

#: Seed 000's own numbers for Figure 7 and Figures 10-12, as its text gives them.
SEED000_FIG7 = {"mail.csv": "−42 % / −5 %", "web.csv": "−27 % / −9 %"}


def _s(r: dict) -> str:
    return f"{r['mean_response_s']:.3f} s"


def _j(r: dict) -> str:
    return f"{r['energy_j']:,.0f} J"


def seed000_fig7(d: dict) -> str:
    rows = {(r["workload"], r["variant"]): r for r in d["fig7"]}
    lines = ["| workload | static: mean response | static: energy | adaptive (knob 50): mean response | energy | change (response / energy) | seed 000 |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for w, seed in SEED000_FIG7.items():
        s, a = rows[(w, "static")], rows[(w, "adaptive")]
        change = f"{signed(a['mean_response_s'] / s['mean_response_s'] - 1)} / {signed(a['energy_j'] / s['energy_j'] - 1)}"
        lines.append(f"| {w.split('.')[0]} | {_s(s)} | {_j(s)} | {_s(a)} | {_j(a)} | {change} | {seed} |")
    return "\n".join(lines)


def seed000_static_baselines(d: dict) -> str:
    rows = d["static_baselines"]
    names = list(dict.fromkeys(r["baseline"] for r in rows))
    cell = {(r["baseline"], r["workload"]): r for r in rows}
    lines = ["| static baseline (disk) | mail: response / energy | web: response / energy |", "|---|---:|---:|"]
    for name in names:
        parts = [f"{signed(cell[(name, w)]['response_change'], space=False)} / {signed(cell[(name, w)]['energy_change'], space=False)}"
                 for w in ("mail.csv", "web.csv")]
        lines.append(f"| {name} | {parts[0]} | {parts[1]} |")
    lines.append("| **seed 000 (ABLE)** | **−42 % / −5 %** | **−27 % / −9 %** |")
    return "\n".join(lines)


def seed000_knob(d: dict) -> str:
    rows = {(r["workload"], r["knob"]): r for r in d["knob"]}
    knobs = sorted({k for _, k in rows})
    lines = ["| knob | mail response | mail energy | web response | web energy |", "|---:|---:|---:|---:|---:|"]
    for k in knobs:
        m, w = rows[("mail.csv", k)], rows[("web.csv", k)]
        lines.append(f"| {k} | {_s(m)} | {_j(m)} | {_s(w)} | {_j(w)} |")
    bound = {w: f"{rows[(w, knobs[0])]['energy_lower_bound_j']:,.0f} J" for w in ("mail.csv", "web.csv")}
    lines.append(f"| lower bound (§5.3) | | {bound['mail.csv']} | | {bound['web.csv']} |")
    return "\n".join(lines)


#: Figures 10-12: where the seed saw hints matter, and what it said.
SEED000_HINTS = (("mail.csv", "mail", 99, "clear benefit at knob 99"), ("web-all-cached.csv", "all-cached web", 95, "clear benefit"),
                 ("web.csv", "web", 95, '"no real effect" (Figure 11)'))


def seed000_hints(d: dict) -> str:
    rows = {(r["workload"], r["knob"], r["ghost_hints_enabled"]): r for r in d["hints"]}
    lines = ["| workload, knob | with hints | without | hint spin-ups | seed 000 |", "|---|---:|---:|---:|---|"]
    for w, name, k, seed in SEED000_HINTS:
        on, off = rows[(w, k, True)], rows[(w, k, False)]
        lines.append(f"| {name}, {k} | {_s(on)}, {_j(on)} | {_s(off)}, {_j(off)} | {on['hint_spin_ups']} | {seed} |")
    return "\n".join(lines)


# --- seed 001 ------------------------------------------------------------------------------

SEED001_WORKLOADS = ("none", "compress:64ops", "compress-reorder:64ops", "compress:16ops", "compress:128ops")


def seed001_timeouts(d: dict) -> str:
    rows = {(r["drive"], r["workload"], r["timeout_s"]): r for r in d["purple"]["rows"]}
    drives = list(dict.fromkeys(r["drive"] for r in d["purple"]["rows"]))
    lines = ["| drive (stands in for) | workload | delay at 1 s | energy at 1 s | delay at 10 s | energy at 10 s | delay at 120 s | energy at 120 s |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for drive in drives:
        for w in SEED001_WORKLOADS:
            cells = [(rows[(drive, w, t)]["normalized_delay"], rows[(drive, w, t)]["normalized_energy"]) for t in (1.0, 10.0, 120.0)]
            stands = rows[(drive, w, 1.0)]["stands_in_for"].split(" (")[0]
            lines.append(f"| {drive} ({stands}) | {w} | " + " | ".join(f"×{dl:.1f} | {e:.2f}" for dl, e in cells) + " |")
    return "\n".join(lines)


SEED001_RANGES = (0.0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.85, 0.9, 1.0)


def seed001_arm_power(d: dict) -> str:
    rows = {r["range_fraction"]: r for r in d["arm_power"]}
    lines = ["| range of blocks | mean arm movement | mean service ms | mechanical power W |", "|---:|---:|---:|---:|"]
    for f in SEED001_RANGES:
        r = rows[f]
        movement = "0 %" if r["mean_movement_fraction"] == 0 else f"{r['mean_movement_fraction'] * 100:.1f} %"
        lines.append(f"| {f * 100:g} % | {movement} | {r['mean_service_s'] * 1e3:.1f} | {r['mechanical_power_w']:.2f} |")
    return "\n".join(lines)


# --- seed 002 ------------------------------------------------------------------------------

SEED002_NAMES = {"ram": "RAM", "cf": "CF", "hd": "HD", "nic-cisco": "NIC Cisco", "nic-compaq": "NIC Compaq"}


SEED002_TABLE1_NAMES = {"cf": "CF", "hd": "HD (microdrive)", "nic-cisco": "NIC Cisco", "nic-compaq": "NIC Compaq"}


def seed002_table1(d: dict) -> str:
    """Table 1 restated through the catalog (input): a power in bold is where the seed's printed
    power is not its own time and energy's ratio (the catalog keeps time and energy)."""
    lines = ["| device | protocol | read-only: ms, mJ, mW (idlewise / seed) | write-back: ms, mJ, mW (idlewise / seed) |", "|---|---|---|---|"]
    for r in d["swap_cost"]:
        cells = []
        for kind in ("read_only", "write_back"):
            seed = r[f"seed_{kind}"]
            ours_mw, seed_mw = f"{r[f'{kind}_power_w'] * 1e3:.0f}", f"{seed['power_w'] * 1e3:.0f}"
            power = ours_mw if ours_mw == seed_mw else f"**{ours_mw}**"
            cells.append(f"{r[f'{kind}_time_s'] * 1e3:.1f}, {r[f'{kind}_energy_j'] * 1e3:.3f}, {power} / "
                         f"{seed['time_s'] * 1e3:.1f}, {seed['energy_j'] * 1e3:.3f}, {seed_mw}")
        protocol = r["protocol"] if r["protocol"] == "local" else r["protocol"].upper()
        lines.append(f"| {SEED002_TABLE1_NAMES[r['device']]} | {protocol} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def seed002_table3(d: dict) -> str:
    """Table 3, ours / the seed's. The microdrive without DPM is bold: its per-page cost is the
    seed's Table 1 (input), so it must match; Cisco's doze energy is fitted (the Fast PSP hold)."""
    lines = ["| device | DPM | policy | exec. time s, original | reshaped | ratio | energy J, original | reshaped | ratio |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in d["swap_reshaping"]:
        seed = r["seed"]
        if r["policy"] is None:
            dpm, policy = "–", "–"
        else:
            ms = r["policy"].split("=")[-1].split(":")[-1]
            ms = f"{float(ms[:-2]):g}" if ms.endswith("ms") else f"{float(ms[:-1]) * 1000:g}" if ms.endswith("s") else ""
            dpm = r["dpm"] if r["dpm"] == "none" else f"{r['dpm']} {ms}"
            policy = f"`{r['policy']}`" + (" + Fast PSP" if r["device"] == "nic-cisco" and r["dpm"] == "doze" else "")
        input_row = (r["device"], r["dpm"]) == ("hd", "none")

        def energy(x: float) -> str:
            return f"{x:.3f}" if input_row or x < 10 else f"{x:.2f}"

        def spread(x: float, std: float, fmt) -> str:
            return fmt(x) + (f" ± {std:.2f}" if std else "")

        def bold(text: str) -> str:
            return f"**{text}**" if input_row else text

        time_o = bold(f"{spread(r['exec_time_s_original'], r['exec_time_s_original_std'], lambda x: f'{x:.2f}')} / {seed['exec_time_s_original']}")
        time_r = f"{spread(r['exec_time_s_reshaped'], r['exec_time_s_reshaped_std'], lambda x: f'{x:.2f}')} / {seed['exec_time_s_reshaped']}"
        time_ratio = f"{r['exec_time_ratio']:.2f} / {seed['exec_time_s_reshaped'] / seed['exec_time_s_original']:.2f}"
        if r["energy_j_original"] is None:
            cells = ["–", "–", "–"]
        else:
            fitted = " (fitted)" if r["device"] == "nic-cisco" and r["dpm"] == "doze" else ""
            cells = [bold(f"{spread(r['energy_j_original'], r['energy_j_original_std'], energy)} / {energy(seed['energy_j_original'])}") + fitted,
                     f"{spread(r['energy_j_reshaped'], r['energy_j_reshaped_std'], energy)} / {energy(seed['energy_j_reshaped'])}",
                     f"{r['energy_ratio']:.2f} / {seed['energy_j_reshaped'] / seed['energy_j_original']:.2f}"]
        lines.append(f"| {SEED002_NAMES[r['device']]} | {dpm} | {policy} | {time_o} | {time_r} | {time_ratio} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- seed 003 ------------------------------------------------------------------------------

MIB = 1 << 20


def seed003_figures3_4(d: dict) -> str:
    inf = d["nvcache"]["infinite"]
    week = "**Holds**: under 0.5 GB" if inf["flash_bytes_written"] <= 0.5e9 else "**Does not hold**: over 0.5 GB"
    period = "**Holds**" if inf["max_bytes_per_spindown"] < 100e6 else "**Does not hold**"
    return "\n".join([
        "| | seed (HP) | idlewise |", "|---|---|---|",
        "| Data cached over the week (Figure 3) | \"the NVCache needs only be .5GB to cache a week's worth of HP data\" | "
        f"{inf['bytes_cached'] / MIB:.0f} MiB of data; the log with its metadata sectors is {inf['flash_bytes_written'] / MIB:.0f} MiB. {week} |",
        "| Data cached in one spin-down period (Figure 4) | \"even with an infinite NVCache 100MB of NVCache is never used on a single "
        f"spin-down period\" | {inf['spindown_periods']:,} periods, the largest {inf['max_bytes_per_spindown'] / MIB:.1f} MiB. {period} |"])


def seed003_figure5(d: dict) -> str:
    lines = ["| when | alg | flush time s | NVCache s | disk s | flushes | disk I/Os | NVCache reads | merges | data flushed MiB | "
             "platters wrote MiB | energy J | spin-ups | mean response | stale, not flushed MiB |",
             "|---|---|" + "---:|" * 13]
    for r in d["nvcache"]["figure5"]:
        lines.append(
            f"| {r['flush_when']} | {r['flush_algorithm']} | {r['flush_time_s']:.1f} | {r['flush_nvcache_time_s']:.1f} | {r['flush_disk_time_s']:.1f} | "
            f"{r['flushes']:,} | {r['flush_disk_ios']:,} | {r['flush_nvcache_reads']:,} | {r['merges']:,} | {r['bytes_flushed'] / MIB:.1f} | "
            f"{r['flush_disk_bytes_written'] / MIB:.1f} | {r['energy_j']:,.0f} | {r['spinups']:,} | {r['mean_response_s'] * 1e3:.0f} ms | "
            f"{r['bytes_superseded'] / MIB:.1f} |")
    return "\n".join(lines)


#: Seed 003 Figures 6-12: the metrics and the sweep points the page shows.
SEED003_METRICS = (("flush time s (Fig. 6)", "flush_time_s", 1), ("disk s (Fig. 7)", "flush_disk_time_s", 1),
                   ("NVCache s (Fig. 8)", "flush_nvcache_time_s", 1), ("merges (Fig. 9)", "merges", None),
                   ("disk I/Os (Fig. 10)", "flush_disk_ios", None), ("NVCache reads (Fig. 11)", "flush_nvcache_reads", None),
                   ("data flushed MiB (Fig. 12)", "bytes_flushed", MIB))
SEED003_POINTS = (("dram_sweep", "dram_bytes", 100 << 10, "DRAM 100 KiB"), ("dram_sweep", "dram_bytes", 1 << 20, "DRAM 1 MiB"),
                  ("dram_sweep", "dram_bytes", 16 << 20, "DRAM 16 MiB"), ("dram_sweep", "dram_bytes", 64 << 20, "DRAM 64 MiB"),
                  ("nvcache_sweep", "nvcache_bytes", 1 << 20, "NVCache 1 MiB"), ("nvcache_sweep", "nvcache_bytes", 16 << 20, "NVCache 16 MiB"),
                  ("nvcache_sweep", "nvcache_bytes", 128 << 20, "NVCache 128 MiB"), ("nvcache_sweep", "nvcache_bytes", 256 << 20, "NVCache 256 MiB"))


def seed003_sweeps(d: dict) -> str:
    n = d["nvcache"]

    def value(r: dict, key: str, unit) -> str:
        v = r[key]
        if v == 0:
            return "0"
        return f"{v:,}" if unit is None else f"{v:.1f}" if unit == 1 else f"{v / unit:.1f}"

    def at(sweep: str, key: str, size: int, when: str) -> dict:
        return next(r for r in n[sweep] if r[key] == size and r["flush_when"] == when)

    lines = ["| | " + " | ".join(label for *_, label in SEED003_POINTS) + " |", "|---|" + "---:|" * len(SEED003_POINTS)]
    for label, metric, unit in SEED003_METRICS:
        cells = [f"{value(at(sw, k, size, 'each'), metric, unit)} / {value(at(sw, k, size, 'full'), metric, unit)}" for sw, k, size, _ in SEED003_POINTS]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- seed 004 ------------------------------------------------------------------------------

SEED004_TRACES = (("ajw.1week.srt#0", "hplajw"), ("visible.trace#0", "visible"), ("memsvalid.trace#0", "memsvalid (folded)"))


def _mems_cell(energy_j: float, response_s: float) -> str:
    # A week-long trace's kilojoules to the joule, the minutes-long ones' joules to 10 mJ.
    return f"{energy_j:.0f} / {response_s * 1e3:.1f}" if energy_j >= 1000 else f"{energy_j:.2f} / {response_s * 1e3:.2f}"


def _seed004_table(d: dict, shutdown: str, timeouts_ms: tuple) -> str:
    rows = {(r["trace"], round(r["timeout_s"] * 1e3)): r for r in d["mems_timeouts"] if r["shutdown"] == shutdown}
    lines = ["| timeout ms | " + " | ".join(name for _, name in SEED004_TRACES) + " |", "|---:|" + "---:|" * len(SEED004_TRACES)]
    for ms in timeouts_ms:
        lines.append(f"| {ms} | " + " | ".join(_mems_cell(rows[(t, ms)]["energy_j"], rows[(t, ms)]["mean_response_s"]) for t, _ in SEED004_TRACES) + " |")
    least = [rows[(t, 0)] for t, _ in SEED004_TRACES]
    lines.append("| theoretical min. | " + " | ".join(_mems_cell(r["theoretical_min_energy_j"], r["theoretical_min_response_s"]) for r in least) + " |")
    return "\n".join(lines)


def seed004_table2(d: dict) -> str:
    return _seed004_table(d, "pe", (0, 1, 2, 3, 4, 5, 10, 20, 30, 40, 50))


def seed004_table3(d: dict) -> str:
    return _seed004_table(d, "ee", (0, 1, 5, 10, 20, 50))


def seed004_shutdown(d: dict) -> str:
    """Section 6.2: the two PE times are what the acceleration and springs were fitted to; the EE
    times and Figure 7's two extremes follow."""
    rows = {(r["shutdown"], r.get("distance_m")): r for r in d["mems_shutdown"]}
    lines = ["| shutdown along one axis | seed | idlewise | |", "|---|---:|---:|---|"]
    for shutdown, um, kind in (("pe", 5, "fitted (with the next row)"), ("pe", 45, "fitted"), ("ee", 5, None), ("ee", 45, None)):
        r = rows[(shutdown, um / 1e6)]
        kind = kind or f"predicted, {signed(r['time_s'] / r['seed_time_s'] - 1, 1)}"
        lines.append(f"| {shutdown.upper()} from {um} µm | {r['seed_time_s'] * 1e3:.1f} ms | {r['time_s'] * 1e3:.3f} ms | {kind} |")
    field = rows[("ee-vs-pe", None)]
    lines.append(f"| EE's energy saving over the field | at least 40 % | at least {field['least_energy_saving'] * 100:.1f} % (at the edges) | predicted |")
    lines.append(f"| EE's extra time near the centre | up to 600 % | {field['largest_time_increase'] * 100:.0f} % at 1 µm (grows towards the centre) | predicted |")
    return "\n".join(lines)


def seed004_optimum(d: dict) -> str:
    rows = {(r["locality"], r["sub_ms_share"], r["shutdown"]): r for r in d["mems_optimum"]}
    lines = ["| locality | idle < 1 ms | best PE | E(1 ms) vs E(0), PE | best EE | E(1 ms) vs E(0), EE | R(10 ms) vs R(0), PE |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for locality in (0.0, 0.5, 0.9, 0.99):
        for share in (0.0, 0.2, 0.48, 0.6, 0.8):
            pe, ee = rows[(locality, share, "pe")], rows[(locality, share, "ee")]
            lines.append(
                f"| {locality:.0%} | {share:.0%} | {pe['best_timeout_ms']} ms | {signed(pe['energy_1ms_j'] / pe['energy_0ms_j'] - 1, 2, False)} | "
                f"{ee['best_timeout_ms']} ms | {signed(ee['energy_1ms_j'] / ee['energy_0ms_j'] - 1, 2, False)} | "
                f"{signed(pe['response_10ms_s'] / pe['response_0ms_s'] - 1, 1, False)} |")
    return "\n".join(lines)


TABLES: dict[str, Callable[[dict], str]] = {
    "seed000-fig7": seed000_fig7, "seed000-static-baselines": seed000_static_baselines, "seed000-knob": seed000_knob,
    "seed000-hints": seed000_hints, "seed004-table2": seed004_table2, "seed004-table3": seed004_table3,
    "seed004-optimum": seed004_optimum, "seed004-shutdown": seed004_shutdown, "seed003-figure5": seed003_figure5, "seed003-figures3-4": seed003_figures3_4, "seed003-sweeps": seed003_sweeps,
    "seed001-timeouts": seed001_timeouts, "seed001-arm-power": seed001_arm_power, "seed002-table3": seed002_table3, "seed002-table1": seed002_table1,
}
