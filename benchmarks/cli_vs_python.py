"""The whole command line against the replay a researcher writes by hand (target: >= 10x).

Writes a 2M-row simple CSV (bursts and Pareto gaps, as the other benchmarks), then times, best of
3: a plain-Python replay of it (the csv module and a 20-line fixed-timeout loop on the two-state
IBM Microdrive, energy and mean response only), and ``idlewise simulate FILE --device
ibm-microdrive-340mb --policy timeout:2s`` as a user runs it (a new process: start-up, reading,
the replay next to always-on and the oracle, the table), as it runs by default (replayed as read)
and read whole (``--sort``, which reads the trace whole to sort it).

    python benchmarks/cli_vs_python.py [ROWS]
"""

import csv
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from _synthetic import burst_times
from startup import idlewise_script


def plain_python_replay(path: str, timeout_s: float = 2.0) -> tuple[float, float]:
    """What a researcher writes: read the CSV, one FIFO server, spin down after a fixed timeout."""
    ready_w, sleep_w, down_s, down_j, up_s, up_j = 0.6, 0.024, 0.5, 0.3, 4.5, 4.5
    read_bw, write_bw, read_w, write_w = 1365333.3333333333, 1204705.8823529412, 0.637, 0.6323529411764705
    free_at = energy = response_sum = 0.0
    n = 0
    with open(path, newline="") as f:
        rows = csv.reader(f)
        next(rows)
        for time_s, _offset, size, op in rows:
            t, size = float(time_s), int(size)
            ready_at = free_at
            if n == 0:
                free_at = ready_at = t
            elif t > free_at:
                gap = t - free_at
                if gap > timeout_s + down_s:
                    energy += ready_w * timeout_s + down_j + sleep_w * (gap - timeout_s - down_s) + up_j
                    ready_at = t + up_s
                else:
                    energy += ready_w * gap
                    ready_at = t
            service = size / (write_bw if op == "W" else read_bw)
            free_at = max(ready_at, t) + service
            energy += service * (write_w if op == "W" else read_w)
            response_sum += free_at - t
            n += 1
    return energy, response_sum / n


def best_of(times: int, run) -> float:
    best = float("inf")
    for _ in range(times):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    rng = np.random.default_rng(1)
    times = burst_times(n, rng)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.csv")
        with open(path, "w") as f:
            f.write("time_s,offset_bytes,size_bytes,op\n")
            f.writelines(f"{t:.6f},{o},{s},{w}\n" for t, o, s, w in zip(
                times.tolist(), (rng.integers(0, 1 << 21, n) * 4096).tolist(), (4096 * rng.integers(1, 17, n)).tolist(),
                np.where(rng.random(n) < 0.3, "W", "R").tolist()))
        python_s = best_of(3, lambda: plain_python_replay(path))
        command = [idlewise_script(), "simulate", path, "--device", "ibm-microdrive-340mb", "--policy", "timeout:2s"]
        cli_s = best_of(3, lambda: subprocess.run(command, check=True, capture_output=True))
        whole_s = best_of(3, lambda: subprocess.run(command + ["--sort"], check=True, capture_output=True))
    print(f"{n:,} rows: plain Python {python_s:.2f} s; idlewise CLI {cli_s:.2f} s by default, replayed as read "
          f"({python_s / cli_s:.1f}x), {whole_s:.2f} s read whole with --sort ({python_s / whole_s:.1f}x), each next to "
          "always-on and the oracle")


if __name__ == "__main__":
    main()
