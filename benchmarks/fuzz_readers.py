"""Long fuzz run of every trace reader: N mutated inputs per format (default 130,000, so over
10^6 in all), each read with its format and with --format auto. Any exception other than
IdlewiseError (TraceError included) is a failure, printed with the input that caused it.

    python benchmarks/fuzz_readers.py [N] [--jobs 2]

Prints one line per format and a total; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from fuzz_inputs import SEEDS, mutate  # noqa: E402


def work(job):
    fmt, start, count = job
    import idlewise
    from idlewise import IdlewiseError

    warnings.simplefilter("ignore")
    rng = random.Random(start)
    failures = []
    accepted = 0
    folder = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.NamedTemporaryFile(dir=folder, delete=False) as f:
        path = f.name
    try:
        for i in range(count):
            data = mutate(SEEDS[fmt], rng)
            with open(path, "wb") as f:
                f.write(data)
            for format in (fmt, "auto"):
                try:
                    idlewise.read_trace(path, format=format)
                    accepted += 1
                except IdlewiseError:
                    pass
                except Exception as e:  # noqa: BLE001 - any other exception is the finding
                    failures.append((format, repr(e), data[:300]))
    finally:
        os.unlink(path)
    return fmt, count, accepted, failures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", nargs="?", type=int, default=130_000, help="inputs per format")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    chunk = 5_000
    jobs = [(fmt, start, min(chunk, args.n - start)) for fmt in SEEDS for start in range(0, args.n, chunk)]
    began = time.perf_counter()
    totals = {fmt: [0, 0, []] for fmt in SEEDS}
    with multiprocessing.Pool(args.jobs) as pool:
        for fmt, count, accepted, failures in pool.imap_unordered(work, jobs):
            t = totals[fmt]
            t[0] += count
            t[1] += accepted
            t[2].extend(failures)
    elapsed = time.perf_counter() - began
    inputs = sum(t[0] for t in totals.values())
    bad = 0
    for fmt, (count, accepted, failures) in totals.items():
        print(f"{fmt:10s} {count:>9,} inputs, {2 * count:>9,} reads, {accepted:>9,} accepted, {len(failures)} failures")
        for failure in failures[:5]:
            print("   ", failure)
        bad += len(failures)
    print(f"total: {inputs:,} inputs ({2 * inputs:,} reads) in {elapsed:,.0f} s, {bad} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
