"""DiskSim 4.0's MEMS reference runs, and how a run of ours is compared with one, request by request.

The fixtures are made by tools/disksim-reference/ (see its README); these helpers only read them.
"""
from __future__ import annotations

import gzip
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import idlewise

DATA = Path(__file__).parent / "data" / "mems-disksim"
FAMILY = DATA / "family"


#: DiskSim's runs of the two shipped traces: (trace, model, policy, response file, DiskSim's mean
#: response in ms, DiskSim's spin-ups), as DiskSim printed them.
SHIPPED_RUNS = [
    ("visible", "g1", "timeout:100ms", "visible.g1", 1.705121, 100),
    ("visible", "g2", "timeout:100ms", "visible.g2", 0.940329, 102),
    ("visible", "g3", "timeout:100ms", "visible.g3", 0.631655, 101),
    ("memsvalid", "g1", "timeout:100ms", "memsvalid.g1", 2.004645, 1314),
    ("memsvalid", "g2", "timeout:100ms", "memsvalid.g2", 1.115134, 1332),
    ("memsvalid", "g3", "timeout:100ms", "memsvalid.g3", 0.783088, 1337),
    ("visible", "g2", "timeout:0s", "visible.g2.t0ms", 1.576188, 18362),
    ("visible", "g2", "timeout:1ms", "visible.g2.t1ms", 1.537744, 17261),
    ("visible", "g2", "timeout:10ms", "visible.g2.t10ms", 1.284401, 9865),
    ("visible", "g2", "timeout:50ms", "visible.g2.t50ms", 0.960821, 693),
    ("memsvalid", "g2", "timeout:0s", "memsvalid.g2.t0ms", 1.468125, 9745),
    ("memsvalid", "g2", "timeout:1ms", "memsvalid.g2.t1ms", 1.460386, 9560),
    ("memsvalid", "g2", "timeout:10ms", "memsvalid.g2.t10ms", 1.392518, 7978),
    ("memsvalid", "g2", "timeout:50ms", "memsvalid.g2.t50ms", 1.209134, 3583),
]


def run_shipped(trace_name: str, model: str, policy: str, ref: str) -> tuple[Match, dict]:
    """One of SHIPPED_RUNS by our engine, compared with DiskSim's responses request by request."""
    rows = np.loadtxt(DATA / f"{trace_name}.trace", ndmin=2)
    trace = idlewise.read_trace(DATA / f"{trace_name}.trace", format="disksim")
    results = idlewise.simulate(trace, f"cmu-mems-{model}", policy, keep_response_times=True, progress=False)
    run = next(r for r in results.raw_records() if r["policy"] not in ("always-on", "oracle"))
    return compare(rows, np.asarray(run["response_s"]) * 1e3, read_gz_rows(DATA / "responses" / f"{ref}.resp.gz")), run


def family_runs() -> dict[str, dict]:
    """Every run of the workload family: '<workload>.<model>' → what DiskSim printed for it."""
    return json.loads((FAMILY / "summary.json").read_text())


def read_gz_rows(path: Path) -> np.ndarray:
    with gzip.open(path, "rt") as f:
        return np.loadtxt(f, ndmin=2)


def read_family_trace(workload: str) -> idlewise.Trace:
    with gzip.open(FAMILY / "workloads" / f"{workload}.trace.gz", "rb") as f, tempfile.NamedTemporaryFile(suffix=".trace") as tmp:
        tmp.write(f.read())
        tmp.flush()
        return idlewise.read_trace(tmp.name, format="disksim")


@dataclass
class Match:
    requests: int
    ours_mean_ms: float
    disksim_mean_ms: float
    within_1us: float     # share of requests whose response is within 1 µs of DiskSim's
    worst_ms: float

    @property
    def mean_error(self) -> float:
        return self.ours_mean_ms / self.disksim_mean_ms - 1.0


def completion_order_free(arrival: np.ndarray, block: np.ndarray, read: np.ndarray, completion: np.ndarray) -> np.ndarray:
    """Completions with each group of same-block, same-direction requests that are outstanding
    together given its completions sorted, in arrival order. DiskSim's driver matches a completion
    to the first queued request with that block and direction, so within such a group it may
    report them in an order of its own; only the set of completion times is its answer."""
    out = completion.copy()
    order = np.lexsort((arrival, read, block))
    i, n = 0, len(order)
    while i < n:
        j, end = i, completion[order[i]]
        while j + 1 < n and block[order[j + 1]] == block[order[i]] and read[order[j + 1]] == read[order[i]] and arrival[order[j + 1]] < end:
            j += 1
            end = max(end, completion[order[j]])
        if j > i:
            group = order[i:j + 1]
            out[group[np.argsort(arrival[group], kind="stable")]] = np.sort(completion[group])
        i = j + 1
    return out


def compare(trace_rows: np.ndarray, ours_response_ms: np.ndarray, disksim_rows: np.ndarray) -> Match:
    """`trace_rows`: the workload (`arrival_ms devno blkno bcount flags`, in trace order);
    `ours_response_ms`: our response to each, in trace order; `disksim_rows`: DiskSim's response
    file (`arrival_ms response_ms devno blkno bcount flags`, in completion order)."""
    n = len(trace_rows)
    assert len(ours_response_ms) == n and len(disksim_rows) == n, (len(ours_response_ms), len(disksim_rows), n)
    arrival, block, read = trace_rows[:, 0], trace_rows[:, 2], trace_rows[:, 4].astype(int) & 1
    # DiskSim's rows in arrival order (ties by block, as the trace's equal times keep file order
    # and the groups below absorb any reordering within a block).
    theirs = disksim_rows[np.lexsort((disksim_rows[:, 3], disksim_rows[:, 0]))]
    in_order = np.lexsort((block, arrival))
    if not np.allclose(theirs[:, 0], arrival[in_order], atol=1e-6):
        raise ValueError("DiskSim's responses are not for this workload")
    their_completion = np.empty(n)
    their_completion[in_order] = theirs[:, 0] + theirs[:, 1]
    ours_completion = arrival + ours_response_ms
    ours_c = completion_order_free(arrival, block, read, ours_completion)
    theirs_c = completion_order_free(arrival, block, read, their_completion)
    diff = np.abs(ours_c - theirs_c)
    return Match(n, float(ours_response_ms.mean()), float(disksim_rows[:, 1].mean()), float(np.mean(diff < 1e-3)), float(diff.max()))


def run_ours(trace: idlewise.Trace, model: str, timeout_ms: float) -> tuple[np.ndarray, dict]:
    policy = f"timeout:{timeout_ms:g}ms" if timeout_ms else "timeout:0s"
    results = idlewise.simulate(trace, f"cmu-mems-{model}", policy, keep_response_times=True, progress=False)
    run = next(r for r in results.raw_records() if r["policy"] not in ("always-on", "oracle"))
    return np.asarray(run["response_s"]) * 1e3, run
