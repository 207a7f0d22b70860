"""Prints docs/mems.md's per-workload table of the family: how loaded each workload is, and how
our MEMS engine compares with DiskSim on it (mean response, requests within 1 µs, energy).

    python tools/disksim-reference/family_table.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from mems_reference import FAMILY, compare, family_runs, read_family_trace, read_gz_rows, run_ours  # noqa: E402

SLED_ACTIVE_W, SLED_INACTIVE_W = 0.100, 0.050


def load(responses: np.ndarray) -> tuple[float, float]:
    """Busy fraction (a request outstanding) and share of requests that arrive while another is."""
    order = np.argsort(responses[:, 0], kind="stable")
    start = responses[order, 0]
    end = start + responses[order, 1]
    busy, reach, waited = 0.0, -np.inf, 0
    for s, e in zip(start, end):
        waited += s < reach
        if e > reach:
            busy += e - max(s, reach)
            reach = e
    return busy / (reach - start[0]), waited / len(start)


def main() -> None:
    runs = family_runs()
    print("| workload | timeout | busy (G2) | arrive behind another (G2) | mean response G1 / G2 / G3, DiskSim (ms) | "
          "ours, worst difference | within 1 µs, worst | energy vs DiskSim + gaps, worst |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    for workload in sorted({r["workload"] for r in runs.values()}):
        trace = read_family_trace(workload)
        rows = read_gz_rows(FAMILY / "workloads" / f"{workload}.trace.gz")
        means, mean_err, within, energy_err = [], 0.0, 1.0, 0.0
        for model in ("g1", "g2", "g3"):
            ref = runs[f"{workload}.{model}"]
            theirs = read_gz_rows(FAMILY / "responses" / f"{workload}.{model}.resp.gz")
            ours, run = run_ours(trace, model, ref["timeout_ms"])
            m = compare(rows, ours, theirs)
            means.append(ref["mean_response_ms"])
            mean_err = max(mean_err, abs(m.mean_error))
            within = min(within, m.within_1us)
            gaps_j = run["transitions"].get("active->inactive", 0) * ref["timeout_ms"] / 1e3 * SLED_ACTIVE_W - rows[0, 0] / 1e3 * SLED_INACTIVE_W
            energy_err = max(energy_err, abs((run["energy_j"] - gaps_j) / ref["total_energy_j"] - 1))
            if model == "g2":
                busy, behind = load(theirs)
        print(f"| {workload} | {ref['timeout_ms']} ms | {busy:.0%} | {behind:.0%} | {' / '.join(f'{x:,.3f}' for x in means)} | "
              f"{mean_err:.4%} | {within:.2%} | {energy_err:.3%} |")


if __name__ == "__main__":
    main()
