"""The family of workloads the MEMS engine is checked against DiskSim on (issue 27).

Each workload is a DiskSim ASCII trace (`arrival_ms devno blkno bcount flags`, flags bit 0 =
read) drawn from a seeded generator, so the family is the same on every machine. Together they
span what users bring: request sizes from 1 to 8,192 sectors (fixed, mixed, heavy-tailed),
offered load from nearly idle to beyond saturation (deep queues), read fractions 0, 50 and
100 %, sequential runs and random placement, arrival times at full precision and at the 1 ms
resolution many published traces have (simultaneous arrivals), and the five "time before sled
inactive" settings 0, 1, 10, 50 and 100 ms.

    python tools/disksim-reference/workloads.py OUT_DIR      # writes OUT_DIR/<name>.trace

The offered load is set against a rough service-time estimate (command overhead, a seek, and the
bus at 5.12 µs a sector); the busy fraction each workload really reaches on each model is measured
from DiskSim's responses and listed in docs/mems.md.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# Every model's capacity is above this (G1 has the fewest blocks, 4,464,000), so a workload runs
# unchanged on G1, G2 and G3.
BLOCKS = 4_400_000
SECTOR_MS = 0.00512
MAX_SECTORS = 8192


@dataclass(frozen=True)
class Workload:
    name: str
    requests: int
    sizes: str            # "fixed:N", "mixed", "heavy", "user" (mean ~750 sectors, up to 8,192)
    read_fraction: float
    placement: str        # "random", "sequential" (runs of consecutive blocks), "mixed"
    load: float           # offered load against the service estimate (>1: saturated)
    arrivals: str         # "poisson", "bursty" (on/off: bursts with idle gaps between), "coarse" (1 ms clock)
    timeout_ms: int       # the sled's "time before sled inactive" for this workload's runs
    seed: int


# Each row is one workload; its runs are G1, G2 and G3 at the row's timeout.
FAMILY = [
    Workload("idle-small-random-read", 1500, "fixed:8", 1.0, "random", 0.02, "poisson", 100, 1),
    Workload("idle-small-random-write", 1500, "fixed:8", 0.0, "random", 0.02, "poisson", 50, 2),
    Workload("idle-mixed-sequential", 1500, "mixed", 0.5, "sequential", 0.03, "bursty", 10, 3),
    Workload("light-1sector-random", 2000, "fixed:1", 0.5, "random", 0.3, "poisson", 1, 4),
    Workload("light-64-sequential-read", 2000, "fixed:64", 1.0, "sequential", 0.3, "poisson", 0, 5),
    Workload("light-512-random-write", 1500, "fixed:512", 0.0, "random", 0.3, "bursty", 100, 6),
    Workload("light-heavy-tail-mixed", 1500, "heavy", 0.5, "mixed", 0.3, "poisson", 10, 7),
    Workload("moderate-8-random-mix", 2000, "fixed:8", 0.5, "random", 0.6, "poisson", 50, 8),
    Workload("moderate-user-read", 1500, "user", 1.0, "random", 0.6, "poisson", 100, 9),
    Workload("moderate-user-write", 1500, "user", 0.0, "mixed", 0.6, "bursty", 0, 10),
    Workload("moderate-mixed-coarse", 2000, "mixed", 0.5, "random", 0.6, "coarse", 1, 11),
    Workload("moderate-8192-read", 600, "fixed:8192", 1.0, "sequential", 0.6, "poisson", 10, 12),
    Workload("busy-8-random-read", 2500, "fixed:8", 1.0, "random", 0.9, "poisson", 0, 13),
    Workload("busy-8-random-write", 2500, "fixed:8", 0.0, "random", 0.9, "poisson", 100, 14),
    Workload("busy-64-mix-sequential", 2000, "fixed:64", 0.5, "sequential", 0.9, "poisson", 50, 15),
    Workload("busy-user-mix", 1500, "user", 0.5, "mixed", 0.9, "poisson", 1, 16),
    Workload("busy-heavy-tail-read", 1500, "heavy", 1.0, "random", 0.9, "bursty", 10, 17),
    Workload("busy-heavy-tail-write", 1500, "heavy", 0.0, "sequential", 0.9, "poisson", 100, 18),
    Workload("busy-mixed-coarse", 2000, "mixed", 0.5, "mixed", 0.9, "coarse", 0, 19),
    Workload("saturated-8-mix", 2500, "fixed:8", 0.5, "random", 1.3, "poisson", 50, 20),
    Workload("saturated-user-mix", 1200, "user", 0.5, "random", 1.3, "poisson", 10, 21),
    Workload("saturated-512-write-sequential", 1200, "fixed:512", 0.0, "sequential", 1.3, "bursty", 1, 22),
    Workload("saturated-8192-mix", 400, "fixed:8192", 0.5, "random", 1.3, "poisson", 100, 23),
    Workload("saturated-heavy-coarse", 1500, "heavy", 0.5, "mixed", 1.5, "coarse", 0, 24),
    Workload("bursty-mixed-read", 2000, "mixed", 1.0, "mixed", 0.6, "bursty", 50, 25),
    Workload("bursty-user-write", 1200, "user", 0.0, "random", 0.9, "bursty", 1, 26),
    Workload("same-block-rereads", 2000, "fixed:8", 0.5, "hot", 0.9, "coarse", 10, 27),
]


def sizes(w: Workload, rng: np.random.Generator, n: int) -> np.ndarray:
    if w.sizes.startswith("fixed:"):
        return np.full(n, int(w.sizes.split(":")[1]), dtype=np.int64)
    if w.sizes == "mixed":
        return rng.choice(np.array([1, 8, 16, 64, 128, 256]), size=n, p=[0.1, 0.4, 0.2, 0.15, 0.1, 0.05])
    if w.sizes == "heavy":
        # Pareto (shape 1.1) from 1 sector: most requests small, a few up to 8,192.
        return np.minimum(np.ceil(rng.pareto(1.1, size=n) * 4 + 1), MAX_SECTORS).astype(np.int64)
    if w.sizes == "user":
        # Large requests as the traces behind issue 27 have them: mean ~750 sectors, up to 8,192.
        small = rng.choice(np.array([8, 16, 64, 128]), size=n)
        large = rng.choice(np.array([1024, 2048, 4096, 8192]), size=n, p=[0.4, 0.3, 0.2, 0.1])
        return np.where(rng.random(n) < 0.25, large, small).astype(np.int64)
    raise ValueError(w.sizes)


def blocks(w: Workload, rng: np.random.Generator, size: np.ndarray) -> np.ndarray:
    n = len(size)
    random_blocks = rng.integers(0, BLOCKS - size)
    if w.placement == "random":
        return random_blocks
    if w.placement == "hot":
        # A few hot blocks, re-read and re-written while earlier requests to them are queued.
        return rng.choice(np.array([1000, 2_000_000, 3_500_000]), size=n)
    out = np.empty(n, dtype=np.int64)
    at = int(rng.integers(0, BLOCKS // 2))
    for i in range(n):
        start_run = rng.random() < (0.15 if w.placement == "sequential" else 0.5)
        if i == 0 or start_run or at + size[i] >= BLOCKS:
            at = int(random_blocks[i]) if w.placement == "mixed" else int(rng.integers(0, BLOCKS - size[i]))
        out[i] = at
        at += int(size[i])
    return out


def arrivals_ms(w: Workload, rng: np.random.Generator, size: np.ndarray) -> np.ndarray:
    # Rough service time: 0.25 ms overhead + ~0.6 ms positioning + the bus (or the media,
    # about as fast) for every sector.
    service_ms = 0.85 + size * SECTOR_MS
    gaps = rng.exponential(service_ms / w.load)
    if w.arrivals == "bursty":
        # Bursts of ~20 requests at the offered load, separated by idle gaps of 2-300 ms, so the
        # sled's timeouts fire between bursts.
        ends = rng.random(len(size)) < 0.05
        gaps = np.where(ends, rng.uniform(2.0, 300.0, len(size)), gaps)
    t = 10.0 + np.cumsum(gaps)
    if w.arrivals == "coarse":
        t = np.floor(t)   # a 1 ms clock: requests in the same millisecond arrive together
    return t


def generate(w: Workload) -> list[str]:
    rng = np.random.default_rng(w.seed)
    size = sizes(w, rng, w.requests)
    block = blocks(w, rng, size)
    t = arrivals_ms(w, rng, size)
    reads = rng.random(w.requests) < w.read_fraction
    return [f"{float(t[i])!r} 0 {block[i]} {size[i]} {1 if reads[i] else 0}" for i in range(w.requests)]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for w in FAMILY:
        (out / f"{w.name}.trace").write_text("\n".join(generate(w)) + "\n")
    print(f"{len(FAMILY)} workloads in {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
