"""Regenerates the tables of docs/evidence.md: seed 001's timeout sweeps on the bundled traces,
each workload shaping measured two ways.

    python docs/evidence/tables.py

`E` = energy / always-on energy on the same workload. `D` = mean response / always-on mean
response, with responses measured from when each request is *issued* (the transformed workload's
own always-on run as reference). `D*` = responses measured from when each request was *originally*
wanted (prefetch semantics: data fetched early waits 0), normalised, as seed 001 Figure 4 is, to
the always-on run of the unmodified trace.
"""

from __future__ import annotations

import sys
from pathlib import Path

from idlewise.sweeps import TraceSource, sweep

ROOT = Path(__file__).resolve().parents[2]
RUNS = (
    ("hplajw, disk 0", TraceSource(path=str(ROOT / "python/idlewise/data/hplajw/ajw.1week.srt"), stream=0)),
    ("Financial1 prefix, ASU 2", TraceSource(path=str(ROOT / "tests/data/spc/financial1-prefix.ascii"), stream=2)),
)
DEVICE = "hitachi-travelstar-5k320"
POLICIES = ["always-on", "timeout:0s", "timeout:2s", "timeout:10s", "timeout:30s", "breakeven", "oracle"]
TRANSFORMS = ["none", "compress:64ops", "compress-reorder:64ops"]


def table(title: str, source: TraceSource) -> str:
    issue = sweep([source], [DEVICE], POLICIES, transforms=TRANSFORMS, jobs=1, progress=False)
    original = sweep([source], [DEVICE], POLICIES, transforms=TRANSFORMS, jobs=1, progress=False, response_from="original")
    unmodified_on = next(r for r in issue if r["transform"] == "none" and r["policy"] == "always-on")["mean_response_s"]
    cell = {(r["transform"], r["policy"]): r for r in issue}
    star = {(r["transform"], r["policy"]): r["mean_response_s"] / unmodified_on for r in original}
    head = "| policy | " + " | ".join(f"{t} E | D | D*" for t in TRANSFORMS) + " |"
    lines = [f"### {title}", "", head, "|---|" + "---:|" * (3 * len(TRANSFORMS))]
    for p in POLICIES[1:]:
        parts = []
        for t in TRANSFORMS:
            # E and D against the same (transformed) workload's always-on run, as defined above
            # (a sweep's own normalised columns take the unmodified trace's always-on).
            r, on = cell[(t, p)], cell[(t, "always-on")]
            parts.append(f"{r['energy_j'] / on['energy_j']:.3f} | {r['mean_response_s'] / on['mean_response_s']:.3g} | {star[(t, p)]:.3g}")
        lines.append(f"| {p} | " + " | ".join(parts) + " |")
    on = " / ".join(f"{t} {cell[(t, 'always-on')]['mean_response_s'] * 1e3:.1f} ms issue, "
                    f"{star[(t, 'always-on')] * unmodified_on * 1e3:.1f} ms original" for t in TRANSFORMS)
    lines += ["", f"Always-on mean response: {on}."]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write("\n\n".join(table(title, source) for title, source in RUNS) + "\n")
