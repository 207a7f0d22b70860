"""Sweeps: range expansion, equality with direct simulation, local pool, a real Dask LocalCluster
on loopback, output files and plots."""

import numpy as np
import pyarrow.parquet as pq
import pytest

import idlewise
from conftest import SRT, SPC_ASCII, TRACES
from idlewise import IdlewiseError
from idlewise.sweeps import TraceSource, expand_spec, plot_tradeoff, sweep, write_rows



def test_expand_ranges():
    assert expand_spec("timeout:0s..6s/2s") == ["timeout:0s", "timeout:2s", "timeout:4s", "timeout:6s"]
    assert expand_spec("stpm:knob=0..100/25") == [f"stpm:knob={k}" for k in (0, 25, 50, 75, 100)]
    assert expand_spec("timeout:standby=500ms..1.5s/500ms") == ["timeout:standby=0.5s", "timeout:standby=1s", "timeout:standby=1.5s"]
    assert expand_spec("timeout:0..1min/30s") == ["timeout:0s", "timeout:30s", "timeout:60s"]
    assert len(expand_spec("timeout:0s..60s/0.6s")) == 101
    assert expand_spec("breakeven") == ["breakeven"]
    with pytest.raises(IdlewiseError, match="START <= STOP"):
        expand_spec("timeout:5s..1s/1s")
    assert expand_spec("timeout:.5s..1.5s/.5s") == ["timeout:0.5s", "timeout:1s", "timeout:1.5s"]
    # Found by benchmarks/fuzz.py: a long run of digits once backtracked for minutes (a hang).
    assert expand_spec("timeout:" + "9" * 5000) == ["timeout:" + "9" * 5000]
    with pytest.raises(IdlewiseError, match="finite"):  # 400 digits: an OverflowError before
        expand_spec("stpm:knob=0.." + "9" * 400 + "/1")


def small_trace():
    rng = np.random.default_rng(9)
    times = np.cumsum(rng.exponential(4.0, 3000))
    return idlewise.Trace.from_arrays(times, rng.integers(512, 65536, 3000), name="synthetic")


def key(r):
    return (r["trace"], r["stream"], r["transform"], r["device"], r["policy"])


def test_sweep_rows_equal_direct_simulation():
    trace = small_trace()
    rows = sweep([trace], ["hitachi-microdrive-1gb", "ibm-microdrive-340mb"], ["timeout:1s..3s/1s", "breakeven"],
                 transforms=["none", "compress:10s"], jobs=1, progress=False)
    assert len(rows) == 2 * 2 * 4
    direct = idlewise.simulate(idlewise.traces.apply_transform(trace, "compress:10s"), "ibm-microdrive-340mb",
                               ["timeout:1s", "timeout:2s", "timeout:3s", "breakeven"])
    by_key = {key(r): r for r in rows}
    for d in direct:
        r = by_key[("synthetic", None, "compress:10s", "ibm-microdrive-340mb", d["policy"])]
        assert r["energy_j"] == d["energy_j"] and r["mean_response_s"] == d["mean_response_s"]
        assert r["family"] == d["policy"].split(":")[0]


def test_local_pool_equals_serial_and_splits_streams():
    sources = [TraceSource(path=SRT), TraceSource(path=SPC_ASCII)]
    kwargs = dict(devices=["hitachi-travelstar-5k320"], policies=["timeout:2s..10s/4s", "oracle"], progress=False)
    serial = sweep(sources, jobs=1, **kwargs)
    pooled = sweep(sources, jobs=2, **kwargs)
    assert sorted(map(key, serial)) == sorted(map(key, pooled))
    pooled_by_key = {key(r): r for r in pooled}
    for r in serial:
        assert pooled_by_key[key(r)]["energy_j"] == r["energy_j"]
    # hplajw has 2 disks, Financial1 prefix 24 ASUs: each its own disk.
    streams = {(r["trace"], r["stream"]) for r in serial}
    assert {s for t, s in streams if t == "ajw.1week.srt"} == {0, 1}


def test_dask_local_cluster_matches_local(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, scheduler_port=0) as cluster:
        kwargs = dict(devices=["hitachi-microdrive-1gb"], policies=["timeout:1s..5s/2s", "stpm:knob=50", "oracle"],
                      transforms=["none", "compress-reorder:64ops"], progress=False)
        remote = sweep([TraceSource(path=SRT, stream=0), small_trace()], scheduler=cluster.scheduler_address, **kwargs)
    local = sweep([TraceSource(path=SRT, stream=0), small_trace()], jobs=1, **kwargs)
    assert len(remote) == len(local) == 2 * 2 * 5
    local_by_key = {key(r): r for r in local}
    for r in remote:
        assert r["energy_j"] == local_by_key[key(r)]["energy_j"]
        assert r["p99_response_s"] == local_by_key[key(r)]["p99_response_s"]


def test_outputs_and_plot(tmp_path):
    rows = sweep([small_trace()], ["hitachi-microdrive-1gb"], ["timeout:0s..4s/2s", "oracle", "always-on"], jobs=1, progress=False)
    write_rows(rows, str(tmp_path / "r.parquet"))
    table = pq.read_table(tmp_path / "r.parquet")
    assert table.num_rows == 5
    assert {"policy", "trace", "device", "transform", "energy_j", "normalized_mean_response",
            "energy_by_mode_j"} <= set(table.column_names)
    assert "standby" in dict(table.column("energy_by_mode_j")[0].as_py())
    assert table.column("policy").to_pylist()[:3] == ["timeout:0s", "timeout:2s", "timeout:4s"]
    write_rows(rows, str(tmp_path / "r.csv"))
    assert (tmp_path / "r.csv").read_text().startswith('"policy"') or "policy" in (tmp_path / "r.csv").read_text().splitlines()[0]
    plot_tradeoff(rows, str(tmp_path / "p.png"))
    assert (tmp_path / "p.png").stat().st_size > 10_000
    with pytest.raises(IdlewiseError, match=".parquet or .csv"):
        write_rows(rows, str(tmp_path / "r.xlsx"))


def test_bad_sweep_inputs():
    with pytest.raises(IdlewiseError, match="no such file"):
        sweep(["/nope.csv"], ["hitachi-microdrive-1gb"], ["breakeven"], progress=False)
    with pytest.raises(IdlewiseError, match="unknown mode 'deep'"):
        sweep([small_trace()], ["hitachi-microdrive-1gb"], ["timeout:deep=1s..2s/1s"], progress=False)


def test_the_summary_is_the_frontier_each_familys_best_and_the_bound():
    from idlewise.sweeps import summary

    def row(policy, energy, response):
        return {"policy": policy, "family": policy.split(":")[0], "energy_j": energy, "mean_response_s": response,
                "trace": "t", "stream": None, "transform": "none", "device": "d"}

    rows = [row("timeout:1s", 10.0, 5.0), row("timeout:2s", 12.0, 4.0), row("timeout:3s", 13.0, 4.5),  # 3s: dominated
            row("stpm:knob=0", 11.0, 6.0), row("stpm:knob=50", 14.0, 1.0), row("oracle", 5.0, 0.1), row("always-on", 50.0, 0.1)]
    why = {r["policy"]: r["why"] for r in summary(rows)}
    assert why == {"oracle": "bound", "timeout:1s": "frontier, best timeout", "stpm:knob=0": "best stpm",
                   "timeout:2s": "frontier", "stpm:knob=50": "frontier", "always-on": "frontier"}
    # Two groups are summarised apart; a long frontier is thinned to its ends and points between.
    long = [row(f"timeout:{k}s", 10.0 + k, 100.0 - k) for k in range(30)]
    other = [dict(r, device="e") for r in long]
    shown = summary(long + other)
    assert len(shown) == 2 * 8 and {r["device"] for r in shown} == {"d", "e"}
    assert [r["policy"] for r in shown[:8]][0] == "timeout:0s" and shown[7]["policy"] == "timeout:29s"


def test_a_sweep_with_out_prints_its_summary_not_every_run(tmp_path, capsys):
    from idlewise.cli import main

    out = tmp_path / "runs.parquet"
    assert main(["sweep", SRT, "--stream", "0", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:0s..60s/2s",
                 "--policy", "oracle", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert pq.read_table(out).num_rows == 32
    assert "32 runs" in printed and "shown: 9 of them" in printed and "bound" in printed and "best timeout" in printed
    assert printed.count("│ timeout:") == 8


def test_the_tradeoff_figure_is_a_grid_of_at_most_four_by_three_panels(tmp_path):
    from PIL import Image

    # 14 devices of a DiskSim trace x 2 catalog devices: 4 rows of traces, 2 columns of devices.
    rows = sweep([TRACES / "disksim" / "ascii.trace"], ["hitachi-microdrive-1gb", "hitachi-travelstar-5k320"],
                 ["timeout:1s..3s/1s", "stpm:knob=0..100/50", "oracle"], transforms=["none", "compress:64ops"], progress=False)
    for name in ("t.png", "t.pdf", "t.svg"):
        plot_tradeoff(rows, str(tmp_path / name))
        assert (tmp_path / name).stat().st_size > 10_000
    width, height = Image.open(tmp_path / "t.png").size
    assert width <= 2 * 1200 and height <= 2 * 1200  # a page's figure, not 32 panels stacked
    svg = (tmp_path / "t.svg").read_text()
    assert "the first 4 of 14 traces and 2 of 2 devices" in svg and "never slept, transformed" in svg


# --- volumes split into parts (issue 28) ----------------------------------------------------------

def _many_volume_parquet(path, volumes=37, n=60_000, seed=4):
    """A Parquet trace of many volumes, interleaved in time, with some volumes silent."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.exponential(0.05, n))
    table = pa.table({"time_s": times, "offset_bytes": rng.integers(0, 1 << 30, n) // 512 * 512,
                      "size_bytes": rng.integers(1, 64, n) * 512, "is_write": rng.random(n) < 0.4,
                      "stream": rng.choice(np.arange(volumes) * 3, n)})  # numbers 0, 3, ... 108: parts are uneven
    pq.write_table(table, path, row_group_size=7_000)
    return str(path)


@pytest.mark.parametrize("parts", [2, 5, 40])
def test_volume_parts_give_the_rows_of_one_pass_in_its_order(tmp_path, parts):
    """Each part reads the whole file and replays its volumes; together they are one pass's rows,
    row for row in the same order, read report included. 40 parts leave some empty."""
    sources = [TraceSource(path=_many_volume_parquet(tmp_path / "v.parquet")), TraceSource(path=SPC_ASCII), TraceSource(path=SRT)]
    kwargs = dict(devices=["hitachi-travelstar-5k320"], policies=["timeout:2s..10s/4s", "oracle"], jobs=1, progress=False)
    one = sweep(sources, **kwargs).to_dicts()
    split = sweep(sources, volume_parts=parts, **kwargs).to_dicts()
    assert [key(r) for r in split] == [key(r) for r in one]
    assert split == one


def test_a_cluster_shares_out_the_volumes_of_one_file(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    path = _many_volume_parquet(tmp_path / "v.parquet")
    kwargs = dict(devices=["hitachi-microdrive-1gb"], policies=["timeout:1s..5s/2s", "oracle"], progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, scheduler_port=0) as cluster:
        with distributed.Client(cluster.scheduler_address) as client, distributed.get_task_stream(client) as tasks:
            remote = sweep([path], scheduler=cluster.scheduler_address, volume_parts=4, **kwargs).to_dicts()
        # Four tasks, one a part, and both workers replayed some.
        assert len(tasks.data) == 4
        assert len({t["worker"] for t in tasks.data}) == 2
    local = sweep([path], jobs=1, **kwargs).to_dicts()
    assert remote == local


def test_volume_parts_are_planned_only_where_a_file_streams(tmp_path):
    from idlewise.sweeps import plan

    path = _many_volume_parquet(tmp_path / "v.parquet", n=2_000)
    tasks = plan([path, TraceSource(path=path, stream=3), small_trace()], ["hitachi-microdrive-1gb"], ["timeout:1s"],
                 transforms=["none", "compress:10s"], volume_parts=3)
    parts = [(t.source.label, t.source.stream, t.transform, t.volume_part) for t in tasks]
    assert parts[:6] == [("v.parquet", None, t, (k, 3)) for t in ("none", "compress:10s") for k in range(3)]
    # One device picked, a trace in memory: not split.
    assert all(p is None for *_, p in parts[6:])
    for bad in (0, -2, 1.5, True):
        with pytest.raises(IdlewiseError, match="volume_parts must be (a whole number )?from 1 to 1,024"):
            plan([path], ["hitachi-microdrive-1gb"], ["timeout:1s"], volume_parts=bad)
    with pytest.raises(IdlewiseError, match=r"volume_part must be \(k, n\) with 0 <= k < n"):
        idlewise.simulate_file(path, "hitachi-microdrive-1gb", ["timeout:1s"], volume_part=(3, 3))


def test_the_command_line_splits_volumes(tmp_path, capsys):
    from idlewise.cli import main

    path = _many_volume_parquet(tmp_path / "v.parquet", n=5_000)
    assert main(["sweep", path, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:1s", "--volume-parts", "3",
                 "--out", str(tmp_path / "split.parquet")]) == 0
    assert main(["sweep", path, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:1s",
                 "--out", str(tmp_path / "one.parquet")]) == 0
    assert pq.read_table(tmp_path / "split.parquet").equals(pq.read_table(tmp_path / "one.parquet"))


@pytest.mark.parametrize("parts", [3, 5])
def test_volume_parts_of_a_transformed_group_are_one_pass_s_rows(tmp_path, parts):
    """A transform applied as the file is read splits into parts like the trace as it is (the
    volumes are numbered 0, 3, ... 108: in 3 parts two are empty)."""
    path = _many_volume_parquet(tmp_path / "v.parquet", n=20_000)
    kwargs = dict(devices=["hitachi-microdrive-1gb"], policies=["timeout:2s", "oracle"], transforms=["compress-reorder:16ops"],
                  jobs=1, progress=False)
    one = sweep([path], **kwargs).to_dicts()
    assert sweep([path], volume_parts=parts, **kwargs).to_dicts() == one
    assert {r["normalized_against"] for r in one} == {"always-on, untransformed trace"}


def test_volume_parts_are_never_more_than_the_devices(tmp_path):
    """Issue 39: each part reads the whole file; 100 parts of a 37-volume file read it 100 times,
    63 of them for nothing. A single-device file is not split at all."""
    from idlewise.sweeps import plan

    path = _many_volume_parquet(tmp_path / "v.parquet", n=2_000)
    volumes = len(set(pq.read_table(path, columns=["stream"]).column("stream").to_pylist()))
    tasks = plan([path, SPC_ASCII], ["hitachi-microdrive-1gb"], ["timeout:1s"], volume_parts=100)
    assert [t.volume_part for t in tasks if t.source.label == "v.parquet"] == [(k, volumes) for k in range(volumes)]
    single = tmp_path / "one.parquet"
    pq.write_table(pq.read_table(path).drop(["stream"]), single)
    assert [t.volume_part for t in plan([str(single)], ["hitachi-microdrive-1gb"], ["timeout:1s"], volume_parts=8)] == [None]
