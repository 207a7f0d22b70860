"""``idlewise report`` of a sweep (goal, issue 64: 13 policies <= 2 s, 601 policies <= 4 s, the
whole command): the bundled hplajw week's disk 0 on the Travelstar 5K320 under 12 timeouts and
the oracle, then under the 601 timeouts 0 s..600 s, each a new process, median of 3 after one
warm-up (which also leaves the package's bytecode compiled, as an installed wheel has it), with
peak resident memory. ``idlewise simulate`` of the same 13 policies beside it: the report's own
cost is the difference.

    python benchmarks/report_sweep.py
"""

import os
import statistics
import subprocess
import sys
import tempfile

from _synthetic import timed
from startup import idlewise_script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEEK = os.path.join(ROOT, "python", "idlewise", "data", "hplajw", "ajw.1week.srt")
DISK = ["--stream", "0", "--device", "hitachi-travelstar-5k320"]


def median_of_three(command: list) -> tuple[float, float]:
    subprocess.run(command, check=True, capture_output=True)
    runs = [timed(command) for _ in range(3)]
    return statistics.median(s for s, _ in runs), max(m for _, m in runs)


def main() -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "python", "idlewise")], check=False)
    with tempfile.TemporaryDirectory() as folder:
        cases = [
            ("simulate, 13 policies", ["simulate", WEEK, *DISK, "--policy", "timeout:1s..56s/5s", "--policy", "oracle"]),
            ("report, 13 policies", ["report", WEEK, *DISK, "--policy", "timeout:1s..56s/5s", "--policy", "oracle",
                                     "--out", os.path.join(folder, "13.html")]),
            ("report, 601 policies", ["report", WEEK, *DISK, "--policy", "timeout:0s..600s/1s",
                                      "--out", os.path.join(folder, "601.html")]),
        ]
        for name, argv in cases:
            seconds, mib = median_of_three([idlewise_script(), *argv])
            print(f"{name:>22}: {seconds:.2f} s, peak RSS {mib:,.0f} MiB")


if __name__ == "__main__":
    main()
