"""`trace stats` of a trace of many devices (issue 39: 100k devices took 190 s, 1M devices did
not finish in 300 s). Writes an Alibaba-format file (device,op,offset,size,time_us) of RECORDS
requests spread over DEVICES devices, then times `idlewise trace stats` on it as a user runs it
(the command line, wall clock, best of 2).

    python benchmarks/stats_many_devices.py [DEVICES] [RECORDS]
"""

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

devices = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
records = int(sys.argv[2]) if len(sys.argv) > 2 else 5 * devices
rng = np.random.default_rng(0)
times = np.sort(rng.integers(0, 86_400 * 10**6, records))
device = rng.integers(0, devices, records)
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "many.alibaba")
    with open(path, "w") as f:
        f.writelines(f"{d},R,{t % 1_000_000 * 4096},4096,{t}\n" for d, t in zip(device.tolist(), times.tolist()))
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "idlewise", "trace", "stats", path, "--format", "alibaba"],
                              capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        assert done.returncode == 0, done.stderr
    print(f"trace stats: {records:,} requests over {devices:,} devices: best of 2 {best:.1f} s ({os.cpu_count()} cores)")
