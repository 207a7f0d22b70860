"""Prints docs/mems.md's table of DiskSim's runs of the two shipped traces next to ours: mean
response, requests within 1 µs of DiskSim's, spin-ups (`tests/test_mems_disksim.py` holds each
to its acceptance; `tools/check-docs` keeps the page's table equal to this output).

    python tools/disksim-reference/shipped_table.py
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from mems_reference import SHIPPED_RUNS, run_shipped  # noqa: E402


def timeout(policy: str) -> str:
    value = policy.split(":", 1)[1]
    return "0" if value == "0s" else value.replace("ms", " ms")


def main() -> None:
    print("| trace | model | timeout | DiskSim mean (ms) | idlewise mean (ms) | difference | requests within 1 µs | spin-ups (both) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for trace_name, model, policy, ref, mean_ms, spinups in SHIPPED_RUNS:
        match, run = run_shipped(trace_name, model, policy, ref)
        both = spinups if run["wakeups"] == spinups else f"{run['wakeups']} / {spinups}"
        difference = f"{match.mean_error * 100:.3f} %".replace("-0.000", "0.000").replace("-", "−")
        print(f"| {trace_name} | {model.upper()} | {timeout(policy)} | {mean_ms:.6f} | {match.ours_mean_ms:.6f} | "
              f"{difference} | {match.within_1us * 100:.2f} % | {both} |")


if __name__ == "__main__":
    main()
