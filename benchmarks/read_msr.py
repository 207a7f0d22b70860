"""Reading speed of MSR Cambridge CSV (target: >= 2M records/s on 2 cores).

Writes a synthetic MSR-format file (default 5M records) to a temporary directory, then times
``idlewise.read_trace(path, format="msr")`` (best of 3, after one warm-up read).

    python benchmarks/read_msr.py [RECORDS]
"""

import os
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

import idlewise

n = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
rng = np.random.default_rng(1)
ticks = 128166372003061629 + np.cumsum(rng.integers(1, 2_000_000, n))
table = pa.table({
    "Timestamp": ticks, "Hostname": pa.array(["hm"] * n), "DiskNumber": rng.integers(0, 3, n),
    "Type": np.where(rng.random(n) < 0.3, "Read", "Write"), "Offset": rng.integers(0, 1 << 34, n) * 512,
    "Size": rng.integers(1, 128, n) * 512, "ResponseTime": rng.integers(1, 100_000, n),
})
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "msr.csv")
    pacsv.write_csv(table, path, write_options=pacsv.WriteOptions(include_header=False, quoting_style="none"))
    size_mb = os.path.getsize(path) / 1e6
    idlewise.read_trace(path, format="msr")
    times = []
    for _ in range(3):
        start = time.perf_counter()
        idlewise.read_trace(path, format="msr")
        times.append(time.perf_counter() - start)
    best = min(times)
    print(f"MSR CSV: {n:,} records, {size_mb:,.0f} MB, best of 3: {best:.2f} s = {n / best / 1e6:.2f} M records/s "
          f"({os.cpu_count()} cores)")
