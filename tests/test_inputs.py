"""Traces as they are published (issue 40 §3-4; issue 39's piped input): gzip, zstd, bzip2 and xz
recognised by their magic bytes whatever the name, standard input (`-`), named pipes and
`<(...)`. A compressed or piped trace gives exactly the rows of the same trace read from a plain
file, for every format idlewise reads, whole and streamed, with inputs larger than any buffer
used to recognise the format."""

import bz2
import gzip
import json
import lzma
import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest

import idlewise
from conftest import DISKSIM, SPC_ASCII, SRT, TRACES
from idlewise.traces import read_trace, write_parquet
from test_readers import SAMPLES
from test_recordings import BIOSNOOP

def _zstd(data: bytes) -> bytes:
    if shutil.which("zstd") is None:  # Debian's zstd is on every machine of this project's kind
        pytest.skip("no zstd command to compress with")
    return subprocess.run(["zstd", "-q", "-c"], input=data, stdout=subprocess.PIPE, check=True).stdout


COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress, "zstd": _zstd}


def _columns(trace):
    return (trace.time_s.tolist(), trace.offset_bytes.tolist(), trace.size_bytes.tolist(), trace.is_write.tolist(),
            None if trace.stream is None else trace.stream.tolist(), trace.records_read, dict(trace.skipped))


def _plain_files(tmp_path):
    """One file of every format idlewise reads: the readers' samples, a mapped CSV, diskstats,
    biosnoop, SRT and Parquet."""
    files = {}
    for fmt, (body, *_) in SAMPLES.items():
        files[fmt] = tmp_path / f"sample.{fmt}"
        files[fmt].write_text(body)
    files["diskstats"] = TRACES / "diskstats" / "build-vm.diskstats"
    files["biosnoop"] = tmp_path / "io.biosnoop"
    files["biosnoop"].write_text(BIOSNOOP)
    files["srt"] = SRT
    files["parquet"] = tmp_path / "t.parquet"
    write_parquet(read_trace(SPC_ASCII), files["parquet"])
    return files


@pytest.fixture(scope="module")
def plain_files(tmp_path_factory):
    return _plain_files(tmp_path_factory.mktemp("plain"))


@pytest.mark.parametrize("compression", COMPRESSORS)
def test_a_compressed_trace_reads_as_the_plain_one_in_every_format(plain_files, tmp_path, compression):
    for fmt, plain in plain_files.items():
        # The name says nothing of the compression: the magic bytes do.
        packed = tmp_path / f"{fmt}-trace"
        packed.write_bytes(COMPRESSORS[compression](open(plain, "rb").read()))
        assert idlewise.traces.detect_format(packed) == fmt
        assert _columns(read_trace(packed)) == _columns(read_trace(plain)), (fmt, compression)


@pytest.mark.parametrize("compression", COMPRESSORS)
def test_a_compressed_trace_replays_as_read_as_the_plain_one(plain_files, tmp_path, compression):
    policies = ["always-on", "timeout:2s", "oracle"]
    for fmt in ("csv", "disksim", "spc", "spc-ascii", "msr", "alibaba", "tencent", "blkparse", "fiu", "parquet", "srt"):
        plain = plain_files[fmt]
        packed = tmp_path / f"{fmt}.{compression}"
        packed.write_bytes(COMPRESSORS[compression](open(plain, "rb").read()))
        keep = ("stream", "policy", "requests", "energy_j", "mean_response_s", "makespan_s", "records_read")
        a = idlewise.simulate_file(plain, "hitachi-microdrive-1gb", policies, progress=False).to_dicts()
        b = idlewise.simulate_file(packed, "hitachi-microdrive-1gb", policies, progress=False).to_dicts()
        assert [{k: r.get(k) for k in keep} for r in a] == [{k: r.get(k) for k in keep} for r in b], (fmt, compression)


def test_a_mapped_csv_reads_compressed(tmp_path):
    body = "ts,len,rw\n" + "".join(f"{i * 7},{4096 * (1 + i % 3)},{'RW'[i % 2]}\n" for i in range(2000))
    plain, packed = tmp_path / "m.csv", tmp_path / "m.csv.gz"
    plain.write_text(body)
    packed.write_bytes(gzip.compress(body.encode()))
    columns = "time_ms=ts,size_bytes=len,op=rw"
    assert _columns(read_trace(packed, columns=columns)) == _columns(read_trace(plain, columns=columns))
    a = idlewise.simulate_file(plain, "hitachi-microdrive-1gb", ["timeout:1s"], columns=columns, progress=False).to_dicts()
    b = idlewise.simulate_file(packed, "hitachi-microdrive-1gb", ["timeout:1s"], columns=columns, progress=False).to_dicts()
    assert a[0]["energy_j"] == b[0]["energy_j"]


@pytest.mark.parametrize("compression", COMPRESSORS)
def test_a_truncated_compressed_trace_is_an_error_naming_the_file(tmp_path, compression):
    data = COMPRESSORS[compression](open(DISKSIM, "rb").read())
    path = tmp_path / "cut.trace"
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(idlewise.IdlewiseError, match=rf"cut\.trace.*{compression}"):
        read_trace(path)
    with pytest.raises(idlewise.IdlewiseError, match=rf"cut\.trace.*{compression}"):
        idlewise.simulate_file(path, "hitachi-microdrive-1gb", ["always-on"], progress=False)


def test_a_file_whose_compressed_head_cannot_be_read_is_named_once(tmp_path):
    # (It read "bad.gz: bad.gz: cannot read: gzip data: invalid gzip header".)
    path = tmp_path / "bad.gz"
    path.write_bytes(b"\x1f\x8b\x08garbage")
    for read in (lambda: read_trace(path), lambda: idlewise.simulate_file(path, "hitachi-microdrive-1gb", ["always-on"], progress=False)):
        with pytest.raises(idlewise.IdlewiseError) as refused:
            read()
        assert str(refused.value) == f"{path}: cannot read: gzip data: invalid gzip header"


def _big_csv(path, n=250_000):
    """A few MB: far more than the 64 KiB format detection reads, or any reader's chunk."""
    rng = np.random.default_rng(3)
    t = np.cumsum(rng.exponential(0.05, n))
    with open(path, "w") as f:
        f.write("time_s,offset_bytes,size_bytes,op\n")
        f.writelines(f"{t[i]:.6f},{4096 * int(rng.integers(0, 1 << 20))},4096,{'RW'[i % 3 == 0]}\n" for i in range(n))
    return path


def _cli_rows(argv, stdin=None):
    done = subprocess.run([sys.executable, "-m", "idlewise.cli", *argv, "--json"], stdin=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    return [{k: r[k] for k in ("policy", "requests", "energy_j", "mean_response_s", "stream")} for r in json.loads(done.stdout)]


@pytest.mark.parametrize("source", ["csv", "disksim", "gzip"])
def test_standard_input_and_named_pipes_lose_nothing(tmp_path, source):
    path = _big_csv(tmp_path / "big.csv") if source != "disksim" else DISKSIM
    if source == "gzip":
        packed = tmp_path / "big.csv.gz"
        packed.write_bytes(gzip.compress(open(path, "rb").read(), compresslevel=1))
    data = open(packed if source == "gzip" else path, "rb").read()
    assert len(data) > 1 << 20 or source == "gzip"
    argv = ["--device", "hitachi-microdrive-1gb", "--policy", "timeout:1s", "--policy", "oracle"]
    want = _cli_rows(["simulate", str(path), *argv])
    with open(packed if source == "gzip" else path, "rb") as f:
        assert _cli_rows(["simulate", "-", *argv], stdin=f) == want
    # A named pipe, written while it is read; sorted read whole too.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: open(fifo, "wb").write(data))
    writer.start()
    assert _cli_rows(["simulate", str(fifo), *argv, "--sort"]) == want
    writer.join()
    # The API takes `-` as the command line does.
    read, write = os.pipe()
    threading.Thread(target=_write_all, args=(write, data)).start()
    saved = os.dup(0)
    os.dup2(read, 0)
    try:
        trace = read_trace("-")
    finally:
        os.dup2(saved, 0)
        os.close(read)
    assert _columns(trace)[:5] == _columns(read_trace(packed if source == "gzip" else path))[:5]


def _write_all(fd, data):
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def test_a_report_and_a_sweep_take_standard_input(tmp_path):
    path = _big_csv(tmp_path / "big.csv", 20_000)
    out = tmp_path / "r.html"
    with open(path, "rb") as f:
        done = subprocess.run([sys.executable, "-m", "idlewise.cli", "sweep", "-", "--device", "hitachi-microdrive-1gb",
                               "--policy", "timeout:1s", "--json"], stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)[0]["trace"] == "stdin"
    with open(path, "rb") as f:
        done = subprocess.run([sys.executable, "-m", "idlewise.cli", "report", "-", "--device", "hitachi-microdrive-1gb",
                               "--out", str(out)], stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr.decode()
    assert out.exists()


@pytest.mark.parametrize("compression", ["", "gz", "xz", "zst"])
def test_an_archive_of_traces_reads_as_the_files_it_holds(plain_files, tmp_path, compression):
    import tarfile

    members = {"msr/hm_0.csv": plain_files["msr"], "one.csv": plain_files["csv"], "spc/financial.spc": plain_files["spc"]}
    archive = tmp_path / "traces.tar"
    with tarfile.open(archive, "w") as tar:
        for name, source in members.items():
            tar.add(source, arcname=name)
    if compression == "gz":
        archive.write_bytes(gzip.compress(archive.read_bytes()))
    elif compression == "xz":
        archive.write_bytes(lzma.compress(archive.read_bytes()))
    elif compression == "zst":
        archive.write_bytes(_zstd(archive.read_bytes()))
    trace = read_trace(archive)
    assert trace.format == "tar"
    # One device per device of each file, named by the member's path in the archive.
    expected = {}
    for name, source in members.items():
        parts = read_trace(source).split_streams()
        for number, part in parts.items():
            expected[name if len(parts) == 1 else f"{name}#{number}"] = part
    assert sorted(trace.stream_names.values()) == sorted(expected)
    for number, name in trace.stream_names.items():
        got, want = trace.select_stream(name), expected[name]
        assert (got.time_s.tolist(), got.size_bytes.tolist(), got.offset_bytes.tolist()) == \
            (want.time_s.tolist(), want.size_bytes.tolist(), want.offset_bytes.tolist()), name
    rows = idlewise.simulate(read_trace(archive, stream="one.csv"), "hitachi-microdrive-1gb", ["timeout:2s"]).to_dicts()
    assert rows[0]["energy_j"] == idlewise.simulate(read_trace(plain_files["csv"]), "hitachi-microdrive-1gb", ["timeout:2s"]).to_dicts()[0]["energy_j"]


@pytest.mark.parametrize("fmt, lines", [
    ("alibaba", ["5,R,0,4096,1000000", "1,W,8192,4096,2000000", "2,R,0,512,2500000", "1,R,4096,4096,9000000", "5,W,0,4096,9500000"]),
    ("tencent", ["1538323200,0,8,0,5", "1538323201,16,8,1,1", "1538323202,0,1,0,2", "1538323209,8,8,0,1", "1538323210,0,8,1,5"]),
])
def test_a_file_in_an_archive_keeps_its_own_volume_numbers(tmp_path, fmt, lines):
    """Volume 1 of a file is ``--stream 1`` whether the file is read alone or from a tar (issue
    60: it was the second volume, renumbered 0..N-1, and only the name column said so)."""
    import tarfile

    source = tmp_path / f"volumes.{fmt}.csv"
    source.write_text("\n".join(lines) + "\n")
    archive = tmp_path / "volumes.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(source, arcname=source.name)
    alone, packed = read_trace(source, format=fmt), read_trace(archive)
    assert packed.streams() == alone.streams() == [1, 2, 5]
    for volume in (1, 2, 5):
        got, want = packed.select_stream(volume), alone.select_stream(volume)
        assert (got.time_s.tolist(), got.offset_bytes.tolist(), got.size_bytes.tolist()) == \
            (want.time_s.tolist(), want.offset_bytes.tolist(), want.size_bytes.tolist()), volume
        assert packed.stream_label(volume) == f"{source.name}#{volume}"
    rows = idlewise.simulate(read_trace(archive, stream=1), "hitachi-microdrive-1gb", ["timeout:2s"]).to_dicts()
    assert rows[0]["requests"] == 2


def test_an_archive_whose_files_share_a_volume_number_asks_for_a_name(tmp_path):
    import tarfile

    archive = tmp_path / "two.tar"
    with tarfile.open(archive, "w") as tar:
        for name, volume in (("a.csv", 1), ("b.csv", 1)):
            path = tmp_path / name
            path.write_text(f"{volume},R,0,4096,1000000\n{volume},W,4096,4096,3000000\n")
            tar.add(path, arcname=name)
    trace = read_trace(archive)
    with pytest.raises(idlewise.IdlewiseError, match=r"one device number for several devices.*name the device: a\.csv, b\.csv"):
        trace.select_stream(1)
    assert len(trace.select_stream("b.csv")) == 2


def test_a_recording_inside_an_archive_is_refused_not_cut_short(tmp_path):
    import tarfile

    archive = tmp_path / "r.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(TRACES / "diskstats" / "build-vm.diskstats", arcname="vm.diskstats")
    with pytest.raises(idlewise.IdlewiseError, match="member vm.diskstats is a recording with an end of its own"):
        read_trace(archive)
