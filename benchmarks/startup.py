"""Start-up of the command line (target: <= 0.15 s each): ``idlewise --help`` and a 10-request
``idlewise simulate`` (reading a 10-row CSV, the replay next to always-on and the oracle, the
table), each a new process, best and median of 10 after one warm-up.

The ``idlewise`` script next to this interpreter is run directly: a version manager's shim
(pyenv's adds ~50 ms of bash here) is the environment's cost, not idlewise's.

    python benchmarks/startup.py
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time


def idlewise_script() -> str:
    """The console script installed beside this interpreter (a venv's bin/, or the prefix's)."""
    script = os.path.join(os.path.dirname(sys.executable), "idlewise")
    return script if os.path.exists(script) else "idlewise"


def timed(command: list[str], runs: int = 10) -> tuple[float, float]:
    subprocess.run(command, check=True, capture_output=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    script = idlewise_script()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "ten.csv")
        with open(path, "w") as f:
            f.write("time_s,offset_bytes,size_bytes,op\n")
            f.writelines(f"{3.0 * i},0,4096,R\n" for i in range(10))
        python = timed([sys.executable, "-c", "pass"])
        help_s = timed([script, "--help"])
        simulate = timed([script, "simulate", path, "--device", "ibm-microdrive-340mb", "--policy", "timeout:2s"])
    for what, (best, median) in (("python -c pass (the floor)", python), ("idlewise --help", help_s),
                                 ("idlewise simulate, 10 requests", simulate)):
        print(f"{what:<32} best {best:.3f} s, median {median:.3f} s")


if __name__ == "__main__":
    main()
