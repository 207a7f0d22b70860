"""Traces read in chunks and replayed as they are read (simulate_file, `simulate --chunks`) give
the in-memory results bit for bit, name bad lines as the in-memory readers do, and refuse what
needs the whole trace."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import idlewise
from idlewise.errors import IdlewiseError

DATA = Path(__file__).parent / "data"
POLICIES = ["always-on", "timeout:2s", "breakeven", "stpm:knob=50", "experts", "randomized:seed=4", "oracle"]
# Every numeric and text field of a result row, compared by repr (exact floats).
SKIP = {"trace", "read_report", "records_skipped"}


def in_memory(path, device, **options):
    trace = idlewise.read_trace(path)
    rows = []
    for stream, part in trace.split_streams().items():
        for r in idlewise.simulate(part, device, POLICIES, progress=False, **options):
            r["stream"] = stream
            rows.append(r)
    return rows


def same(streamed, whole):
    assert len(streamed) == len(whole)
    for a, b in zip(sorted(streamed, key=lambda r: (str(r["stream"]), r["policy"])),
                    sorted(whole, key=lambda r: (str(r["stream"]), r["policy"]))):
        for key in b:
            if key not in SKIP:
                assert repr(a[key]) == repr(b[key]), (key, a["policy"], a["stream"], a[key], b[key])


@pytest.mark.parametrize("path", [DATA / "disksim" / "ascii.trace", DATA / "spc" / "financial1-prefix.ascii"])
@pytest.mark.parametrize("options", [{}, {"replay": "closed", "tail_s": 30.0, "base_power_w": 1.5}])
def test_real_multi_device_traces_equal_their_in_memory_replay(path, options):
    streamed = list(idlewise.simulate_file(path, "hitachi-travelstar-5k320", POLICIES, progress=False, **options))
    same(streamed, in_memory(path, "hitachi-travelstar-5k320", **options))


def test_a_trace_of_many_chunks_equals_its_in_memory_replay(tmp_path):
    # ~12 MB of CSV: three 4 MiB chunks, cut in the middle of lines and of busy periods.
    rng = np.random.default_rng(3)
    n = 400_000
    t = np.cumsum(np.where(rng.random(n) < 0.05, rng.pareto(1.2, n) * 0.5, rng.uniform(0.0005, 0.004, n)))
    path = tmp_path / "many.csv"
    with open(path, "w") as f:
        f.write("time_s,offset_bytes,size_bytes,op\n")
        f.writelines(f"{a!r},{o},{s},{'W' if w else 'R'}\n" for a, o, s, w in
                     zip(t.tolist(), (rng.integers(0, 1 << 20, n) * 512).tolist(), (rng.integers(1, 64, n) * 512).tolist(),
                         (rng.random(n) < 0.3).tolist()))
    assert os.path.getsize(path) > 3 * (4 << 20)
    streamed = list(idlewise.simulate_file(path, "hitachi-microdrive-1gb", POLICIES, progress=False, threads=2))
    same(streamed, in_memory(path, "hitachi-microdrive-1gb"))


def test_many_volumes_replayed_side_by_side_equal_each_volume_replayed_alone(tmp_path):
    # 64 volumes dealt round-robin, 4,500 records each: every volume's records gather into parts
    # that are replayed together over the threads as the file is read (and the rest at the
    # end), every request of a volume after a gap that sends most timeouts of a sweep down.
    rng = np.random.default_rng(11)
    volumes, n = 64, 64 * 4_500
    t = np.cumsum(np.where(rng.random(n) < 0.1, rng.uniform(0.001, 0.004, n), rng.pareto(1.2, n) * 0.2 + 0.01))
    path = tmp_path / "volumes.trace"  # DiskSim ASCII: time (ms), device, block, blocks, flags
    with open(path, "w") as f:
        f.writelines(f"{a * 1e3:.3f} {k % volumes} {o} {s} {0 if w else 1}\n" for k, (a, o, s, w) in
                     enumerate(zip(t.tolist(), rng.integers(0, 1 << 20, n).tolist(), rng.integers(1, 64, n).tolist(),
                                   (rng.random(n) < 0.3).tolist())))
    policies = POLICIES + [f"timeout:{s}s" for s in (0.5, 1, 4, 15, 60)] + ["timeout:low-power-idle=1s,standby=8s"]
    streamed = list(idlewise.simulate_file(path, "hitachi-travelstar-5k320", policies, progress=False, threads=2))
    trace = idlewise.read_trace(path)
    whole = []
    for stream, part in trace.split_streams().items():
        for r in idlewise.simulate(part, "hitachi-travelstar-5k320", policies, progress=False, threads=1):
            r["stream"] = stream
            whole.append(r)
    assert len({r["stream"] for r in whole}) == volumes
    same(streamed, whole)


def test_one_volume_is_kept_and_the_others_are_counted(tmp_path):
    path = DATA / "disksim" / "ascii.trace"
    whole = idlewise.read_trace(path)
    volume = int(whole.streams()[1])
    results = list(idlewise.simulate_file(path, "hitachi-travelstar-5k320", ["timeout:2s"], stream=volume, progress=False))
    assert {r["stream"] for r in results} == {volume}
    assert results[0]["requests"] == len(whole.select_stream(volume))
    assert "records of other devices" in results[0]["read_report"]


def test_bad_lines_and_disorder_are_named_by_line(tmp_path):
    bad = tmp_path / "bad.disksim"
    bad.write_text("0 0 10 8 1\n\n5 0 0x10 8 1\n")
    with pytest.raises(IdlewiseError, match=r"bad.disksim: line 3, field 'blkno'"):
        idlewise.simulate_file(bad, "hitachi-microdrive-1gb", ["timeout:2s"], format="disksim", progress=False)
    late = tmp_path / "late.disksim"
    late.write_text("0 0 10 8 1\n5 0 10 8 1\n4 0 10 8 1\n")
    with pytest.raises(IdlewiseError, match=r"late.disksim: line 3, field 'time_s': time 0.004 is earlier .*in time order"):
        idlewise.simulate_file(late, "hitachi-microdrive-1gb", ["timeout:2s"], format="disksim", progress=False)


def test_a_parquet_trace_is_replayed_batch_by_batch_as_in_memory(tmp_path, monkeypatch):
    # The DiskSim trace's 14 devices as Parquet (100,000 records), read in batches of 1,000
    # (every volume split across them): the in-memory results, bit for bit.
    from idlewise.traces.readers import parquet

    source = DATA / "disksim" / "ascii.trace"
    path = tmp_path / "ascii.parquet"
    idlewise.traces.write_parquet(idlewise.read_trace(source), path)
    monkeypatch.setattr(parquet, "BATCH_RECORDS", 1000)
    batches = list(parquet.iter_parquet_batches(path, 1000))
    assert len(batches) == 100 and all(len(set(b[4].tolist())) > 1 for b in batches)
    streamed = list(idlewise.simulate_file(path, "hitachi-travelstar-5k320", POLICIES, progress=False, threads=2))
    same(streamed, in_memory(source, "hitachi-travelstar-5k320"))
    one = list(idlewise.simulate_file(path, "hitachi-travelstar-5k320", ["timeout:2s"], stream=int(batches[0][4][0]), progress=False))
    assert len(one) == 1 and "records of other devices" in one[0]["read_report"]
    # The command line: --chunks takes Parquet too.
    out = subprocess.run([sys.executable, "-m", "idlewise.cli", "simulate", str(path), "--device", "hitachi-travelstar-5k320",
                          "--policy", "timeout:2s", "--chunks", "--json"], capture_output=True, text=True, check=True)
    import json

    whole = [r for r in in_memory(source, "hitachi-travelstar-5k320") if r["policy"].startswith("timeout")]
    assert sorted((r["stream"], r["energy_j"]) for r in json.loads(out.stdout)) == sorted((r["stream"], r["energy_j"]) for r in whole)


def test_parquet_records_out_of_order_or_bad_are_named_by_record(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Records are numbered from 0, as in a trace read whole; across batches too.
    late = tmp_path / "late.parquet"
    pq.write_table(pa.table({"time_s": [0.0, 5.0, 4.0], "offset_bytes": [0, 0, 0], "size_bytes": [512] * 3,
                             "is_write": [False] * 3}), late)
    with pytest.raises(IdlewiseError, match=r"late.parquet: record 2, field 'time_s': time 4 is earlier than the previous record's 5; .*in time order"):
        idlewise.simulate_file(late, "hitachi-microdrive-1gb", ["timeout:2s"], progress=False)
    from idlewise.traces.readers import parquet

    monkeypatch.setattr(parquet, "BATCH_RECORDS", 2)  # the late record in the next batch
    with pytest.raises(IdlewiseError, match=r"late.parquet: record 2, field 'time_s': time 4 is earlier than record 1's 5; .*in time order"):
        idlewise.simulate_file(late, "hitachi-microdrive-1gb", ["timeout:2s"], progress=False)
    with pytest.raises(IdlewiseError, match=r"late.parquet: record 2, field 'time_s': .*earlier"):
        idlewise.read_trace(late)

    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"time_s": [0.0, 1.0], "offset_bytes": [0, 0], "size_bytes": [512, 512], "is_write": [0, 2]}), bad)
    with pytest.raises(IdlewiseError, match=r"bad.parquet: record 1, field 'is_write': expected 0 \(read\) or 1 \(write\), got 2"):
        idlewise.simulate_file(bad, "hitachi-microdrive-1gb", ["timeout:2s"], progress=False)
    with pytest.raises(IdlewiseError, match=r"missing column\(s\) size_bytes"):
        pq.write_table(pa.table({"time_s": [0.0], "offset_bytes": [0], "is_write": [0]}), bad)
        idlewise.simulate_file(bad, "hitachi-microdrive-1gb", ["timeout:2s"], progress=False)


SRT = DATA.parent.parent / "python" / "idlewise" / "data" / "hplajw" / "ajw.1week.srt"


def test_an_srt_trace_is_replayed_batch_by_batch_as_in_memory(tmp_path, monkeypatch):
    # The hplajw week (two disks) in batches of 1,000 records: the in-memory results, bit for bit.
    from idlewise.traces.readers import hp_srt

    batches = list(hp_srt.iter_srt_batches(SRT, 1000))
    assert len(batches) > 40 and sum(len(b[0]) for b in batches) == len(idlewise.read_trace(SRT))
    monkeypatch.setattr(hp_srt, "BATCH_RECORDS", 1000)
    streamed = list(idlewise.simulate_file(SRT, "hitachi-microdrive-1gb", POLICIES, progress=False, threads=2))
    assert {r["stream"] for r in streamed} == {0, 1}
    same(streamed, in_memory(SRT, "hitachi-microdrive-1gb"))
    # A record whose size field is wrong is named by its number, as when read whole.
    data = bytearray(SRT.read_bytes())
    body = data.index(b"\x0c") + 1
    record_bytes = int.from_bytes(data[body:body + 4], "big")
    bad = tmp_path / "bad.srt"
    data[body + 2500 * record_bytes:body + 2500 * record_bytes + 4] = (7).to_bytes(4, "big")
    bad.write_bytes(bytes(data))
    for run in (lambda: idlewise.read_trace(bad), lambda: idlewise.simulate_file(bad, "hitachi-microdrive-1gb", ["timeout:2s"], progress=False)):
        with pytest.raises(IdlewiseError, match="record 2500: size field 7"):
            run()


def test_what_needs_the_whole_trace_is_refused_before_reading(tmp_path):
    import tarfile

    archive = tmp_path / "volumes.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(DATA / "disksim" / "ascii.trace", arcname="ascii.trace")
    with pytest.raises(IdlewiseError, match="read whole"):
        idlewise.simulate_file(archive, "hitachi-microdrive-1gb", ["timeout:2s"], progress=False, format="tar")
    with pytest.raises(IdlewiseError, match="policy 'nope'"):
        idlewise.simulate_file(DATA / "disksim" / "ascii.trace", "hitachi-microdrive-1gb", ["nope"], progress=False)


@pytest.mark.parametrize("extra", [[], ["--chunks"], ["--sort"], ["--chunks", "--sort"]])
def test_the_command_line_streams_by_default_and_equals_a_whole_read(tmp_path, extra):
    """Streaming is the default; --chunks is accepted and changes nothing; --sort reads the trace
    whole. Every way gives the in-memory rows."""
    path = DATA / "disksim" / "ascii.trace"
    out = subprocess.run([sys.executable, "-m", "idlewise.cli", "simulate", str(path), "--device", "hitachi-travelstar-5k320",
                          "--policy", "timeout:2s", "--json", *extra], capture_output=True, text=True, check=True)
    import json

    rows = json.loads(out.stdout)
    whole = [r for r in in_memory(path, "hitachi-travelstar-5k320") if r["policy"].startswith("timeout")]
    assert sorted((r["stream"], r["stream_name"], r["energy_j"], r["mean_response_s"]) for r in rows) == \
        sorted((r["stream"], str(r["stream"]), r["energy_j"], r["mean_response_s"]) for r in whole)


def test_a_sweep_streams_by_default_and_equals_the_in_memory_sweep(tmp_path):
    path = DATA / "disksim" / "ascii.trace"
    policies = ["timeout:1s..5s/2s", "stpm:knob=0..100/50"]
    streamed = idlewise.sweep([path], ["hitachi-microdrive-1gb"], policies, progress=False).to_dicts()
    assert all(r["read_report"] == streamed[0]["read_report"] for r in streamed)
    whole = idlewise.sweep([path], ["hitachi-microdrive-1gb"], policies, chunks=False, progress=False).to_dicts()
    assert len(whole) == 14 * 6  # 14 devices x 6 specs
    same(streamed, whole)
    assert [(r["stream"], r["stream_name"]) for r in streamed] == [(r["stream"], r["stream_name"]) for r in whole]
    # A transform is applied as the trace is read too, with the rows of the trace read whole.
    both = idlewise.sweep([path], ["hitachi-microdrive-1gb"], ["timeout:2s"], transforms=["none", "compress:64ops"],
                          progress=False).to_dicts()
    assert {r["transform"] for r in both} == {"none", "compress:64ops"} and len(both) == 2 * 14
    same(both, idlewise.sweep([path], ["hitachi-microdrive-1gb"], ["timeout:2s"], transforms=["none", "compress:64ops"],
                              chunks=False, progress=False).to_dicts())
    # stream:K picks the device read: streamed, the rows of the trace read whole.
    picked = idlewise.sweep([path], ["hitachi-microdrive-1gb"], ["timeout:2s"], transforms=["stream:3+compress:64ops"],
                            chunks=True, progress=False).to_dicts()
    assert [r["stream"] for r in picked] == [3]
    same(picked, idlewise.sweep([path], ["hitachi-microdrive-1gb"], ["timeout:2s"], transforms=["stream:3+compress:64ops"],
                                chunks=False, progress=False).to_dicts())
    out = tmp_path / "rows.csv"
    assert subprocess.run([sys.executable, "-m", "idlewise", "sweep", str(path), "--device", "hitachi-microdrive-1gb",
                           "--policy", "timeout:1s..5s/2s", "--chunks", "--out", str(out)],
                          capture_output=True, text=True).returncode == 0
    assert len(out.read_text().splitlines()) == 1 + 14 * 3


# --- transforms applied as the trace is read (issue 28) ------------------------------------------

TRANSFORMS = ["compress:64ops", "compress-reorder:5s", "window:30s..20min+compress-reorder:16ops", "scale:0.25+compress:2s",
              "compress:1s+window:0s..10min"]


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("source, stream", [(DATA / "disksim" / "ascii.trace", None), (DATA / "spc" / "financial1-prefix.ascii", 4),
                                            ("hplajw", None)])
@pytest.mark.parametrize("options", [{}, {"replay": "closed", "response_from": "original", "tail_s": 30.0}])
def test_a_transform_streams_with_the_rows_of_the_whole_trace(tmp_path, transform, source, stream, options):
    """Each device's requests go through the transform as they are read; every row (normalised
    against the untransformed trace's always-on run where the transform issues requests early)
    equals simulate of the trace read whole and transformed."""
    from idlewise.traces import write_parquet

    if source == "hplajw":  # the week of two disks as Parquet, read a batch at a time
        source = tmp_path / "week.parquet"
        write_parquet(idlewise.read_trace(Path(idlewise.__file__).parent / "data" / "hplajw" / "ajw.1week.srt"), source)
    policies = ["timeout:2s", "breakeven", "oracle", "always-on"]
    kwargs = dict(fold_offsets=True, **options)
    try:
        whole = idlewise.simulate(idlewise.read_trace(source, stream=stream), "hitachi-travelstar-5k320", policies,
                                  transform=transform, progress=False, **kwargs).to_dicts()
    except IdlewiseError as e:
        with pytest.raises(IdlewiseError, match=re.escape(str(e))):
            idlewise.simulate_file(source, "hitachi-travelstar-5k320", policies, stream=stream, transform=transform, **kwargs)
        return
    streamed = idlewise.simulate_file(source, "hitachi-travelstar-5k320", policies, stream=stream, transform=transform,
                                      progress=False, **kwargs).to_dicts()
    if stream is not None:
        for r in whole:
            r.update(stream=stream, stream_name=str(stream))
    same(streamed, whole)
    assert {r["transform"] for r in streamed} == {transform}
    assert {r["normalized_against"] for r in streamed} == {r["normalized_against"] for r in whole}


def test_a_transform_refuses_records_out_of_order_before_regrouping_them(tmp_path):
    path = tmp_path / "late.csv"
    path.write_text("time_s,offset_bytes,size_bytes,op\n0.0,0,4096,R\n5.0,0,4096,R\n4.0,0,4096,W\n9.0,0,4096,R\n")
    with pytest.raises(IdlewiseError, match=r"late.csv: line 4, field 'time_s': time 4.0 is earlier than line 3's 5.0; "
                                            r"times must be in time order"):
        idlewise.simulate_file(path, "hitachi-travelstar-5k320", ["timeout:2s"], transform="compress:2ops")


def test_the_command_line_streams_a_transform(tmp_path):
    from idlewise.cli import build_parser
    from idlewise.cli._common import _streamable

    path = str(DATA / "disksim" / "ascii.trace")
    args = build_parser().parse_args(["simulate", path, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s",
                                      "--transform", "compress:64ops"])
    assert _streamable(args)
    args.transform = "stream:3"
    assert _streamable(args)  # the device read, as --stream 3
    run = subprocess.run([sys.executable, "-m", "idlewise", "simulate", path, "--device", "hitachi-microdrive-1gb",
                          "--policy", "timeout:2s", "--transform", "compress-reorder:64ops", "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)
    assert len(rows) == 14 and {r["transform"] for r in rows} == {"compress-reorder:64ops"}


# --- trace stats and trace convert as read (issue 28) ------------------------------------------------

@pytest.mark.parametrize("path", [DATA / "disksim" / "ascii.trace", DATA / "spc" / "financial1-prefix.ascii",
                                  Path(idlewise.__file__).parent / "data" / "hplajw" / "ajw.1week.srt"])
def test_trace_convert_as_read_writes_the_table_of_a_whole_read(tmp_path, path, capsys):
    import pyarrow.parquet as pq

    from idlewise.cli import main

    assert main(["trace", "convert", str(path), str(tmp_path / "streamed.parquet")]) == 0
    streamed_report = capsys.readouterr().out.splitlines()[0]
    whole = idlewise.read_trace(path)
    idlewise.traces.write_parquet(whole, tmp_path / "whole.parquet")
    a, b = pq.read_table(tmp_path / "streamed.parquet"), pq.read_table(tmp_path / "whole.parquet")
    assert a.equals(b) and a.schema.metadata == b.schema.metadata
    assert streamed_report == whole.read_report()


@pytest.mark.parametrize("transform", [None, "compress-reorder:64ops"])
@pytest.mark.parametrize("path", [DATA / "disksim" / "ascii.trace", Path(idlewise.__file__).parent / "data" / "hplajw" / "ajw.1week.srt"])
def test_trace_stats_as_read_are_every_device_s_whole_read_statistics(path, transform):
    from idlewise.traces import apply_transform
    from idlewise.traces.stats import file_stats, trace_stats

    streamed, report = file_stats(path, "hitachi-travelstar-5k320", transform=transform)
    whole = idlewise.read_trace(path)
    assert report == whole.read_report()
    parts = whole.split_streams()
    assert [s["stream"] for s in streamed] == list(parts)
    for st, part in zip(streamed, parts.values()):
        expected = trace_stats(apply_transform(part, transform) if transform else part, "hitachi-travelstar-5k320")
        for key in ("trace", "requests", "reads", "bytes_read", "size_bytes", "span_s"):
            assert st[key] == expected[key], key
        for key in ("count", "median_s", "max_s"):
            assert st["gaps"][key] == expected["gaps"][key], key
        assert st["gaps"]["idle_total_s"] == pytest.approx(expected["gaps"]["idle_total_s"], rel=1e-12)


# --- per-request records written as they are replayed (issue 28) -----------------------------------

def _decoded(table):
    import pyarrow as pa

    return {name: (column.cast(pa.string()) if pa.types.is_dictionary(column.type) else column).to_pylist()
            for name, column in zip(table.column_names, table.columns)}


@pytest.mark.parametrize("source, stream, options", [
    (DATA / "disksim" / "ascii.trace", None, {}),
    (Path(idlewise.__file__).parent / "data" / "hplajw" / "ajw.1week.srt", 1, {"replay": "closed"}),
    (DATA / "spc" / "financial1-prefix.ascii", 4, {"transform": "compress-reorder:8ops", "response_from": "original"}),
])
def test_per_request_records_written_as_replayed_are_the_whole_read_s(tmp_path, source, stream, options):
    """Every run's records, taken from the runs after each part and joined device by device and
    run by run: the table of the trace read whole (values; Parquet keeps a dictionary a row group)."""
    import pyarrow.parquet as pq

    from idlewise.cli.simulate import _with_run_columns

    policies = ["timeout:2s", "oracle", "always-on"]
    idlewise.simulate_file(source, "hitachi-travelstar-5k320", policies, stream=stream, per_request=tmp_path / "r.parquet",
                           progress=False, **options)
    run = idlewise.simulate(idlewise.read_trace(source, stream=stream), "hitachi-travelstar-5k320", policies,
                            per_request=True, progress=False, **options)
    whole = _with_run_columns(run.per_request(), "hitachi-travelstar-5k320", stream)
    streamed = pq.read_table(tmp_path / "r.parquet")
    assert streamed.column_names == whole.column_names
    assert _decoded(streamed) == _decoded(whole)
    assert [p.name for p in tmp_path.iterdir()] == ["r.parquet"]  # no temporary file left


def test_the_command_line_writes_per_request_records_as_replayed(tmp_path, capsys):
    import pyarrow.parquet as pq

    from idlewise.cli import main

    path = str(DATA / "disksim" / "ascii.trace")
    command = ["simulate", path, "--device", "hitachi-travelstar-5k320", "--device", "ibm-microdrive-340mb", "--policy",
               "timeout:2s"]
    assert main([*command, "--per-request", str(tmp_path / "streamed.parquet")]) == 0
    assert "wrote 200,000 per-request rows" in capsys.readouterr().err  # 2 devices x 100,000 requests
    assert main([*command, "--sort", "--per-request", str(tmp_path / "whole.parquet")]) == 0
    assert _decoded(pq.read_table(tmp_path / "streamed.parquet")) == _decoded(pq.read_table(tmp_path / "whole.parquet"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["streamed.parquet", "whole.parquet"]


@pytest.mark.parametrize("options", [{}, {"replay": "closed"}, {"transform": "compress:4ops", "response_from": "original"}])
def test_a_mems_device_s_per_request_records_written_as_replayed_are_the_whole_read_s(tmp_path, options):
    # Its requests complete out of order (queued behind the bus and the sled): each part hands
    # over the records before the first still outstanding, and the rest follow.
    import pyarrow.parquet as pq

    from idlewise.cli.simulate import _with_run_columns

    source, policies = DATA / "mems-disksim" / "visible.trace", ["timeout:1ms", "always-on"]
    idlewise.simulate_file(source, "cmu-mems-g2", policies, per_request=tmp_path / "r.parquet", progress=False, **options)
    run = idlewise.simulate(idlewise.read_trace(source), "cmu-mems-g2", policies, per_request=True, progress=False, **options)
    whole = _with_run_columns(run.per_request(), "cmu-mems-g2", None)
    assert _decoded(pq.read_table(tmp_path / "r.parquet")) == _decoded(whole)


def _rounded(value):
    """Floats to 12 significant digits, in nested rows: sums of idle time taken part by part
    differ from one sum in the last digit."""
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


@pytest.mark.parametrize("command", [
    ["simulate", "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--json"],
    ["hybrid", "--hybrid", "seed003-e7k100-ultra-ii", "--json"],
    ["trace", "stats", "--json"],
])
def test_a_transform_s_stream_k_is_the_device_read_by_every_command(capsys, command):
    # It used to fail everywhere ("the trace has a single device"): each device was transformed
    # apart, after the split. Now it is --stream K, streamed or read whole, with the same rows.
    from idlewise.cli import main

    path = str(DATA / "disksim" / "ascii.trace")
    argv = ([*command[:2], path, *command[2:]] if command[0] == "trace" else [command[0], path, *command[1:]])

    def rows(*extra):
        assert main([*argv, *extra]) == 0
        out = json.loads(capsys.readouterr().out)
        for r in out:  # what the read reports, which differs with the way it is read
            for key in ("read_report", "records_skipped"):
                r.pop(key, None)
        return _rounded(out)

    picked = rows("--transform", "stream:3+compress:8ops")
    assert picked == rows("--stream", "3", "--transform", "compress:8ops")
    assert picked == rows("--transform", "compress:8ops+stream:3", "--sort")
    assert len(picked) >= 1 and {r["stream"] for r in picked} == {3}
    assert main([*argv, "--transform", "stream:3", "--stream", "4"]) == 2
    assert "picks devices 3, 4; a replay keeps one" in capsys.readouterr().err


def test_a_transform_s_stream_k_in_python_is_the_device_picked_first():
    path = DATA / "disksim" / "ascii.trace"
    policies = ["timeout:2s", "oracle"]
    trace = idlewise.read_trace(path)
    in_memory = idlewise.simulate(trace, "hitachi-microdrive-1gb", policies, transform="compress:8ops+stream:3", progress=False)
    picked = idlewise.simulate(trace.select_stream(3), "hitachi-microdrive-1gb", policies, transform="compress:8ops", progress=False)
    assert [r["energy_j"] for r in in_memory] == [r["energy_j"] for r in picked]
    assert {(r["stream"], r["stream_name"]) for r in in_memory} == {(3, "3")}
    streamed = idlewise.simulate_file(path, "hitachi-microdrive-1gb", policies, transform="stream:3+compress:8ops", progress=False)
    same(list(streamed), list(in_memory))


@pytest.mark.parametrize("options", [[], ["--transform", "compress:8ops"], ["--stream", "1"],
                                     ["--stream", "1", "--transform", "compress:8ops"],
                                     ["--transform", "stream:1+compress:8ops"], ["--transform", "compress:8ops+stream:1"]])
def test_simulate_names_its_rows_alike_read_whole_or_as_read(tmp_path, capsys, options):
    # Read whole, a picked device's rows were named 'financial1-prefix.ascii#1 [compress:8ops]'
    # and a transformed single-device file's 'one.csv [compress:1ops]'; as read, the file's name
    # with the device and the transform in their own columns. Now both say the latter.
    from idlewise.cli import main

    one = tmp_path / "one.csv"
    one.write_text("time_s,offset_bytes,size_bytes,op\n0,0,4096,R\n1,0,4096,W\n9,0,4096,R\n")
    for path, name in ((DATA / "spc" / "financial1-prefix.ascii", "financial1-prefix.ascii"), (one, "one.csv")):
        if path == one and any("stream" in o for o in options):
            continue
        argv = ["simulate", str(path), "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--json", *options]
        labels = []
        for sort in ([], ["--sort"]):
            assert main(argv + sort) == 0
            rows = json.loads(capsys.readouterr().out)
            labels.append(sorted((r["trace"], r["stream"], r.get("stream_name"), r["transform"], r["policy"]) for r in rows))
        assert labels[0] == labels[1]
        transform = "compress:8ops" if any("compress" in o for o in options) else "none"
        assert {label[::3] for label in labels[0]} == {(name, transform)}
        if "--stream" in options or "stream:1" in " ".join(options):
            assert {label[1:3] for label in labels[0]} == {(1, "1")}


def test_python_simulate_names_rows_by_the_trace_given_and_the_transform_apart():
    trace = idlewise.read_trace(DATA / "spc" / "financial1-prefix.ascii").select_stream(1)
    rows = idlewise.simulate(trace, "hitachi-microdrive-1gb", ["timeout:2s"], transform="compress:8ops", progress=False)
    assert {(r["trace"], r["transform"]) for r in rows} == {(trace.name, "compress:8ops")}


SIMULATE = ["simulate", "{path}", "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"]


@pytest.mark.parametrize("argv", [
    [*SIMULATE, "--stream", "5"], [*SIMULATE, "--transform", "stream:5"], [*SIMULATE, "--transform", "compress:2ops+stream:5"],
    ["hybrid", "{path}", "--hybrid", "seed003-e7k100-ultra-ii", "--stream", "5"],
    ["hybrid", "{path}", "--hybrid", "seed003-e7k100-ultra-ii", "--transform", "stream:5"],
    ["trace", "stats", "{path}", "--stream", "5"], ["trace", "stats", "{path}", "--transform", "stream:5"],
])
def test_picking_a_device_of_a_single_device_file_is_refused_as_read_as_whole(tmp_path, capsys, argv):
    # Streamed, --stream 5 of a file without devices used to replay the whole file as device 5
    # (a silent wrong answer) where the whole read refused it.
    from idlewise.cli import main

    path = tmp_path / "one.csv"
    path.write_text("time_s,offset_bytes,size_bytes,op\n0,0,4096,R\n1,0,4096,W\n")
    for sort in ([], ["--sort"]):
        assert main([a.format(path=path) for a in argv] + sort) == 2
        assert f"{path}: the trace has a single device; there is no stream 5 to select" in capsys.readouterr().err


REFERENCE_KEYS = {"normalized_energy", "normalized_system_energy", "normalized_mean_response", "energy_vs_oracle",
                  "normalized_against", "theoretical_min_energy_j", "theoretical_min_response_s"}


@pytest.mark.parametrize("device", ["hitachi-travelstar-5k320", "cmu-mems-g2"])
def test_policies_alone_are_the_rows_beside_the_references_less_the_ratios(device):
    """``references=False`` replays the policies alone: every figure of a row is the one it has
    beside always-on and the oracle, bit for bit, on every path (in memory, as read, through a
    transform, with per-request records); the figures made from the references are null."""
    path = DATA / "mems-disksim" / "visible.trace"
    trace = idlewise.read_trace(path, format="disksim")
    policies = ["timeout:10ms", "timeout:1s", "stpm:knob=50", "oracle"]
    runs = {
        "in memory": lambda **o: idlewise.simulate(trace, device, policies, progress=False, **o),
        "as read": lambda **o: idlewise.simulate_file(path, device, policies, format="disksim", progress=False, **o),
        "transformed": lambda **o: idlewise.simulate_file(path, device, policies, format="disksim", progress=False,
                                                          transform="compress:64ops", **o),
    }
    for how, run in runs.items():
        beside, alone = list(run()), list(run(references=False))
        assert [r["policy"] for r in alone] == [r["policy"] for r in beside]
        for a, b in zip(alone, beside):
            for key in b:
                if key in REFERENCE_KEYS:
                    assert a.get(key) is None, (how, key, a.get(key))
                elif key not in SKIP:
                    assert repr(a[key]) == repr(b[key]), (how, key, a["policy"], a[key], b[key])
            assert b["normalized_energy"] is not None and b["normalized_against"]


def test_simulate_no_references_prints_n_a_and_nulls(tmp_path):
    path = str(DATA / "mems-disksim" / "visible.trace")
    command = [sys.executable, "-m", "idlewise", "simulate", path, "--format", "disksim", "--device", "cmu-mems-g2",
               "--policy", "timeout:100ms"]
    shown = subprocess.run(command + ["--no-references"], capture_output=True, text=True, env={**os.environ, "COLUMNS": "100"})
    assert shown.returncode == 0, shown.stderr
    row = next(line for line in shown.stdout.splitlines() if "timeout:100ms" in line)
    assert row.count("n/a") >= 2, row
    alone = json.loads(subprocess.run(command + ["--no-references", "--json"], capture_output=True, text=True, check=True).stdout)
    beside = json.loads(subprocess.run(command + ["--references", "--json"], capture_output=True, text=True, check=True).stdout)
    assert alone[0]["energy_vs_oracle"] is None and alone[0]["theoretical_min_energy_j"] is None
    assert beside[0]["energy_vs_oracle"] > 1 and beside[0]["theoretical_min_energy_j"] > 0
    assert alone[0]["energy_j"] == beside[0]["energy_j"] and alone[0]["p99_response_s"] == beside[0]["p99_response_s"]


def test_a_sled_s_references_are_replayed_only_when_asked_a_disk_s_by_default():
    """A MEMS sled's always-on and oracle are event-by-event replays as costly as the policy's
    own (issue 43: one policy pays for one replay), so on the command line they come only with
    ``--references``; the command says so on stderr (not with --json). A disk's come by default."""
    path = str(DATA / "mems-disksim" / "visible.trace")
    sled = [sys.executable, "-m", "idlewise", "simulate", path, "--format", "disksim", "--device", "cmu-mems-g2",
            "--policy", "timeout:100ms"]
    shown = subprocess.run(sled, capture_output=True, text=True, check=True, env={**os.environ, "COLUMNS": "100"})
    row = next(line for line in shown.stdout.splitlines() if "timeout:100ms" in line)
    assert row.count("n/a") >= 2, row
    assert "replayed only when asked (--references" in " ".join(shown.stderr.split()), shown.stderr
    by_default = json.loads(subprocess.run(sled + ["--json"], capture_output=True, text=True, check=True).stdout)
    assert by_default[0]["energy_vs_oracle"] is None and by_default[0]["normalized_against"] is None
    disk = [sys.executable, "-m", "idlewise", "simulate", path, "--format", "disksim", "--device", "hitachi-travelstar-5k320",
            "--policy", "timeout:1s", "--fold-offsets", "--json"]
    shown = subprocess.run(disk, capture_output=True, text=True, check=True)
    assert json.loads(shown.stdout)[0]["energy_vs_oracle"] >= 1 and "only when asked" not in shown.stderr
    # Beside a sled, a disk keeps its references: the default is each device's own.
    both = subprocess.run(disk + ["--device", "cmu-mems-g2"], capture_output=True, text=True, check=True)
    rows = {r["device"]: r for r in json.loads(both.stdout)}
    assert rows["hitachi-travelstar-5k320"]["energy_vs_oracle"] >= 1 and rows["cmu-mems-g2"]["energy_vs_oracle"] is None


def test_read_ahead_keeps_the_order_the_errors_and_no_thread_behind():
    """Batches read ahead on a thread come in order, a reader's error after the batches before it,
    and a caller that stops early leaves no reader thread running (so it may close the file)."""
    import threading

    from idlewise.traces.streaming import read_ahead

    assert list(read_ahead(iter(range(1000)))) == list(range(1000))

    def failing():
        yield from range(5)
        raise IdlewiseError("t.parquet: record 5: bad")

    seen = []
    with pytest.raises(IdlewiseError, match="record 5"):
        for batch in read_ahead(failing()):
            seen.append(batch)
    assert seen == [0, 1, 2, 3, 4]

    closed = []

    def endless():
        try:
            i = 0
            while True:
                yield i
                i += 1
        finally:
            closed.append(threading.current_thread().name)

    source = endless()
    ahead = read_ahead(source, depth=2)
    assert [next(ahead) for _ in range(3)] == [0, 1, 2]
    ahead.close()  # the caller stops early
    assert not any(t.name == "idlewise-read-ahead" and t.is_alive() for t in threading.enumerate())
    source.close()  # on the caller's thread, as simulate_file closes a Parquet reader
    assert closed == [threading.current_thread().name]
