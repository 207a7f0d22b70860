"""The benchmarks' synthetic workload, one home: bursts of 1-16 requests 1-5 ms apart separated
by Pareto idle gaps (alpha 1.2, minimum 0.2 s), drawn from a NumPy generator."""

import numpy as np


def burst_times(n: int, rng: np.random.Generator) -> np.ndarray:
    """Arrival times (s) of ``n`` requests; the caller draws sizes and offsets from ``rng`` after."""
    bursts = rng.integers(1, 17, n)
    gap_after = np.zeros(n)
    ends = np.cumsum(bursts)
    ends = ends[ends < n]
    gap_after[ends] = 0.2 / rng.random(len(ends)) ** (1 / 1.2)
    return np.cumsum(rng.uniform(0.001, 0.005, n) + gap_after)
