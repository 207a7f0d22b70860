"""Per-request records and mode timelines (issue 12): what each request found and when it was
served, checked against a hand-worked run; the Parquet file `simulate --per-request` writes."""

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, strategies as st

import idlewise
from idlewise import IdlewiseError
from idlewise.cli import main

from conftest import TOY_DISK
from properties import property_test

# The toy disk with 1 MB/s media: a 1,000,000-byte request takes 1 s.
SLOW_TOY = TOY_DISK.replace("1e12", "1e6").replace('"toy-disk"', '"slow-toy"')


@pytest.fixture
def slow_toy(tmp_path):
    path = tmp_path / "slow-toy.toml"
    path.write_text(SLOW_TOY)
    return str(path)


def hand_worked_trace():
    # timeout:5s. Served 0-1; idle 1-6; stopping 6-7; standby 7-100; the request at 100 wakes
    # the disk (10 s) and is served 110-111; the one at 104 arrives during the wake-up and is
    # served 111-112; the one at 112 finds the disk ready the instant it frees (112-113).
    return idlewise.Trace.from_arrays([0.0, 100.0, 104.0, 112.0], [1_000_000] * 4)


def test_per_request_records_match_the_hand_worked_run(slow_toy):
    results = idlewise.simulate(hand_worked_trace(), slow_toy, ["timeout:5s"], per_request=True, progress=False)
    rows = results.per_request().to_pandas()
    assert rows["request"].tolist() == [0, 1, 2, 3]
    assert rows["arrival_s"].tolist() == [0.0, 100.0, 104.0, 112.0]
    assert rows["start_s"].tolist() == pytest.approx([0.0, 110.0, 111.0, 112.0])
    assert rows["finish_s"].tolist() == pytest.approx([1.0, 111.0, 112.0, 113.0])
    assert rows["response_s"].tolist() == pytest.approx([1.0, 11.0, 8.0, 1.0])
    assert rows["wait_s"].tolist() == pytest.approx([0.0, 10.0, 7.0, 0.0])
    assert rows["mode_at_arrival"].astype(str).tolist() == ["ready", "standby", "standby→ready", "ready"]
    # The records agree with the run's own statistics.
    assert rows["response_s"].mean() == pytest.approx(results[0]["mean_response_s"])
    assert (rows["wait_s"] > 0).sum() == results[0]["delayed_requests"]


def test_a_request_queued_behind_another_found_the_disk_serving(slow_toy):
    trace = idlewise.Trace.from_arrays([0.0, 0.5], [1_000_000] * 2)
    rows = idlewise.simulate(trace, slow_toy, ["always-on"], per_request=True, progress=False).per_request().to_pandas()
    assert rows["mode_at_arrival"].astype(str).tolist() == ["ready", "serving"]
    assert rows["start_s"].tolist() == pytest.approx([0.0, 1.0])


def test_timeline_is_the_hand_worked_run_clipped_to_its_window(slow_toy):
    results = idlewise.simulate(hand_worked_trace(), slow_toy, ["timeout:5s"], timeline_s=(0.5, 500.0), progress=False)
    got = [(round(a, 9), round(b, 9), what) for a, b, what in results.timeline().to_pandas()[["start_s", "end_s", "activity"]].itertuples(index=False)]
    assert got == [(0.5, 1.0, "serving"), (1.0, 6.0, "ready"), (6.0, 7.0, "ready→standby"), (7.0, 100.0, "standby"),
                   (100.0, 110.0, "standby→ready"), (110.0, 113.0, "serving")]


def test_asking_for_what_was_not_kept_says_how_to_keep_it(slow_toy):
    results = idlewise.simulate(hand_worked_trace(), slow_toy, ["timeout:5s"], progress=False)
    with pytest.raises(ValueError, match="per_request=True"):
        results.per_request()
    with pytest.raises(ValueError, match="timeline_s"):
        results.timeline()
    with pytest.raises(IdlewiseError, match="to > from"):
        idlewise.simulate(hand_worked_trace(), slow_toy, ["timeout:5s"], timeline_s=(5, 1))
    kept = idlewise.simulate(hand_worked_trace(), slow_toy, ["timeout:5s"], per_request=True, progress=False)
    with pytest.raises(KeyError, match="timeout:5s"):
        kept.per_request("timeout:9s")
    # Per-request arrays stay out of tables and JSON.
    assert "response_s" not in kept.to_pandas().columns
    assert "start_s" not in kept.to_dicts(json_safe=True)[0]


def test_simulate_per_request_writes_every_run_to_parquet(slow_toy, tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("time_s,offset_bytes,size_bytes,op\n0,0,1000000,R\n100,0,1000000,W\n104,0,1000000,R\n112,0,1000000,R\n")
    out = tmp_path / "requests.parquet"
    assert main(["simulate", str(trace), "--device", slow_toy, "--policy", "timeout:5s", "--policy", "always-on",
                 "--per-request", str(out)]) == 0
    assert "wrote 8 per-request rows" in capsys.readouterr().err
    table = pq.read_table(out).to_pandas()
    assert table.columns.tolist() == ["run", "policy", "device", "stream", "request", "arrival_s", "start_s", "finish_s",
                                      "response_s", "wait_s", "mode_at_arrival"]
    timeout = table[table["policy"] == "timeout:5s"]
    assert timeout["response_s"].tolist() == pytest.approx([1.0, 11.0, 8.0, 1.0])
    assert set(table["device"].astype(str)) == {"slow-toy"}
    on = table[table["policy"] == "always-on"]
    assert on["response_s"].tolist() == pytest.approx([1.0, 1.0, 1.0, 1.0])


def test_per_request_reads_the_trace_whole_even_with_the_old_chunks_flag(slow_toy, tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("time_s,offset_bytes,size_bytes,op\n0,0,1000000,R\n")
    assert main(["simulate", str(trace), "--device", slow_toy, "--policy", "always-on", "--chunks",
                 "--per-request", str(tmp_path / "x.parquet")]) == 0
    assert pq.read_table(tmp_path / "x.parquet").num_rows == 1


def _timeline_before(results):
    """`Results.timeline` as it was built before issue 63, segment by segment in Python: the
    reference the NumPy build must equal."""
    out = []
    for run, r in enumerate(results):
        if "timeline" not in r:
            continue
        starts, ends, codes = r["timeline"]
        labels = r["activity_labels"]
        last_end = None
        for start, end, code in zip(starts.tolist(), ends.tolist(), codes.tolist()):
            segments = [(last_end, start, "serving")] if last_end is not None and start > last_end else []
            for a, b, activity in segments + [(start, end, labels[code])]:
                out.append((run, r.get("spec") or r["policy"], a, b, activity))
            last_end = end
    return out


@property_test(40)
@given(gaps=st.lists(st.floats(min_value=0.0, max_value=120.0), min_size=1, max_size=40),
       sizes=st.lists(st.integers(min_value=0, max_value=4 << 20), min_size=41, max_size=41),
       device=st.sampled_from(["hitachi-microdrive-1gb", "hitachi-travelstar-5k320", "seagate-constellation-es1-500gb"]),
       window=st.tuples(st.floats(min_value=0.0, max_value=500.0), st.floats(min_value=1.0, max_value=5000.0)))
def test_the_timeline_equals_the_segments_it_was_built_from(gaps, sizes, device, window):
    times = np.cumsum([0.0] + gaps)
    trace = idlewise.Trace.from_arrays(times, sizes[: len(times)])
    results = idlewise.simulate(trace, device, ["timeout:2s", "timeout:30s", "stpm:knob=50", "oracle"],
                                timeline_s=(window[0], window[0] + window[1]), progress=False)
    table = results.timeline().to_pandas()
    got = list(zip(table["run"], table["policy"], table["start_s"], table["end_s"], table["activity"]))
    assert got == _timeline_before(results)
