"""Reading a compressed trace as it is published (``.csv.gz``, ``.zst``), against the same file
uncompressed and against the decompressor alone (``zcat``, ``zstdcat`` to /dev/null): reading
must not be much slower than decompressing.

Writes RECORDS synthetic records (default 5M) of the simple CSV, compresses them with ``gzip -6``
and ``zstd -3`` (the tools' defaults), then times, best of 3 after a warm-up, the whole
``idlewise.read_trace`` (file to Trace in memory) and a streamed ``idlewise.simulate_file`` under
``timeout:2s`` (what ``idlewise simulate`` does by default), and the decompressor alone. Prints
records per second and the seconds.

    python benchmarks/read_compressed.py [RECORDS]
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import idlewise

sys.path.insert(0, os.path.dirname(__file__))
from read_formats import lines  # noqa: E402  (the same synthetic text as the other readers' benchmark)


def best_of(fn, runs: int = 3) -> float:
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    records = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
    folder = tempfile.mkdtemp(prefix="idlewise-compressed-")
    try:
        plain = os.path.join(folder, "trace.csv")
        with open(plain, "wb") as f:
            f.write(lines("csv", records, np.random.default_rng(1)))
        subprocess.run(["gzip", "-k", "-6", plain], check=True)
        subprocess.run(["zstd", "-q", "-3", plain, "-o", plain + ".zst"], check=True)
        sizes = {name: os.path.getsize(plain + suffix) for name, suffix in (("plain", ""), ("gzip", ".gz"), ("zstd", ".zst"))}
        print(f"{records:,} records; plain {sizes['plain'] / 1e6:.0f} MB, .gz {sizes['gzip'] / 1e6:.0f} MB, "
              f".zst {sizes['zstd'] / 1e6:.0f} MB; best of 3")
        print(f"{'input':<8} {'decompressor alone':>22} {'read_trace':>22} {'simulate (as read)':>22}")
        for name, suffix, tool in (("plain", "", ["cat"]), ("gzip", ".gz", ["zcat"]), ("zstd", ".zst", ["zstdcat"])):
            path = plain + suffix
            alone = best_of(lambda: subprocess.run([*tool, path], stdout=subprocess.DEVNULL, check=True))
            whole = best_of(lambda: idlewise.read_trace(path))
            streamed = best_of(lambda: idlewise.simulate_file(path, "hitachi-travelstar-5k320", ["timeout:2s"], progress=False))
            row = [f"{records / s / 1e6:6.2f} M/s ({s:5.2f} s)" for s in (alone, whole, streamed)]
            print(f"{name:<8} {row[0]:>22} {row[1]:>22} {row[2]:>22}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
