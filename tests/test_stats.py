"""Workload statistics: exact on a small trace, and the break-even shares on a real one."""

import json

import numpy as np
import pytest

import idlewise
from conftest import SRT, DISKSIM
from idlewise.cli import main
from idlewise.traces.stats import trace_stats



def test_stats_exact_on_a_small_trace():
    t = idlewise.Trace.from_arrays([0.0, 0.5, 10.5, 110.5], [4096, 8192, 512, 4096], op=list("RWRR"))
    s = trace_stats(t)
    assert (s["requests"], s["reads"], s["writes"], s["bytes_read"], s["bytes_written"]) == (4, 3, 1, 8704, 8192)
    assert s["gaps"]["count"] == 3 and s["gaps"]["idle_total_s"] == pytest.approx(110.5)
    assert sum(h["count"] for h in s["gaps"]["histogram"]) == 3
    # With a device, gaps start at completion: microdrive service of 4 KiB ~ 21 ms.
    d = idlewise.load_device("hitachi-microdrive-1gb")
    s = trace_stats(t, d)
    first_service, _ = d.service_cost(4096, False)
    assert s["gaps"]["idle_total_s"] < 110.5
    standby = next(m for m in s["modes"] if m["mode"] == "standby")
    # Gaps of ~10 s and ~100 s exceed the 1.63 s break-even; the ~0.48 s one does not.
    assert standby["gaps_longer"] == 2
    assert 0.99 < standby["idle_share_longer"] < 1.0


def test_gaps_outside_the_bins_are_counted_with_their_idle_time_and_shown(tmp_path, capsys):
    # Gaps of 0.5 ms, 5 s, exactly 10^4 s (the last bin holds its edge) and 2 x 10^4 s: the
    # terminal's table listed only the bins, leaving out a week's nights and every burst.
    times = [0.0, 0.0005, 5.0005, 10_005.0005, 30_005.0005]
    t = idlewise.Trace.from_arrays(times, [512] * 5)
    g = trace_stats(t)["gaps"]
    assert (g["count"], g["below_1ms"], g["above_10000s"]) == (4, 1, 1)
    assert g["below_1ms_idle_s"] == pytest.approx(0.0005) and g["above_10000s_idle_s"] == pytest.approx(20_000.0)
    assert [(h["count"], h["to_s"]) for h in g["histogram"]][-1] == (1, pytest.approx(10_000.0))
    inside = sum(h["idle_s"] for h in g["histogram"])
    assert inside + g["below_1ms_idle_s"] + g["above_10000s_idle_s"] == pytest.approx(g["idle_total_s"], rel=1e-15)
    # A file of two devices (the grouped path) says the same of each.
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "two.parquet"
    pq.write_table(pa.table({"time_s": np.repeat(times, 2), "offset_bytes": [0] * 10, "size_bytes": [512] * 10,
                             "is_write": [False] * 10, "stream": [0, 1] * 5}), path)
    assert main(["trace", "stats", str(path), "--json"]) == 0
    for st in json.loads(capsys.readouterr().out):
        for key in ("count", "below_1ms", "above_10000s", "below_1ms_idle_s", "above_10000s_idle_s"):
            assert st["gaps"][key] == pytest.approx(g[key]), key
    # The table has a row for each side, and its gaps and shares add up to all of them.
    single = tmp_path / "one.csv"
    single.write_text("time_s,offset_bytes,size_bytes,op\n" + "\n".join(f"{x},0,512,R" for x in times) + "\n")
    assert main(["trace", "stats", str(single)]) == 0
    lines = [line.split("│") for line in capsys.readouterr().out.splitlines() if line.count("│") == 5]
    cells = [[c.strip() for c in line[1:5]] for line in lines]
    assert cells[0][0] == "under 1.0 ms" and cells[-1][0] == "over 10000.00 s"
    assert sum(int(c[1]) for c in cells) == 4 and sum(float(c[3].rstrip("%")) for c in cells) == pytest.approx(100.0, abs=0.2)


def test_stats_cli_json_and_plot(tmp_path, capsys):
    assert main(["trace", "stats", SRT, "--device", "hitachi-travelstar-5k320", "--plot", str(tmp_path / "g.png"), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert [s["stream"] for s in stats] == [0, 1]
    assert stats[0]["requests"] == 42252
    assert (tmp_path / "g.png").stat().st_size > 10_000


def test_convert_and_simulate_multi_device(tmp_path, capsys):
    out = tmp_path / "a.parquet"
    assert main(["trace", "convert", DISKSIM, str(out)]) == 0
    capsys.readouterr()
    assert main(["simulate", str(out), "--device", "hitachi-microdrive-1gb", "--policy", "breakeven", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 14 and len({r["stream"] for r in rows}) == 14
    assert main(["simulate", str(out), "--stream", "10", "--transform", "compress-reorder:64ops", "--device",
                 "hitachi-microdrive-1gb", "--policy", "breakeven", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 1


def test_sweep_cli(tmp_path, capsys):
    assert main(["sweep", SRT, "--stream", "0", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:0s..10s/5s",
                 "--policy", "oracle", "--transform", "none", "--transform", "compress-reorder:64ops", "--jobs", "1",
                 "--out", str(tmp_path / "s.csv"), "--plot", str(tmp_path / "s.png")]) == 0
    assert "8 runs" in capsys.readouterr().out
    assert len((tmp_path / "s.csv").read_text().splitlines()) == 9


def test_trace_formats_lists_readers(capsys):
    assert main(["trace", "formats"]) == 0
    out = capsys.readouterr().out
    for name in ("disksim", "msr", "blkparse", "alibaba", "tencent", "fiu", "parquet", "srt", "spc"):
        assert name in out


def _alibaba(path, rng, devices: int, records: int, zero_gaps: bool = False):
    """A generated multi-device trace in Alibaba's format (device,op,offset,size,time_us)."""
    times = np.sort(rng.integers(0, 10**9, records))
    if zero_gaps:
        times[1::3] = times[0:-1:3][: len(times[1::3])]  # equal times: gaps of 0 are not gaps
        times = np.sort(times)
    device = rng.integers(0, devices, records)
    sizes = rng.choice([512, 4096, 65536, 1 << 20], records)
    ops = rng.choice(["R", "W"], records)
    path.write_text("".join(f"{d},{o},{s * 7},{s},{t}\n" for d, o, s, t in zip(device, ops, sizes, times)))


def _expected(path, **kw):
    from idlewise.traces.stats import trace_stats

    trace = idlewise.read_trace(path, format="alibaba", **kw)
    out = []
    for stream, part in trace.split_streams().items():
        st = trace_stats(part)
        st["stream"] = stream if stream is not None else kw.get("stream")
        out.append(st)
    return out


def _same(got, want):
    assert [g["stream"] for g in got] == [w["stream"] for w in want]
    for g, w in zip(got, want):
        for key in ("trace", "requests", "reads", "writes", "bytes_read", "bytes_written", "read_fraction", "span_s"):
            assert g[key] == w[key], key
        assert g["size_bytes"] == pytest.approx(w["size_bytes"], rel=1e-12)
        gg, wg = g["gaps"], w["gaps"]
        for key in ("definition", "count", "below_1ms", "above_10000s", "median_s", "max_s"):
            assert gg[key] == wg[key], (key, g["stream"])
        assert gg["idle_total_s"] == pytest.approx(wg["idle_total_s"], rel=1e-12)
        for key in ("below_1ms_idle_s", "above_10000s_idle_s"):
            assert gg[key] == pytest.approx(wg[key], rel=1e-12, abs=1e-12), (key, g["stream"])
        assert [(h["from_s"], h["count"]) for h in gg["histogram"]] == [(h["from_s"], h["count"]) for h in wg["histogram"]]
        assert [h["idle_s"] for h in gg["histogram"]] == pytest.approx([h["idle_s"] for h in wg["histogram"]], rel=1e-12)


@pytest.mark.parametrize("seed, devices, records", [(0, 1, 50), (1, 3, 2_000), (2, 40, 5_000), (3, 2_000, 20_000)])
def test_every_device_at_once_equals_each_device_alone(tmp_path, monkeypatch, seed, devices, records):
    """trace stats of a file of many devices is computed over whole batches (100k devices: 44 s
    to 4 s); each device's figures are those of its own records read whole. Small batches put
    device boundaries everywhere."""
    from idlewise.traces import stats

    from idlewise.traces import streaming

    path = tmp_path / "t.alibaba"
    _alibaba(path, np.random.default_rng(seed), devices, records, zero_gaps=seed % 2 == 1)
    whole = streaming.raw_batches

    def small(*args):
        for item in whole(*args):
            if len(item) == 3:  # (records read, skipped, what else the reader knows)
                yield item
                continue
            for at in range(0, len(item[0]), 997):
                yield tuple(None if c is None or isinstance(c, str) else c[at:at + 997] for c in item)
    monkeypatch.setattr(streaming, "raw_batches", small)
    got, _ = stats.file_stats(path, format="alibaba")
    _same(got, _expected(path))
    one = int(got[-1]["stream"])
    _same(stats.file_stats(path, format="alibaba", stream=one)[0], _expected(path, stream=one))
    # Past the exact-median budget both take the median from the same buckets.
    monkeypatch.setattr(stats, "EXACT_MEDIAN_GAPS", 0)
    _same(stats.file_stats(path, format="alibaba")[0], _expected(path))


def test_every_device_at_once_refuses_the_same_record_out_of_order(tmp_path):
    path = tmp_path / "t.alibaba"
    path.write_text("5,R,0,4096,100\n3,R,0,4096,200\n3,R,0,4096,150\n5,R,0,4096,120\n")
    with pytest.raises(idlewise.IdlewiseError, match=r"line 3, field 'time_s': time 4.99+6e-05 is earlier than line 2's 9.99+9e-05"):
        from idlewise.traces.stats import file_stats

        file_stats(path, format="alibaba")
