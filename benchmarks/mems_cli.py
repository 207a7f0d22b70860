"""MEMS from the command line against DiskSim 4.0 itself, side by side (issue 43).

The workload is the one DiskSim's MEMS numbers are quoted on: ``tests/data/mems-disksim/
visible.trace`` (20,000 real requests) repeated end to end to REQUESTS (default 1M), each copy's
arrivals shifted past the last, on G2 with 100 ms before the sled goes inactive. DiskSim runs it
with the shipped ``memsref.g2.parv`` (the specs' timeout set to 100 ms, a sentinel request
appended so that every request completes, as ``tools/disksim-reference/make_fixtures.py`` does);
idlewise runs ``idlewise simulate FILE --format disksim --device cmu-mems-g2 --policy
timeout:100ms`` as a user does (a new process: start-up, reading, the policy's replay, the table;
on a sled the references are replayed only when asked, so this is one replay, as DiskSim's one
run), the same with ``--references`` (beside always-on, the oracle and seed 004's theoretical
minima: three replays), then ten timeouts (``sweep ... timeout:0ms..90ms/10ms``, beside the
references). Runs alternate, best of 3 each, so that the ratios are measured in one sitting on a
machine whose speed drifts.

    OPTIMIZE=-O2 tools/disksim-reference/build.sh /path/to/disksim-4.0 /tmp/disksim-o2
    python benchmarks/mems_cli.py /tmp/disksim-o2/src/disksim [REQUESTS]

Without a DiskSim binary only idlewise's times are printed.
"""

import os
import re
import subprocess
import sys
import tempfile
import time

DATA = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "mems-disksim")


def repeated(requests: int) -> list[str]:
    """visible.trace repeated to `requests` lines, arrivals (ms) shifted per copy."""
    with open(os.path.join(DATA, "visible.trace")) as f:
        fields = [line.split(None, 1) for line in f if line.strip()]
    first = float(fields[0][0])
    span_ms = float(fields[-1][0]) - first + 10.0
    lines: list[str] = []
    copy = 0
    while len(lines) < requests:
        for arrival, rest in fields[: requests - len(lines)]:
            lines.append(f"{float(arrival) - first + copy * span_ms:.6f} {rest.strip()}")
        copy += 1
    return lines


def disksim_folder(folder: str, lines: list[str]) -> None:
    with open(os.path.join(DATA, "parv", "memsdevices.memsref.specs")) as f:
        specs, count = re.subn(r"Time before sled inactive\s*=\s*[0-9.]+", "Time before sled inactive  = 100.0", f.read())
    assert count == 3, "the specs name the timeout once per model"
    with open(os.path.join(folder, "memsdevices.memsref.specs"), "w") as f:
        f.write(specs)
    for name in ("statdefs.mems", "memsref.g2.parv"):
        with open(os.path.join(DATA, "parv", name)) as src, open(os.path.join(folder, name), "w") as dst:
            dst.write(src.read())
    sentinel = f"{float(lines[-1].split()[0]) + 1e7:.6f} 0 0 1 1"
    with open(os.path.join(folder, "disksim.trace"), "w") as f:
        f.write("\n".join(lines + [sentinel]) + "\n")


def timed(command: list[str], cwd: str) -> float:
    # As an installed package starts: pip compiles its bytecode when it installs it, so the
    # modules are not compiled again at every start, even where PYTHONDONTWRITEBYTECODE is set
    # (the warm-up run writes the bytecode to a folder of its own).
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(cwd, "pycache")
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    return seconds


def main() -> None:
    disksim = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].isdigit() else None
    requests = int(sys.argv[-1]) if sys.argv[-1].isdigit() else 1_000_000
    lines = repeated(requests)
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "user.trace"), "w") as f:
            f.write("\n".join(lines) + "\n")
        idlewise = [sys.executable, "-m", "idlewise"]
        one = idlewise + ["simulate", "user.trace", "--format", "disksim", "--device", "cmu-mems-g2", "--policy", "timeout:100ms"]
        commands = {
            "idlewise, 1 policy": one,
            "idlewise, 1, --references": one + ["--references"],
            "idlewise, 10 policies": idlewise + ["sweep", "user.trace", "--format", "disksim", "--device", "cmu-mems-g2",
                                                 "--policy", "timeout:0ms..90ms/10ms"],
        }
        if disksim:
            disksim_folder(folder, lines)
            commands["DiskSim 4.0, 1 run"] = [os.path.abspath(disksim), "memsref.g2.parv", "run.out", "ascii", "disksim.trace", "0"]
        for command in commands.values():
            timed(command, folder)  # warm-up: the page cache, the interpreter's .pyc
        best = {name: float("inf") for name in commands}
        for _ in range(3):
            for name, command in commands.items():
                best[name] = min(best[name], timed(command, folder))
    print(f"{requests:,} requests (visible.trace repeated), G2, 100 ms; best of 3, alternating")
    for name, seconds in best.items():
        ratio = ""
        if disksim and not name.startswith("DiskSim"):
            runs = 10 if "10 policies" in name else 1
            ratio = f"  DiskSim / idlewise per policy: {best['DiskSim 4.0, 1 run'] * runs / seconds:.1f}x"
        print(f"  {name:<27} {seconds:6.2f} s{ratio}")


if __name__ == "__main__":
    main()
