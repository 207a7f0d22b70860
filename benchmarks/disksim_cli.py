"""A DiskSim ASCII trace of 1M requests through the whole command line (target: <= 0.5 s).

Builds the file from DiskSim 4.0's own ``ascii.trace`` (100,000 requests, tab-separated as
DiskSim ships it) repeated ten times, each copy's arrivals shifted past the copy before so the
trace stays in time order, then times, best of 3 after a warm-up, ``idlewise simulate FILE
--format disksim --device hitachi-travelstar-5k320 --policy timeout:2s`` as a user runs it (a new
process: start-up, reading, the replay next to always-on and the oracle, the table), by default
(replayed as read) and read whole (``--sort``). DiskSim 4.0 itself (-O2) replays ~93k requests/s on this machine, so
~10.7 s for the same million.

    python benchmarks/disksim_cli.py [COPIES]
"""

import os
import subprocess
import sys
import tempfile
import time

from startup import idlewise_script

SHIPPED = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "disksim", "ascii.trace")


def repeated(copies: int) -> bytes:
    """The shipped trace `copies` times, arrivals (ms, the first field) shifted per copy; the
    other fields and the tabs as shipped."""
    with open(SHIPPED, "rb") as f:
        lines = f.read().splitlines()
    fields = [line.split(b"\t", 1) for line in lines if line.strip()]
    span_ms = max(float(t) for t, _ in fields) + 1.0
    out = []
    for copy in range(copies):
        shift = copy * span_ms
        out.extend(b"%.6f\t%s" % (float(t) + shift, rest) for t, rest in fields)
    return b"\n".join(out) + b"\n"


def best_of(times: int, command: list[str]) -> float:
    subprocess.run(command, check=True, capture_output=True)
    best = float("inf")
    for _ in range(times):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "ascii.trace")
        with open(path, "wb") as f:
            f.write(repeated(copies))
        with open(path, "rb") as f:
            requests = sum(1 for _ in f)
        command = [idlewise_script(), "simulate", path, "--format", "disksim", "--device", "hitachi-travelstar-5k320",
                   "--policy", "timeout:2s"]
        streamed = best_of(3, command)
        whole = best_of(3, command + ["--sort"])
    print(f"{requests:,} DiskSim ASCII requests, whole CLI: {streamed:.2f} s by default, replayed as read "
          f"({requests / streamed / 1e6:.1f} M requests/s), {whole:.2f} s read whole (--sort); "
          f"DiskSim 4.0 at 93k requests/s: {requests / 93e3:.1f} s")


if __name__ == "__main__":
    main()
