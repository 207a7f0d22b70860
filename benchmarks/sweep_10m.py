"""A 100-point timeout sweep over a 10M-request trace (target: < 30 s on 2 cores).

Builds a deterministic 10M-request trace (bursts of 1-16 requests 1-5 ms apart, Pareto idle gaps
with alpha 1.2 and a 0.2 s minimum), stores it as Parquet, then times
``idlewise sweep`` of ``timeout:0s..99s/1s`` on the microdrive with the local process pool.

    python benchmarks/sweep_10m.py [REQUESTS] [JOBS]
"""

import os
import sys
import tempfile
import time

import numpy as np

from _synthetic import burst_times

import idlewise
from idlewise.sweeps import TraceSource, sweep
from idlewise.traces import write_parquet


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else os.cpu_count()
    rng = np.random.default_rng(1)
    times = burst_times(n, rng)
    trace = idlewise.Trace.from_arrays(times, 4096 * rng.integers(1, 17, n), offset_bytes=rng.integers(0, 1 << 30, n),
                                       is_write=rng.random(n) < 0.3, name="synthetic-10m")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "t.parquet")
        write_parquet(trace, path)
        start = time.perf_counter()
        rows = sweep([TraceSource(path=path)], ["hitachi-microdrive-1gb"], ["timeout:0s..99s/1s"], jobs=jobs, progress=False)
        seconds = time.perf_counter() - start
    print(f"sweep: {len(rows)} runs x {n:,} requests in {seconds:.1f} s on {jobs} worker(s) "
          f"= {len(rows) * n / seconds / 1e6:.1f} M request-replays/s (references included in the time)")


if __name__ == "__main__":  # worker processes are spawned and re-import this module
    main()
