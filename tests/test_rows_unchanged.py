"""Every row stays as it was, bit for bit, now that the engine hands its runs over as columns
(issue 63): the records of ``simulate`` (a trace in memory, with per-request records and a
timeline), ``simulate_file`` (a file of many devices, replayed as read) and ``sweep`` (in memory
with a transform, and streamed over volume parts), over every device kind of the catalog and
every policy family a device can run, equal those the engine gave as one dict a run before
(``tests/data/rows-before-columns.json.gz``, written by the code before the change: commit 9dfbe4b).

The fixture is written by this file's ``__main__`` under the package to compare against:

    PYTHONPATH=/path/to/the/old/package python tests/test_rows_unchanged.py --write
"""

import gzip
import json
import math
import sys
from pathlib import Path

FIXTURE = Path(__file__).parent / "data" / "rows-before-columns.json.gz"
#: Where the checkout lies is no part of a row: the fixture names it by this word.
CHECKOUT = str(Path(__file__).resolve().parents[1])
DISKSIM = Path(__file__).parent / "data" / "disksim" / "ascii.trace"
#: One device of every kind, and those with policies of their own (EPC, APST, PSM).
DEVICES = ("ibm-microdrive-340mb", "hitachi-travelstar-5k320", "wd-red-plus-4tb", "samsung-950-pro-512gb", "cisco-350",
           "compaq-sandisk-cf-64mb", "cmu-mems-g2", "ibm-mems-seed004")
#: Those whose per-request records and timeline are compared too.
PER_REQUEST = ("hitachi-travelstar-5k320", "cisco-350")


def _plain(value):
    """A record's value as JSON holds it exactly: floats by repr (NaN and infinities too),
    arrays as lists, keys in order."""
    if isinstance(value, float):
        return {"float": repr(value)}
    if isinstance(value, str):
        return value.replace(CHECKOUT, "<checkout>")
    if isinstance(value, dict):
        return {"dict": [[k, _plain(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return {"list": [_plain(v) for v in value]}
    if hasattr(value, "tolist"):
        return {"array": [_plain(v) for v in value.tolist()], "dtype": str(value.dtype)}
    return value


def _records(results) -> list:
    return [[[k, _plain(v)] for k, v in r.items()] for r in results]


def cases() -> dict:
    """Each case's records, under the package imported."""
    import numpy as np

    import idlewise
    from idlewise import _core

    rng = np.random.default_rng(63)
    n = 1500
    gaps = np.where(rng.random(n) < 0.1, rng.pareto(1.2, n) * 4.0 + 0.5, rng.uniform(0.001, 0.02, n))
    trace = idlewise.Trace.from_arrays(np.cumsum(gaps), rng.integers(1, 64, n) * 4096,
                                       offset_bytes=rng.integers(0, 1 << 24, n) * 4096, is_write=rng.random(n) < 0.3)
    examples = [f["example"] for f in _core.policy_families()]
    out = {}
    for name in DEVICES:
        device = idlewise.load_device(name)
        runnable = []
        for spec in examples:
            try:
                _core.check_policy(spec, device)
            except Exception:
                continue
            runnable.append(spec)
        out[f"simulate {name}"] = _records(idlewise.simulate(trace, device, runnable, references=True, fold_offsets=True))
        if name in PER_REQUEST:
            out[f"simulate {name} per request"] = _records(idlewise.simulate(
                trace.subset(np.arange(300)), device, runnable[:3], per_request=True, fold_offsets=True, timeline_s=(10.0, 60.0)))
    five = ["timeout:1s", "timeout:5s..25s/10s", "stpm:knob=50", "oracle"]
    out["simulate_file disksim"] = _records(idlewise.simulate_file(DISKSIM, "hitachi-travelstar-5k320", five, progress=False))
    out["sweep disksim in memory, compressed"] = _records(idlewise.sweep(
        [idlewise.read_trace(DISKSIM)], ["ibm-microdrive-340mb"], five,
        transforms=["none", "compress:64ops"], jobs=1, progress=False))
    out["sweep disksim streamed in parts"] = _records(idlewise.sweep(
        [str(DISKSIM)], ["hitachi-microdrive-1gb"], five, volume_parts=3, jobs=1, progress=False))
    return out


def _same(before, now, where: str) -> None:
    assert type(before) is type(now), f"{where}: {before!r} became {now!r}"
    if isinstance(before, dict) and "float" in before:
        a, b = float(before["float"]), float(now["float"])
        assert (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b)), \
            f"{where}: {a!r} became {b!r}"
    elif isinstance(before, dict):
        assert list(before) == list(now), f"{where}: {list(before)} became {list(now)}"
        for k in before:
            _same(before[k], now[k], f"{where}.{k}")
    elif isinstance(before, list):
        assert len(before) == len(now), f"{where}: {len(before)} items became {len(now)}"
        for i, (a, b) in enumerate(zip(before, now)):
            _same(a, b, f"{where}[{i}]")
    else:
        assert before == now, f"{where}: {before!r} became {now!r}"


def test_every_row_is_as_the_engine_gave_it_one_dict_a_run():
    before = json.loads(gzip.decompress(FIXTURE.read_bytes()))
    now = json.loads(json.dumps(cases()))
    assert list(before) == list(now)
    for case in before:
        assert len(before[case]) == len(now[case]), case
        for i, (a, b) in enumerate(zip(before[case], now[case])):
            assert [k for k, _ in a] == [k for k, _ in b], f"{case} run {i}: its keys or their order changed"
            for (key, x), (_, y) in zip(a, b):
                _same(x, y, f"{case} run {i} {key}")
    # Cases the fixture must cover, so that the comparison above cannot pass on little.
    assert sum(len(v) for v in before.values()) > 150
    kinds = {k for case in before.values() for r in case for k, _ in r}
    assert {"theoretical_min_energy_j", "arrival_s", "timeline", "stream_name", "finish_s"} <= kinds


if __name__ == "__main__" and "--write" in sys.argv:
    FIXTURE.write_bytes(gzip.compress(json.dumps(cases(), separators=(",", ":")).encode(), mtime=0))
    print(f"{FIXTURE}: {FIXTURE.stat().st_size:,} bytes")
