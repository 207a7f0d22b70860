"""Runs DiskSim 4.0 on the workload family and writes its per-request responses as test fixtures.

    tools/disksim-reference/build.sh /path/to/disksim-4.0 /tmp/disksim-build
    python tools/disksim-reference/make_fixtures.py /tmp/disksim-build/src/disksim

writes, under tests/data/mems-disksim/family/ (DiskSim's licence beside them, COPYRIGHT.disksim):

- `workloads/<name>.trace.gz`: the workload (DiskSim ASCII), as `workloads.py` draws it;
- `responses/<name>.g<N>.resp.gz`: DiskSim's response to every request on model G<N>, one line
  per request in completion order, `arrival_ms response_ms devno blkno bcount flags`, times
  rounded to 1e-9 ms;
- `summary.json`: per run, the model, the "time before sled inactive", DiskSim's mean response
  and the energies and spin-ups it prints.

Each run uses the configuration in ../parv/ (DiskSim's validation set-up for G1-G3) with only the
"Time before sled inactive" line changed. DiskSim stops at the last arrival it reads, so a
sentinel request is appended 10,000 s after the last one: every request of the workload completes,
and the sentinel is not in the responses. The tests need only these files, never DiskSim.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workloads import FAMILY, generate  # noqa: E402

DATA = HERE.parent.parent / "tests" / "data" / "mems-disksim"
OUT = DATA / "family"
MODELS = ("g1", "g2", "g3")

PRINTED = {
    "mean_response_ms": r"^IOdriver Response time average:\s+([0-9.]+)",
    "total_energy_j": r"^Mems Total energy \(J\):\s+([0-9.]+)",
    "service_energy_j": r"^Mems Servicing energy \(J\):\s+([0-9.]+)",
    "idle_energy_j": r"^Mems Idle energy\s+\(J\):\s+([0-9.]+)",
    "inactive_energy_j": r"^Mems Inactive energy\s+\(J\):\s+([0-9.]+)",
    "startup_energy_j": r"^Mems Startup energy\s+\(J\):\s+([0-9.]+)",
    "spinups": r"^Mems Number of spinups:\s+([0-9]+)",
    "spindowns": r"^Mems Number of spindowns:\s+([0-9]+)",
}


def run(disksim: Path, lines: list[str], model: str, timeout_ms: int, work: Path) -> tuple[dict, list[str]]:
    specs = (DATA / "parv" / "memsdevices.memsref.specs").read_text()
    specs, count = re.subn(r"Time before sled inactive\s*=\s*[0-9.]+", f"Time before sled inactive  = {float(timeout_ms)}", specs)
    assert count == 3, "the specs name the timeout once per model"
    (work / "memsdevices.memsref.specs").write_text(specs)
    (work / "statdefs.mems").write_text((DATA / "parv" / "statdefs.mems").read_text())
    parv = work / f"memsref.{model}.parv"
    parv.write_text((DATA / "parv" / f"memsref.{model}.parv").read_text())
    last_ms = float(lines[-1].split()[0])
    trace = work / "run.trace"
    trace.write_text("\n".join(lines + [f"{last_ms + 1e7!r} 0 0 1 1"]) + "\n")
    responses = work / "run.resp"
    subprocess.run([str(disksim), parv.name, "run.out", "ascii", trace.name, "0"], cwd=work, check=True,
                   env={**os.environ, "IDLEWISE_RESPONSES": str(responses)}, stdout=subprocess.DEVNULL)
    out = (work / "run.out").read_text()
    printed = {}
    for key, pattern in PRINTED.items():
        m = re.search(pattern, out, re.MULTILINE)
        assert m, f"DiskSim's output has no '{key}'"
        printed[key] = int(m.group(1)) if key in ("spinups", "spindowns") else float(m.group(1))
    rows = []
    for line in responses.read_text().splitlines():
        arrival, response, devno, blkno, bcount, flags = line.split()
        rows.append(f"{float(arrival):.9f} {float(response):.9f} {devno} {blkno} {bcount} {flags}")
    assert len(rows) == len(lines), f"{len(rows)} responses for {len(lines)} requests"
    return printed, rows


def main(disksim: Path) -> None:
    (OUT / "workloads").mkdir(parents=True, exist_ok=True)
    (OUT / "responses").mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / "COPYRIGHT.disksim", OUT / "COPYRIGHT.disksim")
    summary = {}
    for w in FAMILY:
        lines = generate(w)
        with gzip.GzipFile(OUT / "workloads" / f"{w.name}.trace.gz", "wb", mtime=0) as f:
            f.write(("\n".join(lines) + "\n").encode())
        for model in MODELS:
            with tempfile.TemporaryDirectory() as tmp:
                printed, rows = run(disksim, lines, model, w.timeout_ms, Path(tmp))
            with gzip.GzipFile(OUT / "responses" / f"{w.name}.{model}.resp.gz", "wb", mtime=0) as f:
                f.write(("\n".join(rows) + "\n").encode())
            summary[f"{w.name}.{model}"] = {"workload": w.name, "model": model, "timeout_ms": w.timeout_ms,
                                            "requests": len(lines), **printed}
            print(f"{w.name:34s} {model} t={w.timeout_ms:3d} ms  mean {printed['mean_response_ms']:10.6f} ms  "
                  f"E {printed['total_energy_j']:.6f} J  spin-ups {printed['spinups']}")
    (OUT / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
