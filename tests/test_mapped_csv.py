"""CSV traces with their own header (issue 12): a column mapping with units, the op spelled
R/W, read/write or as a 0/1 flag, the offset left out; errors that name the line and column;
and a converted Parquet file reported as itself."""

import numpy as np
import pytest

import idlewise
from idlewise import TraceError
from idlewise.cli import main
from idlewise.traces.readers.mapped_csv import parse_columns, read_mapped_csv


def write(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_mapping_with_units_and_words(tmp_path):
    path = write(tmp_path, "host,ts,len_kib,lba,kind\nh,0,4,0,Read\nh,1500,8,16,WRITE\nh,2500.5,1,32, r \n")
    trace = read_mapped_csv(path, "time_ms=ts,size_kib=len_kib,offset_sectors=lba,op=kind")
    assert trace.time_s.tolist() == [0.0, 1.5, 2.5005]
    assert trace.size_bytes.tolist() == [4096, 8192, 1024]
    assert trace.offset_bytes.tolist() == [0, 16 * 512, 32 * 512]
    assert trace.is_write.tolist() == [0, 1, 0]
    assert "mapped" in trace.read_report()


def test_without_an_offset_every_request_is_at_zero_and_flags_need_saying(tmp_path):
    path = write(tmp_path, "t;bytes;w\n0;512;1\n0.5;512;0\n")  # semicolons: the header's delimiter is used
    with pytest.raises(TraceError, match="holds 0/1 flags; say which value is a write with --write-flag"):
        read_mapped_csv(path, {"time_s": "t", "size_bytes": "bytes", "op": "w"})
    as_writes = read_mapped_csv(path, {"time_s": "t", "size_bytes": "bytes", "op": "w"}, write_flag=1)
    assert as_writes.is_write.tolist() == [1, 0] and as_writes.offset_bytes.tolist() == [0, 0]
    as_reads = read_mapped_csv(path, {"time_s": "t", "size_bytes": "bytes", "op": "w"}, write_flag="0")
    assert as_reads.is_write.tolist() == [0, 1]


@pytest.mark.parametrize("row, message", [
    ("1,x,R", "line 3, field 'bytes': expected a whole non-negative number, got 'x'"),
    ("1,4.5,R", "line 3, field 'bytes': expected a whole non-negative number, got '4.5'"),
    ("inf,4,R", "line 3, field 't': expected a non-negative number, got 'inf'"),
    ("-1,4,R", "line 3, field 't': expected a non-negative number, got '-1'"),
    ("0x10,4,R", "line 3, field 't': expected a non-negative number, got '0x10'"),
    ("1,4,erase", "line 3, field 'op': expected R/W, read/write or a 0/1 flag, got 'erase'"),
    ("1,,R", "line 3, field 'bytes': expected a whole non-negative number, got ''"),
    ("1,99999999999999999999,R", "line 3, field 'bytes': 99999999999999999999 is too large for a byte count"),
    ("1,9007199254740993,R", "line 3, field 'bytes': 9007199254740993 is too large for a byte count"),
])
def test_a_bad_value_names_its_line_and_column(tmp_path, row, message):
    path = write(tmp_path, f"t,bytes,op\n0,4,W\n{row}\n")
    with pytest.raises(TraceError) as e:
        read_mapped_csv(path, "time_s=t,size_bytes=bytes,op=op")
    assert str(e.value) == f"{path}: {message}"


def test_mapping_mistakes_say_what_to_write():
    with pytest.raises(TraceError, match="unknown key 'when'; known: time, size, offset, time_s, time_ms"):
        parse_columns("when=ts,size_bytes=b,op=o")
    with pytest.raises(TraceError, match="'time_ms' and 'time_s' both give the time"):
        parse_columns("time_s=a,time_ms=b,size_bytes=c,op=d")
    with pytest.raises(TraceError, match="no op column"):
        parse_columns("time_s=a,size_bytes=c")
    with pytest.raises(TraceError, match="must be KEY=COLUMN"):
        parse_columns("time_s")


def test_the_issues_spelling_without_units_is_seconds_and_bytes(tmp_path):
    path = write(tmp_path, "ts,bytes,off,kind\n0.5,4096,8192,W\n")
    trace = read_mapped_csv(path, "time=ts,size=bytes,offset=off,op=kind")
    assert (trace.time_s.tolist(), trace.size_bytes.tolist(), trace.offset_bytes.tolist()) == ([0.5], [4096], [8192])
    with pytest.raises(TraceError, match="'time_ms' and 'time' both give the time"):
        parse_columns("time=a,time_ms=b,size=c,op=d")


def test_a_missing_column_is_named_with_the_header(tmp_path):
    path = write(tmp_path, "ts,len,rw\n0,1,R\n")
    with pytest.raises(TraceError, match=r"line 1: no column named 'length' \(the header is 'ts,len,rw'\)"):
        read_mapped_csv(path, "time_s=ts,size_bytes=length,op=rw")


def test_the_command_line_takes_a_mapping_and_the_engine_gets_the_same_trace(tmp_path, capsys):
    mapped = write(tmp_path, "ts_us,n,dir\n0,4096,r\n2000000,4096,w\n30000000,4096,r\n", "mapped.csv")
    plain = write(tmp_path, "time_s,offset_bytes,size_bytes,op\n0,0,4096,R\n2,0,4096,W\n30,0,4096,R\n", "plain.csv")
    args = ["--device", "hitachi-microdrive-1gb", "--policy", "timeout:5s", "--json"]
    assert main(["simulate", mapped, "--columns", "time_us=ts_us,size_bytes=n,op=dir", *args]) == 0
    out_mapped = capsys.readouterr().out
    assert main(["simulate", plain, *args]) == 0
    import json
    a, b = json.loads(out_mapped)[0], json.loads(capsys.readouterr().out)[0]
    assert a["energy_j"] == b["energy_j"] and a["wakeups"] == b["wakeups"] == 1
    assert main(["simulate", mapped, "--write-flag", "1", *args]) == 2
    assert "--write-flag) goes with a column mapping" in capsys.readouterr().err
    assert main(["simulate", mapped, "--format", "msr", "--columns", "time_us=ts_us,size_bytes=n,op=dir", *args]) == 2
    assert "cannot be given with format 'msr'" in capsys.readouterr().err


def test_a_converted_parquet_file_is_reported_as_itself(tmp_path, capsys):
    csv = write(tmp_path, "time_s,offset_bytes,size_bytes,op\n0,0,4096,R\n1,0,4096,W\n", "msr-like.csv")
    out = str(tmp_path / "converted.parquet")
    assert main(["trace", "convert", csv, out]) == 0
    trace = idlewise.read_trace(out)
    assert trace.name == "converted.parquet"
    assert trace.describe().startswith("converted.parquet: 2 requests")
    assert "as parquet (converted from msr-like.csv, csv)" in trace.read_report()
    np.testing.assert_array_equal(trace.is_write, [0, 1])


def test_a_mapped_csv_is_replayed_as_read_and_equals_its_whole_read(tmp_path, capsys):
    # More rows than one block of the reader (1 MiB), so blocks are cut and lines numbered across them.
    rng = np.random.default_rng(4)
    n = 120_000
    times = np.cumsum(rng.exponential(50.0, n))
    rows = "".join(f"{t:.3f};{o};{s};{w}\n" for t, o, s, w in zip(times, rng.integers(0, 10 ** 6, n), rng.integers(1, 64, n) * 512,
                                                                    rng.integers(0, 2, n)))
    path = write(tmp_path, "ts;lba;len;flag\n" + rows, "semi.csv")
    columns = "time_ms=ts,offset_sectors=lba,size_bytes=len,op=flag"
    streamed = idlewise.simulate_file(path, "hitachi-travelstar-5k320", ["timeout:2s", "oracle"], columns=columns,
                                      write_flag=1, progress=False)
    whole = idlewise.simulate(idlewise.read_trace(path, columns=columns, write_flag=1), "hitachi-travelstar-5k320",
                              ["timeout:2s", "oracle"], progress=False)
    for a, b in zip(streamed, whole):
        assert (a["policy"], a["requests"], a["energy_j"], a["mean_response_s"]) == \
               (b["policy"], b["requests"], b["energy_j"], b["mean_response_s"])
    assert "read 120,000 records as csv (mapped: time_ms=ts,offset_sectors=lba,size_bytes=len,op=flag), kept 120,000" in streamed[0]["read_report"]
    # A record out of order, far into the file, is named by its line, streamed as whole.
    lines = ("ts;lba;len;flag\n" + rows).splitlines(keepends=True)
    lines[100_001], lines[100_002] = lines[100_002], lines[100_001]
    late = write(tmp_path, "".join(lines), "late.csv")
    assert main(["simulate", late, "--columns", columns, "--write-flag", "1", "--device", "hitachi-travelstar-5k320",
                 "--policy", "timeout:2s"]) == 2
    assert "late.csv: line 100003, field 'time_s'" in capsys.readouterr().err


LAYOUTS = [
    # (mapping, header, delimiter, a row from (t_s, offset_bytes, size_bytes, write, device), write_flag)
    ("time_s=t,size_bytes=n,op=o", ["t", "n", "o"], ",", lambda t, o, s, w, d: [repr(t), str(s), "W" if w else "r"], None),
    ("time_ms=ts,size_sectors=len,offset_sectors=lba,op=rw,stream=vol", ["note", "vol", "ts", "rw", "lba", "len"], ";",
     lambda t, o, s, w, d: ['"x;y"', str(d), repr(t * 1e3), "write" if w else "READ", str(o // 512), str(s // 512)], None),
    ("time_us=us,size_kib=kib,offset_kib=off,op=flag", ["us", "kib", "off", "flag"], "\t",
     lambda t, o, s, w, d: [repr(t * 1e6), str(s // 1024), str(o // 1024), "0" if w else "1"], 0),
    ("time_ns=ns,size=b,offset=at,op=w", [f"c{i}" for i in range(36)] + ["ns", "b", "at", "w"], "|",
     lambda t, o, s, w, d: [str(i) for i in range(36)] + [repr(t * 1e9), str(s), str(o), "1" if w else "0"], 1),
]


@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
@pytest.mark.parametrize("seed", range(5))
def test_generated_traces_read_through_any_layout_equal_the_simple_csv(tmp_path, layout, seed):
    # Differential: the same generated requests in the simple layout and through a mapping
    # (units, spellings, delimiters, quoted fields, a wide header, blank lines) give the same
    # trace, with each record's own line, whole and as read.
    mapping, header, delimiter, row, flag = LAYOUTS[layout]
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3_000))
    times = np.cumsum(rng.exponential(rng.choice([1e-4, 0.05, 30.0]), n))
    times = np.round(times, 6) if layout < 2 else times  # whole microseconds, where a unit below divides them exactly
    sizes = rng.integers(1, 256, n) * 1024
    offsets = rng.integers(0, 1 << 20, n) * 1024
    writes = rng.random(n) < rng.random()
    devices = rng.integers(0, 3, n)
    lines, simple, numbers = [delimiter.join(header)], ["time_s,offset_bytes,size_bytes,op"], []
    for t, o, s, w, d in zip(times.tolist(), offsets.tolist(), sizes.tolist(), writes.tolist(), devices.tolist()):
        if rng.random() < 0.05:
            lines.append("" if rng.random() < 0.5 else "  ")
        lines.append(delimiter.join(row(t, o, s, w, d)))
        numbers.append(len(lines))
    mapped_path = write(tmp_path, "\n".join(lines) + "\n", "mapped.csv")
    trace = read_mapped_csv(mapped_path, mapping, write_flag=flag)
    # What the mapping says each record is, in the engine's arithmetic: a time scaled from its unit.
    unit = {"time_s": 1.0, "time_ms": 1e-3, "time_us": 1e-6, "time_ns": 1e-9}[mapping.split("=")[0]]
    scale = {1.0: 1.0, 1e-3: 1e3, 1e-6: 1e6, 1e-9: 1e9}[unit]
    want_times = [float(repr(t * scale)) * unit for t in times.tolist()] if unit != 1.0 else times.tolist()
    for t, o, s, w in zip(want_times, offsets.tolist(), sizes.tolist(), writes.tolist()):
        simple.append(f"{t!r},{o if 'offset' in mapping else 0},{s},{'W' if w else 'R'}")
    plain = idlewise.read_trace(write(tmp_path, "\n".join(simple) + "\n", "simple.csv"))
    for column in ("time_s", "offset_bytes", "size_bytes", "is_write"):
        np.testing.assert_array_equal(getattr(trace, column), getattr(plain, column), err_msg=column)
    if "stream" in mapping:
        np.testing.assert_array_equal(trace.stream, devices)
    assert trace.lines.to_numpy().tolist() == numbers
    # As read: every batch's records with their lines, the same.
    from idlewise.traces.readers.mapped_csv import iter_mapped_batches

    parts = list(iter_mapped_batches(mapped_path, mapping, write_flag=flag))
    np.testing.assert_array_equal(np.concatenate([p[0] for p in parts]), trace.time_s)
    assert np.concatenate([p[5] for p in parts]).tolist() == numbers


def test_a_late_record_after_blank_lines_is_named_by_its_own_line(tmp_path, capsys):
    # The engine numbers lines as they are in the file, blank ones counted, read whole, as read
    # and through a transform (pyarrow's reader skipped blank lines and miscounted).
    path = write(tmp_path, "ts,len,rw\n\n0,1,R\n\n\n5,1,W\n3,1,R\n")
    with pytest.raises(TraceError, match=r"line 7, field 'time_s'"):
        idlewise.read_trace(path, columns="time_s=ts,size_kib=len,op=rw")
    base = ["simulate", path, "--columns", "time_s=ts,size_kib=len,op=rw", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:2s"]
    for extra in ([], ["--transform", "compress:2ops"]):
        assert main([*base, *extra]) == 2
        assert "line 7, field 'time_s'" in capsys.readouterr().err, extra


@pytest.mark.parametrize("command", [["trace", "stats", "{path}"], ["hybrid", "{path}", "--hybrid", "seed003-e7k100-ultra-ii"],
                                     ["simulate", "{path}", "--device", "cmu-mems-g2", "--policy", "timeout:1ms"]])
@pytest.mark.parametrize("columns", [["--columns", "time_s=ts,size=len,op=rw"], []])
def test_a_file_without_records_is_named_by_every_command_that_reads_it_as_read(tmp_path, capsys, command, columns):
    path = write(tmp_path, "ts,len,rw\n" if columns else "time_s,offset_bytes,size_bytes,op\n", "header-only.csv")
    assert main([part.format(path=path) for part in command] + columns) == 2
    err = capsys.readouterr().err
    assert f"{path}: " in err and ("no records after the header" in err or "no requests" in err), err
