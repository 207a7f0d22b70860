"""Hybrid disks (seed 003) through the Python API and the CLI: descriptions, sizes, every
combination, the plain-disk comparison, and clear errors."""

import json
from importlib import resources

import numpy as np
import pytest

import idlewise
from idlewise.cli import main
from idlewise.hybrid import load_hybrid, prepare, size_bytes

from conftest import SRT, trace_of

DISK = "hitachi-travelstar-e7k100"
FLASH = "sandisk-ultra-ii-cf"


@pytest.fixture(scope="module")
def hplajw():
    return idlewise.read_srt(SRT, disk=0)


def test_the_seed_parts_are_in_the_catalog_and_the_bundled_description_names_them():
    assert {DISK, FLASH} <= set(idlewise.catalog_names())
    d = load_hybrid("seed003-e7k100-ultra-ii")
    assert (d["disk"].name, d["flash"].name) == (DISK, FLASH)
    assert (d["nvcache_bytes"], d["dram_bytes"], d["flush_when"], d["flush_algorithm"], d["policy"]) == \
        (64 << 20, 16 << 20, "full", 4, "experts")
    assert "seed003-e7k100-ultra-ii" in idlewise.hybrid_names()


def test_sizes_take_units_and_inf():
    assert size_bytes("64MiB", "x", unbounded_ok=True) == 64 << 20
    assert size_bytes("100KB", "x", unbounded_ok=True) == 100_000
    assert size_bytes(4096, "x", unbounded_ok=True) == 4096
    assert size_bytes("inf", "x", unbounded_ok=True) is None
    assert size_bytes(float("inf"), "x", unbounded_ok=True) is None
    with pytest.raises(idlewise.IdlewiseError, match="dram: must be a finite size"):
        size_bytes("inf", "dram", unbounded_ok=False)
    with pytest.raises(idlewise.IdlewiseError, match="nvcache: unknown size unit 'Mb'"):
        size_bytes("64Mb", "nvcache", unbounded_ok=True)
    with pytest.raises(idlewise.IdlewiseError, match="whole number of bytes"):
        size_bytes(1.5, "nvcache", unbounded_ok=True)


def test_every_combination_runs_and_reports_the_plain_disk(hplajw):
    results = idlewise.hybrid(hplajw, DISK, FLASH, nvcache=["inf", "64MiB"], flush_when=["each", "full"],
                              flush_algorithm=[1, 4])
    assert len(results) == 8
    keys = {"disk", "flash", "nvcache_bytes", "dram_bytes", "flush_when", "flush_algorithm", "policy", "requests",
            "energy_j", "energy_by_mode_j", "spinups", "mean_response_s", "p99_response_s", "writes_redirected",
            "bytes_redirected", "reads_from_nvcache", "reads_spinning_up", "flushes", "flush_time_s",
            "flush_nvcache_time_s", "flush_disk_time_s", "flush_disk_ios", "flush_nvcache_reads", "merges",
            "bytes_flushed", "max_bytes_cached_per_spindown", "flash_bytes_written", "plain_disk_energy_j",
            "plain_disk_spinups"}
    plain = idlewise.simulate(hplajw, DISK, "experts")[0]
    for r in results:
        assert keys <= set(r)
        assert r["requests"] == len(hplajw)
        # Percentiles and delays are the user requests', wherever they were served.
        assert 0 < r["p50_response_s"] <= r["p95_response_s"] <= r["p99_response_s"] <= r["max_response_s"]
        assert r["delayed_requests"] >= r["reads_spinning_up"] > 0
        # The plain-disk figures are the plain simulation's, exactly.
        assert r["plain_disk_energy_j"] == plain["energy_j"] and r["plain_disk_spinups"] == plain["wakeups"]
        assert r["energy_j"] == pytest.approx(r["disk_energy_j"] + r["flash_energy_j"], rel=1e-12)
        # What was redirected is flushed, left, or made stale by a later platter write (issue 31).
        assert r["bytes_flushed"] + r["bytes_unflushed"] + r["bytes_superseded"] == r["bytes_redirected"]
        assert r["bytes_flushed"] <= r["bytes_redirected"]
        assert r["flush_disk_bytes_written"] <= r["bytes_flushed"]
        assert r["max_bytes_cached_per_spindown"] == r["bytes_cached_per_spindown"].max()
        # Writing redirected data costs the flash its metadata sector per write.
        assert r["flash_bytes_written"] >= r["bytes_redirected"] + 512 * r["writes_redirected"]
        # The NVCache absorbs writes that would have spun the disk up.
        assert r["spinups"] < r["plain_disk_spinups"] and r["energy_j"] < r["plain_disk_energy_j"]
        if r["nvcache_bytes"] is None and r["flush_when"] == "full":
            # Nothing flushed, nothing lost: the log holds every redirected write the platters did
            # not overwrite later.
            assert r["flushes"] == 0 and r["bytes_unflushed"] == r["bytes_redirected"] - r["bytes_superseded"] > 0
        assert sum(r["bytes_cached_per_spindown"]) == r["bytes_redirected"]
    by = {(r["nvcache_bytes"], r["flush_when"], r["flush_algorithm"]): r for r in results}
    # Sorting and merging shortens the flush, for both flush times.
    for when in ("each", "full"):
        assert by[(64 << 20, when, 4)]["flush_time_s"] < by[(64 << 20, when, 1)]["flush_time_s"]
        assert by[(64 << 20, when, 4)]["merges"] > 0 == by[(64 << 20, when, 1)]["merges"]


def test_always_on_never_redirects_and_is_the_plain_disk_plus_an_idle_flash(hplajw):
    r = idlewise.hybrid(hplajw, DISK, FLASH, policy="always-on")[0]
    assert (r["writes_redirected"], r["flushes"], r["spinups"]) == (0, 0, 0)
    assert r["disk_energy_j"] == pytest.approx(r["plain_disk_energy_j"], rel=1e-12)
    assert r["flash_energy_j"] == pytest.approx(0.00066 * r["makespan_s"], rel=1e-12)


def test_errors_are_clear_and_come_before_any_run(tmp_path):
    t = trace_of([0.0, 1.0])
    with pytest.raises(idlewise.IdlewiseError, match="'oracle' reads each idle gap's length"):
        idlewise.hybrid(t, DISK, FLASH, policy="oracle")
    with pytest.raises(idlewise.IdlewiseError, match="disk: 'sandisk-ultra-ii-cf' is a flash device"):
        prepare(FLASH, FLASH)
    with pytest.raises(idlewise.IdlewiseError, match="flush_algorithm must be 1, 2, 3 or 4"):
        prepare(DISK, FLASH, flush_algorithm=5)
    with pytest.raises(idlewise.IdlewiseError, match="flush_when must be 'each' or 'full'"):
        prepare(DISK, FLASH, flush_when="never")
    with pytest.raises(idlewise.IdlewiseError, match="needs a disk and a flash part"):
        prepare(DISK)
    with pytest.raises(idlewise.IdlewiseError, match="dram.*at least 1 KiB"):
        idlewise.hybrid(t, DISK, FLASH, dram=512)
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\ndisk = "no-such-disk"\nflash = "sandisk-ultra-ii-cf"\nnvcache = "1MiB"\ndram = "1MiB"\n')
    with pytest.raises(idlewise.IdlewiseError, match=r"hybrid description .*bad.toml: disk: unknown device 'no-such-disk'"):
        load_hybrid(bad)
    bad.write_text('name = "x"\ndisk = "d"\nflash = "f"\nnvcache = "1MiB"\ndram = "1MiB"\nflush = 3\n')
    with pytest.raises(idlewise.IdlewiseError, match=r"bad.toml: line 6: unknown field `flush`"):
        load_hybrid(bad)


def test_a_description_may_name_parts_by_path_relative_to_itself(tmp_path):
    disk_file = tmp_path / "my-disk.toml"
    disk_file.write_text((resources.files("idlewise") / "catalog" / f"{DISK}.toml").read_text().replace(DISK, "my-disk"))
    h = tmp_path / "sshd.toml"
    h.write_text(f'name = "sshd"\ndisk = "my-disk.toml"\nflash = "{FLASH}"\nnvcache = "inf"\ndram = "8MiB"\n')
    d = load_hybrid(h)
    assert d["disk"].name == "my-disk" and d["nvcache_bytes"] is None and d["dram_bytes"] == 8 << 20


def test_cli_runs_every_combination_as_json(capsys):
    argv = ["hybrid", SRT, "--stream", "0", "--disk", DISK, "--flash", FLASH, "--nvcache", "64MiB", "--dram", "16MiB",
            "--flush-when", "each", "--flush-when", "full", "--flush-algorithm", "2", "--flush-algorithm", "4",
            "--policy", "experts", "--json"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["flush_when"], r["flush_algorithm"]) for r in rows] == [("each", 2), ("each", 4), ("full", 2), ("full", 4)]
    assert all(isinstance(r["bytes_cached_per_spindown"], list) for r in rows)
    assert main(["hybrid", SRT, "--stream", "0", "--hybrid", "seed003-e7k100-ultra-ii"]) == 0
    out = capsys.readouterr().out
    assert "hitachi-travelstar-e7k100 with sandisk-ultra-ii-cf" in out and "64MiB" in out


def test_cli_refuses_bad_arguments_before_reading(capsys, tmp_path):
    missing = str(tmp_path / "missing.srt")
    assert main(["hybrid", missing, "--hybrid", "seed003-e7k100-ultra-ii", "--nvcache", "64Mb"]) == 2
    assert "nvcache: unknown size unit 'Mb'" in capsys.readouterr().err
    assert main(["hybrid", missing, "--hybrid", "seed003-e7k100-ultra-ii", "--policy", "oracle"]) == 2
    assert "'oracle' reads each idle gap's length" in capsys.readouterr().err
    assert main(["hybrid", missing, "--disk", DISK]) == 2
    assert "needs a disk and a flash part" in capsys.readouterr().err


def test_a_flush_delays_the_users_request_behind_it():
    # Writes while spun down go to flash; the read at 100 s misses and spins the disk up; under
    # `each` the flush follows, so the write at 102.53 s waits behind it, unlike under `full`.
    t = trace_of([0.0, 30.0, 31.0, 32.0, 100.0, 102.53], sizes=np.full(6, 65536), ops=[1, 1, 1, 1, 0, 1],
                 offsets=np.array([0, 1, 2, 3, 50, 60]) * (1 << 30))
    each, full = idlewise.hybrid(t, DISK, FLASH, policy="timeout:10s", flush_when=["each", "full"])
    assert each["writes_redirected"] == full["writes_redirected"] == 3
    assert each["flushes"] == 1 and full["flushes"] == 0
    assert each["mean_response_s"] > full["mean_response_s"] + 0.01 / 6


@pytest.mark.parametrize("extra", [[], ["--transform", "compress-reorder:64ops"], ["--replay", "closed"]])
def test_the_cli_replays_a_file_as_read_with_the_rows_of_a_whole_read(capsys, tmp_path, extra):
    # `idlewise hybrid` streams by default: every device of the two-disk SRT trace, each
    # configuration and the plain disk, fed as the file is read (transformed as it goes), give
    # the rows of the trace read whole (--sort), value for value; so does a text copy of disk 0,
    # cut into the engine's chunks.
    argv = ["hybrid", SRT, "--disk", DISK, "--flash", FLASH, "--nvcache", "1MiB", "--nvcache", "inf", "--flush-when", "each",
            "--flush-when", "full", "--policy", "timeout:5s", "--json", *extra]
    assert main(argv) == 0
    streamed = json.loads(capsys.readouterr().out)
    assert main([*argv, "--sort"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert len(streamed) == len(whole) == 8 and {r["stream"] for r in streamed} == {0, 1}
    assert streamed == whole
    trace = idlewise.read_srt(SRT, disk=0)
    text = tmp_path / "disk0.csv"
    with open(text, "w") as f:
        f.write("time_s,offset_bytes,size_bytes,op\n")
        f.writelines(f"{t!r},{o},{s},{'W' if w else 'R'}\n"
                     for t, o, s, w in zip(trace.time_s.tolist(), trace.offset_bytes.tolist(), trace.size_bytes.tolist(), trace.is_write.tolist()))
    assert main([*argv[:1], str(text), *argv[2:]]) == 0
    from_text = json.loads(capsys.readouterr().out)
    keys = ("energy_j", "spinups", "mean_response_s", "bytes_flushed", "plain_disk_energy_j", "flushes")
    assert [[r[k] for k in keys] for r in from_text] == [[r[k] for k in keys] for r in streamed if r["stream"] == 0]


def test_a_streamed_hybrid_run_names_the_line_of_a_request_beyond_the_disk(capsys, tmp_path):
    path = tmp_path / "far.csv"
    path.write_text("time_s,offset_bytes,size_bytes,op\n0,0,4096,W\n\n1,999999999999999,4096,R\n")
    assert main(["hybrid", str(path), "--hybrid", "seed003-e7k100-ultra-ii"]) == 2
    err = capsys.readouterr().err
    assert "far.csv: line 4, field 'offset_bytes'" in err and "beyond device" in err


def test_hybrid_file_keeps_one_device_as_read_and_equals_hybrid_of_it_in_memory():
    rows, read = idlewise.hybrid_file(SRT, description="seed003-e7k100-ultra-ii", stream=0, flush_when=["each", "full"])
    whole = idlewise.hybrid(idlewise.read_srt(SRT, disk=0), description="seed003-e7k100-ultra-ii", flush_when=["each", "full"])
    drop = ("trace", "stream", "bytes_cached_per_spindown", "spindown_ends_s")
    assert [{k: v for k, v in r.items() if k not in drop} for r in rows] == [{k: v for k, v in r.items() if k not in drop} for r in whole]
    assert all(np.array_equal(a["spindown_ends_s"], b["spindown_ends_s"]) for a, b in zip(rows, whole))
    assert "kept 42,252, skipped 2,267 records of other devices (kept device 0)" in read.report()


def test_hybrid_file_streams_a_recording_and_equals_hybrid_of_it_read_whole():
    """A diskstats recording is streamed (issue 62), its idle before the first request and after
    the last kept: the rows are those of the recording read whole, bit for bit."""
    from conftest import TRACES

    path = TRACES / "diskstats" / "build-vm.diskstats"
    rows, read = idlewise.hybrid_file(path, description="seed003-e7k100-ultra-ii", stream="vda", flush_when=["each", "full"])
    whole = idlewise.hybrid(idlewise.read_trace(path, stream="vda"), description="seed003-e7k100-ultra-ii",
                            flush_when=["each", "full"])
    drop = ("trace", "stream", "bytes_cached_per_spindown", "spindown_ends_s")
    assert [{k: v for k, v in r.items() if k not in drop} for r in rows] == [{k: v for k, v in r.items() if k not in drop} for r in whole]
    assert rows[0]["first_arrival_s"] == 0.0  # the run begins at the recording's first snapshot


def test_the_final_flush_puts_what_the_log_holds_on_the_platters_and_charges_it(capsys):
    """Seed 003's full leaves its log's last contents unflushed at the end of the week; with
    --final-flush they are flushed after the last request and the flush's time and energy are
    counted (issue 44). Everything before the end is the same run."""
    argv = ["hybrid", SRT, "--stream", "0", "--disk", DISK, "--flash", FLASH, "--flush-when", "full", "--flush-algorithm", "1",
            "--policy", "timeout:10s", "--json"]
    assert main(argv) == 0
    left = json.loads(capsys.readouterr().out)[0]
    assert main(argv + ["--final-flush"]) == 0
    charged = json.loads(capsys.readouterr().out)[0]
    assert left["final_flush"] is False and charged["final_flush"] is True
    assert left["bytes_unflushed"] > 0 and charged["bytes_unflushed"] == 0
    assert charged["bytes_flushed"] == left["bytes_flushed"] + left["bytes_unflushed"]
    assert charged["flushes"] == left["flushes"] + 1
    assert charged["flush_time_s"] > left["flush_time_s"] and charged["energy_j"] > left["energy_j"]
    assert charged["requests"] == left["requests"] and charged["bytes_redirected"] == left["bytes_redirected"]
