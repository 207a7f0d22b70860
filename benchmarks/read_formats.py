"""Reading speed of every text format (target: >= 10M records/s per core).

Writes RECORDS synthetic records (default 5M) in each text format idlewise reads to a temporary
directory, then times ``idlewise.read_trace(path, format=...)`` — the whole way from the file to
a Trace in memory, as a user gets it — best of 3 after one warm-up read, with the default
parsing threads (the machine's cores; blkparse is read by one). The rate per core is
``cargo run --release -p idlewise-benchmarks --bin read_text -- FORMAT FILE`` on the files
``--write DIR`` leaves.

    python benchmarks/read_formats.py [RECORDS] [FORMAT ...]
    python benchmarks/read_formats.py --write DIR [RECORDS] [FORMAT ...]   # only write the files
"""

import os
import sys
import tempfile
import time

import numpy as np

import idlewise


def lines(fmt: str, n: int, rng) -> bytes:
    """The file's text, built with NumPy (no per-record Python)."""
    gaps = rng.integers(1, 2_000, n)
    ticks = np.cumsum(gaps)  # microseconds
    sectors = rng.integers(0, 1 << 28, n)
    counts = rng.integers(1, 128, n)
    writes = rng.random(n) < 0.3
    dev = rng.integers(0, 3, n)

    def join(*cols, sep=","):
        out = cols[0].astype(str)
        for c in cols[1:]:
            out = np.char.add(np.char.add(out, sep), c.astype(str) if not isinstance(c, str) else c)
        return ("\n".join(out.tolist()) + "\n").encode()

    ms = np.char.mod("%.3f", ticks / 1000.0)
    if fmt == "csv":
        return b"time_s,offset_bytes,size_bytes,op\n" + join(np.char.mod("%.6f", ticks / 1e6), sectors * 512, counts * 512, np.where(writes, "W", "R"))
    if fmt == "disksim":
        return join(ms, dev, sectors, counts, np.where(writes, 0, 1), sep=" ")
    if fmt == "spc-ascii":
        return join(ticks * 1000, dev, sectors, counts, np.where(writes, 0, 1), sep=" ")
    if fmt == "spc":
        return join(dev, sectors, counts * 512, np.where(writes, "w", "r"), np.char.mod("%.6f", ticks / 1e6))
    if fmt == "msr":
        return join(128166372003061629 + ticks * 10, np.full(n, "hm"), dev, np.where(writes, "Write", "Read"), sectors * 512, counts * 512, gaps)
    if fmt == "alibaba":
        return join(dev, np.where(writes, "W", "R"), sectors * 512, counts * 512, 1_577_808_000_000_000 + ticks)
    if fmt == "tencent":
        return join(1_538_323_200 + ticks // 1_000_000, sectors, counts, np.where(writes, 1, 0), dev)
    if fmt == "fiu":
        md5 = np.char.mod("%032x", rng.integers(0, 1 << 62, n))
        return join(89_966_527_181_059 + ticks * 1000, np.full(n, "4121"), np.full(n, "syslogd"), sectors, counts,
                    np.where(writes, "W", "R"), np.full(n, "8"), dev * 16, md5, sep=" ")
    if fmt == "blkparse":
        t = np.char.mod("%.9f", ticks / 1e6)
        return join(np.full(n, "8,0"), np.full(n, "1"), np.arange(1, n + 1), t, np.full(n, "4242"), np.full(n, "Q"),
                    np.where(writes, "W", "R"), sectors, np.full(n, "+"), counts, np.full(n, "[fio]"), sep=" ")
    raise SystemExit(f"no generator for {fmt}")


FORMATS = ["csv", "disksim", "spc-ascii", "spc", "msr", "alibaba", "tencent", "fiu", "blkparse"]


def main() -> None:
    args = sys.argv[1:]
    keep = None
    if args[:1] == ["--write"]:
        keep, args = args[1], args[2:]
    n = int(args[0]) if args else 5_000_000
    formats = args[1:] or FORMATS
    rng = np.random.default_rng(1)
    if keep is not None:
        os.makedirs(keep, exist_ok=True)
        for fmt in formats:
            with open(os.path.join(keep, f"trace.{fmt}"), "wb") as f:
                f.write(lines(fmt, n, rng))
        return
    with tempfile.TemporaryDirectory() as folder:
        for fmt in formats:
            path = os.path.join(folder, f"trace.{fmt}")
            with open(path, "wb") as f:
                f.write(lines(fmt, n, rng))
            size_mb = os.path.getsize(path) / 1e6
            idlewise.read_trace(path, format=fmt)
            times = []
            for _ in range(3):
                start = time.perf_counter()
                trace = idlewise.read_trace(path, format=fmt)
                times.append(time.perf_counter() - start)
                del trace
            best = min(times)
            print(f"{fmt:<10} {n:>11,} records {size_mb:>7,.0f} MB  best of 3: {best:6.3f} s = {n / best / 1e6:6.1f} M records/s", flush=True)
            os.remove(path)


if __name__ == "__main__":
    main()
