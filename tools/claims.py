"""The seeds' claims next to ours: one row per claim, each number computed from the runs that
`tools/check-docs` regenerates (never typed in), each verdict from a stated rule.

A row: the seed, the claim, the seed's number, ours, the label (input: taken from the seed;
fitted: a parameter was chosen to hit it; predicted: the model's output with nothing chosen to
hit it), the verdict (reproduced / holds under stated conditions / not reproduced), the
conditions under which the verdict holds (and where it flips), and the command that gives ours.

`tools/check-docs` renders the rows as `docs/claims.md`, each seed page's claims block and the
README's summary, and fails when a committed copy differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from doc_tables import signed
from verdicts import (CONDITIONS, NOT, REPRODUCED, RESTATED, FITTED, RULES, VERDICTS, Judged, bound, by_workloads,  # noqa: F401
                      close_share, direction, factor_range, fitted, near, quantities, restated, shares)


@dataclass(frozen=True)
class Claim:
    seed: str
    claim: str
    seeds_number: str
    ours: str
    label: str
    #: The verdict and the rule that gave it (`tools/verdicts.py`): never typed in.
    judged: Judged
    conditions: str
    command: str

    @property
    def verdict(self) -> str:
        return self.judged.verdict


def pct(x: float, digits: int = 0) -> str:
    """A change as a signed percentage: -0.52 -> '−52 %'."""
    return signed(x, digits)


def share(x: float) -> str:
    """A fraction as a percentage: 0.47 -> '47 %'."""
    return f"{x * 100:.0f} %".replace("-", "−")


def span(values: list[float], fmt: Callable[[float], str]) -> str:
    """'a–b', or 'a' when the two ends print alike."""
    low, high = fmt(min(values)), fmt(max(values))
    return low if low == high else f"{low} to {high}" if min(values) < 0 else f"{low}–{high}"


def change(new: float, old: float) -> float:
    return new / old - 1.0


def where(holds: list[bool], names: list[str]) -> str:
    """Which workloads a claim holds on, for its conditions."""
    yes = [n for n, h in zip(names, holds) if h]
    no = [n for n, h in zip(names, holds) if not h]
    if not no:
        return "holds on " + ", ".join(yes)
    if not yes:
        return "holds on none of " + ", ".join(no)
    return "holds on " + ", ".join(yes) + "; not on " + ", ".join(no)


# --- seed 000 ------------------------------------------------------------------------------

SEED000 = "000 (ghost hints)"
EXP000 = "idlewise experiment {} --workload docs/seed000/mail.csv --workload docs/seed000/web.csv --json"


def seed000(d: dict) -> list[Claim]:
    rows: list[Claim] = []
    fig3 = {r["read"]: r for r in d["fig3"]}
    cpu = ("the devices not asked rest in their low-power modes; the CPU's 0.78 W during I/O is fitted to the "
           "read from a spinning microdrive")
    fig3_cmd = "python -c 'from idlewise.experiments import seed000; print(seed000.figure3())'"

    def read(what: str) -> tuple[float, float]:
        return fig3[what]["response_s"], fig3[what]["energy_j"]

    t, e = read("32 KB from the microdrive in performance idle")
    rows.append(Claim(SEED000, "Figure 3: 32 KB from the microdrive in performance idle", "≈ 90 ms, ≈ 0.32 J", f"{t * 1e3:.1f} ms, {e:.3f} J",
                      "fitted", fitted([t, e], [0.090, 0.32]),
                      "the CPU's draw during I/O is fitted to this point (with the bandwidth and metadata reads): a regression guard, "
                      "not a reproduction", fig3_cmd))
    for what, (st, se) in (("32 KB from the server, card in CAM", (0.250, 0.9)), ("32 KB from the microdrive in standby", (0.820, 2.3))):
        t, e = read(what)
        judged = quantities([[t, e]], [st, se])
        rows.append(Claim(SEED000, f"Figure 3: {what}", f"{st * 1e3:.0f} ms, {se:g} J",
                          f"{t * 1e3:.0f} ms, {e:.3g} J ({pct(change(t, st))}, {pct(change(e, se))})", "predicted", judged,
                          cpu + ("; the model reads after Figure 2's whole spin-up, the seed's point equals the spin-up"
                                 if "standby" in what else "") + "; one set-up (device physics, no workload)", fig3_cmd))
    gain = read("512 KB from the server, card in CAM")[0] - read("512 KB from the microdrive in standby")[0]
    rows.append(Claim(SEED000, "Figure 3: 512 KB, network in CAM minus microdrive from standby", "320 ms",
                      f"{gain * 1e3:.0f} ms ({pct(change(gain, 0.320))})", "predicted", quantities([[gain]], [0.320]),
                      cpu + "; one set-up (device physics, no workload)", fig3_cmd))
    # The docs' workloads, and the same generators with another seed (never used by a page).
    other = d["seed000_other"]
    fig7 = {(r["workload"], r["variant"]): r for r in d["fig7"] + other["fig7"]}
    knob = {(r["workload"], r["knob"]): r for r in d["knob"] + other["knob"]}
    hints = {(r["workload"], r["knob"], r["ghost_hints_enabled"]): r for r in d["hints"] + other["hints"]}
    baselines = d["static_baselines"]
    sets = (("docs", ""), ("seed 2", "-seed2"))
    names = [name for name, _ in sets]
    other_cmd = "; the seed-2 workloads: tools/check-docs (docs/seed000/other-workloads.json)"

    def vs(a: dict, b: dict) -> tuple[float, float]:
        return change(a["mean_response_s"], b["mean_response_s"]), change(a["energy_j"], b["energy_j"])

    def pairs(w: str, pick: Callable[[str], tuple[float, float]]) -> list[tuple[str, float, float]]:
        return [(name, *pick(f"{w}{suffix}.csv")) for name, suffix in sets]

    def ours(values: list[tuple[str, float, float]]) -> str:
        return "; ".join(f"{name}: {pct(r)} / {pct(e)}" for name, r, e in values)

    seed7 = {"mail": (-0.42, -0.05), "web": (-0.27, -0.09)}
    for w, (sr, se) in seed7.items():
        got = pairs(w, lambda f: vs(fig7[(f, "adaptive")], fig7[(f, "static")]))
        judged = shares([[r, e] for _, r, e in got], [sr, se])
        spread = [b["response_change"] for b in baselines if b["workload"] == w + ".csv"]
        rows.append(Claim(
            SEED000, f"Figure 7: adaptive cache (knob 50) against static, {w}: response / energy", f"{pct(sr)} / {pct(se)}",
            ours(got), "predicted", judged,
            f"static = a 10 s spin-down timeout (assumed: the seed's ABLE manager is unpublished); across plausible baselines "
            f"the response change runs {pct(min(spread))} to {pct(max(spread))}, so the figure is a function of the baseline; "
            + where([shares([[r, e]], [sr, se]).verdict == REPRODUCED for _, r, e in got], names),
            EXP000.format("static-vs-adaptive") + "; " + EXP000.format("static-baselines") + other_cmd))
    for what, (a, b), (sr, se), w in (
            ("Figure 8: knob 95 against static, mail: response / energy (the knee)", (95, "static"), (-0.67, 0.04), "mail"),
            ("Figure 8: knob 99 against static, mail: response / energy", (99, "static"), (-0.89, 0.18), "mail"),
            ("Figure 9: knob 99 against knob 50, web: response / energy", (99, 50), (-0.45, 0.44), "web"),
            ("Figure 9: knob 95 against knob 50, web: response / energy", (95, 50), (-0.09, 0.07), "web")):
        got = pairs(w, lambda f: vs(knob[(f, a)], fig7[(f, "static")] if b == "static" else knob[(f, b)]))
        each = [shares([[r, e]], [sr, se]).verdict == REPRODUCED for _, r, e in got]
        rows.append(Claim(SEED000, what, f"{pct(sr)} / {pct(se)}", ours(got), "predicted", shares([[r, e] for _, r, e in got], [sr, se]),
                          where(each, names) + ("; knobs 0–95 behave alike here: the seed's knee lies below 95" if a == 95 else "")
                          + ("; static as Figure 7's" if b == "static" else ""), EXP000.format("knob") + other_cmd))
    head = [(name, knob[(f"mail{sfx}.csv", 50)]["energy_j"] / knob[(f"mail{sfx}.csv", 50)]["energy_lower_bound_j"] - 1,
             knob[(f"web{sfx}.csv", 50)]["energy_j"] / knob[(f"web{sfx}.csv", 50)]["energy_lower_bound_j"] - 1) for name, sfx in sets]
    rows.append(Claim(
        SEED000, "§5.3: the lower bound's headroom at knob 50, mail / web", "5 % / 9 %",
        "; ".join(f"{name}: {share_1(m)} / {share_1(w)}" for name, m, w in head), "predicted", shares([[m, w] for _, m, w in head], [0.05, 0.09]),
        "our makespan is mostly assumed think time, which the bound also pays at base power; "
        + where([shares([[m, w]], [0.05, 0.09]).verdict == REPRODUCED for _, m, w in head], names), EXP000.format("knob") + other_cmd))
    hint_cmd = ("idlewise experiment ghost-hints --workload docs/seed000/mail.csv --workload docs/seed000/web.csv "
                "--workload docs/seed000/web-all-cached.csv --json" + other_cmd)

    def hinted(f: str, k: int) -> tuple[float, float]:
        return vs(hints[(f, k, True)], hints[(f, k, False)])

    # The seed: hinted points have better energy *and* performance on mail (knob 99) and all-cached
    # web; on web (fetched) no real effect.
    checks = {"docs": [("mail, knob 99", "mail.csv", 99, "better"), ("all-cached web, knob 95", "web-all-cached.csv", 95, "better"),
                       ("web, knob 95", "web.csv", 95, "none")],
              "seed 2": [("mail, knob 99", "mail-seed2.csv", 99, "better"), ("web, knob 95", "web-seed2.csv", 95, "none")]}
    parts, holds = [], []
    for name, items in checks.items():
        ok = []
        for label, f, k, want in items:
            r, e = hinted(f, k)
            ok.append(r < 0 and e < 0 if want == "better" else abs(r) < 0.05)
            parts.append(f"{name} {label}: {pct(r, 1)} / {pct(e, 1)}")
        holds.append(ok)
    rows.append(Claim(
        SEED000, "Figures 10–12: hints make mail (knob 99) and all-cached web faster and cheaper; no real effect on web (fetched)",
        "better, better, none", "; ".join(parts) + " (response / energy with hints against without)", "predicted", direction(holds),
        "hints act only at knob ≥ 95 here (below, no hint spins the disk up); where they act they buy response with energy, "
        "so no hinted run is both faster and cheaper; " + where([all(h) for h in holds], names), hint_cmd))
    # Strictly better: faster and cheaper than the run without hints at the same knob, on the
    # seed's workloads (the docs' and seed 2's); generated bursts are the conditions' evidence.
    runs = {name: [(f, k) for (f, k, on) in hints if on and f in (f"mail{sfx}.csv", f"web{sfx}.csv")] for name, sfx in sets}
    better = {name: [(f, k) for f, k in done if hints[(f, k, True)]["mean_response_s"] < hints[(f, k, False)]["mean_response_s"]
                     and hints[(f, k, True)]["energy_j"] < hints[(f, k, False)]["energy_j"]] for name, done in runs.items()}
    hinted_runs = {name: len(done) for name, done in runs.items()}
    cond = d["hint_conditions"]
    dominates = sum(1 for r in cond if r["dominates"])
    rows.append(Claim(
        SEED000, "Figure 10: ghost hints give a better trade-off (faster and cheaper than without them)", "better",
        "; ".join(f"{name}: {len(better[name])} of {hinted_runs[name]} hinted runs faster and cheaper" for name, _ in sets)
        + f"; on generated bursts of cached reads on a sleeping disk: {dominates} of {len(cond)} cases", "predicted",
        direction([[bool(better[name])] for name, _ in sets]),
        "judged on the seed's workloads (the docs' and seed 2's mail and web); it does hold on bursts dense enough that the disk, "
        "once up, is not left idling between reads (at least ~40 reads ≤ 0.5 s apart, or 64 KB reads 2 s apart at knob ≥ 90): "
        "a condition of our own making, not the seed's workloads",
        hint_cmd + "; idlewise experiment ghost-hint-conditions --json"))
    return rows


def share_1(x: float) -> str:  # noqa: E302
    """A fraction as a percentage with one decimal: 0.019 -> '1.9 %'."""
    return f"{x * 100:.1f} %".replace("-", "−")


# --- seed 001 ------------------------------------------------------------------------------

SEED001 = "001 (PuRPLe)"


def seed001(d: dict) -> list[Claim]:
    # The hplajw week (the docs' trace) and a workload the seed pages never used: DiskSim's
    # ascii.trace, its busiest device (14: 19,968 requests in 25 minutes).
    runs = {"hplajw": d["purple"], "DiskSim #14": d["purple_disksim"]}
    names = list(runs)
    rows: list[Claim] = []
    cmd = ("idlewise experiment purple-timeouts --json; DiskSim's device 14: python -c 'import idlewise; from idlewise.experiments.seed001 "
           "import purple_timeouts; print(purple_timeouts(trace=idlewise.read_trace(\"tests/data/disksim/ascii.trace\", stream=14))[\"claim\"])'")

    def split(run: dict) -> tuple[list, list]:
        return [r for r in run["claim"] if r["workload"] == "none"], [r for r in run["claim"] if r["workload"] != "none"]

    def falls(run: dict) -> bool:
        by: dict = {}
        for r in run["rows"]:
            by.setdefault((r["drive"], r["workload"]), []).append(r)
        return all(min(rs, key=lambda r: r["timeout_s"])["normalized_energy"] < max(rs, key=lambda r: r["timeout_s"])["normalized_energy"]
                   for rs in by.values())

    def shortest(run: dict, drive: str, workload: str) -> dict:
        return min((r for r in run["rows"] if r["drive"] == drive and r["workload"] == workload), key=lambda r: r["timeout_s"])

    drives = sorted({r["drive"] for r in d["purple"]["rows"]})
    fell = [falls(run) for run in runs.values()]
    rows.append(Claim(SEED001, "Figures 2–5: energy falls as the timeout shortens", "falls",
                      "; ".join(f"{n}: {'falls on every drive and shaping' if v else 'does not fall (the shortest timeouts cost most)'}"
                                for n, v in zip(names, fell)),
                      "predicted", direction([[v] for v in fell]),
                      "holds where idle periods outlast the drives' break-even (a workstation's week); on a busy 25-minute server device "
                      "short timeouts add spin-ups that cost more than they save; " + where(fell, names), cmd))
    saved = {n: [1 - r["energy_at_shortest_timeout"] for r in split(run)[1]] for n, run in runs.items()}
    judged = bound(list(saved.values()), 0.8, above=True)
    rows.append(Claim(SEED001, "Figures 2–5: with shaping and short timeouts, over 80 % of the energy saved", "> 80 %",
                      "; ".join(f"{n}: {span(v, share)}" for n, v in saved.items()) + " at the shortest timeout", "predicted", judged,
                      "compression and compression-reordering by 64 operations, both stand-in drives (a negative saving is a loss); "
                      + where([min(v) > 0.8 for v in saved.values()], names), cmd))
    delays = {n: [r["delay_at_shortest_timeout"] for r in split(run)[0]] for n, run in runs.items()}
    wakes = {n: [r["spinups_at_shortest_timeout"] for r in split(run)[0]] for n, run in runs.items()}
    # The seed: "2 to 4 times", "over four times" at the shortest timeouts.
    rows.append(Claim(SEED001, "Figures 2–5: without shaping the shortest timeouts multiply mean response", "2–4×",
                      "; ".join(f"{n}: {span(v, lambda x: f'{x:.1f}')}× ({span(wakes[n], lambda x: f'{x:,.0f}')} spin-ups, "
                                f"{runs[n]['claim'][0]['requests']:,} requests)" for n, v in delays.items()),
                      "predicted", factor_range(list(delays.values()), 2.0, 4.0),
                      "the direction holds everywhere; the size is set by requests per spin-up; "
                      + where([factor_range([v], 2.0, 4.0).verdict == REPRODUCED for v in delays.values()], names), cmd))
    sd = {n: [r["delay_at_shortest_timeout"] for r in split(run)[1]] for n, run in runs.items()}
    per = {n: [r["requests"] / r["spinups_at_shortest_timeout"] for r in split(run)[1]] for n, run in runs.items()}
    # delay − 1 = (spin-ups / requests) × (spin-up / service): the requests per spin-up that
    # would bring it to 1.25.
    needed = [(r["delay_at_shortest_timeout"] - 1) * r["requests"] / r["spinups_at_shortest_timeout"] / 0.25
              for run in runs.values() for r in split(run)[1]]
    holds = [any(r["claim_holds"] for r in split(run)[1]) for run in runs.values()]
    rows.append(Claim(
        SEED001, "Figure 4: with compression (read-ahead) the delay stays ≈ 1 while energy falls", "≈ 1",
        "; ".join(f"{n}: {span(sd[n], lambda v: f'{v:.1f}')}× at the shortest timeout, {span(per[n], lambda v: f'{v:.0f}')} requests per spin-up"
                  for n in runs),
        "predicted", direction([[h] for h in holds]),
        "the delay counts as ≈ 1 up to 1.25 (the experiment's criterion); with op-count shaping, delay ≈ 1 + spin-ups × spin-up "
        f"time / (requests × mean service), so 1.25 needs {span(needed, lambda v: f'{v:,.0f}')} requests per spin-up (from these "
        "runs' own ratio of spin-up to service); " + where(holds, names), cmd))
    # "Compression with Reordering tended to perform better than time-compression": less energy
    # and no more delay at the shortest timeout, on each drive.
    better = {n: [shortest(run, dr, "compress-reorder:64ops")["normalized_energy"] <= shortest(run, dr, "compress:64ops")["normalized_energy"]
                  and shortest(run, dr, "compress-reorder:64ops")["normalized_delay"] <= shortest(run, dr, "compress:64ops")["normalized_delay"]
                  for dr in drives] for n, run in runs.items()}
    rows.append(Claim(
        SEED001, "Compression with reordering performs better than compression alone (64 operations)", "better",
        "; ".join(f"{n}: " + ", ".join(
            f"{dr.split('-')[-1]} energy {shortest(run, dr, 'compress-reorder:64ops')['normalized_energy']:.3f} against "
            f"{shortest(run, dr, 'compress:64ops')['normalized_energy']:.3f}, delay {shortest(run, dr, 'compress-reorder:64ops')['normalized_delay']:.2f}× "
            f"against {shortest(run, dr, 'compress:64ops')['normalized_delay']:.2f}×" for dr in drives) for n, run in runs.items())
        + " (at the shortest timeout, normalised to always-on)", "predicted", direction(list(better.values())),
        "better = less energy and no more delay, on each stand-in drive; " + where([all(v) for v in better.values()], names), cmd))
    # "Values ranging from 16 to 128 ... showed only minor variations in energy consumption or
    # average delays": the spread over the group sizes, at the shortest timeout.
    groups = ("compress:16ops", "compress:32ops", "compress:64ops", "compress:128ops")

    def spread(run: dict, drive: str, key: str) -> float:
        values = [shortest(run, drive, g)[key] for g in groups]
        return max(values) / min(values) - 1

    spreads = {n: [v for dr in drives for v in (spread(run, dr, "normalized_energy"), spread(run, dr, "normalized_delay"))]
               for n, run in runs.items()}
    rows.append(Claim(
        SEED001, "Group sizes 16–128 differ only a little in energy and delay", "minor",
        "; ".join(f"{n}: " + ", ".join(f"{dr.split('-')[-1]} energy {pct(spread(run, dr, 'normalized_energy'))}, delay "
                                       f"{pct(spread(run, dr, 'normalized_delay'))}" for dr in drives) for n, run in runs.items())
        + " (the largest against the smallest over the four sizes, at the shortest timeout)", "predicted",
        bound(list(spreads.values()), 0.25, above=False),
        "minor = the four sizes' energies, and their delays, within 25 % of each other; larger groups read further ahead, so "
        "fewer spin-ups fall between them: " + where([max(v) < 0.25 for v in spreads.values()], names), cmd))
    arm = sorted(d["arm_power"], key=lambda r: r["mean_movement_fraction"])
    rises = [(b["mechanical_power_w"] - a["mechanical_power_w"], a, b) for a, b in zip(arm, arm[1:])]
    steepest = max(rises, key=lambda x: x[0] / max(x[2]["mean_movement_fraction"] - x[1]["mean_movement_fraction"], 1e-12))
    where_jump = (steepest[1]["mean_movement_fraction"], steepest[2]["mean_movement_fraction"])
    jumps = where_jump[0] <= 0.30 and where_jump[1] >= 0.27
    rows.append(Claim(SEED001, "Figure 1(b): the power jumps where the arm's movements average 27–30 %", "a jump at 27–30 %",
                      f"steepest between {share_1(where_jump[0])} and {share_1(where_jump[1])} mean movement", "predicted",
                      direction([[jumps]]),
                      "the model's arm power is its seek time's share of the service: a single-track seek already costs 2 ms of a "
                      "short request, so the power rises most over the first movements, then slowly as seek time grows with the "
                      "square root of the distance; one drive (the seed's curve is not in its text)", "idlewise experiment arm-power --json"))
    least = min(arm, key=lambda r: r["range_fraction"])
    full = max(arm, key=lambda r: r["range_fraction"])
    confined = 1 - least["mechanical_power_w"] / full["mechanical_power_w"]
    rows.append(Claim(SEED001, "§2: confining the arm saves as much as 40 % of the mechanical power", "40 %",
                      f"{share(confined)} ({full['mechanical_power_w']:.2f} → {least['mechanical_power_w']:.1f} W)", "fitted",
                      fitted([confined], [0.40]),
                      "follows from the two ends, the spindle's 1.7 W (input) and the arm's power fitted to ≈ 3 W: a regression guard",
                      "idlewise experiment arm-power --json"))
    rows.append(Claim(SEED001, "Figure 1(b): mechanical power jumps to almost 3 W at 27–30 % arm movement", "≈ 3 W",
                      f"{full['mechanical_power_w']:.2f} W over the whole disk", "fitted", fitted([full["mechanical_power_w"]], [3.0]),
                      "the arm's 1.84 W is fitted to this point: it holds by construction and is a regression guard",
                      "idlewise experiment arm-power --json"))
    return rows


# --- seed 002 ------------------------------------------------------------------------------

SEED002 = "002 (network swapping)"


def seed002(d: dict) -> list[Claim]:
    t = {(r["device"], r["dpm"]): r for r in d["swap_reshaping"]}
    cmd = ("idlewise experiment swap-reshaping --json; the other phases: python -c 'from idlewise.experiments import seed002; "
           "print(seed002.reshaping_on_phases())'")
    rows: list[Claim] = []

    def phase_name(p: dict) -> str:
        kw = p["phase"]
        return f"n = {kw.get('n', 128)}" + (f", {kw['compute_s']:.0f} s" if "compute_s" in kw else "") + (
            f", {kw['pages_per_fault']}-page faults" if "pages_per_fault" in kw else "")

    # Table 3's program (the docs'), then other phases of the product no page used.
    programs = [("Table 3's program", lambda dev, dpm: t[(dev, dpm)])]
    programs += [(phase_name(p), lambda dev, dpm, p=p: p[f"{dev}/{dpm}"]) for p in d["reshaping_phases"]]
    names = [n for n, _ in programs]

    def each(test: Callable) -> list[bool]:
        return [bool(test(cell)) for _, cell in programs]

    def listed(value: Callable, fmt: Callable[[float], str]) -> str:
        return "; ".join(f"{n}: {fmt(value(cell))}" for n, cell in programs)

    cards = ("nic-cisco", "nic-compaq")
    # Like for like: power management and reshaping on both.
    ratios = [[cell("hd", "sleep")["energy_j_reshaped"] / cell(c, "off")["energy_j_reshaped"] for c in cards] for _, cell in programs]
    slower = [max(cell(c, "off")["exec_time_s_reshaped"] for c in cards) / cell("hd", "sleep")["exec_time_s_reshaped"] - 1
              for _, cell in programs]
    seeds = [t[("hd", "sleep")]["seed"]["energy_j_reshaped"] / t[(c, "off")]["seed"]["energy_j_reshaped"] for c in cards]
    ok = [factor_range([r], 10.0, 10.0).verdict == REPRODUCED and close_share(w, 0.05) for r, w in zip(ratios, slower)]
    rows.append(Claim(
        SEED002, "Network swapping ≈ 10× cheaper than the local microdrive, ≈ 5 % slower",
        f"≈ 10× (its Table 3, like for like: {min(seeds):.1f}–{max(seeds):.1f}×), ≈ 5 %",
        "; ".join(f"{n}: {min(r):.1f}–{max(r):.1f}×, {pct(w, 1)} time" for n, r, w in zip(names, ratios, slower)), "predicted",
        by_workloads(ok, "range and shares"),
        "like for like: power management and reshaping on both (microdrive sleep after 2 s, cards off after 100 ms); "
        + where(ok, names), cmd))
    costs = each(lambda cell: cell("hd", "none")["energy_j_original"] > max(cell(c, "none")["energy_j_original"] for c in cards))
    rows.append(Claim(SEED002, "Without DPM the microdrive costs more energy than either card (idle power)", "more",
                      listed(lambda cell: (cell("hd", "none")["energy_j_original"], cell("nic-cisco", "none")["energy_j_original"],
                                           cell("nic-compaq", "none")["energy_j_original"]),
                             lambda v: f"{v[0]:.1f} J against {v[1]:.1f} and {v[2]:.1f} J"),
                      "predicted", direction([[c] for c in costs]), "the program as the seed describes it; " + where(costs, names), cmd))
    worse = each(lambda cell: cell("hd", "sleep")["energy_j_original"] > cell("hd", "none")["energy_j_original"]
                 and cell("hd", "sleep")["exec_time_s_original"] > cell("hd", "none")["exec_time_s_original"])
    rows.append(Claim(SEED002, "The microdrive's DPM is counterproductive in time and energy without reshaping", "dearer and slower",
                      listed(lambda cell: (cell("hd", "sleep")["exec_time_s_original"], cell("hd", "sleep")["energy_j_original"],
                                           cell("hd", "none")["exec_time_s_original"], cell("hd", "none")["energy_j_original"]),
                             lambda v: f"{v[0]:.1f} s / {v[1]:.1f} J against {v[2]:.1f} s / {v[3]:.1f} J"),
                      "predicted", direction([[w] for w in worse]),
                      "sleep after 2 s; the device starts ready (starting asleep adds a wake-up to every row); the other phases at the "
                      "microdrive's mean wake-up time; the verdict turns with the phase: " + where(worse, names), cmd))
    for card, seed_save in (("nic-cisco", 0.50), ("nic-compaq", 0.80)):
        saves = [1 - cell(card, "doze")["energy_j_original"] / cell(card, "none")["energy_j_original"] for _, cell in programs]
        fitted_hold = card == "nic-cisco"
        rows.append(Claim(SEED002, f"MAC-level doze saves over {share(seed_save)} ({card.split('-')[1].title()})", f"> {share(seed_save)}",
                          "; ".join(f"{n}: {share(v)}" for n, v in zip(names, saves)),
                          "predicted (from a fitted hold)" if fitted_hold else "predicted", bound([[v] for v in saves], seed_save, above=True),
                          ("Cisco's Fast PSP hold (1.87 s) is fitted to Table 3's one program; Cisco's documentation says the card returns "
                           "to PSP once the packets are retrieved, with no hold: where faults come less than a hold apart the modelled "
                           "card never dozes; " if fitted_hold else "PSP doze after 100 ms; ") + where([v > seed_save for v in saves], names), cmd))
    lower = each(lambda cell: all(cell(dev, dpm)["energy_j_reshaped"] < cell(dev, dpm)["energy_j_original"]
                                  for dev, dpm in t if dpm != "none"))
    rows.append(Claim(SEED002, "Reshaping lowers energy in every DPM row", "every row",
                      "; ".join(f"{n}: {'every DPM row' if v else 'not every row'}" for n, v in zip(names, lower)),
                      "predicted", direction([[v] for v in lower]), "the device starts ready; " + where(lower, names), cmd))
    faster = each(lambda cell: all(cell(dev, dpm)["exec_time_s_reshaped"] <= cell(dev, dpm)["exec_time_s_original"] for dev, dpm in t
                                   if dpm != "none") and any(cell(dev, dpm)["exec_time_s_reshaped"] < cell(dev, dpm)["exec_time_s_original"]
                                                            for dev, dpm in t if dpm != "none"))
    rows.append(Claim(SEED002, "Reshaping improves performance (execution time) under DPM", "faster",
                      listed(lambda cell: (max(cell(dev, dpm)["exec_time_s_reshaped"] / cell(dev, dpm)["exec_time_s_original"] - 1
                                               for dev, dpm in t if dpm != "none"),
                                           min(cell(dev, dpm)["exec_time_s_reshaped"] / cell(dev, dpm)["exec_time_s_original"] - 1
                                               for dev, dpm in t if dpm != "none")),
                             lambda v: f"{'every DPM row no slower' if v[0] <= 0 else f'a row {pct(v[0], 1)} slower'}, "
                                       f"at best {pct(v[1], 1)}"),
                      "predicted", direction([[v] for v in faster]),
                      "faster = no DPM row slower reshaped, and some faster (where DPM's wake-ups lay on the fault path); "
                      + where(faster, names), cmd))
    offs = [[1 - cell(c, "off")["energy_j_reshaped"] / cell(c, "off")["energy_j_original"] for c in cards] for _, cell in programs]
    rows.append(Claim(SEED002, "Reshaping with the card off saves about 60 % more", "≈ 60 %",
                      "; ".join(f"{n}: Cisco {share(v[0])}, Compaq {share(v[1])}" for n, v in zip(names, offs)), "predicted",
                      shares(offs, [0.6, 0.6]), "off after 100 ms; " + where([shares([v], [0.6, 0.6]).verdict == REPRODUCED for v in offs], names), cmd))
    hd_save = [1 - cell("hd", "sleep")["energy_j_reshaped"] / cell("hd", "none")["energy_j_original"] for _, cell in programs]
    rows.append(Claim(SEED002, "Reshaping makes the microdrive's DPM save over 60 %", "> 60 %",
                      "; ".join(f"{n}: {share(v)}" for n, v in zip(names, hd_save)), "predicted", bound([[v] for v in hd_save], 0.6, above=True),
                      "against no DPM, the same program; " + where([v > 0.6 for v in hd_save], names), cmd))
    for card, seed_save in (("nic-cisco", 0.85), ("nic-compaq", 0.94)):
        saves = [1 - cell(card, "off")["energy_j_original"] / cell(card, "none")["energy_j_original"] for _, cell in programs]
        rows.append(Claim(SEED002, f"Switching the card off saves {share(seed_save)} ({card.split('-')[1].title()})", share(seed_save),
                          "; ".join(f"{n}: {share(v)}" for n, v in zip(names, saves)), "predicted", shares([[v] for v in saves], [seed_save]),
                          "original program, off after 100 ms idle; " + where([close_share(v, seed_save) for v in saves], names), cmd))
    for card in cards:
        r = t[(card, "doze")]
        seed_save = 1 - r["seed"]["energy_j_reshaped"] / r["seed"]["energy_j_original"]
        saves = [1 - cell(card, "doze")["energy_j_reshaped"] / cell(card, "doze")["energy_j_original"] for _, cell in programs]
        fitted_hold = card == "nic-cisco"
        rows.append(Claim(
            SEED002, f"Reshaping's saving with the {card.split('-')[1].title()} card in doze", share(seed_save),
            "; ".join(f"{n}: {share(v)}" for n, v in zip(names, saves)), "predicted (from a fitted hold)" if fitted_hold else "predicted",
            shares([[v] for v in saves], [seed_save]),
            ("Cisco's Fast PSP hold (1.87 s, not documented) is fitted to the original doze row's 7.30 J; " if fitted_hold
             else "PSP doze after 100 ms; ") + where([close_share(v, seed_save) for v in saves], names), cmd))
    cost = d["swap_cost"]
    ours_values = [r[f"{kind}_{q}"] for r in cost for kind in ("read_only", "write_back") for q in ("time_s", "energy_j")]
    seed_values = [r[f"seed_{kind}"][q] for r in cost for kind in ("read_only", "write_back") for q in ("time_s", "energy_j")]
    rows.append(Claim(SEED002, f"Table 1: every per-page time and energy ({len(seed_values)} values)", "Table 1",
                      f"{len(seed_values)} values from the catalog's devices (time and energy of a page read, and of a page written "
                      "back, on each swap device)", "input", restated(ours_values, seed_values),
                      "each swap device's service model is Table 1's time and energy per page: the table is restated, not predicted",
                      "idlewise experiment swap-cost --json"))
    return rows


# --- seed 003 ------------------------------------------------------------------------------

SEED003 = "003 (NVCache flushing)"


def seed003(d: dict) -> list[Claim]:
    cmd = ("idlewise experiment nvcache-flushing --json; data written once: python -c 'from idlewise.experiments import seed003; "
           "print(seed003.nvcache_flushing(trace=seed003.write_once(seed003.hplajw_disk0())))'")
    rows: list[Claim] = []
    # The hplajw week as recorded (the docs'), and the same week with every write to a block never
    # written before (no page used it): no cached data goes stale.
    runs = {"hplajw": d["nvcache"], "written once": d["nvcache_write_once"]}
    names = list(runs)
    fig5 = {n: {(r["flush_when"], r["flush_algorithm"]): r for r in run["figure5"]} for n, run in runs.items()}
    final = {n: {(r["flush_when"], r["flush_algorithm"]): r for r in run["figure5_final_flush"]} for n, run in runs.items()}
    algorithms = (1, 2, 3, 4)
    red = {n: [1 - f[("full", a)]["flush_time_s"] / f[("each", a)]["flush_time_s"] for a in algorithms] for n, f in fig5.items()}
    charged = {n: [1 - f[("full", a)]["flush_time_s"] / f[("each", a)]["flush_time_s"] for a in algorithms] for n, f in final.items()}
    superseded = fig5["hplajw"][("full", 1)]["bytes_superseded"]
    never = sorted(r["nvcache_bytes"] for r in runs["hplajw"]["nvcache_sweep"] if r["flush_when"] == "full" and r["flushes"] == 0)
    rows.append(Claim(
        SEED003, "Flushing only when full cuts flushing time by over 75 %", "> 75 %",
        "; ".join(f"{n}: algorithms 1–4 " + ", ".join(share(v) for v in red[n]) + "; the final flush charged (`--final-flush`): "
                  + ", ".join(share(v) for v in charged[n]) for n in names),
        "predicted", bound([[max(red[n])] for n in names], 0.75, above=True),
        f"over 75 % with some algorithm (the seed's \"can reduce\"); 64 MiB NVCache, 16 MiB DRAM; on the recorded week stale NVCache "
        f"data is invalidated by later writes ({superseded / 2**20:.0f} MiB superseded under full: a choice the seed does not describe), "
        "which the week written once has none of, so full must flush all it caches, as each does; vacuous where full never flushes ("
        + (f"an NVCache of {never[0] / 2**20:.0f} MiB or more on the week, " if never else "")
        + "or a timeout long enough that the log never fills); " + where([max(red[n]) > 0.75 for n in names], names), cmd))
    best = {n: max(1 - f[(w, 4)]["flush_time_s"] / f[(w, 1)]["flush_time_s"] for w in ("each", "full")) for n, f in fig5.items()}
    best["hplajw"] = max(best["hplajw"], runs["hplajw"]["claims"][1]["ours"]["best over the DRAM sweep"])
    rows.append(Claim(SEED003, "Ordering and merging cut flushing time by as much as 90 %", "up to 90 %",
                      "; ".join(f"{n}: at most {share(v)}" for n, v in best.items()), "predicted",
                      shares([[v] for v in best.values()], [0.9]),
                      "algorithm 4 against 1; the seed's 90 % is its best over four traces; ours over the week (and its DRAM sweep) and "
                      "the week written once; " + where([close_share(v, 0.9) for v in best.values()], names), cmd))
    ranked = {n: [min(algorithms, key=lambda a: f[(w, a)]["flush_time_s"]) == 4 for w in ("each", "full")] for n, f in fig5.items()}
    rows.append(Claim(SEED003, "Algorithm 4 (ordered, merged, the DRAM overlapped) flushes fastest", "algorithm 4",
                      "; ".join(f"{n}: " + ", ".join(f"{w} {min(algorithms, key=lambda a: f[(w, a)]['flush_time_s'])} "
                                                      f"({f[(w, 4)]['flush_time_s']:.1f} s against {f[(w, 1)]['flush_time_s']:.1f} s for 1)"
                                                      for w in ("each", "full")) for n, f in fig5.items()),
                      "predicted", direction(list(ranked.values())), "the least flushing time of the four, flushing on each spin-up "
                      "and when full; " + where([all(v) for v in ranked.values()], names), cmd))
    disk = {n: [f[k]["flush_disk_time_s"] > f[k]["flush_nvcache_time_s"] for k in f if f[k]["flushes"]] for n, f in fig5.items()}
    shares_disk = {n: [f[k]["flush_disk_time_s"] / (f[k]["flush_disk_time_s"] + f[k]["flush_nvcache_time_s"]) for k in f if f[k]["flushes"]]
                   for n, f in fig5.items()}
    rows.append(Claim(SEED003, "Flushing time is dominated by the disk", "the disk",
                      "; ".join(f"{n}: the disk's share of flushing time {span(v, share)}" for n, v in shares_disk.items())
                      + " (Figure 5's eight configurations)", "predicted", direction(list(disk.values())),
                      "dominated = the disk's writes take longer than the NVCache's reads, in every configuration that flushes; "
                      + where([all(v) for v in disk.values()], names), cmd))
    full256 = {n: [r["flushes"] for r in run["nvcache_sweep"] if r["flush_when"] == "full" and r["nvcache_bytes"] == 256 * 2**20]
               for n, run in runs.items()}
    rows.append(Claim(SEED003, "HP-full with a 256 MB NVCache never fills, so never flushes", "0 flushes",
                      "; ".join(f"{n}: {v[0]} flushes" for n, v in full256.items()), "predicted",
                      direction([[v[0] == 0] for v in full256.values()]),
                      "16 MiB DRAM; the NVCache never fills while the week's log (every write redirected while the disk rests, with its "
                      "metadata) stays under 256 MiB: " + where([v[0] == 0 for v in full256.values()], names), cmd))
    logged = {n: run["infinite"]["flash_bytes_written"] for n, run in runs.items()}
    rows.append(Claim(SEED003, "0.5 GB of NVCache caches a week of HP data", "0.5 GB",
                      "; ".join(f"{n}: the week's log takes {v / 2**20:.0f} MiB" for n, v in logged.items()), "predicted",
                      bound([[v] for v in logged.values()], 512 * 2**20, above=False),
                      "the bound (0.5 GB suffices) is what is judged: the week needs less here; "
                      + where([v < 512 * 2**20 for v in logged.values()], names), cmd))
    most = {n: run["infinite"]["max_bytes_per_spindown"] for n, run in runs.items()}
    rows.append(Claim(SEED003, "No spin-down period caches 100 MB, even with an infinite NVCache", "< 100 MB",
                      "; ".join(f"{n}: at most {v / 2**20:.1f} MiB" for n, v in most.items()), "predicted",
                      bound([[v] for v in most.values()], 100e6, above=False), "hplajw week, disk 0; " + where([v < 100e6 for v in most.values()], names), cmd))
    return rows


# --- seed 004 ------------------------------------------------------------------------------

SEED004 = "004 (MEMS)"
INACTIVE_W = 0.005  # seed 004 §4.2: the inactive sled, the floor every policy pays


def optimum_conditions(rows: list[dict]) -> str:
    """Where a timeout above 0 ms is least, over the optimum experiments' workloads: by family and
    shutdown, the localities and sub-millisecond shares it happens at, and the timeouts."""
    won = [r for r in rows if r["best_timeout_ms"] > 0]
    if not won:
        return f"0 ms is least on every one of {len(rows)} generated (workload, shutdown) runs"
    parts = []
    for (family, shutdown) in sorted({(r["family"], r["shutdown"]) for r in won}):
        mine = [r for r in won if (r["family"], r["shutdown"]) == (family, shutdown)]
        parts.append(f"{family} workloads with {shutdown.upper()}: at locality {span([r['locality'] for r in mine], share)} and "
                     f"sub-millisecond idle periods {span([r['sub_ms_share'] for r in mine], share)} of all "
                     f"(best at {', '.join(sorted({str(r['best_timeout_ms']) for r in mine}))} ms)")
    never = sorted({(r["family"], r["shutdown"]) for r in rows} - {(r["family"], r["shutdown"]) for r in won})
    return (f"a timeout above 0 ms is least on {len(won)} of {len(rows)} generated (workload, shutdown) runs: " + "; ".join(parts)
            + ("; never with " + ", ".join(f"{f} {sd.upper()}" for f, sd in never) if never else ""))


def seed004(d: dict) -> list[Claim]:
    rows: list[Claim] = []
    # Both conventions of the probes' power: ours (each pass pays for the tips it uses) and the
    # seed's (1 W whenever data move, `probe_power = "all-tips"`).
    t = d["mems_timeouts"] + d["mems_timeouts_all_tips"] + d["mems_mobile"]
    at = {(r["trace"], r["probe_power"], r["shutdown"], round(r["timeout_s"] * 1e3)): r for r in t}
    # The docs' traces, then two generated mobile workloads no page used.
    traces = sorted({r["trace"] for r in t}, key=lambda n: (n.startswith("mobile"), n))
    conventions = ("per-tip", "all-tips")

    def short(n: str) -> str:
        return n.split("#")[0].replace(".trace", "").replace("ajw.1week.srt", "hplajw")

    names = [short(n) for n in traces]

    def gaps(r: dict) -> tuple[float, float]:
        floor = INACTIVE_W * r["makespan_s"]
        least = r["theoretical_min_energy_j"]
        return r["energy_j"] / least - 1, (r["energy_j"] - floor) / (least - floor) - 1

    def per_convention(cell: Callable[[str, str], str]) -> str:
        return " — ".join(f"{c}: " + "; ".join(f"{short(n)} {cell(n, c)}" for n in traces) for c in conventions)

    cmd = ("idlewise experiment mems-timeout python/idlewise/data/hplajw/ajw.1week.srt tests/data/mems-disksim/visible.trace "
           "tests/data/mems-disksim/memsvalid.trace --stream 0 [--probe-power all-tips] --json; the generated mobile workloads: tools/check-docs")
    ee_below = [all(at[(n, c, "ee", ms)]["energy_j"] <= at[(n, c, "pe", ms)]["energy_j"] for (m, c, sd, ms) in at if sd == "pe" and m == n)
                for n in traces]
    rows.append(Claim(SEED004, "EE shutdown below PE in energy", "every timeout",
                      "; ".join(f"{nm}: {'every timeout, both probe powers' if v else 'not at every timeout'}" for nm, v in zip(names, ee_below)),
                      "predicted", direction([[v] for v in ee_below]), "timeouts 0–50 ms; " + where(ee_below, names), cmd))

    def gap_cell(ms: int, sd: str = "pe") -> Callable[[str, str], str]:
        def cell(n: str, c: str) -> str:
            total, above = gaps(at[(n, c, sd, ms)])
            return f"{pct(total, 1)} ({pct(above)} above the floor)"
        return cell

    within10 = [[gaps(at[(n, c, sd, 10)])[0] for c in conventions for sd in ("pe", "ee")] for n in traces]
    rows.append(Claim(
        SEED004, "10 ms within 6–7 % of the theoretical energy minimum (< 5 % room left)", "6 % (PE), 7 % (EE)",
        "10 ms, PE, " + per_convention(gap_cell(10)), "predicted", bound(within10, 0.07, above=False),
        "the seed's minimum counts the inactive energy, so the gap is small only where that 5 mW floor (every policy's least cost over "
        "the span) is most of the energy, as on a week-long trace; above the floor no trace comes within 7 %, under either probe "
        "power; " + where([max(v) < 0.07 for v in within10], names), cmd))
    within0 = [[gaps(at[(n, c, "pe", 0)])[0] for c in conventions] for n in traces]
    rows.append(Claim(
        SEED004, "Abstract: at least 95 % of the possible saving (within 5 % of the theoretical minimum)", "≥ 95 %",
        "0 ms, PE, " + per_convention(gap_cell(0)), "predicted", bound(within0, 0.05, above=False),
        "measured against the theoretical minimum, not always-on (against always-on any timeout saves ~95 % on a mostly idle trace); "
        + where([max(v) < 0.05 for v in within0], names), cmd))

    def best_ms(n: str, c: str, sd: str) -> int:
        return min((r["energy_j"], ms) for (m, cc, s, ms), r in at.items() if (m, cc, s) == (n, c, sd))[1]

    runs = [(n, c, sd) for n in traces for c in conventions for sd in ("pe", "ee")]
    at_zero = sum(1 for run in runs if best_ms(*run) == 0)
    # The seed's Table 2: PE, its own probe power.
    won = [1 <= best_ms(n, "all-tips", "pe") <= 10 for n in traces]
    optimum = d["mems_optimum"] + d["mems_optimum_bursty"]
    rows.append(Claim(
        SEED004, "Least energy at a 1–10 ms timeout, not at 0", "1 ms below 0 ms by ~1 % (its Table 2, PE; its Table 3, EE, ext3-4K, is least at 0 ms)",
        f"least at 0 ms in {at_zero} of {len(runs)} (trace, probe power, shutdown) runs", "predicted", direction([[v] for v in won]),
        "judged with PE and the seed's probe power (its Table 2); the idle sweep's 120 mW over each long idle period outweighs the "
        "shutdowns a timeout avoids; " + optimum_conditions(optimum) + " (`idlewise experiment mems-optimum`)", cmd))

    def rise(n: str, c: str) -> float:
        return change(at[(n, c, "pe", 10)]["energy_j"], at[(n, c, "pe", 1)]["energy_j"])

    rises = [[rise(n, c) for c in conventions] for n in traces]
    rows.append(Claim(
        SEED004, "Energy rises only slightly from 1 to 10 ms", "+1.8 % (its Table 2, ext3-4K: 10.9 → 11.1 J)",
        "PE: " + " — ".join(f"{c}: " + ", ".join(f"{short(n)} {pct(rise(n, c), 1)}" for n in traces) for c in conventions),
        "predicted", bound(rises, 0.05, above=False),
        "slightly = under 5 %; the seed's probe power (1 W whenever data move) halves the rise against ours (each pass pays for its "
        "tips), but 10 ms still sweeps idle for 10 ms in every long idle period; " + where([max(v) < 0.05 for v in rises], names), cmd))
    falls = [change(at[(n, "per-tip", "pe", 10)]["mean_response_s"], at[(n, "per-tip", "pe", 0)]["mean_response_s"]) for n in traces]
    rows.append(Claim(
        SEED004, "Mean response falls as the timeout grows", "−7 % from 1 to 10 ms (ext3-4K)",
        "0 → 10 ms, PE: " + "; ".join(f"{nm} {pct(v, 1)}" for nm, v in zip(names, falls)),
        "predicted", direction([[v < 0] for v in falls]),
        "falls where requests have locality (the idle sled waits near the next block); rises on scattered requests, where the centre "
        "is nearer on average; the probe power changes no response; " + where([v < 0 for v in falls], names), cmd))
    rise_r = [change(at[(n, "per-tip", "ee", 10)]["mean_response_s"], at[(n, "per-tip", "ee", 50)]["mean_response_s"]) for n in traces]
    rows.append(Claim(
        SEED004, "Conclusion: EE with a 1–10 ms timeout costs at most a 4 % increase in response time", "4 %",
        "EE, 10 ms against the longest timeout (50 ms): " + "; ".join(f"{nm} {pct(v, 1)}" for nm, v in zip(names, rise_r)),
        "predicted", bound([[v] for v in rise_r], 0.04, above=False),
        "the seed's 4 % is the penalty against the best response any timeout gives (§5: T = 10 ms's \"does not exceed 4 % compared to "
        "others\"); " + where([v < 0.04 for v in rise_r], names), cmd))
    shut = {(r["shutdown"], round(r["distance_m"] * 1e6) if "distance_m" in r else None): r for r in d["mems_shutdown"]}
    shut_cmd = "idlewise experiment mems-shutdown --json"
    for sd, label, how in (("pe", "fitted", "the actuators' acceleration and the springs' stiffness are fitted to these two times: a "
                                             "regression guard"),
                           ("ee", "predicted", "the springs pull, the actuators only brake (the two fitted values, nothing chosen here); "
                                               "one axis; the seed's device only (no other device has a shutdown model)")):
        ours_t = [shut[(sd, um)]["time_s"] for um in (5, 45)]
        seed_t = [shut[(sd, um)]["seed_time_s"] for um in (5, 45)]
        rows.append(Claim(
            SEED004, f"§6.2: {sd.upper()} shutdown times from 5 µm and 45 µm", " / ".join(f"{t * 1e3:g}" for t in seed_t) + " ms",
            " / ".join(f"{t * 1e3:.2f}" for t in ours_t) + " ms (" + ", ".join(pct(change(o, st), 1) for o, st in zip(ours_t, seed_t)) + ")",
            label, fitted(ours_t, seed_t) if label == "fitted" else quantities([ours_t], seed_t), how, shut_cmd))
    field = shut[("ee-vs-pe", None)]
    rows.append(Claim(
        SEED004, "§6.2: EE saves at least 40 % of PE's shutdown energy, anywhere on the field", "≥ 40 %",
        f"at least {share(field['least_energy_saving'])} over the probe field", "predicted",
        bound([[field["least_energy_saving"]]], 0.40, above=True), "the sled's physics over the whole field, 1 µm grid", shut_cmd))
    rows.append(Claim(
        SEED004, "§6.2: EE's shutdown is up to 600 % slower than PE's (near the centre)", "+600 %",
        f"at most {pct(field['largest_time_increase'])} over the probe field", "predicted",
        shares([[field["largest_time_increase"]]], [6.0]),
        "the largest relative difference lies next to the centre, where PE's shutdown is shortest; on a 1 µm grid, so nearer the centre "
        "it grows without bound: the figure depends on how near the centre one looks", shut_cmd))
    return rows


# --- numbers in the pages' sentences ---------------------------------------------------------

#: Numbers the seed pages' sentences take from the seed, a datasheet or an assumption (inputs,
#: not results): `tools/prose_numbers.py` accepts them as they are written.
INPUTS = {
    "docs/seed000.md": {"500 ms", "4 MB", "1.44 W", "4 KiB", "900 s", "256 kb/s", "3 Mb/s", "1.37 MB", "0.82 s", "3.6 W", "2.8 W",
                        "16 KB"},
    "docs/seed001.md": {"20 GB", "80 GB", "2.5 s", "4 KiB", "8.9 ms", "1.7 W", "+ 1.84 W"},
    # The seed's text; a benchmark's figures, measured with the command the page gives.
    "docs/seed003.md": {"0.5GB", "10 GB", "60 ms"},
    # The seed's figures and the sled's model constants (its fitted physics, DiskSim's layout).
    "docs/seed004.md": {"×64", "0.12 mJ", "2.25 ms", "2.8 ms", "60 mW", "1.003 ×", "1.48 ms", "10 J", "0.15 mJ", "0.2 mJ"},
    # The seed's Tables 1-3 and text, and the program's construction (its stated counts and times).
    "docs/seed002.md": {"30 s", "4.4 s", "8 ms", "4.5 s", "12.4 s", "27.75 s", "6.21 J", "0.890 J", "0.722 J", "578 mW", "5.626 mJ",
                        "8.0 ms", "703 mW", "1.98 s", "4 ×", "3.96 s", "5.91 s", "5.31 J", "×128", "25 s", "+ 104 ×", "3.0 ms",
                        "25.312 s", "25 ×", "0.6 W", "1.911 mJ", "15.199 J", "3.125 s", "15.625 s", "21.875 s", "15 J", "37.75 s",
                        "3.1 s", "6.207 J", "26.0 s", "28.25 s", "6.3 s", "1.6 s", "25.25 s", "0.161 J", "4.69 J", "7.30 J"},
}

def prose(d: dict) -> dict[str, str]:
    """The text of every inline marker of the seed pages (``<!-- n:KEY -->``), from the runs."""
    out: dict[str, str] = {}
    knob = {(r["workload"], r["knob"]): r for r in d["knob"]}
    fig7 = {(r["workload"], r["variant"]): r for r in d["fig7"]}
    head = {w: knob[(f"{w}.csv", 50)]["energy_j"] / knob[(f"{w}.csv", 50)]["energy_lower_bound_j"] - 1 for w in ("mail", "web")}
    out["s000.headroom"] = f"{share_1(head['mail'])} (mail) and {share_1(head['web'])} (web)"
    static_mail = fig7[("mail.csv", "static")]
    out["s000.mail-spinups"] = f"{static_mail['spin_ups']} of {static_mail['storage_reads']}"
    for w, (a, b) in (("mail", (99, "static")), ("web", (99, 50))):
        base = fig7[(f"{w}.csv", "static")] if b == "static" else knob[(f"{w}.csv", b)]
        r, e = change(knob[(f"{w}.csv", a)]["mean_response_s"], base["mean_response_s"]), change(knob[(f"{w}.csv", a)]["energy_j"], base["energy_j"])
        out[f"s000.knob{a}-{w}"] = f"{pct(r)} response and {pct(e)} energy"
    baselines = d["static_baselines"]
    for w in ("mail", "web"):
        mine = [b["response_change"] for b in baselines if b["workload"] == f"{w}.csv"]
        out[f"s000.swing-{w}"] = f"{pct(min(mine))} to {pct(max(mine))}"
    energy = [b["energy_change"] for b in baselines]
    rising = sorted({b["baseline"] for b in baselines if b["energy_change"] >= 0})
    out["s000.baseline-energy"] = ("Energy falls in every row" if not rising else
                                   "Energy falls in every row but " + ", ".join(f"\"{r}\"" for r in rising)) + \
        f", by {min(-e for e in energy if e < 0) * 100:.0f}–{max(-e for e in energy if e < 0) * 100:.0f} %"
    fig3 = {r["read"]: r for r in d["fig3"]}
    standby = fig3["32 KB from the microdrive in standby"]
    out["s000.fig3-standby"] = f"{standby['response_s'] * 1e3:.0f} ms and {standby['energy_j']:.2f} J"
    # Seed 001: the sweep's savings and delays, and one spin-up's share of a request.
    purple = d["purple"]["rows"]
    shaped = [r for r in purple if r["workload"] in ("compress:64ops", "compress-reorder:64ops")]
    plain = [r for r in purple if r["workload"] == "none"]
    low = lambda rs, key: min(r[key] for r in rs)  # noqa: E731
    high = lambda rs, key: max(r[key] for r in rs)  # noqa: E731
    out["s001.shaped-saving"] = f"{(1 - high(shaped, 'normalized_energy')) * 100:.0f}–{(1 - low(shaped, 'normalized_energy')) * 100:.0f} %"
    out["s001.plain-saving"] = f"{(1 - high(plain, 'normalized_energy')) * 100:.0f}–{(1 - low(plain, 'normalized_energy')) * 100:.0f} %"
    out["s001.shaped-delay"] = f"×{low(shaped, 'normalized_delay'):.0f}–{high(shaped, 'normalized_delay'):.0f}"
    out["s001.plain-delay"] = f"×{low(plain, 'normalized_delay'):.0f}–{high(plain, 'normalized_delay'):.0f}"
    example = next(r for r in purple if r["workload"] == "compress:64ops" and r["timeout_s"] == 1.0
                   and r["drive"] == "hitachi-travelstar-5k320")
    requests = d["purple"]["claim"][0]["requests"]
    service = example["mean_response_s"] / example["normalized_delay"]  # always-on's mean response
    added = example["spinups"] * 2.5 / requests
    out["s001.example"] = (f"{example['spinups']} times at a 1 s timeout: {example['spinups']} spin-ups of 2.5 s spread over "
                           f"{requests:,} requests of {service * 1e3:.1f} ms is +{added * 1e3:.0f} ms a request, "
                           f"×{1 + added / service:.1f} by the formula (the run: ×{example['normalized_delay']:.1f})")
    arm = d["arm_power"]
    ends = min(arm, key=lambda r: r["range_fraction"]), max(arm, key=lambda r: r["range_fraction"])
    out["s001.confine"] = (f"{ends[1]['mechanical_power_w']:.2f} → {ends[0]['mechanical_power_w']:.1f} W is "
                           f"{(1 - ends[0]['mechanical_power_w'] / ends[1]['mechanical_power_w']) * 100:.0f} %")
    track = min((r for r in arm if r["range_fraction"] > 0), key=lambda r: r["range_fraction"])
    out["s001.track"] = f"{track['mean_service_s'] * 1e3:.1f} ms"
    # Seed 002: Table 3 against the seed's, and the variants.
    t3 = {(r["device"], r["dpm"]): r for r in d["swap_reshaping"]}
    low3 = {(r["device"], r["dpm"]): r for r in d["swap_reshaping_low_power"]}
    nic = [(dev, dpm, v) for dev, dpm in t3 if dev.startswith("nic") for v in ("original", "reshaped")
           if not (dev == "nic-cisco" and dpm == "doze" and v == "original")]  # that one is fitted
    gaps = [change(t3[(dev, dpm)][f"energy_j_{v}"], t3[(dev, dpm)]["seed"][f"energy_j_{v}"]) for dev, dpm, v in nic]
    times = [change(t3[(dev, dpm)][f"exec_time_s_{v}"], t3[(dev, dpm)]["seed"][f"exec_time_s_{v}"]) for dev, dpm, v in nic]
    out["s002.nic-gap"] = (f"{-max(gaps) * 100:.0f}–{-min(gaps) * 100:.0f} % below the seed's in every row but the fitted one"
                           if max(gaps) < 0 else f"from {pct(min(gaps))} to {pct(max(gaps))} of the seed's")
    out["s002.nic-times"] = f"{max(abs(x) for x in times) * 100:.0f} %"
    compaq = [t3[("nic-compaq", dpm)][f"exec_time_s_{v}"] for dpm in ("none", "doze", "off") for v in ("original", "reshaped")]
    out["s002.compaq-times"] = f"{min(compaq):.1f}–{max(compaq):.1f} s"
    cards_off = min(t3[(c, "off")]["energy_j_reshaped"] for c in ("nic-cisco", "nic-compaq"))
    out["s002.unmanaged"] = f"{t3[('hd', 'none')]['energy_j_original'] / cards_off:.0f}×"
    hd = t3[("hd", "sleep")]
    out["s002.draws"] = (f"{hd['exec_time_s_original']:.2f} ± {hd['exec_time_s_original_std']:.2f} s against "
                         f"{hd['exec_time_s_original_at_mean_wakeup']:.2f} s at the mean wake-up, and its energy "
                         f"{hd['energy_j_original']:.2f} ± {hd['energy_j_original_std']:.2f} J against "
                         f"{hd['energy_j_original_at_mean_wakeup']:.2f} J")
    out["s002.draws-sd"] = f"{hd['exec_time_s_original_std']:.2f} s"
    out["s002.hd-sleep"] = f"{hd['exec_time_s_original']:.1f} s / {hd['energy_j_original']:.1f} J"
    lh = low3[("hd", "sleep")]
    out["s002.low-hd"] = (f"{lh['exec_time_s_reshaped']:.2f} ± {lh['exec_time_s_reshaped_std']:.2f} s / {lh['energy_j_reshaped']:.2f} ± "
                          f"{lh['energy_j_reshaped_std']:.2f} J")
    for card in ("cisco", "compaq"):
        r = low3[(f"nic-{card}", "off")]
        out[f"s002.low-{card}"] = f"{r['exec_time_s_reshaped']:.2f} s / {r['energy_j_reshaped']:.3f} J"
    out["s002.low-orig"] = f"{lh['exec_time_s_original']:.1f} s / {lh['energy_j_original']:.1f} J"
    cd = t3[("nic-cisco", "doze")]
    out["s002.cisco-doze"] = (f"{cd['energy_j_reshaped']:.2f} J against the seed's {cd['seed']['energy_j_reshaped']:.2f} J "
                              f"({pct(change(cd['energy_j_reshaped'], cd['seed']['energy_j_reshaped']))}), ratio "
                              f"{cd['energy_ratio']:.2f} against {cd['seed']['energy_j_reshaped'] / cd['seed']['energy_j_original']:.2f}")
    n256 = next(p for p in d["doze_phases"] if p["phase"] == {"n": 256})
    out["s002.compaq-256"] = share(n256["nic-compaq"]["saving"])
    cf = t3[("cf", "none")]
    out["s002.cf"] = (f"{cf['exec_time_s_original']:.2f} s / {cf['energy_j_original']:.3f} J against "
                      f"{cf['seed']['exec_time_s_original']:.1f} s / {cf['seed']['energy_j_original']:.3f} J")
    # Seed 003: every configuration of the week against the plain disk.
    nv = d["nvcache"]
    plain_disk = nv["plain_disk"]
    every = nv["figure5"] + nv["dram_sweep"] + nv["nvcache_sweep"] + nv["dram_sweep_algorithm1"]
    f5 = {(r["flush_when"], r["flush_algorithm"]): r for r in nv["figure5"]}

    def lo_hi(values, fmt) -> str:
        low, high = fmt(min(values)), fmt(max(values))
        return low if low == high else f"{low}–{high}"

    saved = [r["energy_saved_j"] / r["plain_disk_energy_j"] for r in every]
    out["s003.plain"] = (f"{plain_disk['energy_j']:,.0f} J with {plain_disk['spinups']:,} spin-ups and a "
                         f"{plain_disk['mean_response_s']:.2f} s mean response")
    out["s003.fig5-saving"] = lo_hi([r["energy_saved_j"] / r["plain_disk_energy_j"] for r in nv["figure5"]], lambda x: f"{x * 100:.1f}") + " %"
    out["s003.saving"] = lo_hi(saved, lambda x: f"{x * 100:.1f}") + " %"
    out["s003.spinups"] = f"{lo_hi([r['spinups'] for r in every], lambda x: f'{x:,}')} spin-ups instead of {plain_disk['spinups']:,}"
    out["s003.fewer"] = lo_hi([1 - r["spinups"] / plain_disk["spinups"] for r in every], lambda x: f"{x * 100:.0f}") + " %"
    flush = [r["flush_time_s"] for r in every]
    energies = [r["energy_j"] for r in every]
    out["s003.flush-range"] = f"{min(flush):.0f}–{max(flush):.0f} s"
    out["s003.energy-range"] = (f"under {(max(energies) / min(energies) - 1) * 100:.0f} % ({min(energies):,.0f}–{max(energies):,.0f} J)"
                                if max(energies) / min(energies) - 1 < 0.02 else
                                f"{(max(energies) / min(energies) - 1) * 100:.1f} % ({min(energies):,.0f}–{max(energies):,.0f} J)")
    out["s003.most-flush"] = f"{max(flush):.0f} s"
    out["s003.standby"] = f"{max(r['time_by_mode_s'].get('standby', 0.0) for r in every):,.0f} s"
    wear = [r["flash_bytes_written"] / 2**20 for r in every]
    out["s003.wear"] = (f"{min(wear):.0f}–{max(wear):.0f} MiB per week ({f5[('each', 1)]['flash_bytes_written'] / 2**20:.0f} MiB under "
                        f"each and {f5[('full', 1)]['flash_bytes_written'] / 2**20:.0f} MiB under full")
    out["s003.responses"] = (f"from {plain_disk['mean_response_s']:.2f} s (plain) to "
                             f"{lo_hi([r['mean_response_s'] for r in every], lambda x: f'{x:.2f}')} s")
    slower = [(f5[("each", a)]["mean_response_s"] - f5[("full", a)]["mean_response_s"]) * 1e3 for a in (1, 2, 3, 4)]
    out["s003.each-slower"] = f"{min(slower):.0f}–{max(slower):.0f} ms"
    full1 = f5[("full", 1)]
    out["s003.stale"] = (f"{full1['bytes_superseded'] / 2**20:.0f} MiB of the {full1['bytes_redirected'] / 2**20:.0f} MiB redirected are "
                         f"overwritten on the platters before the log fills (hplajw rewrites the same metadata blocks all week), "
                         f"and only {full1['bytes_flushed'] / 2**20:.0f} MiB are flushed")
    out["s003.alg4-full"] = share(1 - f5[("full", 4)]["flush_time_s"] / f5[("full", 1)]["flush_time_s"])
    # Seed 004: the mobile workload of the page's example, the optimum's terms, the responses.
    if d.get("mems_mobile"):
        mobile = {(r["shutdown"], round(r["timeout_s"] * 1e3)): r for r in d["mems_mobile"]
                  if r["trace"].startswith("mobile(sub-ms 30%, locality 90%") and r["probe_power"] == "per-tip"}
        cells = lambda sd: ", ".join(f"{mobile[(sd, ms)]['energy_j']:.2f} / {mobile[(sd, ms)]['mean_response_s'] * 1e3:.2f}"  # noqa: E731
                                     + (f" at {ms} ms" if sd == "pe" else "") for ms in (0, 1, 10, 50))
        least = mobile[("pe", 0)]["theoretical_min_energy_j"]
        best = min(mobile.values(), key=lambda r: r["energy_j"])
        out["s004.mobile-example"] = (f"PE {cells('pe')}; EE {cells('ee')}; the theoretical minimum {least:.2f} J. The least energy is "
                                      f"at {round(best['timeout_s'] * 1e3)} ms and 10 ms is "
                                      f"{(mobile[('pe', 10)]['energy_j'] / least - 1) * 100:.0f} % above the minimum")
    optimum = d["mems_optimum"] + d["mems_optimum_bursty"]
    out["s004.optimum-conditions"] = optimum_conditions(optimum)
    grid = [r for r in d["mems_optimum"]]
    idle_term = [r["idle_energy_1ms_j"] - r["idle_energy_0ms_j"] for r in grid]
    out["s004.idle-term"] = f"{min(idle_term):.2f}–{max(idle_term):.2f} J"
    shut48 = [r["shutdown_energy_0ms_j"] - r["shutdown_energy_1ms_j"] for r in grid if r["shutdown"] == "pe" and r["sub_ms_share"] == 0.48]
    out["s004.shutdown-term"] = f"{min(shut48):.2f}–{max(shut48):.2f} J"

    def seek_term(locality: float) -> float:
        r = next(r for r in grid if r["shutdown"] == "pe" and r["sub_ms_share"] == 0.48 and r["locality"] == locality)
        return r["service_energy_1ms_j"] - r["service_energy_0ms_j"]

    out["s004.seek-local"] = f"{seek_term(0.99):+.2f} J".replace("-", "−")
    out["s004.seek-scattered"] = f"{seek_term(0.0):+.2f} J".replace("-", "−")
    pe = [r for r in grid if r["shutdown"] == "pe"]
    falls = [change(r["response_10ms_s"], r["response_0ms_s"]) for r in pe if r["locality"] > 0]
    rises = [change(r["response_10ms_s"], r["response_0ms_s"]) for r in pe if r["locality"] == 0]
    out["s004.response-falls"] = f"{pct(max(falls), 1)} to {pct(min(falls), 1)}"
    out["s004.response-rises"] = f"{pct(min(rises), 1)} to {pct(max(rises), 1)}"
    hp = next(r for r in d["mems_timeouts"] if r["trace"].startswith("ajw.1week") and r["shutdown"] == "pe" and r["timeout_s"] == 0.0)
    out["s004.hplajw-response"] = f"{hp['mean_response_s'] * 1e3:.1f} ms"
    cond = d["hint_conditions"]
    dense = [r for r in cond if r["think_s"] <= 0.5 and r["reads"] >= 40]
    out["s000.hint-strict"] = f"{sum(r['dominates'] for r in cond)} of {len(cond)}"
    out["s000.hint-dense"] = f"{sum(r['dominates'] for r in dense)} of {len(dense)}"
    return out


SEEDS: list[tuple[str, Callable[[dict], list[Claim]]]] = [
    ("seed000", seed000), ("seed001", seed001), ("seed002", seed002), ("seed003", seed003), ("seed004", seed004)]


def all_claims(data: dict) -> dict[str, list[Claim]]:
    return {name: build(data) for name, build in SEEDS}


def table(claims: list[Claim], with_seed: bool = True) -> str:
    head = ["seed"] if with_seed else []
    head += ["claim", "seed's number", "ours", "label", "verdict", "conditions", "command"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in claims:
        cells = ([c.seed] if with_seed else []) + [c.claim, c.seeds_number, c.ours, c.label, f"**{c.verdict}** ({c.judged.rule})",
                                                    c.conditions, f"`{c.command}`"]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def summary(claims: dict[str, list[Claim]]) -> str:
    """The README's summary: per seed, how many claims each verdict has."""
    lines = ["| seed | claims | reproduced | holds under stated conditions | not reproduced | fitted or restated (no evidence) |",
             "|---|---:|---:|---:|---:|---:|"]
    for rows in claims.values():
        count = {v: sum(1 for c in rows if c.verdict == v) for v in VERDICTS}
        lines.append(f"| {rows[0].seed} | {len(rows)} | {count[REPRODUCED]} | {count[CONDITIONS]} | {count[NOT]} | "
                     f"{count[FITTED] + count[RESTATED]} |")
    return "\n".join(lines)
