"""Seed 002 (Acquaviva, Lattanzi & Bogliolo, *Power-Aware Network Swapping for Wireless Palmtop
PCs*): Table 1, the cost of swapping one 4096-byte page, from the catalog's swap devices; Table 3,
the matrix-product case study with and without reshaped page requests, under each device's DPM.

A read-only swap is one page read; a write-back swap is a page written out and a page read in.
Each comes from the device's service model (``Device.service_cost``); Table 3's runs come from the
engine (closed-loop replay of the generated page faults). Nothing here knows the tables' numbers
except to print them beside ours.
"""

from __future__ import annotations

import numpy as np

from ..devices import load_device
from ..simulate import simulate
from ..traces.synthetic import matrix_product
from ..output import save_figure

PAGE_BYTES = 4096

#: (device, protocol, catalog entry) for each row of Table 1.
ROWS = (
    ("cf", "local", "compaq-sandisk-cf-64mb"),
    ("hd", "local", "ibm-microdrive-340mb"),
    ("nic-cisco", "nbd", "cisco-aironet-350-swap"),
    ("nic-cisco", "nfs", "cisco-aironet-350-swap-nfs"),
    ("nic-compaq", "nbd", "compaq-wlan-swap"),
    ("nic-compaq", "nfs", "compaq-wlan-swap-nfs"),
)

#: Seed 002 Table 1 as printed: read-only (ms, mJ, mW), write-back (ms, mJ, mW).
SEED_TABLE1 = {
    ("cf", "local"): ((4.1, 0.201, 49), (8.2, 0.402, 49)),
    ("hd", "local"): ((3.0, 1.911, 637), (6.4, 4.061, 637)),
    ("nic-cisco", "nbd"): ((7.0, 5.934, 848), (14.0, 10.319, 735)),
    ("nic-cisco", "nfs"): ((8.5, 6.123, 720), (14.6, 10.516, 720)),
    ("nic-compaq", "nbd"): ((8.0, 5.626, 578), (15.0, 8.599, 573)),
    ("nic-compaq", "nfs"): ((10.0, 5.243, 524), (22.0, 10.672, 485)),
}


def swap_cost(workloads=None, plot=None) -> list[dict]:
    """One row per (device, protocol): the per-page cost from the catalog, and the seed's."""
    rows = []
    for device, protocol, entry in ROWS:
        d = load_device(entry)
        read_s, read_j = d.service_cost(PAGE_BYTES, False)
        write_s, write_j = d.service_cost(PAGE_BYTES, True)
        back_s, back_j = read_s + write_s, read_j + write_j
        (sr_ms, sr_mj, sr_mw), (sw_ms, sw_mj, sw_mw) = SEED_TABLE1[(device, protocol)]
        rows.append({
            "device": device, "protocol": protocol, "catalog": entry,
            "read_only_time_s": read_s, "read_only_energy_j": read_j, "read_only_power_w": read_j / read_s,
            "write_back_time_s": back_s, "write_back_energy_j": back_j, "write_back_power_w": back_j / back_s,
            "seed_read_only": {"time_s": sr_ms / 1e3, "energy_j": sr_mj / 1e3, "power_w": sr_mw / 1e3},
            "seed_write_back": {"time_s": sw_ms / 1e3, "energy_j": sw_mj / 1e3, "power_w": sw_mw / 1e3},
        })
    return rows


#: Table 3's rows: (device, dpm, catalog entry, policy). Timeouts from Table 2 and Table 3's first
#: column. "off" switches the card off after 100 ms of idleness (OS-level, without doze first).
TABLE3_ROWS = (
    ("ram", "none", None, None),
    ("cf", "none", "compaq-sandisk-cf-64mb", "always-on"),
    ("hd", "none", "ibm-microdrive-340mb", "always-on"),
    ("hd", "sleep", "ibm-microdrive-340mb", "timeout:2s"),
    ("nic-cisco", "none", "cisco-aironet-350-swap", "always-on"),
    ("nic-cisco", "doze", "cisco-aironet-350-swap", "timeout:doze=15ms"),
    ("nic-cisco", "off", "cisco-aironet-350-swap", "timeout:off=100ms"),
    ("nic-compaq", "none", "compaq-wlan-swap", "always-on"),
    ("nic-compaq", "doze", "compaq-wlan-swap", "timeout:doze=100ms"),
    ("nic-compaq", "off", "compaq-wlan-swap", "timeout:off=100ms"),
)

#: Seed 002 Table 3 as printed (averages of 4 runs): execution time s original, reshaped; swapping
#: energy original, reshaped (the header says mJ; the values are joules: 0.6 W wait power x 25 s
#: is the HD's 15 J).
SEED_TABLE3 = {
    ("ram", "none"): (25.0, 25.25, None, None),
    ("cf", "none"): (25.5, 25.75, 0.143, 0.161),
    ("hd", "none"): (25.312, 25.812, 15.199, 15.499),
    ("hd", "sleep"): (37.75, 27.75, 19.426, 6.207),
    ("nic-cisco", "none"): (26.5, 27.0, 15.591, 15.533),
    ("nic-cisco", "doze"): (27.5, 26.5, 7.303, 4.692),
    ("nic-cisco", "off"): (28.75, 26.0, 2.473, 0.890),
    ("nic-compaq", "none"): (30.25, 28.5, 13.597, 12.701),
    ("nic-compaq", "doze"): (30.0, 27.75, 2.542, 2.187),
    ("nic-compaq", "off"): (30.0, 28.25, 1.760, 0.722),
}

#: Runs per row whose device has a wake-up time that varies (the microdrive's 4.5 s ± 1.98 s).
DRAWS = 200


def _run(workload, entry: str, policy: str, initial_mode, seed=None) -> tuple[float, float]:
    r = simulate(workload.trace, entry, [policy], replay="closed", tail_s=workload.tail_s, transition_seed=seed,
                 initial_mode=initial_mode, progress=False)[0]
    return r["execution_time_s"], r["energy_j"]


def _spread(values: np.ndarray) -> float:
    """Sample standard deviation; 0 when every run came out the same (no wake-up was drawn)."""
    return float(values.std(ddof=1)) if len(values) > 1 and np.ptp(values) > 0 else 0.0


def swap_reshaping(workloads=None, plot=None, draws: int = DRAWS, start: str = "ready") -> list[dict]:
    """Table 3: the matrix product's execution time and swapping energy on each swap device under
    its DPM, original and reshaped, closed loop. A device whose wake-up time varies is run
    ``draws`` times with seeds 0.. (the mean and standard deviation are reported); the rest are
    deterministic, as is the run at the mean wake-up time (``*_at_mean_wakeup``).

    ``start``: the swap device's state when the product starts. ``"ready"`` (default): it has just
    swapped A, B and C out, so it is awake. ``"low-power"``: it has already entered its DPM state
    (the rest of the dummy matrix's initialisation outlasted the timeout); a sensitivity check."""
    if start not in ("ready", "low-power"):
        raise ValueError(f"start must be 'ready' or 'low-power', got {start!r}")
    programs = {"original": matrix_product(False), "reshaped": matrix_product(True)}
    rows = []
    for device, dpm, entry, policy in TABLE3_ROWS:
        row = {"device": device, "dpm": dpm, "catalog": entry, "policy": policy, "start": start}
        # Each DPM row's name is the low-power mode its policy moves to.
        initial_mode = dpm if start == "low-power" and dpm != "none" else None
        varies = entry is not None and any("time_std_s" in t for t in load_device(entry).transitions)
        for variant, w in programs.items():
            if entry is None:
                row.update({f"exec_time_s_{variant}": w.compute_s, f"energy_j_{variant}": None,
                            f"exec_time_s_{variant}_std": 0.0, f"energy_j_{variant}_std": None})
                continue
            at_mean = _run(w, entry, policy, initial_mode)
            runs = np.array([_run(w, entry, policy, initial_mode, seed) for seed in range(draws)]) if varies else np.array([at_mean])
            row.update({
                f"exec_time_s_{variant}": float(runs[:, 0].mean()), f"energy_j_{variant}": float(runs[:, 1].mean()),
                f"exec_time_s_{variant}_std": _spread(runs[:, 0]), f"energy_j_{variant}_std": _spread(runs[:, 1]),
                f"exec_time_s_{variant}_at_mean_wakeup": at_mean[0], f"energy_j_{variant}_at_mean_wakeup": at_mean[1],
            })
        row["draws"] = draws if varies else 1
        row["exec_time_ratio"] = row["exec_time_s_reshaped"] / row["exec_time_s_original"]
        row["energy_ratio"] = None if entry is None else row["energy_j_reshaped"] / row["energy_j_original"]
        t_orig, t_resh, e_orig, e_resh = SEED_TABLE3[(device, dpm)]
        row["seed"] = {"exec_time_s_original": t_orig, "exec_time_s_reshaped": t_resh,
                       "energy_j_original": e_orig, "energy_j_reshaped": e_resh}
        rows.append(row)
    if plot:
        plot_swap_reshaping(rows, plot)
    return rows


#: Program phases beside Table 3's (n = 128 over 25 s, 8-page clusters): a larger product whose
#: faults come every 1.6 s, the same over 100 s, a smaller one, and faults of one page each.
OTHER_PHASES = ({"n": 128}, {"n": 256}, {"n": 256, "compute_s": 100.0}, {"n": 64}, {"n": 128, "pages_per_fault": 1})


def doze_savings(phases=OTHER_PHASES) -> list[dict]:
    """Each card's doze saving against no DPM on other phases of the matrix product (the original
    program, closed loop, starting ready): what Table 3's doze rows say beyond their one program.
    ``phases`` are :func:`matrix_product` keyword sets."""
    rows = []
    for kw in phases:
        w = matrix_product(False, **kw)
        row = {"phase": dict(kw), "faults": w.faults, "pages": len(w.trace)}
        for device, dpm, entry, policy in TABLE3_ROWS:
            if dpm != "doze":
                continue
            plain = _run(w, entry, "always-on", None)[1]
            doze = simulate(w.trace, entry, [policy], replay="closed", tail_s=w.tail_s, progress=False)[0]
            row[device] = {"energy_j_none": plain, "energy_j_doze": doze["energy_j"], "saving": 1 - doze["energy_j"] / plain,
                           "dozes": doze["transitions"].get("wait->doze", 0)}
        rows.append(row)
    return rows


#: Program phases on which Table 3's rows are run again (none of them a page's): a smaller product
#: (n = 96 and 64), a larger one (256) and the same over 100 s, faults of one page each.
TABLE3_PHASES = ({"n": 96}, {"n": 64}, {"n": 256}, {"n": 256, "compute_s": 100.0}, {"n": 128, "pages_per_fault": 1})


def reshaping_on_phases(phases=TABLE3_PHASES) -> list[dict]:
    """Table 3 on other phases of the matrix product: every DPM row, original and reshaped,
    closed loop, starting ready, each at its device's mean wake-up time (one deterministic run a
    cell). What the table's claims say beyond its one program."""
    out = []
    for kw in phases:
        programs = {"original": matrix_product(False, **kw), "reshaped": matrix_product(True, **kw)}
        row = {"phase": dict(kw), "faults": programs["original"].faults}
        for device, dpm, entry, policy in TABLE3_ROWS:
            if entry is None:
                continue
            cell = {}
            for variant, w in programs.items():
                cell[f"exec_time_s_{variant}"], cell[f"energy_j_{variant}"] = _run(w, entry, policy, None)
            row[f"{device}/{dpm}"] = cell
        out.append(row)
    return out


def plot_swap_reshaping(rows: list[dict], path: str) -> None:
    """Table 3 as bars: swapping energy (log scale) and execution time, original against reshaped,
    ours filled and the seed's outlined, one group per (device, DPM)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rows if r["device"] != "ram"]
    labels = [r["device"] + ("" if r["dpm"] == "none" else f"\n{r['dpm']}") for r in rows]
    x = np.arange(len(rows))
    fig, (ax_e, ax_t) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    for ax, key, unit in ((ax_e, "energy_j", "swapping energy (J, log scale)"), (ax_t, "exec_time_s", "execution time (s)")):
        for k, (variant, colour) in enumerate((("original", "tab:red"), ("reshaped", "tab:blue"))):
            ours = [r[f"{key}_{variant}"] for r in rows]
            errors = [r[f"{key}_{variant}_std"] for r in rows]
            seed = [r["seed"][f"{key}_{variant}"] for r in rows]
            offset = (k - 0.5) * 0.38
            ax.bar(x + offset, ours, 0.36, color=colour, alpha=0.75, label=f"idlewise, {variant}")
            spread = [i for i, e in enumerate(errors) if e]
            if spread:
                ax.errorbar(x[spread] + offset, [ours[i] for i in spread], yerr=[errors[i] for i in spread], fmt="none",
                            ecolor="black", capsize=3)
            ax.bar(x + offset, seed, 0.36, fill=False, edgecolor="black", linewidth=1.2,
                   label="seed 002 Table 3" if k == 0 else None)
        ax.set_ylabel(unit)
        ax.grid(axis="y", alpha=0.3)
    ax_e.set_yscale("log")
    ax_t.set_ylim(20, max(max(r["exec_time_s_original"], r["seed"]["exec_time_s_original"]) for r in rows) * 1.1)
    ax_e.legend(fontsize=8, ncol=3)
    ax_t.set_xticks(x, labels, fontsize=8)
    ax_e.set_title("Seed 002 Table 3: matrix product, closed loop (bars: idlewise; outlines: seed; error bars: one s.d.)")
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)


EXPERIMENTS = {"swap-cost": swap_cost, "swap-reshaping": swap_reshaping}
"""Seed 002 experiments by name."""
