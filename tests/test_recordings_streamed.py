"""Recordings streamed (issue 62): a diskstats recording's requests are made from its counters as
the replay consumes them, a batch at a time, in every command that reads one, with its idle
before the first request and after the last kept: every row is, bit for bit, the row of the same
recording read whole, over generated recordings of many shapes (one disk and several, resets,
I/O in flight, long leads and tails, intervals larger than a batch)."""

import json

import numpy as np
import pytest

import idlewise
from idlewise.cli import main
from idlewise.traces.readers import diskstats

from conftest import TRACES

FIGURES = ("energy_j", "system_energy_j", "makespan_s", "first_arrival_s", "wakeups", "cycle_wakeups", "requests",
           "mean_response_s", "p99_response_s", "max_response_s", "delayed_requests", "transition_energy_j",
           "service_time_s", "service_energy_j", "energy_vs_oracle", "normalized_energy", "offered_load",
           "time_by_mode_s", "energy_by_mode_j", "transitions")


def generated(path, rng, *, devices=("sdb",), snapshots=400, interval=1.0, lead=0, tail=0, resets=False, burst=None):
    """A recording of ``devices``: idle for ``lead`` snapshots, then bursts and gaps, idle for
    ``tail`` snapshots; busy time and I/Os in flight as a disk gives them; a reboot's reset now
    and then; ``burst`` requests in one interval (more than a batch)."""
    lines = []
    state = {d: np.zeros(11, np.int64) for d in devices}
    t0 = 1_700_000_000.123456789
    for k in range(snapshots):
        t = t0 + k * interval + rng.random() * 0.01
        for minor, d in enumerate(devices):
            c = state[d]
            if lead <= k < snapshots - tail and k > 0:
                n = int(rng.integers(0, 40)) if rng.random() < 0.3 else 0
                if burst and k == snapshots // 2:
                    n = burst
                writes = int(rng.integers(0, n + 1))
                c[0] += n - writes
                c[2] += (n - writes) * int(rng.integers(1, 64))
                c[4] += writes
                c[6] += writes * int(rng.integers(1, 64))
                c[9] += min(int(n * rng.integers(1, 9)), int(interval * 1000))
                c[8] = int(rng.integers(0, 3)) if n else 0
            if resets and rng.random() < 0.01:
                c[:] = 0
            lines.append(f"{t:.9f} 8 {16 * (minor + 1)} {d} " + " ".join(str(int(v)) for v in c) + "\n")
    path.write_text("".join(lines))
    return path


def same_rows(whole, streamed):
    assert len(whole) == len(streamed)
    for a, b in zip(whole, streamed):
        assert (a["policy"], a.get("stream")) == (b["policy"], b.get("stream")), (a["policy"], b["policy"])
        for key in FIGURES:
            assert a.get(key) == b.get(key), (a["policy"], key, a.get(key), b.get(key))


POLICIES = ["timeout:2s", "timeout:30s", "breakeven", "stpm:knob=50", "experts", "oracle"]


@pytest.mark.parametrize("seed, shape", [(1, {}), (2, {"lead": 50, "tail": 80}), (3, {"devices": ("sda", "sdb", "sdc")}),
                                         (4, {"resets": True, "devices": ("sda", "sdb")}), (5, {"interval": 600.0, "snapshots": 200}),
                                         (6, {"lead": 100, "tail": 100, "interval": 0.25})])
@pytest.mark.parametrize("service", ["model", "observed"])
def test_a_streamed_recording_gives_the_whole_read_s_rows_bit_for_bit(tmp_path, monkeypatch, seed, shape, service):
    path = generated(tmp_path / "r.diskstats", np.random.default_rng(seed), **shape)
    monkeypatch.setattr(diskstats, "BATCH_RECORDS", 97)  # batches cut anywhere, intervals split across them
    trace = idlewise.read_trace(path)
    whole = idlewise.simulate(trace, "hitachi-travelstar-5k320", POLICIES, progress=False, service=service).to_dicts()
    streamed = idlewise.simulate_file(path, "hitachi-travelstar-5k320", POLICIES, progress=False, service=service).to_dicts()
    same_rows(whole, streamed)
    if len(shape.get("devices", ())) > 1:
        name = shape["devices"][1]
        picked = idlewise.read_trace(path, stream=name)
        one = idlewise.simulate(picked, "hitachi-travelstar-5k320", POLICIES, progress=False, service=service).to_dicts()
        streamed = idlewise.simulate_file(path, "hitachi-travelstar-5k320", POLICIES, stream=name, progress=False,
                                          service=service).to_dicts()
        # The disk picked keeps its number and name in a streamed row, as the command line's whole
        # read says them (a whole trace's one device has neither).
        (number, named), = picked.stream_names.items()
        assert {(r["stream"], r["stream_name"]) for r in streamed} == {(number, name)} and named == name
        same_rows([{**r, "stream": number} for r in one], streamed)


def test_an_interval_of_more_requests_than_a_batch_is_made_in_batches_equal_to_the_whole(tmp_path, monkeypatch):
    path = generated(tmp_path / "r.diskstats", np.random.default_rng(9), snapshots=60, burst=5000)
    monkeypatch.setattr(diskstats, "BATCH_RECORDS", 1024)
    batches = list(diskstats.DiskstatsBatches(path))
    assert max(len(b[0]) for b in batches) == 1024 and sum(len(b[0]) for b in batches) > 5000
    whole = idlewise.read_trace(path)
    assert np.array_equal(np.concatenate([b[0] for b in batches]), whole.time_s)
    assert np.array_equal(np.concatenate([b[5] for b in batches]), whole.service_s)
    same_rows(idlewise.simulate(whole, "hitachi-microdrive-1gb", POLICIES, progress=False).to_dicts(),
              idlewise.simulate_file(path, "hitachi-microdrive-1gb", POLICIES, progress=False).to_dicts())


def test_the_command_line_streams_a_recording_and_says_what_it_read(tmp_path, capsys):
    path = str(TRACES / "diskstats" / "build-vm.diskstats")
    assert main(["simulate", path, "--stream", "vda", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:5s",
                 "--json"]) == 0
    out = capsys.readouterr()
    rows = json.loads(out.out)
    assert "read 836 counter snapshots as diskstats, giving 45,558 requests, skipped 418 lines of other devices (not vda)" in \
        rows[0]["read_report"]
    whole = idlewise.simulate(idlewise.read_trace(path, stream="vda"), "hitachi-travelstar-5k320", ["timeout:5s"]).to_dicts()
    assert rows[0]["energy_j"] == whole[0]["energy_j"] and rows[0]["records_skipped"] == 418


def test_a_conversion_of_a_recording_streams_as_its_source(tmp_path):
    path = generated(tmp_path / "r.diskstats", np.random.default_rng(11), lead=20, tail=40)
    out = tmp_path / "r.parquet"
    assert main(["trace", "convert", str(path), str(out)]) == 0
    source = idlewise.simulate_file(path, "hitachi-travelstar-5k320", POLICIES, progress=False).to_dicts()
    converted = idlewise.simulate_file(out, "hitachi-travelstar-5k320", POLICIES, progress=False).to_dicts()
    same_rows(source, converted)


def test_trace_stats_of_a_streamed_recording_are_the_whole_read_s(tmp_path):
    from idlewise.traces import stats

    path = generated(tmp_path / "r.diskstats", np.random.default_rng(12), devices=("sda", "sdb"), lead=10, tail=10)
    streamed, report = stats.file_stats(str(path), "hitachi-travelstar-5k320")
    trace = idlewise.read_trace(path)
    whole = [stats.trace_stats(part, "hitachi-travelstar-5k320") for part in trace.split_streams().values()]
    assert len(streamed) == len(whole)
    for a, b in zip(streamed, whole):
        assert {k: v for k, v in a.items() if k not in ("stream", "trace")} == {k: v for k, v in b.items() if k not in ("stream", "trace")}
    assert "counter snapshots as diskstats" in report


def test_advice_on_a_streamed_recording_is_the_whole_read_s(tmp_path):
    path = generated(tmp_path / "r.diskstats", np.random.default_rng(13), lead=30, tail=200, snapshots=2000)
    streamed = idlewise.advise(str(path), "wd-red-plus-4tb", progress=False)
    whole = idlewise.advise(idlewise.read_trace(path), "wd-red-plus-4tb", progress=False)
    for key in ("policy", "recorded_s", "kwh_saved_per_year", "wakeups_per_day", "requests", "candidates"):
        assert streamed[key] == whole[key], key


def test_a_recording_that_claims_a_hundred_million_requests_is_replayed_in_batches(tmp_path, monkeypatch):
    """113 bytes claiming 10^8 requests took 10 GB read whole. Streamed, the requests are made a
    batch at a time: here the batches are counted (the replay itself is the benchmark's,
    benchmarks/recording_stream.py)."""
    path = tmp_path / "huge.diskstats"
    path.write_text("1700000000.0 8 16 sdb 0 0 0 0 0 0 0 0 0 0 0\n"
                    "1700086400.0 8 16 sdb 100000000 0 800000000 0 0 0 0 0 0 86400000 0\n")
    batches = diskstats.DiskstatsBatches(path)
    sizes = [len(b[0]) for b in batches]
    assert sum(sizes) == 10**8 and max(sizes) == diskstats.BATCH_RECORDS
    assert batches.end_s == 86400.0


def test_the_command_line_s_observed_service_on_a_streamed_recording_is_the_manager_s(capsys):
    # --service observed reaches the streamed replay (it once did not, and the model's service
    # was used): its row is the live manager's replay of the same recording (the timeout's
    # energy summed in the shared replay's order: to 1e-12; to the bit with a timeline kept).
    from idlewise.manage.replay import replay

    recording = str(TRACES / "diskstats" / "build-vm.diskstats")
    assert main(["simulate", recording, "--stream", "vda", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:10s",
                 "--service", "observed", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    _, account = replay(recording, "timeout:10s", "hitachi-travelstar-5k320", disk="vda")
    assert row["wakeups"] == account["wakeups"] and row["energy_j"] == pytest.approx(account["energy_j"], rel=1e-12)
    kept = idlewise.simulate_file(recording, "hitachi-travelstar-5k320", ["timeout:10s"], stream="vda", progress=False,
                                  service="observed", timeline_s=(0.0, 1e12)).to_dicts()[0]
    assert kept["energy_j"] == account["energy_j"]
    assert main(["simulate", recording, "--stream", "vda", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:10s",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["energy_j"] != row["energy_j"]  # the model's service differs
