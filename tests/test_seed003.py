"""Seed 003 on hplajw disk 0: the directions of its figures and its claims, from the engine."""

import json

import pytest

from idlewise.cli import main
from idlewise.experiments.seed003 import DRAM_SWEEP, MIB, NVCACHE_SWEEP, nvcache_flushing


@pytest.fixture(scope="module")
def result():
    return nvcache_flushing()


def at(rows, **match):
    return next(r for r in rows if all(r[k] == v for k, v in match.items()))


def test_figure_5_ordering_and_merging_is_fastest_and_full_beats_each_with_it(result):
    f5 = result["figure5"]
    assert len(f5) == 8
    for when in ("each", "full"):
        times = [at(f5, flush_when=when, flush_algorithm=a)["flush_time_s"] for a in (1, 2, 3, 4)]
        # Chunked reads cut the NVCache part; double buffering never hurts; sorting and merging wins.
        assert times[1] <= times[0] and times[2] <= times[1] + 1e-9 and times[3] < 0.7 * times[2]
        one, two = at(f5, flush_when=when, flush_algorithm=1), at(f5, flush_when=when, flush_algorithm=2)
        assert two["flush_nvcache_reads"] < one["flush_nvcache_reads"]
        if when == "full":
            # The same two flushes of the same log: the same disk writes, read in chunks.
            assert (two["flushes"], two["flush_disk_ios"]) == (one["flushes"], one["flush_disk_ios"])
    # Flushing is dominated by the disk (seed section 3.3), except where merging removes most writes.
    for r in f5:
        if r["flush_algorithm"] < 4:
            assert r["flush_disk_time_s"] > 2 * r["flush_nvcache_time_s"]
    assert at(f5, flush_when="full", flush_algorithm=4)["flush_time_s"] < 0.3 * at(f5, flush_when="each", flush_algorithm=4)["flush_time_s"]


def test_sweeps_follow_the_seeds_figures(result):
    dram, nv = result["dram_sweep"], result["nvcache_sweep"]
    assert len(dram) == 2 * len(DRAM_SWEEP) and len(nv) == 2 * len(NVCACHE_SWEEP)
    for when in ("each", "full"):
        rows = [r for r in dram if r["flush_when"] == when]
        # Figure 6(a), 9(a), 10(a): more DRAM, less flush time, more merges, fewer disk I/Os.
        assert rows[-1]["flush_time_s"] < rows[0]["flush_time_s"]
        assert rows[-1]["merges"] > rows[0]["merges"] and rows[-1]["flush_disk_ios"] < rows[0]["flush_disk_ios"]
        # Figure 11(a): bigger chunks, fewer NVCache reads.
        assert rows[-1]["flush_nvcache_reads"] < rows[0]["flush_nvcache_reads"]
    # Figure 6(b): flush-on-each is stable in NVCache size (the NVCache is never full).
    each = [r["flush_time_s"] for r in nv if r["flush_when"] == "each"]
    assert max(each) < 1.05 * min(each)
    # "the sharp drop off for HP-full at 256MB is because the NVCache never fills up"; at 128 MB
    # fewer flushes occur than at 64.
    full = {r["nvcache_bytes"]: r for r in nv if r["flush_when"] == "full"}
    assert full[256 * MIB]["flushes"] == 0 and full[256 * MIB]["flush_time_s"] == 0
    assert 0 < full[128 * MIB]["flushes"] < full[64 * MIB]["flushes"] < full[1 * MIB]["flushes"]
    # Algorithm 1 flushes a request at a time, so DRAM does not matter to it once it holds the
    # largest request (at 100 KiB a few are read in pieces).
    one = {r["flush_time_s"] for r in result["dram_sweep_algorithm1"] if r["flush_when"] == "full" and r["dram_bytes"] >= 256 << 10}
    assert len(one) == 1


def test_the_seeds_claims_on_hp(result):
    claims = {c["claim"][:20]: c for c in result["claims"]}
    assert len(claims) == 5
    inf = result["infinite"]
    # A week of HP in under 0.5 GB, never 100 MB in one spin-down period.
    assert 100 * MIB < inf["bytes_cached"] < inf["flash_bytes_written"] < 0.5e9
    # Nothing stale is flushed: a flush writes at most what was redirected (issue 31).
    for r in result["figure5"] + result["dram_sweep"] + result["nvcache_sweep"]:
        assert r["bytes_flushed"] + r["bytes_unflushed"] + r["bytes_superseded"] == r["bytes_redirected"]
    assert 0 < inf["max_bytes_per_spindown"] < 100e6
    assert sum(inf["bytes_cached_per_spindown"]) == inf["bytes_cached"]
    # Four of the five hold. Ordering and merging save 78 % under full, short of the seed's 90 %
    # (85 % was our criterion): with stale sectors no longer flushed (issue 31), the log holds
    # fewer copies of the same blocks for merging to fold.
    assert [c["holds"] for c in result["claims"]] == [True, False, True, True, True]
    ordering = result["claims"][1]["ours"]
    assert 0.70 < ordering["algorithm 4 against 1 at 64MiB/16MiB, full"] < 0.85
    # The NVCache saves energy and spin-ups against the plain disk under the same policy.
    assert inf["energy_j"] < result["plain_disk"]["energy_j"] and inf["spinups"] < result["plain_disk"]["spinups"]


def test_command_prints_json_and_draws(capsys, tmp_path):
    plot = tmp_path / "seed003.png"
    assert main(["experiment", "nvcache-flushing", "--json", "--plot", str(plot)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["trace"] == "hplajw week, disk 0" and len(out["claims"]) == 5
    assert plot.stat().st_size > 50_000
    assert main(["experiment", "nvcache-flushing"]) == 0
    assert "seed 003's claims" in capsys.readouterr().out


def test_write_once_moves_every_write_to_a_block_never_written_before():
    import numpy as np

    from idlewise import Trace
    from idlewise.experiments.seed003 import write_once

    t = Trace.from_arrays([0.0, 1.0, 2.0, 3.0], [4096, 512, 8192, 4096], offset_bytes=[0, 0, 4096, 0],
                          is_write=[True, False, True, True], name="t")
    once = write_once(t)
    off, size, w = np.asarray(once.offset_bytes), np.asarray(once.size_bytes), np.asarray(once.is_write).astype(bool)
    assert list(off[~w]) == [0] and list(size) == [4096, 512, 8192, 4096]
    # Past the highest block the trace touched (12 KiB), one after another, 4 KiB aligned.
    assert list(off[w]) == [12288, 16384, 24576]
    extents = sorted(zip(off[w], off[w] + size[w]))
    assert all(a_end <= b for (_, a_end), (b, _) in zip(extents, extents[1:]))
