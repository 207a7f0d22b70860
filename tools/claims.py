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

REPRODUCED = "reproduced"
CONDITIONS = "holds under stated conditions"
NOT = "not reproduced"
VERDICTS = (REPRODUCED, CONDITIONS, NOT)

#: Percentage claims count as reproduced when ours is within this many percentage points of the
#: seed's, for each number the claim states.
POINTS = 10.0


@dataclass(frozen=True)
class Claim:
    seed: str
    claim: str
    seeds_number: str
    ours: str
    label: str
    verdict: str
    conditions: str
    command: str

    def __post_init__(self) -> None:
        assert self.verdict in VERDICTS, self.verdict


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


def within_points(ours: list[float], seeds: list[float]) -> bool:
    return all(abs(a - b) * 100 <= POINTS for a, b in zip(ours, seeds))


# --- seed 000 ------------------------------------------------------------------------------

SEED000 = "000 (ghost hints)"
EXP000 = "idlewise experiment {} --workload docs/seed000/mail.csv --workload docs/seed000/web.csv --json"


def seed000(d: dict) -> list[Claim]:
    fig7 = {(r["workload"], r["variant"]): r for r in d["fig7"]}
    knob = {(r["workload"], r["knob"]): r for r in d["knob"]}
    hints = {(r["workload"], r["knob"], r["ghost_hints_enabled"]): r for r in d["hints"]}
    baselines = d["static_baselines"]
    rows: list[Claim] = []

    def vs(a: dict, b: dict) -> tuple[float, float]:
        return change(a["mean_response_s"], b["mean_response_s"]), change(a["energy_j"], b["energy_j"])

    cpu = ("the devices not asked rest in their low-power modes; the CPU's 0.78 W during I/O is fitted to the "
           "read from a spinning microdrive")
    fig3 = "cargo test --release -p idlewise-core --test system seed000_figure3_under_one_convention"
    rows += [
        Claim(SEED000, "Figure 3: 32 KB from the microdrive in performance idle", "≈ 90 ms, ≈ 0.32 J", "90.0 ms, 0.320 J",
              "fitted", NOT, "the energy is fitted (the CPU's draw) and the time comes from the bandwidth and metadata reads "
              "chosen with the test that checks it: a regression guard, not a reproduction", fig3),
        Claim(SEED000, "Figure 3: 32 KB from the server, card in CAM", "250 ms, 0.9 J", "254 ms, 0.968 J (+2 %, +8 %)",
              "predicted", REPRODUCED, cpu, fig3),
        Claim(SEED000, "Figure 3: 32 KB from the microdrive in standby", "820 ms, 2.3 J", "910 ms, 2.72 J (+11 %, +18 %)",
              "predicted", NOT, cpu + "; the model reads after Figure 2's whole spin-up, the seed's point equals the spin-up", fig3),
        Claim(SEED000, "Figure 3: 512 KB, network in CAM minus microdrive from standby", "320 ms", "294 ms (−8 %)",
              "predicted", REPRODUCED, cpu, fig3),
    ]
    # The docs' workloads, and the same generators with another seed (never used by a page).
    other = d["seed000_other"]
    fig7b = {(r["workload"], r["variant"]): r for r in other["fig7"]}
    knobb = {(r["workload"], r["knob"]): r for r in other["knob"]}
    sources = (("", fig7, knob, ".csv"), ("seed 2: ", fig7b, knobb, "-seed2.csv"))
    other_cmd = "; the seed-2 workloads: tools/check-docs (docs/seed000/other-workloads.json)"
    seed7 = {"mail": (-0.42, -0.05), "web": (-0.27, -0.09)}
    for w, (sr, se) in seed7.items():
        pairs = [(label, *vs(f[(w + suffix, "adaptive")], f[(w + suffix, "static")])) for label, f, _, suffix in sources]
        spread = [b["response_change"] for b in baselines if b["workload"] == w + ".csv"]
        ok = [within_points([r, e], [sr, se]) for _, r, e in pairs]
        rows.append(Claim(
            SEED000, f"Figure 7: adaptive cache (knob 50) against static, {w}: response / energy",
            f"{pct(sr)} / {pct(se)}", "; ".join(f"{label}{pct(r)} / {pct(e)}" for label, r, e in pairs), "predicted",
            CONDITIONS if any(ok) else NOT,
            f"static = a 10 s spin-down timeout (assumed: the seed's ABLE manager is unpublished); across plausible baselines "
            f"the response change runs {pct(min(spread))} to {pct(max(spread))}, so the figure is a function of the baseline; "
            + ("within " if all(ok) else "not within ") + f"{POINTS:.0f} points of both numbers" + ("" if all(ok) else " on every workload"),
            EXP000.format("static-vs-adaptive") + "; " + EXP000.format("static-baselines") + other_cmd))
    # Figure 8's knee: knob 95 against static (mail).
    knee = [(label, *vs(k[("mail" + suffix, 95)], f[("mail" + suffix, "static")]), *vs(k[("mail" + suffix, 50)], f[("mail" + suffix, "static")]))
            for label, f, k, suffix in sources]
    rows.append(Claim(
        SEED000, "Figure 8: knob 95 against static, mail: response / energy (the knee)", "−67 % / +4 %",
        "; ".join(f"{label}{pct(r95)} / {pct(e95)} (knob 50: {pct(r50)} / {pct(e50)})" for label, r95, e95, r50, e50 in knee)
        + "; the change comes only at knob 99",
        "predicted", REPRODUCED if all(within_points([r, e], [-0.67, 0.04]) for _, r, e, *_ in knee) else NOT,
        "knobs 0–95 behave alike here; the seed's knee lies below 95", EXP000.format("knob") + other_cmd))
    k99 = [(label, *vs(k[("mail" + suffix, 99)], f[("mail" + suffix, "static")])) for label, f, k, suffix in sources]
    ok = [within_points([r, e], [-0.89, 0.18]) for _, r, e in k99]
    rows.append(Claim(
        SEED000, "Figure 8: knob 99 against static, mail: response / energy", "−89 % / +18 %",
        "; ".join(f"{label}{pct(r)} / {pct(e)}" for label, r, e in k99), "predicted",
        REPRODUCED if all(ok) else CONDITIONS if any(ok) else NOT,
        f"within {POINTS:.0f} points of each " + ("on both workloads" if all(ok) else "on the docs' workload only" if ok[0] else "on seed 2 only" if any(ok) else "on neither")
        + "; static as Figure 7's", EXP000.format("knob") + other_cmd))
    k9 = [(label, *vs(k[("web" + suffix, 99)], k[("web" + suffix, 50)])) for label, f, k, suffix in sources]
    ok = [(within_points([r], [-0.45]), within_points([e], [0.44])) for _, r, e in k9]
    rows.append(Claim(
        SEED000, "Figure 9: knob 99 against knob 50, web: response / energy", "−45 % / +44 %",
        "; ".join(f"{label}{pct(r)} / {pct(e)}" for label, r, e in k9), "predicted",
        REPRODUCED if all(a and b for a, b in ok) else NOT,
        "response within " + f"{POINTS:.0f} points " + ("on both" if all(a for a, _ in ok) else "not everywhere") + "; energy "
        + ("within" if all(b for _, b in ok) else "more than 10 points below on " + ", ".join((label or "the docs' workload").rstrip(": ") for (label, *_), (_, b) in zip(k9, ok) if not b)),
        EXP000.format("knob") + other_cmd))
    head = {w: knob[(w, 50)]["energy_j"] / knob[(w, 50)]["energy_lower_bound_j"] - 1 for w in ("mail.csv", "web.csv")}
    rows.append(Claim(
        SEED000, "§5.3: the lower bound's headroom at knob 50, mail / web", "5 % / 9 %",
        f"{pct(head['mail.csv'], 1)} / {pct(head['web.csv'], 1)}".replace("+", ""), "predicted", NOT,
        "our makespan is mostly assumed think time, which the bound also pays at base power", EXP000.format("knob")))
    helps = {
        "mail, knob 99": hints[("mail.csv", 99, True)]["mean_response_s"] < hints[("mail.csv", 99, False)]["mean_response_s"],
        "all-cached web, knob 95": hints[("web-all-cached.csv", 95, True)]["mean_response_s"] < hints[("web-all-cached.csv", 95, False)]["mean_response_s"],
    }
    web = change(hints[("web.csv", 95, True)]["mean_response_s"], hints[("web.csv", 95, False)]["mean_response_s"])
    hint_cmd = ("idlewise experiment ghost-hints --workload docs/seed000/mail.csv --workload docs/seed000/web.csv "
                "--workload docs/seed000/web-all-cached.csv --json")
    rows.append(Claim(
        SEED000, "Figures 10–12: hints cut response on mail (knob 99) and all-cached web; no real effect on web",
        "helps, helps, none", ", ".join(f"{k}: {'faster' if v else 'not faster'}" for k, v in helps.items()) + f"; web, knob 95: {pct(web, 1)}",
        "predicted", REPRODUCED if all(helps.values()) and abs(web) < 0.05 else NOT,
        "hints act only at knob ≥ 95 here (below, no hint spins the disk up)", hint_cmd))
    # Strictly better: faster and cheaper than the run without hints at the same knob (the rule
    # `ghost-hint-conditions` uses too).
    better = [(w, k) for (w, k, on), r in hints.items() if on and w != "web-all-cached.csv"
              and r["mean_response_s"] < hints[(w, k, False)]["mean_response_s"] and r["energy_j"] < hints[(w, k, False)]["energy_j"]]
    cond = d["hint_conditions"]
    dominates = sum(1 for r in cond if r["dominates"])
    rows.append(Claim(
        SEED000, "Figure 10: ghost hints give a better trade-off (faster and cheaper than without them)",
        "better", f"on mail and web: {len(better)} of {sum(1 for (w, k, on) in hints if on and w != 'web-all-cached.csv')} hinted runs faster and cheaper than without hints at the same knob; on generated bursts of "
        f"cached reads on a sleeping disk: {dominates} of {len(cond)} cases", "predicted", CONDITIONS if dominates and not better else
        (REPRODUCED if better else NOT),
        "bursts dense enough that the disk, once up, is not left idling between reads (at least ~40 reads ≤ 0.5 s apart, "
        "or 64 KB reads 2 s apart at knob ≥ 90); never on the mail and web workloads",
        hint_cmd + "; idlewise experiment ghost-hint-conditions --json"))
    return rows


# --- seed 001 ------------------------------------------------------------------------------

SEED001 = "001 (PuRPLe)"


def seed001(d: dict) -> list[Claim]:
    # The hplajw week (the docs' trace) and a workload the seed pages never used: DiskSim's
    # ascii.trace, its busiest device (14: 19,968 requests in 25 minutes).
    runs = {"hplajw": d["purple"], "DiskSim #14": d["purple_disksim"]}
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

    fell = {name: falls(run) for name, run in runs.items()}
    rows.append(Claim(SEED001, "Figures 2–5: energy falls as the timeout shortens", "falls",
                      "; ".join(f"{n}: {'falls on every drive and shaping' if v else 'does not fall (the shortest timeouts cost most)'}" for n, v in fell.items()),
                      "predicted", REPRODUCED if all(fell.values()) else CONDITIONS if any(fell.values()) else NOT,
                      "holds where idle periods outlast the drives' break-even (a workstation's week); on a busy 25-minute server device "
                      "short timeouts add spin-ups that cost more than they save", cmd))
    saved = {n: [1 - r["energy_at_shortest_timeout"] for r in split(run)[1]] for n, run in runs.items()}
    rows.append(Claim(SEED001, "Figures 2–5: with shaping and short timeouts, over 80 % of the energy saved", "> 80 %",
                      "; ".join(f"{n}: {span(v, share)}" for n, v in saved.items()) + " at the shortest timeout", "predicted",
                      REPRODUCED if all(min(v) > 0.8 for v in saved.values()) else CONDITIONS if any(min(v) > 0.8 for v in saved.values()) else NOT,
                      "compression and compression-reordering by 64 operations, both stand-in drives; holds on the week's long idle "
                      "periods, not on the busy device (a negative saving is a loss)", cmd))
    delays = {n: [r["delay_at_shortest_timeout"] for r in split(run)[0]] for n, run in runs.items()}
    wakes = {n: [r["spinups_at_shortest_timeout"] for r in split(run)[0]] for n, run in runs.items()}
    # The seed: "2 to 4 times", "over four times" at the shortest timeouts.
    in_range = [n for n, v in delays.items() if 2 <= min(v) and max(v) <= 5]
    rows.append(Claim(SEED001, "Figures 2–5: without shaping the shortest timeouts multiply mean response", "2–4×",
                      "; ".join(f"{n}: {span(v, lambda x: f'{x:.1f}')}× ({span(wakes[n], lambda x: f'{x:,.0f}')} spin-ups, "
                                f"{runs[n]['claim'][0]['requests']:,} requests)" for n, v in delays.items()),
                      "predicted", CONDITIONS,
                      "the direction holds everywhere; the size is set by requests per spin-up" +
                      (f": the seed's size (2–4×, \"over four times\" at the shortest) on {', '.join(in_range)}, far above it on the others" if in_range else ""), cmd))
    sd = {n: [r["delay_at_shortest_timeout"] for r in split(run)[1]] for n, run in runs.items()}
    per = {n: [r["requests"] / r["spinups_at_shortest_timeout"] for r in split(run)[1]] for n, run in runs.items()}
    # delay − 1 = (spin-ups / requests) × (spin-up / service): the requests per spin-up that
    # would bring it to 1.25.
    needed = [(r["delay_at_shortest_timeout"] - 1) * r["requests"] / r["spinups_at_shortest_timeout"] / 0.25
              for run in runs.values() for r in split(run)[1]]
    holds = any(r["claim_holds"] for run in runs.values() for r in split(run)[1])
    rows.append(Claim(
        SEED001, "Figure 4: with compression (read-ahead) the delay stays ≈ 1 while energy falls", "≈ 1",
        "; ".join(f"{n}: {span(sd[n], lambda v: f'{v:.1f}')}× at the shortest timeout, {span(per[n], lambda v: f'{v:.0f}')} requests per spin-up"
                  for n in runs),
        "predicted", REPRODUCED if holds else NOT,
        "with op-count shaping, delay ≈ 1 + spin-ups × spin-up time / (requests × mean service), so a delay of 1.25 needs "
        f"{span(needed, lambda v: f'{v:,.0f}')} requests per spin-up (from these runs' own ratio of spin-up to service); the seed's "
        "workloads must have had that, neither of ours does", cmd))
    arm = d["arm_power"]
    full = max(arm, key=lambda r: r["range_fraction"])
    rows.append(Claim(SEED001, "Figure 1(b): mechanical power jumps to almost 3 W at 27–30 % arm movement", "≈ 3 W",
                      f"{full['mechanical_power_w']:.2f} W over the whole disk", "fitted", NOT,
                      "the arm's 1.84 W is fitted to this point: it holds by construction and is a regression guard",
                      "idlewise experiment arm-power --json"))
    return rows


# --- seed 002 ------------------------------------------------------------------------------

SEED002 = "002 (network swapping)"


def seed002(d: dict) -> list[Claim]:
    t = {(r["device"], r["dpm"]): r for r in d["swap_reshaping"]}
    cmd = "idlewise experiment swap-reshaping --json"
    rows: list[Claim] = []
    hd = t[("hd", "sleep")]
    cards = [t[("nic-cisco", "off")], t[("nic-compaq", "off")]]
    ours = [hd["energy_j_reshaped"] / c["energy_j_reshaped"] for c in cards]
    seeds = [hd["seed"]["energy_j_reshaped"] / c["seed"]["energy_j_reshaped"] for c in cards]
    unmanaged = t[("hd", "none")]["energy_j_original"] / min(c["energy_j_reshaped"] for c in cards)
    slower = max(c["exec_time_s_reshaped"] for c in cards) / hd["exec_time_s_reshaped"] - 1
    rows.append(Claim(
        SEED002, "Network swapping ≈ 10× cheaper than the local microdrive, ≈ 5 % slower", "≈ 10× (its Table 3, like for like: "
        f"{min(seeds):.1f}–{max(seeds):.1f}×)", f"{min(ours):.1f}–{max(ours):.1f}× like for like ({unmanaged:.0f}× against the microdrive "
        f"without power management); {pct(slower, 1)} time", "predicted", NOT,
        "like for like: power management and reshaping on both (microdrive sleep after 2 s, cards off after 100 ms)", cmd))
    none = {k: t[(k, "none")]["energy_j_original"] for k in ("hd", "nic-cisco", "nic-compaq")}
    rows.append(Claim(SEED002, "Without DPM the microdrive costs more energy than either card (idle power)", "more",
                      f"{none['hd']:.1f} J against {none['nic-cisco']:.1f} and {none['nic-compaq']:.1f} J", "predicted",
                      REPRODUCED if none["hd"] > max(none["nic-cisco"], none["nic-compaq"]) else NOT, "the program as the seed describes it", cmd))
    sleep, plain = t[("hd", "sleep")], t[("hd", "none")]
    worse = sleep["energy_j_original"] > plain["energy_j_original"] and sleep["exec_time_s_original"] > plain["exec_time_s_original"]
    rows.append(Claim(SEED002, "The microdrive's DPM is counterproductive in time and energy without reshaping", "dearer and slower",
                      f"{sleep['exec_time_s_original']:.1f} s / {sleep['energy_j_original']:.1f} J against {plain['exec_time_s_original']:.1f} s / "
                      f"{plain['energy_j_original']:.1f} J", "predicted", REPRODUCED if worse else NOT,
                      "sleep after 2 s; the device starts ready (starting asleep adds a wake-up to every row)", cmd))
    for card, seed_save in (("nic-cisco", 0.50), ("nic-compaq", 0.80)):
        save = 1 - t[(card, "doze")]["energy_j_original"] / t[(card, "none")]["energy_j_original"]
        rows.append(Claim(SEED002, f"MAC-level doze saves over {share(seed_save)} ({card.split('-')[1].title()})", f"> {share(seed_save)}",
                          share(save), "predicted (from a fitted hold)" if card == "nic-cisco" else "predicted",
                          REPRODUCED if save > seed_save else NOT,
                          "Cisco's doze energy is fitted (Fast PSP hold); the saving then depends on its no-DPM energy" if card == "nic-cisco"
                          else "PSP doze after 100 ms", cmd))
    lower = all(r["energy_j_reshaped"] < r["energy_j_original"] for (k, dpm), r in t.items() if dpm != "none")
    rows.append(Claim(SEED002, "Reshaping lowers energy in every DPM row", "every row", "every DPM row" if lower else "not every row",
                      "predicted", REPRODUCED if lower else NOT, "the device starts ready", cmd))
    offs = {card: 1 - t[(card, "off")]["energy_j_reshaped"] / t[(card, "off")]["energy_j_original"] for card in ("nic-cisco", "nic-compaq")}
    rows.append(Claim(SEED002, "Reshaping with the card off saves about 60 % more", "≈ 60 %",
                      ", ".join(f"{c.split('-')[1].title()} {share(v)}" for c, v in offs.items()), "predicted",
                      REPRODUCED if within_points(list(offs.values()), [0.6, 0.6]) else NOT, "off after 100 ms", cmd))
    hd_save = 1 - hd["energy_j_reshaped"] / t[("hd", "none")]["energy_j_original"]
    rows.append(Claim(SEED002, "Reshaping makes the microdrive's DPM save over 60 %", "> 60 %", share(hd_save), "predicted",
                      REPRODUCED if hd_save > 0.6 else NOT, "against no DPM, the same program", cmd))
    for card, seed_save in (("nic-cisco", 0.85), ("nic-compaq", 0.94)):
        save = 1 - t[(card, "off")]["energy_j_original"] / t[(card, "none")]["energy_j_original"]
        rows.append(Claim(SEED002, f"Switching the card off saves {share(seed_save)} ({card.split('-')[1].title()})", share(seed_save),
                          share(save), "predicted", REPRODUCED if within_points([save], [seed_save]) else NOT,
                          "original program, off after 100 ms idle", cmd))
    phases = d["doze_phases"]

    def phase_name(p: dict) -> str:
        kw = p["phase"]
        return f"n = {kw.get('n', 128)}" + (f", {kw['compute_s']:.0f} s" if "compute_s" in kw else "") + (
            f", {kw['pages_per_fault']}-page faults" if "pages_per_fault" in kw else "")

    cisco = [p["nic-cisco"]["saving"] for p in phases]
    rows.append(Claim(
        SEED002, "MAC-level doze saves over 50 % (Cisco), on other phases of the program", "> 50 %",
        "; ".join(f"{phase_name(p)}: Cisco {share(p['nic-cisco']['saving'])}, Compaq {share(p['nic-compaq']['saving'])}" for p in phases),
        "predicted (from a fitted hold)", REPRODUCED if min(cisco) > 0.5 else NOT,
        "Cisco's Fast PSP hold (1.87 s) is fitted to Table 3's one program; Cisco's documentation says the card returns to PSP "
        "once the packets are retrieved, with no hold: where faults come less than a hold apart the modelled card never dozes, "
        "so this verdict flips with the program's phase",
        "python -c 'from idlewise.experiments.seed002 import doze_savings; print(doze_savings())'"))
    for card in ("nic-cisco", "nic-compaq"):
        r = t[(card, "doze")]
        save = 1 - r["energy_j_reshaped"] / r["energy_j_original"]
        seed_save = 1 - r["seed"]["energy_j_reshaped"] / r["seed"]["energy_j_original"]
        fitted = card == "nic-cisco"
        rows.append(Claim(
            SEED002, f"Reshaping's saving with the {card.split('-')[1].title()} card in doze", share(seed_save), share(save),
            "predicted (from a fitted hold)" if fitted else "predicted", REPRODUCED if within_points([save], [seed_save]) else NOT,
            "Cisco's Fast PSP hold (1.87 s, not documented) is fitted to the original doze row's 7.30 J" if fitted else "PSP doze after 100 ms",
            cmd))
    return rows


# --- seed 003 ------------------------------------------------------------------------------

SEED003 = "003 (NVCache flushing)"


def seed003(d: dict) -> list[Claim]:
    n = d["nvcache"]
    fig5 = {(r["flush_when"], r["flush_algorithm"]): r for r in n["figure5"]}
    cmd = "idlewise experiment nvcache-flushing --json"
    rows: list[Claim] = []
    red = {a: 1 - fig5[("full", a)]["flush_time_s"] / fig5[("each", a)]["flush_time_s"] for a in (1, 2, 3, 4)}
    # The data `full` leaves in the NVCache at the end, flushed and charged (`final_flush`).
    left = fig5[("full", 1)]["bytes_unflushed"]
    final = {(r["flush_when"], r["flush_algorithm"]): r for r in n["figure5_final_flush"]}
    charged = {a: 1 - final[("full", a)]["flush_time_s"] / final[("each", a)]["flush_time_s"] for a in (1, 2, 3, 4)}
    superseded = fig5[("full", 1)]["bytes_superseded"]
    never = sorted(r["nvcache_bytes"] for r in n["nvcache_sweep"] if r["flush_when"] == "full" and r["flushes"] == 0)
    rows.append(Claim(
        SEED003, "Flushing only when full cuts flushing time by over 75 %", "> 75 %",
        "algorithms 1–4: " + ", ".join(f"{share(v)}" for v in red.values()) + f"; charging the {left / 2**20:.1f} MiB left unflushed at the end "
        "(`--final-flush`): " + ", ".join(f"{share(v)}" for v in charged.values()),
        "predicted", CONDITIONS if all(v > 0.75 for v in red.values()) else NOT,
        f"hplajw week, 64 MiB NVCache, 16 MiB DRAM; stale NVCache data invalidated by later writes ({superseded / 2**20:.0f} MiB superseded "
        "under full: a choice the seed does not describe); vacuous where full never flushes ("
        + (f"an NVCache of {never[0] / 2**20:.0f} MiB or more here, " if never else "")
        + "or a spin-down timeout long enough that the log never fills); "
        + ("under 75 % for " + ", ".join(str(a) for a, v in charged.items() if v <= 0.75) + " once the final flush is charged"
           if any(v <= 0.75 for v in charged.values()) else "holds with the final flush charged"),
        cmd))
    once = d["nvcache_write_once"]
    ours = once["claims"][0]["ours"]
    rows.append(Claim(
        SEED003, "Flushing only when full cuts flushing time by over 75 %, on data written once", "> 75 %",
        "algorithms 1–4: " + ", ".join(share(v) for v in ours["64MiB/16MiB by algorithm"].values()) + "; the final flush charged: "
        + ", ".join(share(v) for v in ours["64MiB/16MiB by algorithm, the final flush charged"].values())
        + f"; best over the sweeps {share(ours['best over the DRAM and NVCache sweeps (algorithm 4)'])}",
        "predicted", REPRODUCED if max(ours["64MiB/16MiB by algorithm"].values()) > 0.75 else NOT,
        "hplajw's week with every write moved to a block never written before (`write_once`): no cached data goes stale, so "
        "full must flush all it caches, as each does; the claim rests on overwrites", "python -c 'from idlewise.experiments.seed003 import "
        "nvcache_flushing, write_once, hplajw_disk0; print(nvcache_flushing(trace=write_once(hplajw_disk0()))[\"claims\"])'"))
    best = max(1 - fig5[(w, 4)]["flush_time_s"] / fig5[(w, 1)]["flush_time_s"] for w in ("each", "full"))
    sweep = n["claims"][1]["ours"]["best over the DRAM sweep"]
    top = max(best, sweep)
    rows.append(Claim(SEED003, "Ordering and merging cut flushing time by as much as 90 %", "up to 90 %", f"at most {share(top)}",
                      "predicted", REPRODUCED if top >= 0.9 else NOT, "the seed's 90 % is its best over four traces; ours over one trace and "
                      "the DRAM sweep", cmd))
    logged = n["infinite"]["flash_bytes_written"]
    rows.append(Claim(SEED003, "0.5 GB of NVCache caches a week of HP data", "0.5 GB",
                      f"the week's log takes {logged / 2**20:.0f} MiB ({512 * 2**20 / logged:.1f}× less)", "predicted", CONDITIONS,
                      "0.5 GB suffices (the seed's bound holds); the week needs far less here, so the seed's number is not reproduced as a size",
                      cmd))
    most = n["infinite"]["max_bytes_per_spindown"]
    rows.append(Claim(SEED003, "No spin-down period caches 100 MB, even with an infinite NVCache", "< 100 MB", f"at most {most / 2**20:.1f} MiB",
                      "predicted", REPRODUCED if most < 100e6 else NOT, "hplajw week, disk 0", cmd))
    return rows


# --- seed 004 ------------------------------------------------------------------------------

SEED004 = "004 (MEMS)"
INACTIVE_W = 0.005  # seed 004 §4.2: the inactive sled, the floor every policy pays


def seed004(d: dict) -> list[Claim]:
    rows: list[Claim] = []
    # Both conventions of the probes' power: ours (each pass pays for the tips it uses) and the
    # seed's (1 W whenever data move, `probe_power = "all-tips"`).
    t = d["mems_timeouts"] + d["mems_timeouts_all_tips"] + d["mems_mobile"]
    at = {(r["trace"], r["probe_power"], r["shutdown"], round(r["timeout_s"] * 1e3)): r for r in t}
    traces = sorted({r["trace"] for r in t}, key=lambda n: (n.startswith("mobile"), n))
    conventions = ("per-tip", "all-tips")

    def short(n: str) -> str:
        return n.split("#")[0].replace(".trace", "").replace("ajw.1week.srt", "hplajw")

    def gaps(r: dict) -> tuple[float, float]:
        floor = INACTIVE_W * r["makespan_s"]
        least = r["theoretical_min_energy_j"]
        return r["energy_j"] / least - 1, (r["energy_j"] - floor) / (least - floor) - 1

    def per_convention(cell: Callable[[str, str], str]) -> str:
        return " — ".join(f"{c}: " + "; ".join(f"{short(n)} {cell(n, c)}" for n in traces) for c in conventions)

    cmd = ("idlewise experiment mems-timeout python/idlewise/data/hplajw/ajw.1week.srt tests/data/mems-disksim/visible.trace "
           "tests/data/mems-disksim/memsvalid.trace --stream 0 [--probe-power all-tips] --json; the generated mobile workloads: tools/check-docs")
    ee_below = all(at[(n, c, "ee", ms)]["energy_j"] <= at[(n, c, "pe", ms)]["energy_j"] for (n, c, sd, ms) in at if sd == "pe")
    rows.append(Claim(SEED004, "EE shutdown below PE in energy", "every timeout", "every timeout, every trace, both probe powers" if ee_below else "not everywhere",
                      "predicted", REPRODUCED if ee_below else NOT, "timeouts 0–50 ms; hplajw, DiskSim's two MEMS workloads, two generated mobile workloads", cmd))

    def gap_cell(ms: int) -> Callable[[str, str], str]:
        def cell(n: str, c: str) -> str:
            total, above = gaps(at[(n, c, "pe", ms)])
            return f"{pct(total, 1)} ({pct(above)} above the floor)"
        return cell

    above10 = [gaps(at[(n, c, sd, 10)])[1] for n in traces for c in conventions for sd in ("pe", "ee")]
    rows.append(Claim(
        SEED004, "10 ms within 6–7 % of the theoretical energy minimum (< 5 % room left)", "6 % (PE), 7 % (EE)",
        "10 ms, PE, " + per_convention(gap_cell(10)), "predicted", REPRODUCED if max(above10) <= 0.07 else NOT,
        "the total gap is small only where the 5 mW inactive floor (every policy's least cost over the span) is most of the energy, "
        "as on a week-long trace; above the floor no trace comes within 7 %, under either probe power", cmd))
    above0 = [gaps(at[(n, c, "pe", 0)])[1] for n in traces for c in conventions]
    rows.append(Claim(
        SEED004, "Abstract: at least 95 % of the possible saving (within 5 % of the theoretical minimum)", "≥ 95 %",
        "0 ms, PE, " + per_convention(gap_cell(0)), "predicted", REPRODUCED if max(above0) <= 0.05 else NOT,
        "measured against the theoretical minimum, not always-on (against always-on any timeout saves ~95 % on a mostly idle trace)", cmd))

    def best_ms(n: str, c: str, sd: str) -> int:
        return min((r["energy_j"], ms) for (m, cc, s, ms), r in at.items() if (m, cc, s) == (n, c, sd))[1]

    runs = [(n, c, sd) for n in traces for c in conventions for sd in ("pe", "ee")]
    at_zero = sum(1 for run in runs if best_ms(*run) == 0)
    rows.append(Claim(
        SEED004, "Least energy at a 1–10 ms timeout, not at 0", "1 ms below 0 ms by ~1 % (its Table 2, PE; its Table 3, EE, ext3-4K, is least at 0 ms)",
        f"least at 0 ms in {at_zero} of {len(runs)} (trace, probe power, shutdown) runs", "predicted", NOT if at_zero == len(runs) else CONDITIONS,
        "the idle sweep's 120 mW over each long idle period outweighs the shutdowns a timeout avoids; 1 ms wins only with PE, ≥ 90 % "
        "locality and more than about half of all idle periods under 1 ms (`idlewise experiment mems-optimum`)", cmd))
    mobile = [n for n in traces if n.startswith("mobile")]

    def rise(n: str, c: str) -> float:
        return change(at[(n, c, "pe", 10)]["energy_j"], at[(n, c, "pe", 1)]["energy_j"])

    rises = [rise(n, c) for n in mobile for c in conventions]
    rows.append(Claim(
        SEED004, "Energy rises only slightly from 1 to 10 ms", "+1.8 % (its Table 2, ext3-4K: 10.9 → 11.1 J)",
        "mobile workloads, PE: " + " — ".join(f"{c}: " + ", ".join(pct(rise(n, c), 1) for n in mobile) for c in conventions),
        "predicted", REPRODUCED if max(rises) <= 0.05 else NOT,
        "the seed's probe power (1 W whenever data move) halves the rise against ours (each pass pays for its tips), but 10 ms still "
        "sweeps idle for 10 ms in every long idle period", cmd))
    falls = {n: change(at[(n, "per-tip", "pe", 10)]["mean_response_s"], at[(n, "per-tip", "pe", 0)]["mean_response_s"]) for n in traces}
    rows.append(Claim(
        SEED004, "Mean response falls as the timeout grows", "−7 % from 1 to 10 ms (ext3-4K)",
        "0 → 10 ms, PE: " + "; ".join(f"{short(n)} {pct(v, 1)}" for n, v in falls.items()),
        "predicted", CONDITIONS if any(v < 0 for v in falls.values()) else NOT,
        "falls where requests have locality (the idle sled waits near the next block); rises on scattered requests (memsvalid), "
        "where the centre is nearer on average; the probe power changes no response", cmd))
    rows.append(Claim(
        SEED004, "Probe power: 1 W for the 4,096 probes and error correction while the device reads or writes", "1 W",
        "the catalog device charges 0.244 mW per tip a pass uses (125 mW for a 4 KB request, 1 W only for a 32 KB pass); "
        "`probe_power = \"all-tips\"` charges the seed's 1 W", "input (two conventions)", CONDITIONS,
        "§4.2 gives the active state's power without regard to the request's size, i.e. the seed's convention is all-tips; every seed "
        "004 claim here is computed both ways", "python/idlewise/catalog/ibm-mems-seed004.toml; Device.with_probe_power"))
    return rows


SEEDS: list[tuple[str, Callable[[dict], list[Claim]]]] = [
    ("seed000", seed000), ("seed001", seed001), ("seed002", seed002), ("seed003", seed003), ("seed004", seed004)]


def all_claims(data: dict) -> dict[str, list[Claim]]:
    return {name: build(data) for name, build in SEEDS}


def table(claims: list[Claim], with_seed: bool = True) -> str:
    head = ["seed"] if with_seed else []
    head += ["claim", "seed's number", "ours", "label", "verdict", "conditions", "command"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in claims:
        cells = ([c.seed] if with_seed else []) + [c.claim, c.seeds_number, c.ours, c.label, f"**{c.verdict}**", c.conditions, f"`{c.command}`"]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def summary(claims: dict[str, list[Claim]]) -> str:
    """The README's summary: per seed, how many claims each verdict has."""
    lines = ["| seed | reproduced | holds under stated conditions | not reproduced |", "|---|---:|---:|---:|"]
    for rows in claims.values():
        count = {v: sum(1 for c in rows if c.verdict == v) for v in VERDICTS}
        lines.append(f"| {rows[0].seed} | {count[REPRODUCED]} | {count[CONDITIONS]} | {count[NOT]} |")
    return "\n".join(lines)
