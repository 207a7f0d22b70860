"""Hybrid disk replay (seed 003): all 8 (when x how) flushing combinations over the hplajw week,
disk 0, on the seed's emulated hybrid disk (E7K100 + Ultra II CF, DRAM 16 MiB, NVCache 64 MiB,
multiple experts), on one core.

Times ``idlewise.hybrid`` with the 8 combinations in one call (which also replays the plain disk
once), best of REPEATS after a warm-up; then the same week repeated to REQUESTS requests (each
copy shifted by the week's span), to show the per-request rate on a long trace.

    python benchmarks/hybrid_flush.py [REPEATS] [REQUESTS]
"""

import sys
import time

import numpy as np

import idlewise
from idlewise.experiments.seed003 import HYBRID, hplajw_disk0

repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10
requests = int(sys.argv[2]) if len(sys.argv) > 2 else 5_000_000
COMBINATIONS = dict(flush_when=["each", "full"], flush_algorithm=[1, 2, 3, 4])


def best_of(trace, n):
    idlewise.hybrid(trace, description=HYBRID, **COMBINATIONS)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        results = idlewise.hybrid(trace, description=HYBRID, **COMBINATIONS)
        times.append(time.perf_counter() - start)
    assert len(results) == 8
    return min(times)


week = hplajw_disk0()
seconds = best_of(week, repeats)
# 8 hybrid runs + 1 plain run per call.
print(f"hplajw week, disk 0: {len(week):,} requests; all 8 combinations (+ the plain disk): {seconds * 1e3:.1f} ms, "
      f"{9 * len(week) / seconds / 1e6:.1f} M requests/s")

copies = -(-requests // len(week))
span = week.time_s[-1] - week.time_s[0] + 1.0
shift = np.repeat(np.arange(copies) * span, len(week))[:requests]
long = idlewise.Trace.from_arrays(np.tile(week.time_s, copies)[:requests] + shift, np.tile(week.size_bytes, copies)[:requests],
                                  op=np.tile(week.is_write, copies)[:requests], offset_bytes=np.tile(week.offset_bytes, copies)[:requests],
                                  name=f"hplajw week x {copies}")
seconds = best_of(long, 2)
print(f"{long.name}: {len(long):,} requests; all 8 combinations (+ the plain disk): {seconds:.2f} s, "
      f"{9 * len(long) / seconds / 1e6:.1f} M requests/s")
