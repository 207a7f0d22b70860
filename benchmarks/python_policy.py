"""Policies written in Python (issue 66): how fast the engine runs them.

* a ``plan``-only policy: idle periods a second (a million requests, nearly every one after an
  idle period, so each costs one call of ``plan``), beside the built-in ``timeout:2s``;
* with ``observe`` too: requests a second (one call a request, and ``plan`` an idle period);
* a sweep of 8 Python policies (a parameter grid of the docs' example) on 2 processes against 1.

    python benchmarks/python_policy.py [REQUESTS]
"""

import os
import sys
import time

import numpy as np

import idlewise
from idlewise import Policy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "docs", "examples", "exp_average.py")


class PlanOnly(Policy):
    def plan(self, now_s):
        return [(2.0, "sleep")]


class Observing(Policy):
    def __init__(self):
        self.bytes = 0.0

    def plan(self, now_s):
        return [(2.0, "sleep")]

    def observe(self, request):
        self.bytes += request.size_bytes


def best(run, times=3) -> float:
    out = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        out.append(time.perf_counter() - start)
    return min(out)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rng = np.random.default_rng(1)
    trace = idlewise.Trace.from_arrays(np.cumsum(rng.exponential(5.0, n)), np.full(n, 4096))
    device = "ibm-microdrive-340mb"
    idlewise.simulate(trace, device, ["always-on"], progress=False, references=False)  # warm
    planned = []

    class Counted(PlanOnly):
        def plan(self, now_s):
            planned.append(now_s)
            return [(2.0, "sleep")]

    idlewise.simulate(trace, device, [Counted()], progress=False, references=False, threads=1)
    periods = len(planned)
    for label, policy in (("built-in timeout:2s", "timeout:2s"), ("plan only", PlanOnly()), ("plan + observe", Observing())):
        seconds = best(lambda: idlewise.simulate(trace, device, [policy], progress=False, references=False, threads=1))
        print(f"{label:>20}: {seconds:.2f} s: {n / seconds / 1e3:,.0f}k requests/s, {periods / seconds / 1e3:,.0f}k idle "
              f"periods/s ({n:,} requests, {periods:,} idle periods)")
    grid = [f"python:{EXAMPLE}:ExpAverage:a=0.1..0.8/0.1"]
    small = idlewise.Trace.from_arrays(trace.time_s[: n // 4], trace.size_bytes[: n // 4])
    for jobs in (1, 2):
        seconds = best(lambda: idlewise.sweep([small], [device], grid, jobs=jobs, progress=False), times=2)
        print(f"sweep of 8 Python policies over {n // 4:,} requests, jobs={jobs}: {seconds:.2f} s")


if __name__ == "__main__":
    main()
