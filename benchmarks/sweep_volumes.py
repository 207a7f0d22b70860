"""Whole `idlewise sweep` command lines over traces of many volumes (issue 63's goals), each to a
Parquet file of runs, timed as a user runs them (wall clock and peak resident memory, by GNU time):

1. RECORDS requests of the benchmarks' bursty workload dealt round-robin to 1,000 volumes, under
   100 policies (99 timeouts and the oracle), against the same requests as one volume;
2. DEVICES devices, 3 requests each at random times in a day, under one policy (`timeout:2s`).

    python benchmarks/sweep_volumes.py [RECORDS] [DEVICES]     # defaults 10,000,000 and 1,000,000
"""

import os
import sys
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(__file__))
from _synthetic import burst_times, timed  # noqa: E402

records = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
devices = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000


def write(path: str, time_s, stream=None) -> None:
    rng = np.random.default_rng(7)
    n = len(time_s)
    columns = {"time_s": time_s, "offset_bytes": rng.integers(0, 1 << 28, n) * 512,
               "size_bytes": rng.integers(1, 64, n) * 512, "is_write": rng.random(n) < 0.3}
    if stream is not None:
        columns["stream"] = stream
    pq.write_table(pa.table(columns), path, row_group_size=1 << 20)


def sweep(trace: str, policies: list, out: str) -> str:
    import subprocess

    try:
        seconds, mib = timed([sys.executable, "-m", "idlewise", "sweep", trace, "--device", "hitachi-travelstar-5k320",
                              *[a for p in policies for a in ("--policy", p)], "--out", out])
    except subprocess.CalledProcessError as e:  # refused (the memory budget), said why
        return "failed: " + e.stderr.strip().splitlines()[-2 if len(e.stderr.strip().splitlines()) > 1 else -1]
    rows = pq.ParquetFile(out).metadata.num_rows
    return f"{seconds:.2f} s, {mib:,.0f} MiB, {rows:,} runs"


hundred = ["timeout:1s..99s/1s", "oracle"]
with tempfile.TemporaryDirectory() as folder:
    time_s = burst_times(records, np.random.default_rng(5))
    one, many = os.path.join(folder, "one.parquet"), os.path.join(folder, "many.parquet")
    write(one, time_s)
    write(many, time_s, np.arange(records, dtype=np.int64) % 1000)
    out = os.path.join(folder, "runs.parquet")
    print(f"{records:,} requests as one volume, 100 policies: {sweep(one, hundred, out)}")
    print(f"{records:,} requests over 1,000 volumes, 100 policies: {sweep(many, hundred, out)}")
    os.remove(one)
    os.remove(many)

    rng = np.random.default_rng(11)
    n = 3 * devices
    stream = rng.permutation(np.repeat(np.arange(devices, dtype=np.int64), 3))
    spread = os.path.join(folder, "devices.parquet")
    write(spread, np.sort(rng.uniform(0, 86_400, n)), stream)
    print(f"{devices:,} devices ({n:,} requests), timeout:2s: {sweep(spread, ['timeout:2s'], out)}")
