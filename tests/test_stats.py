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
