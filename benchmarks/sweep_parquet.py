"""One read serves every policy (issue 28): a sweep of 100 policies over a Parquet trace of N
requests (default 100M), with default flags, on this machine's cores. Writes the trace (bursts and
Pareto gaps, as the other benchmarks; written a row group at a time, so generating it needs no
more memory than the sweep), then runs the whole command line

    idlewise sweep TRACE.parquet --device hitachi-travelstar-5k320 --policy timeout:1s..99s/1s --policy oracle --out runs.parquet

under GNU time, and reports wall time, peak resident memory, and the engine's floor (request
replays per second of the in-memory engine). Then checks that rows equal separate runs: a few of
the sweep's rows against ``idlewise simulate`` of the same policy on the same file.

    python benchmarks/sweep_parquet.py [N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from _synthetic import burst_times
from startup import idlewise_script

GROUP = 10_000_000


def write_trace(path: str, n: int) -> None:
    """N requests in time order, a row group of up to 10M at a time."""
    rng = np.random.default_rng(28)
    schema = pa.schema([("time_s", pa.float64()), ("offset_bytes", pa.int64()), ("size_bytes", pa.int64()), ("is_write", pa.bool_())])
    start = 0.0
    with pq.ParquetWriter(path, schema) as writer:
        for first in range(0, n, GROUP):
            m = min(GROUP, n - first)
            times = start + burst_times(m, rng)
            start = float(times[-1]) + 1.0
            writer.write_table(pa.table({"time_s": times, "offset_bytes": rng.integers(0, 1 << 28, m) * 512,
                                         "size_bytes": rng.integers(1, 64, m) * 512, "is_write": rng.random(m) < 0.3},
                                        schema=schema), row_group_size=1 << 20)


def timed(command: list[str]) -> tuple[float, float, str]:
    done = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], check=True, capture_output=True, text=True)
    seconds, kib = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kib) / 1024, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", nargs="?", type=int, default=100_000_000)
    parser.add_argument("--keep", help="folder to write the trace in and keep it (default: a temporary one)")
    args = parser.parse_args()
    folder = args.keep or tempfile.mkdtemp()
    path = os.path.join(folder, f"sweep-{args.n}.parquet")
    if not os.path.exists(path):
        write_trace(path, args.n)
    print(f"{args.n:,} requests, {os.path.getsize(path) / 1e9:,.2f} GB of Parquet")
    device = "hitachi-travelstar-5k320"
    out = os.path.join(folder, "runs.parquet")
    seconds, mib, _ = timed([idlewise_script(), "sweep", path, "--device", device, "--policy", "timeout:1s..99s/1s",
                             "--policy", "oracle", "--out", out])
    rows = pq.read_table(out).to_pylist()
    runs = len(rows)
    print(f"sweep of {runs} policies: {seconds:.1f} s wall, peak RSS {mib:,.0f} MiB; "
          f"{runs * args.n / seconds / 1e6:,.0f} M request replays/s")
    for policy in ("timeout:7s", "timeout:60s", "oracle"):
        _, _, text = timed([idlewise_script(), "simulate", path, "--device", device, "--policy", policy, "--json"])
        alone = json.loads(text)[-1]  # the policy's row, after always-on (60 s is labelled 1min)
        swept = next(r for r in rows if r["policy"] == alone["policy"])
        same = all(alone[k] == swept[k] for k in ("requests", "energy_j", "mean_response_s", "wakeups"))
        print(f"  {policy}: the sweep's row {'equals' if same else 'DIFFERS from'} a separate simulate "
              f"({swept['energy_j']:.6g} J, {swept['mean_response_s']:.6g} s)")
        if not same:
            sys.exit(1)
    if not args.keep:
        for name in (path, out):
            os.unlink(name)
        os.rmdir(folder)


if __name__ == "__main__":
    main()
