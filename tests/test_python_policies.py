"""Policies written in Python (issue 66): the engine runs an `idlewise.Policy` as it runs a
built-in. Exactness is checked differentially: a fixed timeout, the lower envelope (breakeven) and
an adaptive policy (the docs' example, `predictive:prewake=0`), each written again in Python from
its definition, give the built-in's rows over generated traces of many shapes and several devices
(counts exactly, floats to 1e-12). Then the hooks see what the engine did, failures say whose and
where, and the policy runs wherever a built-in runs: streamed files, sweeps (in processes and on
Dask), the command line, the live manager's replay."""

import json
import math
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
from screens import last_message

import idlewise
from idlewise import IdlewiseError, Policy, PolicyError
from idlewise.cli import main

from python_policies import Counting, LowerEnvelope, Timeout

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "exp_average.py"
COUNTS = ("wakeups", "cycle_wakeups", "requests", "delayed_requests", "transitions")
FLOATS = ("energy_j", "system_energy_j", "makespan_s", "mean_response_s", "p99_response_s", "max_response_s",
          "transition_energy_j", "service_time_s", "energy_vs_oracle", "normalized_energy")


def generated(seed: int, n: int, shape: str):
    """Requests of many shapes: bursts and long gaps, a steady trickle, ties, tiny gaps (queues)."""
    rng = np.random.default_rng(seed)
    if shape == "bursty":
        gaps = np.where(rng.random(n) < 0.1, rng.pareto(1.2, n) * 5.0, rng.exponential(0.01, n))
    elif shape == "trickle":
        gaps = rng.exponential(4.0, n)
    elif shape == "ties":
        gaps = np.round(rng.exponential(3.0, n), 0)
    else:  # queues: arrivals faster than service, then long rests
        gaps = np.where(rng.random(n) < 0.02, rng.uniform(5, 600, n), rng.exponential(0.0005, n))
    t = np.cumsum(gaps)
    sizes = rng.choice([512, 4096, 65536, 1 << 20], n)
    return idlewise.Trace.from_arrays(t, sizes, offset_bytes=rng.integers(0, 10**9, n) // 512 * 512, is_write=rng.random(n) < 0.4)


def same(python_row: dict, builtin_row: dict) -> None:
    for key in COUNTS:
        assert python_row[key] == builtin_row[key], (builtin_row["policy"], key, python_row[key], builtin_row[key])
    for key in FLOATS:
        a, b = python_row[key], builtin_row[key]
        assert a == pytest.approx(b, rel=1e-12, abs=1e-12), (builtin_row["policy"], key, a, b)


SHAPES = [(seed, n, shape) for seed, (n, shape) in enumerate([(3000, "bursty"), (2000, "trickle"), (2000, "ties"),
                                                             (4000, "queues"), (500, "bursty")])]
DEVICES = ["ibm-microdrive-340mb", "hitachi-travelstar-5k320", "seagate-constellation-es1-500gb", "samsung-950-pro-512gb",
           "hitachi-microdrive-1gb", "cisco-350"]


@pytest.mark.parametrize("seed, n, shape", SHAPES)
@pytest.mark.parametrize("device", DEVICES)
def test_a_timeout_and_the_lower_envelope_written_in_python_give_the_built_ins_rows(seed, n, shape, device):
    trace = generated(seed, n, shape)
    rows = idlewise.simulate(trace, device, [Timeout(2.0), "timeout:2s", Timeout(30.0), "timeout:30s", LowerEnvelope(), "breakeven"],
                             progress=False).to_dicts()
    for python_row, builtin_row in zip(rows[0::2], rows[1::2]):
        same(python_row, builtin_row)
    assert [r["policy"] for r in rows[0::2]] == ["py-timeout:timeout_s=2", "py-timeout:timeout_s=30", "py-breakeven"]
    assert [r["family"] for r in rows[0::2]] == ["py-timeout", "py-timeout", "py-breakeven"]


@pytest.mark.parametrize("seed, n, shape", SHAPES)
@pytest.mark.parametrize("device", ["ibm-microdrive-340mb", "hitachi-travelstar-e7k100", "ibm-ultrastar-36z15"])
@pytest.mark.parametrize("a", [0.25, 0.5, 0.9])
def test_the_docs_adaptive_policy_gives_predictive_without_prewake(seed, n, shape, device, a):
    trace = generated(seed, n, shape)
    spec = f"python:{EXAMPLE}:ExpAverage:a={a}"
    rows = idlewise.simulate(trace, device, [spec, f"predictive:a={a},prewake=0"], progress=False).to_dicts()
    same(rows[0], rows[1])
    assert rows[0]["policy"] == f"exp-average:a={a:g}"


def test_the_hooks_see_what_the_engine_did():
    # Requests at 0, 10 and 10.001 s on the Microdrive (sleep after 2 s): the first finds it
    # ready, the second asleep after 10 s less its service (it wakes it), the third queues
    # behind the wake-up. Every idle period ends as the next request comes.
    trace = idlewise.Trace.from_arrays([0.0, 10.0, 10.001], [4096, 8192, 512], is_write=[False, True, False])
    Counting.log = []
    run = idlewise.simulate(trace, "ibm-microdrive-340mb", [Counting(2.0)], progress=False, per_request=True, references=False)
    starts = run.per_request().column("start_s").to_pylist()
    service = [r["response_s"] for r in run.per_request().to_pylist()]
    log = Counting.log
    requests = [e for e in log if e[0] == "request"]
    assert [r[1:5] for r in requests] == [(0, 0.0, 4096.0, False), (1, 10.0, 8192.0, True), (2, 10.001, 512.0, False)]
    first_done = starts[0] + service[0]
    assert requests[0][5:] == (0.0, False)
    assert requests[1][5] == pytest.approx(10.0 - first_done, abs=1e-12) and requests[1][6] is True
    assert requests[2][5:] == (0.0, False)  # queued behind the wake-up: no idle period of its own
    kinds = [e[0] for e in log]
    # The gap is planned when it is first needed (the next arrival), told its length, then the
    # request is seen; the last gap is planned at the run's end.
    assert kinds == ["request", "plan", "idle", "request", "request"]  # no tail asked: the run ends at the last completion
    assert log[1][1] == pytest.approx(first_done) and log[2][1] == pytest.approx(10.0 - first_done)


def test_a_policy_that_defines_only_plan_is_called_once_an_idle_period():
    calls = []

    class Ready(Policy):
        def plan(self, now_s):
            calls.append(now_s)  # a closure's list: the copies the engine runs share it
            return []  # stays ready: its idle periods are always-on's

    from idlewise import _core

    trace = generated(1, 2000, "trickle")
    device = idlewise.load_device("ibm-microdrive-340mb")
    gaps = _core.idle_gaps(trace.time_s, trace.offset_bytes, trace.size_bytes, trace.is_write, device)
    idlewise.simulate(trace, device, [Ready()], progress=False, references=False)
    assert len(calls) == int((gaps > 0).sum()) == 1875


@pytest.mark.parametrize("returned, needle", [
    ([(1.0, "nap")], "the device has no mode 'nap'; its modes: wait, sleep"),
    ([(-1.0, "sleep")], "idle_s must be a non-negative number of seconds, got -1"),
    ([(float("nan"), "sleep")], "idle_s must be a non-negative number of seconds, got NaN"),
    ([(2.0, "sleep"), (1.0, "wait")], "idle_s 1 comes before the step before it (2)"),
    ([(1.0,)], "must be (idle_s, mode)"),
    (5, "plan() must return a sequence of (idle_s, mode) steps, got int"),
    ([("soon", "sleep")], "idle_s must be a number of seconds, got str"),
    ([(1.0, 3)], "mode must be a mode's name, got int"),
])
def test_a_bad_plan_is_refused_naming_the_value(returned, needle):
    class Bad(Policy):
        def plan(self, now_s):
            return returned

    trace = generated(2, 50, "trickle")
    with pytest.raises(PolicyError) as e:
        idlewise.simulate(trace, "ibm-microdrive-340mb", [Bad(), "timeout:2s"], progress=False)
    text = str(e.value)
    assert text.startswith("policy 'bad' failed in plan() for the idle period from ") and needle in text, text
    assert "before request 1" in text


def test_an_exception_in_the_policy_names_it_the_request_and_the_time_with_its_own_traceback():
    class Flaky(Policy):
        def __init__(self, after=10):
            self.after, self.seen = after, 0

        def plan(self, now_s):
            return [(2.0, "sleep")]

        def observe(self, request):
            self.seen += 1
            if self.seen > self.after:
                raise RuntimeError(f"gave up after {self.after}")

    trace = generated(3, 500, "trickle")
    with pytest.raises(PolicyError) as e:
        idlewise.simulate(trace, "ibm-microdrive-340mb", [Flaky(after=100)], progress=False)
    assert str(e.value) == (f"policy 'flaky:after=100' failed in observe() at request 100 ({trace.time_s[100]:.6f} s): "
                            "RuntimeError: gave up after 100")
    cause = e.value.__cause__
    assert isinstance(cause, RuntimeError)
    frames = [f.name for f in __import__("traceback").extract_tb(cause.__traceback__)]
    assert frames == ["observe"]  # the policy's own frame, nothing of the engine's


def test_nothing_is_written_when_a_policy_fails(tmp_path):
    policy = tmp_path / "fails.py"
    policy.write_text("import idlewise\nclass Fails(idlewise.Policy):\n    def plan(self, now_s):\n        raise KeyError('x')\n")
    out = tmp_path / "runs.csv"
    code = main(["sweep", str(ROOT / "tests" / "data" / "disksim" / "ascii.trace"), "--device", "hitachi-microdrive-1gb",
                 "--policy", f"python:{policy}:Fails", "--policy", "timeout:2s", "--out", str(out), "--jobs", "1"])
    assert code == 2 and not out.exists()


def test_a_name_of_a_built_in_and_a_class_without_plan_are_refused():
    class Oracle(Policy):
        def plan(self, now_s):
            return []

    class Empty(Policy):
        pass

    trace = generated(4, 20, "trickle")
    with pytest.raises(IdlewiseError, match="'oracle' is a built-in policy's name; name yours otherwise"):
        idlewise.simulate(trace, "ibm-microdrive-340mb", [Oracle()], progress=False)
    with pytest.raises(IdlewiseError, match="must define plan"):
        idlewise.simulate(trace, "ibm-microdrive-340mb", [Empty()], progress=False)


@pytest.mark.parametrize("spec, needle", [
    ("python:nowhere.py:X", "cannot read nowhere.py"),
    ("python:{example}:Nope", "has no class Nope; its policies: ExpAverage"),
    ("python:{example}:ExpAverage:a=7", "ExpAverage(a=7) failed: ValueError: a must be in [0, 1]"),
    ("python:{example}:ExpAverage:a", "parameter 'a' must be key=value"),
    ("python:{example}", "python:FILE.py:Class"),
])
def test_a_bad_python_spec_says_what_is_wrong(spec, needle):
    with pytest.raises(IdlewiseError) as e:
        idlewise.simulate(generated(5, 20, "trickle"), "ibm-microdrive-340mb", [spec.format(example=EXAMPLE)], progress=False)
    assert needle in str(e.value), str(e.value)


def test_an_offline_policy_is_told_each_idle_period_s_length():
    told = []

    class Knows(Policy):
        offline = True

        def plan(self, now_s, gap_s):
            told.append(gap_s)
            return []  # stays ready: its idle periods are always-on's

    trace = generated(6, 2000, "bursty")
    from idlewise import _core

    device = idlewise.load_device("ibm-microdrive-340mb")
    gaps = _core.idle_gaps(trace.time_s, trace.offset_bytes, trace.size_bytes, trace.is_write, device)
    idlewise.simulate(trace, device, [Knows()], progress=False, references=False)
    assert told == [g for g in gaps.tolist() if g > 0]
    with pytest.raises(IdlewiseError, match="'knows' reads each idle gap's length before the gap starts"):
        idlewise.hybrid(trace, description="seed003-e7k100-ultra-ii", policy=Knows())


def test_a_streamed_file_gives_the_rows_of_the_trace_in_memory(tmp_path):
    trace = generated(7, 3000, "bursty")
    path = tmp_path / "t.csv"
    path.write_text("time_s,offset_bytes,size_bytes,op\n" + "".join(
        f"{t!r},{o},{s},{'W' if w else 'R'}\n" for t, o, s, w in zip(trace.time_s.tolist(), trace.offset_bytes.tolist(),
                                                                      trace.size_bytes.tolist(), trace.is_write.tolist())))
    policies = [LowerEnvelope(), f"python:{EXAMPLE}:ExpAverage:a=0.5", "timeout:2s"]
    whole = idlewise.simulate(idlewise.read_trace(path), "ibm-microdrive-340mb", policies, progress=False).to_dicts()
    streamed = idlewise.simulate_file(path, "ibm-microdrive-340mb", policies, progress=False).to_dicts()
    for a, b in zip(whole, streamed):
        assert (a["policy"], a["energy_j"], a["wakeups"], a["mean_response_s"]) == (b["policy"], b["energy_j"], b["wakeups"], b["mean_response_s"])


def test_a_sweep_of_a_parameter_grid_runs_in_processes_as_in_one(tmp_path):
    trace = generated(8, 3000, "bursty")
    grid = [f"python:{EXAMPLE}:ExpAverage:a=0.1..0.9/0.2", Timeout(5.0), "timeout:5s"]
    pooled = idlewise.sweep([trace], ["ibm-microdrive-340mb"], grid, jobs=2, progress=False).to_dicts()
    alone = idlewise.sweep([trace], ["ibm-microdrive-340mb"], grid, jobs=1, progress=False).to_dicts()
    key = lambda r: r["policy"]  # noqa: E731
    assert sorted(map(key, pooled)) == sorted(map(key, alone)) and len(alone) == 7
    by = {key(r): r for r in alone}
    for r in pooled:
        assert (r["energy_j"], r["wakeups"]) == (by[key(r)]["energy_j"], by[key(r)]["wakeups"])
    assert by["exp-average:a=0.5"]["family"] == "exp-average"


def test_a_sweep_on_dask_loads_the_policy_file_on_its_workers():
    distributed = pytest.importorskip("dask.distributed")
    trace = generated(9, 1000, "bursty")
    grid = [f"python:{EXAMPLE}:ExpAverage:a=0.2..0.8/0.3", "timeout:5s"]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, scheduler_port=0) as cluster:
        remote = idlewise.sweep([trace], ["ibm-microdrive-340mb"], grid, scheduler=cluster.scheduler_address, progress=False)
    local = idlewise.sweep([trace], ["ibm-microdrive-340mb"], grid, jobs=1, progress=False)
    assert sorted((r["policy"], r["energy_j"]) for r in remote) == sorted((r["policy"], r["energy_j"]) for r in local)


def test_a_policy_instance_pickles_as_dask_and_processes_carry_it():
    policy = Timeout(3.0)
    again = pickle.loads(pickle.dumps(policy))
    assert again.name == policy.name == "py-timeout:timeout_s=3" and again.params == {"timeout_s": 3.0}


def test_the_command_line_runs_a_policy_file_with_its_parameters(capsys):
    trace = str(ROOT / "python" / "idlewise" / "data" / "hplajw" / "ajw.1week.srt")
    assert main(["simulate", trace, "--stream", "0", "--device", "ibm-microdrive-340mb", "--json",
                 "--policy", f"python:{EXAMPLE}:ExpAverage:a=0.5,csat=2", "--policy", "predictive:prewake=0"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["policy"] == "exp-average:a=0.5,csat=2" and rows[0]["family"] == "exp-average"
    same(rows[0], rows[1])


def test_the_command_line_shows_the_policy_s_own_traceback(tmp_path, capsys):
    policy = tmp_path / "boom.py"
    policy.write_text("import idlewise\n\nclass Boom(idlewise.Policy):\n    def plan(self, now_s):\n"
                      "        return [(1 / 0, 'sleep')]\n")
    code = main(["simulate", str(ROOT / "tests" / "data" / "disksim" / "ascii.trace"), "--device", "ibm-microdrive-340mb",
                 "--policy", f"python:{policy}:Boom"])
    err = capsys.readouterr().err
    assert code == 2
    assert f'File "{policy}", line 5, in plan' in err and "ZeroDivisionError: division by zero" in err
    assert last_message(err).startswith("idlewise: error: ") and "policy 'boom' failed in plan()" in err
    assert "idlewise/" not in err.replace(str(policy), "")  # no frame of idlewise's own


def test_the_live_manager_s_replay_of_a_python_policy_equals_simulate_observed():
    recording = str(ROOT / "tests" / "data" / "diskstats" / "build-vm.diskstats")
    from idlewise.manage.replay import replay

    spec = f"python:{EXAMPLE}:ExpAverage:a=0.5"
    decisions, account = replay(recording, spec, "hitachi-travelstar-e7k100", disk="vda")
    row = idlewise.simulate(idlewise.read_trace(recording, stream="vda"), "hitachi-travelstar-e7k100", [spec],
                            progress=False, service="observed").to_dicts()[0]
    assert (account["energy_j"], account["wakeups"]) == (row["energy_j"], row["wakeups"])
    assert decisions and all(d.get("policy", "exp-average:a=0.5") == "exp-average:a=0.5" for d in decisions)


def test_a_plan_only_policy_runs_fast_enough_to_matter():
    # Not a timing test (benchmarks/python_policy.py measures): the per-request path is not
    # taken for a policy that does not observe, so a million-request trace takes its gaps' calls.
    class Plain(Policy):
        def plan(self, now_s):
            return [(2.0, "sleep")]

    assert not hasattr(Plain, "observe") or Plain.observe is Policy.observe
    row = idlewise.simulate(generated(10, 20_000, "trickle"), "ibm-microdrive-340mb", [Plain()], progress=False).to_dicts()[0]
    assert row["requests"] == 20_000


def test_a_hybrid_disk_runs_a_python_policy_as_the_built_in():
    trace = generated(11, 3000, "bursty")
    python = idlewise.hybrid(trace, description="seed003-e7k100-ultra-ii", policy=Timeout(10.0)).to_dicts()
    builtin = idlewise.hybrid(trace, description="seed003-e7k100-ultra-ii", policy="timeout:10s").to_dicts()
    assert len(python) == len(builtin)
    for a, b in zip(python, builtin):
        assert (a["spinups"], a["writes_redirected"]) == (b["spinups"], b["writes_redirected"])
        assert a["energy_j"] == pytest.approx(b["energy_j"], rel=1e-12)


from hypothesis import given, strategies as st  # noqa: E402

from properties import property_test  # noqa: E402


@property_test(60)
@given(gaps=st.lists(st.one_of(st.floats(0, 0.05), st.floats(0.05, 30), st.floats(30, 4000), st.just(0.0)), min_size=1,
                     max_size=300),
       sizes=st.lists(st.sampled_from([512, 4096, 65536, 1 << 20]), min_size=1, max_size=300),
       timeout_s=st.one_of(st.floats(0, 120), st.sampled_from([0.0, 1.0, 2.0, 10.0])),
       device=st.sampled_from(DEVICES),
       tail_s=st.sampled_from([0.0, 5.0, 3600.0]))
def test_python_policies_give_the_built_ins_rows_on_any_trace(gaps, sizes, timeout_s, device, tail_s):
    # The property behind the hand-picked shapes: any arrivals (ties, queues, long gaps), any
    # timeout, a tail or none; the Python timeout and lower envelope are their built-ins.
    t = np.cumsum(gaps)
    s = np.resize(np.asarray(sizes), len(t))
    trace = idlewise.Trace.from_arrays(t, s, offset_bytes=(np.arange(len(t)) * 7919 % 100_000) * 4096,
                                       is_write=np.arange(len(t)) % 3 == 0)
    spec = f"timeout:{timeout_s!r}s"
    rows = idlewise.simulate(trace, device, [Timeout(timeout_s), spec, LowerEnvelope(), "breakeven"], progress=False,
                             tail_s=tail_s).to_dicts()
    same(rows[0], rows[1])
    same(rows[2], rows[3])
