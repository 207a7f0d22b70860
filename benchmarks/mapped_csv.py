"""A CSV trace with its own header read through a column mapping (``--columns``) against the same
requests in idlewise's simple CSV layout. Writes RECORDS synthetic requests (default 5M; bursts
and Pareto gaps, as the other benchmarks) both ways to temporary files, then runs the whole
command line on each, ``timeout:2s`` on the Hitachi Travelstar 5K320, by default (replayed as
read) and read whole (``--sort``), and reports wall time and peak resident memory (GNU time's %M).
The two runs' JSON rows are checked equal.

    python benchmarks/mapped_csv.py [RECORDS]
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from _synthetic import burst_times, timed
from startup import idlewise_script

MAPPING = "time_ms=ts,size_bytes=len,offset_sectors=lba,op=rw"


def write_both(folder: str, n: int) -> tuple[str, str]:
    """The same ``n`` requests as a host's own CSV (milliseconds, sectors, Read/Write words, a
    column idlewise does not read) and as the simple layout (seconds, bytes, R/W)."""
    rng = np.random.default_rng(7)
    time_ms = np.round(burst_times(n, rng) * 1e3, 3)
    lba = rng.integers(0, 500_000_000, n)  # within the 5K320's 320 GB
    size = rng.integers(1, 64, n) * 512
    write = rng.random(n) < 0.3
    mapped, simple = os.path.join(folder, "host.csv"), os.path.join(folder, "simple.csv")
    for path, header, rows in (
        (mapped, "host,ts,rw,lba,len", zip(time_ms.tolist(), np.where(write, "Write", "Read").tolist(), lba.tolist(), size.tolist())),
        (simple, "time_s,offset_bytes,size_bytes,op", zip((time_ms * 1e-3).tolist(), (lba * 512).tolist(), size.tolist(),
                                                           np.where(write, "W", "R").tolist())),
    ):
        with open(path, "w") as f:
            f.write(header + "\n")
            if path == mapped:
                f.writelines(f"hm,{t!r},{op},{o},{s}\n" for t, op, o, s in rows)
            else:
                f.writelines(f"{t!r},{o},{s},{op}\n" for t, o, s, op in rows)
    return mapped, simple


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
    with tempfile.TemporaryDirectory() as folder:
        mapped, simple = write_both(folder, n)
        print(f"{n:,} records: {os.path.getsize(mapped) / 1e6:,.0f} MB mapped, {os.path.getsize(simple) / 1e6:,.0f} MB simple")
        common = ["--device", "hitachi-travelstar-5k320", "--policy", "timeout:2s", "--json"]
        rows = {}
        for label, args in (("--columns", [mapped, "--columns", MAPPING]), ("simple layout", [simple])):
            for extra in ([], ["--sort"]):
                seconds, mib = timed([idlewise_script(), "simulate", *args, *common, *extra])
                print(f"{label:>14}, {'read whole (--sort)' if extra else 'default':>19}: {seconds:.2f} s, peak RSS {mib:,.0f} MiB")
            out = subprocess.run([idlewise_script(), "simulate", *args, *common], check=True, capture_output=True, text=True).stdout
            rows[label] = [{k: r[k] for k in ("policy", "requests", "energy_j", "mean_response_s", "wakeups")} for r in json.loads(out)]
        assert rows["--columns"] == rows["simple layout"], rows
        print("rows equal")


if __name__ == "__main__":
    main()
