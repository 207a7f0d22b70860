"""Options, arguments and inputs that once ended in a traceback, ran away with a resource or
echoed what they should not (issue 39): each is now a clear refusal naming the option, file or
field, with the limit in the message. Every case here failed on the code before."""

import errno
import os
import resource
import subprocess
import sys

import numpy as np
import pytest
from screens import last_message

import idlewise
from conftest import DISKSIM
from idlewise.cli import main, printable

HUGE = "9" * 25


def _error(argv, capsys) -> str:
    """The one line an error prints (stderr), after the code 2 every refusal exits with."""
    with pytest.raises(SystemExit) if argv[0] in ("--never",) else _no_raise():
        code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    return last_message(err)


class _no_raise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


SIM = ["simulate", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"]


@pytest.mark.parametrize("argv, said", [
    (SIM + ["--transform", f"stream:{HUGE}"], "must be from -9,223,372,036,854,775,808 to 9,223,372,036,854,775,807"),
    (["trace", "stats", DISKSIM, "--stream", "2"], "no records of device 2 found in 100,000 records read"),
    (SIM + ["--stream", "2"], "no records of device 2 found in 100,000 lines"),  # (the engine's: it said 100000)
    # A file the system cannot open, named as every reader names one (it said "[Errno 2] ... 'nofile.csv'").
    (["cache", "nofile.csv"], "error: nofile.csv: No such file or directory"),
    (["experiment", "static-vs-adaptive", "--workload", "nofile.csv"], "error: nofile.csv: No such file or directory"),
    # trace convert's output is checked before the read, as every command's (it named its temporary file).
    (["trace", "convert", DISKSIM, "nodir/x.parquet"], "nodir/x.parquet: cannot write: the directory nodir does not exist"),
    (["trace", "convert", DISKSIM, "x.csv"], "x.csv: the file must end in .parquet"),
    (["sweep", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--scheduler", "notaurl"],
     "expected a Dask scheduler's address, tcp://HOST:PORT"),
    (["sweep", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--plot", "x.bmp"], "x.bmp: the file must end in .png"),
    (SIM + ["--per-request", "x.csv"], "x.csv: the file must end in .parquet"),
    (["report", DISKSIM, "--stream", "0", "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--out", "r.pdf"],
     "r.pdf: the file must end in .html or .htm"),
    (["report", DISKSIM, "--stream", "0", "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--window", "100000s..200000s",
      "--out", "r.html"], "starts after the trace's last request"),
])
def test_a_bad_option_is_refused_by_name(tmp_path, capsys, argv, said, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert said in _error(argv, capsys)


@pytest.mark.parametrize("argv, said", [
    (SIM + ["--stream", HUGE], "argument --stream: must be from"),
    (["sweep", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--jobs", HUGE], "argument --jobs: must be from 1 to 1,024"),
    (["sweep", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--volume-parts", "100000"],
     "argument --volume-parts: must be from 1 to 1,024"),
    (["workload", "mail", "--seed", "-1", "--out", "x.csv"], "argument --seed: must be from 0 to 18,446,744,073,709,551,615"),
])
def test_a_number_out_of_range_is_a_usage_error(capsys, argv, said):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert said in capsys.readouterr().err


def test_the_api_refuses_numbers_the_engine_cannot_hold():
    with pytest.raises(idlewise.IdlewiseError, match="threads must be from 1 to 1,024"):
        idlewise.simulate_file(DISKSIM, "hitachi-microdrive-1gb", ["timeout:2s"], threads=2**70, progress=False)
    with pytest.raises(idlewise.IdlewiseError, match="stream must be from"):
        idlewise.simulate_file(DISKSIM, "hitachi-microdrive-1gb", ["timeout:2s"], stream=10**30, progress=False)
    with pytest.raises(idlewise.IdlewiseError, match="stream must be from"):
        idlewise.read_trace(DISKSIM, stream=10**30)
    with pytest.raises(idlewise.IdlewiseError, match="jobs must be from 1"):
        idlewise.sweep([DISKSIM], ["hitachi-microdrive-1gb"], ["timeout:2s"], jobs=2**70, progress=False)
    with pytest.raises(idlewise.IdlewiseError, match="volume_parts must be"):
        idlewise.sweep([DISKSIM], ["hitachi-microdrive-1gb"], ["timeout:2s"], volume_parts=10**9, progress=False)


def test_parquet_device_columns_with_nulls_or_negatives_are_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = {"time_s": [0.0, 1.0], "offset_bytes": [0, 0], "size_bytes": [512, 512], "is_write": [False, True]}
    for stream, said in (([0, None], "column 'stream' has 1 null values"), ([0, -3], "record 1, field 'stream': expected a device number")):
        path = tmp_path / "t.parquet"
        pq.write_table(pa.table({**base, "stream": pa.array(stream, pa.int64())}), path)
        with pytest.raises(idlewise.IdlewiseError, match=said):
            idlewise.read_trace(path)
        with pytest.raises(idlewise.IdlewiseError, match=said):
            idlewise.simulate_file(path, "hitachi-microdrive-1gb", ["always-on"], progress=False)


@pytest.mark.parametrize("format, line", [
    ("disksim", "0.0 -1 100 8 1\n"), ("spc", "-1,100,4096,r,0.5\n"), ("spc-ascii", "0 -1 100 8 1\n"),
    ("msr", "128166372003061629,hm,-1,Read,0,4096,1\n"), ("alibaba", "-7,R,0,4096,1000000\n"), ("tencent", "1538323200,100,8,0,-5\n"),
])
def test_every_reader_refuses_a_negative_device_number(tmp_path, format, line):
    path = tmp_path / f"t.{format}"
    path.write_text(line)
    with pytest.raises(idlewise.IdlewiseError, match=r"line 1, field .*\(0 or more\), got '-"):
        idlewise.read_trace(path, format=format)


def test_a_corrupted_recording_is_refused_before_it_is_built(tmp_path, monkeypatch):
    # A 2-line file whose counters claim 5e16 requests: refused by the memory budget, in
    # milliseconds, not after allocating terabytes.
    path = tmp_path / "big.diskstats"
    path.write_text("0 8 0 sda 0 0 0 0 0 0 0 0 0 0 0\n1000000000 8 0 sda 50000000000000000 0 0 0 0 0 0 0 0 0 0\n")
    with pytest.raises(idlewise.IdlewiseError, match="claim 50,000,000,000,000,000 requests"):
        idlewise.read_trace(path)
    path.write_text("0 8 0 sda 0 0 0 0 0 0 0 0 0 0 0\n10 8 0 sda 500000000 0 0 0 0 0 0 0 0 0 0\n")
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", "100MB")
    with pytest.raises(idlewise.IdlewiseError, match="more than the 0.1 GiB memory budget"):
        idlewise.read_trace(path)


def test_messages_are_bounded_and_escape_control_characters(tmp_path, capsys):
    header = tmp_path / "h.csv"
    header.write_text("x" * 1_000_000 + ",b\n1,2\n")
    err = _error(["simulate", str(header), "--format", "csv", "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"], capsys)
    assert len(err) < 1_000 and "(1000000 bytes)" in err
    escaped = tmp_path / "e.csv"
    escaped.write_text("time_s,offset_bytes,size_bytes,op\n1,0,4096,\x1b[31mR\x1b[0m\n")
    err = _error(["simulate", str(escaped), "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"], capsys)
    assert "\x1b" not in err and "\\u{1b}[31mR" in err
    assert printable("a\x1b[2Jb\x07") == "a\\x1b[2Jb\\x07"
    assert printable("x" * 5000).endswith("… (3,000 more characters)")


def test_a_full_disk_names_the_file(tmp_path):
    from idlewise.output import written_whole

    out = tmp_path / "runs.parquet"
    with pytest.raises(idlewise.IdlewiseError, match=r"runs\.parquet: cannot write: No space left on device"):
        with written_whole(out):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert list(tmp_path.iterdir()) == []


def test_folding_offsets_never_lets_a_request_larger_than_the_disk_through(tmp_path):
    trace = idlewise.Trace.from_arrays([0.0, 1.0], [4096, 2**40], offset_bytes=[0, 0])
    with pytest.raises(idlewise.IdlewiseError, match="do not fit on device 'hitachi-travelstar-5k320'"):
        idlewise.simulate(trace, "hitachi-travelstar-5k320", ["always-on"], fold_offsets=True)


def test_per_request_rows_of_many_devices_hold_no_file_open(tmp_path):
    # 300 devices x 2 runs under a limit of 64 open files: one writer a (device, run) ran out of
    # descriptors after all the work; now each part's file is closed once written.
    n = 300 * 20
    rng = np.random.default_rng(5)
    lines = "".join(f"{t:.3f} {d} {rng.integers(0, 10**6)} 8 1\n" for t, d in zip(np.sort(rng.uniform(0, 3_600_000, n)), np.arange(n) % 300))
    path = tmp_path / "many.trace"
    path.write_text(lines)
    out = tmp_path / "rows.parquet"

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    done = subprocess.run([sys.executable, "-m", "idlewise.cli", "simulate", str(path), "--format", "disksim", "--device",
                           "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--per-request", str(out), "--json"],
                          preexec_fn=limit, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    import pyarrow.parquet as pq

    assert pq.read_metadata(out).num_rows == n


def test_a_parquet_file_that_changed_while_read_is_refused(tmp_path, monkeypatch):
    # Fewer records than the footer counts (a file cut while read): refused, not replayed as
    # the part that was there. Simulated by a reader that stops after its first batch.
    from idlewise.traces.readers import parquet

    path = tmp_path / "t.parquet"
    idlewise.traces.write_parquet(idlewise.Trace.from_arrays(np.arange(3000.0), np.full(3000, 512)), path)
    opened = parquet._open

    def cut(p, streaming=False):
        file = opened(p, streaming)
        whole = file.iter_batches
        file.iter_batches = lambda **kw: iter([next(whole(**kw))])
        return file

    monkeypatch.setattr(parquet, "_open", cut)
    with pytest.raises(idlewise.IdlewiseError, match="read 1,000 records where the file's footer counts 3,000"):
        list(parquet.iter_parquet_batches(path, batch_records=1000))


def test_recording_faster_than_the_counters_move_is_refused(tmp_path):
    from idlewise.record import record

    with pytest.raises(idlewise.IdlewiseError, match="--interval must be at least 10 ms"):
        record(str(tmp_path / "x.diskstats"), interval_s=1e-9, duration_s=1.0)


def test_more_devices_than_the_memory_budget_holds_is_refused_with_the_way_out(tmp_path, monkeypatch):
    # Every device's runs stay until a streamed trace's end: past the budget's worth of devices
    # the replay stops with the number and how to split them (a million devices aborted in an
    # allocation failure). 1 MB holds 13 devices under one policy and the two references (24 KiB a run).
    path = tmp_path / "many.alibaba"
    path.write_text("".join(f"{i % 50},R,0,4096,{1_000_000 * (i + 1)}\n" for i in range(500)))
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", "1MB")
    with pytest.raises(idlewise.IdlewiseError, match=r"more than 13 devices.*--volume-parts N"):
        idlewise.simulate_file(path, "hitachi-microdrive-1gb", ["timeout:2s"], progress=False)
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", "100MB")
    assert len(idlewise.simulate_file(path, "hitachi-microdrive-1gb", ["timeout:2s"], progress=False).to_dicts()) == 50


def test_many_devices_get_a_summary_not_thousands_of_tables(tmp_path, capsys):
    # trace stats and sweep of 3,000 devices: totals and the busiest devices, in a screenful
    # (each device's histogram table took 190 s and 800k lines for 100,000 devices).
    path = tmp_path / "many.alibaba"
    path.write_text("".join(f"{i % 3000},R,0,4096,{1_000_000 * (i + 1)}\n" for i in range(9000)))
    assert main(["trace", "stats", str(path)]) == 0
    out = capsys.readouterr().out
    assert "3,000 devices: 9,000 requests" in out and "the 20 busiest of 3,000" in out
    assert len(out.splitlines()) < 40 and "--json for all 3,000" in out
    assert main(["sweep", str(path), "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"]) == 0
    out = capsys.readouterr().out
    assert "2,800 more rows of the sweep are not shown" in out and len(out.splitlines()) < 230
    # simulate too (its table of 100,000 devices took 204 s against 11 s for the runs).
    assert main(["simulate", str(path), "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"]) == 0
    out = capsys.readouterr().out
    assert "2,800 more are not shown (--json for every run)" in out and len(out.splitlines()) < 230


NEGATIVE_TIMES = {
    "csv": "time_s,offset_bytes,size_bytes,op\n-2.0,0,4096,R\n-1.0,0,4096,W\n",
    "disksim": "-2.0 0 100 8 1\n-1.0 0 100 8 1\n",
    "spc": "0,100,4096,r,-2.0\n0,100,4096,r,-1.0\n",
    "spc-ascii": "-2000 0 100 8 1\n-1000 0 100 8 1\n",
    "msr": "-20000000,hm,0,Read,0,4096,1\n-10000000,hm,0,Read,0,4096,1\n",
    "alibaba": "1,R,0,4096,-2000000\n1,R,0,4096,-1000000\n",
    "tencent": "-2,100,8,0,1\n-1,100,8,0,1\n",
    "fiu": "-2000 1 p 100 8 R 8 0 ab\n-1000 1 p 100 8 R 8 0 ab\n",
    "blkparse": "  8,0 0 1 -2.000000000 1 Q R 100 + 8 [p]\n  8,0 0 2 -1.000000000 1 Q R 100 + 8 [p]\n",
    "diskstats": "-20 8 0 sda 0 0 0 0 0 0 0 0 0 0 0\n-10 8 0 sda 1 0 8 0 0 0 0 0 0 0 0\n",
    "biosnoop": "TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\n-2.0 p 1 sda R 100 4096 0.1\n-1.0 p 1 sda R 100 4096 0.1\n",
}
#: Formats whose tools write a clock that cannot go below zero (seconds since tracing began, Unix
#: time): a negative time there is a corrupted line. Every other format's times are offsets from
#: an origin of its own, and any origin, negative included, gives the same run (README).
CLOCK_FORMATS = {"blkparse", "diskstats", "biosnoop"}


@pytest.mark.parametrize("format", sorted(NEGATIVE_TIMES))
def test_negative_times_are_accepted_or_refused_by_one_rule(tmp_path, format):
    path = tmp_path / f"neg.{format}"
    path.write_text(NEGATIVE_TIMES[format])
    if format in CLOCK_FORMATS:
        with pytest.raises(idlewise.IdlewiseError, match="line [12]"):
            idlewise.read_trace(path, format=format)
    else:
        shifted = idlewise.read_trace(path, format=format)
        assert len(shifted) == 2 and shifted.time_s[1] - shifted.time_s[0] > 0


@pytest.mark.parametrize("argv, said", [
    (["workload", "mail", "--out", ""], "an empty file name"),
    (["workload", "web", "--log", "tcp://127.0.0.1:1", "--out", "x.csv"], "tcp://127.0.0.1:1: cannot read"),
])
def test_what_the_option_fuzz_found(tmp_path, capsys, monkeypatch, argv, said):
    # benchmarks/fuzz.py --only options: an empty --out reached the writer; a log path that
    # looks like a URL went to pandas as one.
    monkeypatch.chdir(tmp_path)
    assert said in _error(argv, capsys)


def test_an_srt_file_cut_while_read_is_refused(monkeypatch):
    # The file shrank between its size being read and its records: fewer words than counted
    # (a `cannot reshape` traceback before).
    from conftest import SRT
    from idlewise.traces.readers import hp_srt

    whole = np.fromfile
    monkeypatch.setattr(hp_srt.np, "fromfile", lambda f, dtype, count: whole(f, dtype=dtype, count=count)[:count // 3])
    with pytest.raises(idlewise.IdlewiseError, match="truncated while read"):
        idlewise.read_trace(SRT)


@pytest.mark.parametrize("source", ["fifo", "pipe"])
def test_sigterm_while_waiting_on_a_pipe_ends_the_command(tmp_path, source):
    # A FIFO no one writes to, and a pipe whose writer never ends: SIGTERM ends the command
    # (143) at once; it once hung, or waited for EOF.
    import signal
    import time

    argv = [sys.executable, "-m", "idlewise.cli", "simulate", "-", "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"]
    if source == "fifo":
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        argv[4] = str(fifo)
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    else:
        writer = subprocess.Popen(["sleep", "60"], stdout=subprocess.PIPE)
        p = subprocess.Popen(argv, stdin=writer.stdout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    p.send_signal(signal.SIGTERM)
    err = p.communicate(timeout=20)[1]
    if source == "pipe":
        writer.kill()
    assert p.returncode == 143 and "Traceback" not in err, (p.returncode, err[-1000:])


@pytest.mark.parametrize("device, capacity", [
    ("hitachi-microdrive-1gb", "1000000000 bytes"), ("samsung-pm981-1tb", "1000204886016 bytes"), ("cmu-mems-g2", "6750000 blocks"),
])
def test_a_request_larger_than_the_whole_device_is_refused(tmp_path, capsys, device, capacity):
    """The 1 GB microdrive once served a 2^62-byte request as 107 years of transfer. Every
    storage device of the catalog knows its size (stated, cylinders or layout); a request larger
    than the device is refused naming the record, folded or not."""
    path = tmp_path / "big.csv"
    path.write_text(f"time_s,offset_bytes,size_bytes,op\n0.0,0,4096,R\n1.0,0,{2**62},R\n")
    for fold in ([], ["--fold-offsets"]):
        err = _error(["simulate", str(path), "--device", device, "--policy", "timeout:2s", *fold], capsys)
        assert "record 1" in err or "line 3" in err, err
        assert capacity in err, err


def test_every_catalog_storage_device_knows_its_capacity():
    for name in idlewise.devices.catalog_names():
        device = idlewise.load_device(name)
        stated = device.capacity_bytes
        if device.kind == "network":
            assert stated is None, name
        elif name != "sandisk-ultra-ii-cf":  # seed 003's NVCache: the hybrid's description sizes it
            assert stated and stated >= 64e6, name
