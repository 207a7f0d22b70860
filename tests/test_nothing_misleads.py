"""Issue 60: nothing misleads quietly, and small hostile files stay small.

A policy that cannot act on the device is refused with why; a device model that cannot keep up
with its trace is said so; a narrow table that shows wake-ups says what it counts and keeps the
spin-ups; a conversion keeps what its source's reader skipped; a line past the readers' limit is
refused naming it, in bounded memory; a compressed binary file or a tar member is judged from
its first bytes, before the rest is decompressed or written."""

from __future__ import annotations

import gzip
import io
import os
import tarfile

import pytest
from rich.console import Console

import idlewise
from idlewise import IdlewiseError, TraceError
from idlewise.cli import main
from idlewise.traces.inputs import bounded_lines

from conftest import DISKSIM, trace_of


# --- policies that cannot act on the device ----------------------------------------------------

@pytest.mark.parametrize("device, policy, why", [
    ("hitachi-travelstar-5k320", "apst", "APST is NVMe's: device 'hitachi-travelstar-5k320' is an ATA disk"),
    ("wd-red-plus-4tb", "apst:primary_timeout_ms=0", "not an NVMe drive"),
    ("hitachi-travelstar-5k320", "epc:standby=10min", "does not implement ATA Extended Power Conditions"),
    ("hitachi-microdrive-1gb", "epc", "does not implement ATA Extended Power Conditions"),
    ("hitachi-travelstar-5k320", "psm", "no low-power mode that serves"),
])
def test_a_policy_the_device_cannot_have_is_refused_with_why(device, policy, why, capsys):
    with pytest.raises(IdlewiseError, match=why):
        idlewise.simulate(trace_of([0.0, 10.0]), device, [policy])
    # The command line refuses it before any replay, in a sweep as in a simulate.
    assert main(["sweep", DISKSIM, "--device", device, "--policy", "timeout:2s", "--policy", policy]) == 2
    assert why.split(":")[0] in capsys.readouterr().err


def test_the_drives_that_have_them_keep_apst_and_epc():
    rows = idlewise.simulate(trace_of([0.0, 10.0]), "samsung-950-pro-512gb", ["apst"]).to_dicts()
    assert rows[0]["wakeups"] == 1
    rows = idlewise.simulate(trace_of([0.0, 4000.0]), "seagate-constellation-es1-500gb", ["epc"]).to_dicts()
    assert rows[0]["wakeups"] == 1


# --- a device model that cannot keep up ----------------------------------------------------------

def test_a_saturated_device_model_is_said_so_in_simulate_sweep_and_advise(tmp_path, capsys):
    # 600 requests of 1 MiB in 10 s on a 1 GB Microdrive (a few MB/s): about 10x what it serves.
    path = tmp_path / "busy.csv"
    path.write_text("time_s,offset_bytes,size_bytes,op\n" + "".join(f"{i / 60},{i << 20},{1 << 20},R\n" for i in range(600)))
    rows = idlewise.simulate(idlewise.read_trace(path), "hitachi-microdrive-1gb", ["timeout:2s"]).to_dicts()
    load = rows[0]["offered_load"]
    assert load == pytest.approx(rows[0]["service_time_s"] / (599 / 60), rel=1e-12) and load > 1
    for argv in (["simulate", str(path)], ["sweep", str(path)]):
        assert main([*argv, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"]) == 0
        err = capsys.readouterr().err
        assert "hitachi-microdrive-1gb cannot keep up with the trace" in err and f"{load:.2f}x" in err, err
    advice = idlewise.advise(str(path), "hitachi-microdrive-1gb")
    assert any("cannot keep up with the trace" in w for w in advice["warnings"]), advice["warnings"]
    # A device that keeps up says nothing of it.
    assert main(["simulate", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"]) == 0
    assert "cannot keep up" not in capsys.readouterr().err


def test_the_offered_load_is_the_same_streamed_and_whole(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("time_s,offset_bytes,size_bytes,op\n" + "".join(f"{i * 0.37},{i * 4096},{4096 * (1 + i % 5)},R\n" for i in range(500)))
    whole = idlewise.simulate(idlewise.read_trace(path), "hitachi-travelstar-5k320", ["timeout:5s"]).to_dicts()[0]
    streamed = idlewise.simulate_file(str(path), "hitachi-travelstar-5k320", ["timeout:5s"]).to_dicts()[0]
    assert whole["offered_load"] == streamed["offered_load"] == pytest.approx(whole["service_time_s"] / (499 * 0.37), rel=1e-12)
    one = idlewise.simulate(trace_of([5.0]), "hitachi-travelstar-5k320", ["timeout:5s"]).to_dicts()[0]
    assert one["offered_load"] is None  # one instant: no span to offer it over


# --- what a narrow table's wake-ups count ----------------------------------------------------------

@pytest.mark.parametrize("width", [80, 100, 200])
def test_a_table_that_shows_wake_ups_says_what_they_count_and_keeps_the_spin_ups(width):
    from idlewise.cli._common import results_table

    trace = idlewise.read_trace(DISKSIM)
    results = idlewise.simulate(trace, "hitachi-travelstar-5k320", ["breakeven", "oracle", "timeout:30s"])
    table = results_table(results, "t", width=width)
    headers = [" ".join(str(c.header).split()) for c in table.columns]
    assert "spin-ups" in headers, headers  # the wear column is the last to go
    assert not any(h.startswith("wake-ups") and h != "wake-ups (any mode)" for h in headers), headers
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(table)
    assert all(len(line.rstrip()) <= width for line in console.export_text().splitlines())


# --- a conversion keeps what its source's reader skipped -------------------------------------------

@pytest.mark.parametrize("streamed", [False, True])
def test_trace_convert_keeps_the_records_its_source_skipped(tmp_path, streamed, capsys):
    source = tmp_path / "t.blkparse"
    source.write_text("  8,0 3 1 0.000000000 697 D W 223490 + 8 [kworker]\n"
                      "  8,0 3 2 0.100000000 697 D R 1 + 8 [kworker]\n"
                      "CPU3 (8,0):\n Reads Queued: 1, 4KiB\n Writes Queued: 1, 4KiB\n"
                      "  8,0 3 3 2.000000000 697 D R 9 + 8 [kworker]\n")
    read = idlewise.read_trace(source)
    skipped = sum(read.skipped.values())
    assert skipped > 0
    out = tmp_path / "t.parquet"
    if streamed:  # the command line writes it a batch at a time, as it is read
        assert main(["trace", "convert", str(source), str(out)]) == 0
    else:
        idlewise.traces.write_parquet(read, out)
    converted = idlewise.read_trace(out)
    assert converted.skipped == read.skipped and converted.records_read == read.records_read
    whole = idlewise.simulate(read, "hitachi-microdrive-1gb", ["timeout:1s"]).to_dicts()[0]
    again = idlewise.simulate_file(str(out), "hitachi-microdrive-1gb", ["timeout:1s"]).to_dicts()[0]
    assert again["records_skipped"] == skipped
    capsys.readouterr()
    assert main(["simulate", str(out), "--device", "hitachi-microdrive-1gb", "--policy", "timeout:1s", "--json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)[0]["records_skipped"] == skipped
    assert whole["energy_j"] == again["energy_j"]


# --- small hostile files stay small ------------------------------------------------------------------

class _Endless(io.RawIOBase):
    """``head`` then one byte for ever; refuses to be read past ``cap`` bytes (a reader that
    reads a whole line would hit it, not hang)."""

    def __init__(self, head: bytes, fill: bytes, cap: int):
        self.head, self.fill, self.cap, self.given = head, fill, cap, 0

    def readable(self):
        return True

    def readinto(self, buffer):
        if self.given > self.cap:
            raise AssertionError(f"read {self.given:,} bytes: the line was not refused at the limit")
        n = len(buffer)
        data = (self.head + self.fill * n)[:n]
        self.head = self.head[n:]
        buffer[:n] = data
        self.given += n
        return n


def test_a_line_past_the_limit_is_refused_naming_it_after_reading_about_the_limit():
    source = io.BufferedReader(_Endless(b"1 2 3\n4 5 6\n", b"7", 8 << 20))
    with pytest.raises(TraceError, match=r"f: line 3: a line longer than 1048576 bytes"):
        list(bounded_lines(source, "f"))
    assert source.raw.given < 3 << 20


def test_a_compressed_file_of_one_endless_line_is_refused_at_its_limit(tmp_path, capsys):
    # 64 MiB of digits on one line, gzipped to about 64 KB: every format that reads lines refuses
    # it at line 1 (diskstats and biosnoop are read in Python, the others by the engine).
    path = tmp_path / "line.gz"
    with gzip.open(path, "wb", compresslevel=1) as f:
        for _ in range(64):
            f.write(b"7" * (1 << 20))
    assert path.stat().st_size < 1 << 20
    for fmt in ("csv", "msr", "disksim", "blkparse", "diskstats", "biosnoop"):
        with pytest.raises(TraceError, match=r"line 1: a line longer than 1048576 bytes"):
            idlewise.read_trace(path, format=fmt)
    assert main(["simulate", str(path), "--format", "csv", "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"]) == 2
    assert "line 1: a line longer than 1048576 bytes" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["parquet", "srt"])
def test_a_compressed_binary_file_is_judged_by_its_first_bytes(tmp_path, fmt, monkeypatch):
    import idlewise.traces.inputs as inputs

    path = tmp_path / "zeros.gz"
    with gzip.open(path, "wb", compresslevel=1) as f:
        for _ in range(16):
            f.write(bytes(1 << 20))
    copied = []
    monkeypatch.setattr(inputs, "_copy", lambda *a: copied.append(a) or pytest.fail("decompressed before its head was checked"))
    with pytest.raises(TraceError, match=f"not a {fmt} file: decompressed, it does not begin with"):
        idlewise.read_trace(path, format=fmt)
    assert not copied


def _tar_with(tmp_path, name: str, chunks) -> str:
    """A .tar.gz holding one member ``name`` of the bytes ``chunks`` give (written as they come)."""
    member = tmp_path / "member"
    with open(member, "wb") as f:
        for chunk in chunks:
            f.write(chunk)
    archive = tmp_path / "a.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
        tar.add(member, arcname=name)
    member.unlink()
    return str(archive)


def _written(tmp_path_factory_root: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(tmp_path_factory_root) for f in files)


def test_a_tar_member_in_no_format_is_refused_before_it_is_written(tmp_path, monkeypatch):
    import tempfile

    spill = tmp_path / "spill"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    import idlewise.traces.inputs as inputs

    monkeypatch.setattr(inputs, "_FOLDER", [])
    archive = _tar_with(tmp_path, "zeros.bin", (bytes(1 << 20) for _ in range(32)))
    with pytest.raises(TraceError, match="member zeros.bin: a binary file in no format idlewise knows"):
        idlewise.read_trace(archive)
    assert _written(str(spill)) == 0


def test_a_tar_member_with_an_endless_line_is_refused_at_the_limit(tmp_path, monkeypatch):
    import tempfile

    spill = tmp_path / "spill"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    import idlewise.traces.inputs as inputs

    monkeypatch.setattr(inputs, "_FOLDER", [])
    head = b"time_s,offset_bytes,size_bytes,op\n" + b"".join(b"%d,0,4096,R\n" % i for i in range(10))
    archive = _tar_with(tmp_path, "t.csv", [head] + [b"9" * (1 << 20)] * 32)
    with pytest.raises(TraceError, match=r"member t.csv: a line longer than 1048576 bytes"):
        idlewise.read_trace(archive)
    assert _written(str(spill)) < 3 << 20
