"""Recordings streamed (issue 62): a diskstats recording's requests are made from its counters as
the replay consumes them, so memory does not grow with the requests a recording stands for.

Two cases, each through the whole command line, wall time and peak resident memory (GNU time):

* a 2-snapshot recording 100 s long claiming 10^8 completed reads (what took 10 GB and 33 s
  read whole): ``idlewise simulate`` with ``timeout:2s`` on the 5K320, and ``--sort`` (read
  whole) for comparison when ``--whole`` is given;
* a generated week of one disk snapshotted every second at 500 requests a second on average
  (3.0×10^8 requests: a working day's load, quiet nights with a nightly job, a job every
  30 minutes): ``idlewise advise`` on the Constellation ES, every setting in one pass.

    python benchmarks/recording_stream.py [--whole] [--days N] [--rate R]
"""

import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _synthetic import timed  # noqa: E402
from startup import idlewise_script  # noqa: E402

T0 = 1_795_996_800  # Monday 2026-11-30 00:00 UTC


def claiming(path: str, requests: int) -> None:
    zeros = " ".join(["0"] * 11)
    with open(path, "w") as f:
        f.write(f"{T0}.000000000 8 0 sda {zeros}\n")
        f.write(f"{T0 + 100}.000000000 8 0 sda {requests} 0 {requests * 8} 0 0 0 0 0 0 100000 0\n")


def week(path: str, days: float, rate: float, seed: int = 1) -> int:
    """One disk snapshotted every second: busy 08:00-20:00 (bursts), quiet nights but for a
    02:00 job of 20 minutes and a check every 30 minutes; scaled to ``rate`` a second on average."""
    rng = np.random.default_rng(seed)
    seconds = int(days * 86400)
    t = np.arange(seconds + 1)
    hour = (t // 3600) % 24
    level = np.where((hour >= 8) & (hour < 20), 1.0, 0.0) * (rng.random(len(t)) < 0.7)
    level += ((t % 86400 >= 7200) & (t % 86400 < 8400)) * 3.0  # the nightly job
    level += (t % 1800 < 2) * 0.5  # the check
    level[0] = 0
    n = rng.poisson(level / level.mean() * rate)
    writes = rng.binomial(n, 0.3)
    reads = n - writes
    busy_ms = np.minimum(n // 2, 1000)
    counters = np.zeros((len(t), 11), np.int64)
    counters[:, 0] = np.cumsum(reads)
    counters[:, 2] = np.cumsum(reads * 16)
    counters[:, 4] = np.cumsum(writes)
    counters[:, 6] = np.cumsum(writes * 16)
    counters[:, 9] = np.cumsum(busy_ms)
    with open(path, "w") as f:
        for i in range(0, len(t), 100_000):
            rows = counters[i:i + 100_000]
            f.write("".join(f"{T0 + s}.000000000 8 0 sda " + " ".join(map(str, r)) + "\n"
                            for s, r in zip(t[i:i + 100_000].tolist(), rows.tolist())))
    return int(n.sum())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--whole", action="store_true", help="also read the 10^8 recording whole (--sort): ~10 GB")
    parser.add_argument("--days", type=float, default=7.0)
    parser.add_argument("--rate", type=float, default=500.0)
    args = parser.parse_args()
    idlewise = idlewise_script()
    with tempfile.TemporaryDirectory() as tmp:
        small = os.path.join(tmp, "claims.diskstats")
        claiming(small, 10**8)
        for extra in ([], ["--sort"]) if args.whole else ([],):
            seconds, mib = timed([idlewise, "simulate", small, "--device", "hitachi-travelstar-5k320",
                                  "--policy", "timeout:2s", "--json", *extra])
            label = "read whole (--sort)" if extra else "streamed (default)"
            print(f"10^8 requests from a {os.path.getsize(small)}-byte recording, simulate, {label}: "
                  f"{seconds:.1f} s, peak RSS {mib:,.0f} MiB")
        busy = os.path.join(tmp, "week.diskstats")
        requests = week(busy, args.days, args.rate)
        seconds, mib = timed([idlewise, "advise", busy, "--device", "seagate-constellation-es1-500gb", "--json"])
        print(f"a generated {args.days:g}-day recording at {args.rate:g} requests/s ({requests:,} requests, "
              f"{os.path.getsize(busy) / 1e6:.0f} MB), advise: {seconds:.1f} s, peak RSS {mib:,.0f} MiB")


if __name__ == "__main__":
    main()
