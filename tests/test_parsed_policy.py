"""A built-in policy's spec is parsed once, by the engine (issue 63): the faces hand every run the
parsed spec (``_core.ParsedPolicy``), not its text to parse again; its family and canonical
label are the engine's; it pickles as its text (a sweep's processes and Dask workers); and a run
of the parsed spec is the run of its text, bit for bit."""

import pickle

import numpy as np
import pytest

import idlewise
from idlewise import IdlewiseError, _core
from idlewise.simulate import engine_specs, spec_label
from idlewise.sweeps import plan

DEVICE = "hitachi-travelstar-5k320"


def _trace():
    rng = np.random.default_rng(5)
    n = 400
    gaps = np.where(rng.random(n) < 0.2, rng.pareto(1.2, n) * 10.0 + 0.5, rng.uniform(0.001, 0.02, n))
    return idlewise.Trace.from_arrays(np.cumsum(gaps), rng.integers(1, 64, n) * 4096,
                                      offset_bytes=rng.integers(0, 1 << 24, n) * 4096, is_write=rng.random(n) < 0.3)


def test_the_faces_hand_the_engine_parsed_specs_named_as_written():
    device = idlewise.load_device(DEVICE)
    specs = engine_specs(["timeout:1s..3s/1s", " stpm:knob=30", "oracle"], device, 1.5)
    assert all(isinstance(s, _core.ParsedPolicy) for s in specs)
    assert [spec_label(s) for s in specs] == ["timeout:1s", "timeout:2s", "timeout:3s", " stpm:knob=30", "oracle"]
    assert [s.family for s in specs] == ["timeout", "timeout", "timeout", "stpm", "oracle"]
    # The canonical label is the built policy's (stpm's names the base power it was built with).
    assert [s.check(device, 1.5) for s in specs] == ["timeout:1s", "timeout:2s", "timeout:3s", "stpm:knob=30,base=1.5W", "oracle"]
    # A handle passes through as it is: not parsed again.
    assert engine_specs(specs[:2], device, 1.5) == specs[:2]


def test_a_bad_spec_is_refused_where_it_is_parsed_or_built_in_the_engines_words():
    device = idlewise.load_device(DEVICE)
    with pytest.raises(IdlewiseError, match=r"policy 'timout:2s': unknown policy 'timout' \(did you mean 'timeout'\?\)"):
        _core.ParsedPolicy("timout:2s")
    with pytest.raises(IdlewiseError, match=r"policy 'timeout:-2s': timeout: '-2s' must be a finite, non-negative duration"):
        engine_specs(["timeout:-2s"], device)
    # The same words whether given as text to a run or parsed first.
    with pytest.raises(IdlewiseError) as as_text:
        idlewise.simulate(_trace(), DEVICE, "stpm:knob=130")
    with pytest.raises(IdlewiseError) as parsed:
        _core.ParsedPolicy("stpm:knob=130").check(device)
    assert str(as_text.value) == str(parsed.value)


def test_a_parsed_spec_pickles_as_its_text():
    spec = _core.ParsedPolicy("timeout:90s")
    again = pickle.loads(pickle.dumps(spec))
    assert isinstance(again, _core.ParsedPolicy) and again is not spec
    assert (again.name, again.family, repr(again)) == ("timeout:90s", "timeout", "<policy timeout:90s>")


def test_a_run_of_the_parsed_spec_is_the_run_of_its_text_bit_for_bit():
    trace = _trace()
    texts = ["timeout:2s", "timeout:7s", "stpm:knob=50", "experts", "breakeven", "oracle"]
    device = idlewise.load_device(DEVICE)
    by_text = idlewise.simulate(trace, device, texts).to_dicts()
    by_handle = idlewise.simulate(trace, device, [_core.ParsedPolicy(t) for t in texts]).to_dicts()
    assert len(by_text) == len(by_handle) == len(texts)
    for a, b in zip(by_text, by_handle):
        assert a.keys() == b.keys()
        for key in a:
            same = a[key] == b[key] or (isinstance(a[key], float) and np.isnan(a[key]) and np.isnan(b[key]))
            assert same, (a["policy"], key, a[key], b[key])


def test_a_sweeps_tasks_carry_the_specs_parsed_once(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("time_s,size_bytes\n0.0,4096\n30.0,4096\n")
    written = tmp_path / "mine.py"
    written.write_text("import idlewise\nclass Mine(idlewise.Policy):\n    def plan(self, now_s, gap_s=None):\n        return []\n")
    tasks = plan([str(trace)], [DEVICE, "ibm-microdrive-340mb"], ["timeout:1s..2s/1s", f"python:{written}:Mine"], workers=4)
    specs = [s for t in tasks for s in t.specs]
    built_in = [s for s in specs if isinstance(s, _core.ParsedPolicy)]
    assert sorted(s.name for s in built_in) == ["timeout:1s", "timeout:1s", "timeout:2s", "timeout:2s"]
    # One handle for a spec, whatever task and device it runs in; a Python policy's spec is
    # loaded where its task runs.
    assert len({id(s) for s in built_in}) == 2
    assert [s for s in specs if not isinstance(s, _core.ParsedPolicy)] == [f"python:{written}:Mine"] * 2
