"""Issue 7 §3–4: each input fuzzing found, at its smallest, with the error it must give (or the
value it must read), and the consistency a user trips on."""

import json
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import idlewise
from idlewise import IdlewiseError, TraceError
from idlewise.cli import main


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(path)


@pytest.mark.parametrize("fmt, data, needle", [
    ("spc-ascii", "1000000 0 1 1 1\n\t\n2000000 0 1 1 0\n", None),                 # tab / whitespace-only line: read
    ("spc-ascii", "1000000\t0 1 1 1\n2000000 0 1 1 0\n", None),
    ("disksim", "0 0 99999999999999999999 8 1\n", "line 1, field 'blkno'"),        # beyond int64
    ("csv", "time_s,offset_bytes,size_bytes,op\n0,0," + "9" * 140_000 + ",R\n", "line 2, field 'size_bytes'"),
    ("csv", "time_s,time_s,offset_bytes,size_bytes,op\n0,0,0,1,R\n", "names this column twice"),
    ("msr", "\ufeff", "empty"),
    ("tencent", "\ufeff", "empty"),
    ("blkparse", "  8,0 1 1 0.1 1 Q W " + "9" * 5000 + " + 8 [x]\n", "line 1, field 'sector'"),
    # Found by benchmarks/fuzz.py: fewer than a record's first two words after the header.
    ("srt", b"$$TR_IOREC-1.3 (IOAdaptor)\x0c\x00\x00\x00\x38\x00", "no records after its header"),
])
def test_inputs_that_raised_tracebacks(tmp_path, fmt, data, needle):
    path = write(tmp_path, "t", data)
    if needle is None:
        assert len(idlewise.read_trace(path, format=fmt)) == 2
    else:
        with pytest.raises(TraceError, match=needle):
            idlewise.read_trace(path, format=fmt)


@pytest.mark.parametrize("line", ["1e3 0 1 8 0", "-inf 0 1 8 0", "1e400 0 1 8 0"])
def test_auto_format_never_raises_a_traceback(tmp_path, line):
    path = write(tmp_path, "t.trace", line + "\n")
    try:
        idlewise.read_trace(path)
    except IdlewiseError:
        pass


@pytest.mark.parametrize("fmt, data, field", [
    ("disksim", "0 0 18014398509481984 8 1\n", "blkno"),                           # wraps int64 after x512
    ("tencent", "1,18014398509481984,8,0,1\n", "offset"),
    ("csv", "time_s,offset_bytes,size_bytes,op\n0,0,１２,R\n", "size_bytes"),       # full-width digits
    ("csv", "time_s,offset_bytes,size_bytes,op\n0,0,1_000,R\n", "size_bytes"),
    ("csv", "time_s,offset_bytes,size_bytes,op\n0,0,١٢,R\n", "size_bytes"),         # Arabic-Indic digits
    ("disksim", "0 0 1\u00a02 8 1\n", "blkno"),                                    # non-breaking space
    ("csv", "time_s,offset_bytes,size_bytes,op\n0,0x10,1,R\n", "offset_bytes"),     # hexadecimal
    ("msr", "1,hm,0,Read,0x10,4096,1\n", "offset"),
    ("alibaba", "1,R,0x10,4096,1\n", "offset"),
    ("spc", "0,0x10,8192,W,0.5\n", "lba"),
    ("tencent", "1,0x10,8,0,1\n", "offset"),
    ("disksim", "0 0 0x10 8 1\n", "blkno"),
    ("spc-ascii", "1000000 0 1 1 256\n", "op"),                                    # would wrap to a read
    ("tencent", "1,0,8,2,1\n", "iotype"),
    ("fiu", "1 2 p 0x10 8 W 6 0 abc\n", "lba"),
    ("fiu", "1 2 p 16 8 w 6 0 abc\n", "op"),
])
def test_bad_data_is_refused_not_read(tmp_path, fmt, data, field):
    path = write(tmp_path, "t", data)
    with pytest.raises(TraceError, match=f"line \\d+, field '{field}'"):
        idlewise.read_trace(path, format=fmt)


def test_the_reported_line_is_the_file_line(tmp_path):
    path = write(tmp_path, "t", "0 0 1 8 1\n\n\n1 0 x 8 1\n")
    with pytest.raises(TraceError, match="line 4, field 'blkno'"):
        idlewise.read_trace(path, format="disksim")
    path = write(tmp_path, "t.csv", "time_s,offset_bytes,size_bytes,op\n\n0,0,1,R\n\n1,0,-,R\n")
    with pytest.raises(TraceError, match="line 5, field 'size_bytes'"):
        idlewise.read_trace(path, format="csv")
    path = write(tmp_path, "t", "1,0,8,0,1\n2,0,8,0,1\nnan,0,8,0,1\n")
    with pytest.raises(TraceError, match="line 3, field 'timestamp'"):
        idlewise.read_trace(path, format="tencent")
    # A size of 1e30 is named as such, not as a wrapped integer.
    path = write(tmp_path, "t.csv", "time_s,offset_bytes,size_bytes,op\n0,0,1e30,R\n")
    with pytest.raises(TraceError, match="got '1e30'"):
        idlewise.read_trace(path, format="csv")
    # Epochs near the ends of int64 are no reason for an 'earlier than previous' error.
    path = write(tmp_path, "t", "9223372036854775000,hm,0,Read,0,4096,1\n9223372036854775807,hm,0,Write,0,4096,1\n")
    assert idlewise.read_trace(path, format="msr").time_s[1] == pytest.approx(807e-7)


def test_lines_after_long_runs_of_blank_lines_are_named_in_engine_errors(tmp_path):
    # Line numbers are kept as one-byte steps; a step of 255 lines or more is kept apart. The
    # engine's record errors (times out of order, found after reading) must still name the line.
    body = "time_s,offset_bytes,size_bytes,op\n0,0,1,R\n" + "\n" * 300 + "2,0,1,R\n" + "\n" * 70_000 + "1,0,1,R\n3,0,1,W\n"
    path = write(tmp_path, "t.csv", body)
    with pytest.raises(TraceError, match="line 70304, field 'time_s'"):
        idlewise.read_trace(path, format="csv")
    trace = idlewise.read_trace(path, format="csv", sort=True)
    assert list(trace.time_s) == [0, 1, 2, 3] and trace.records_moved == 2
    assert list(trace.lines[np.arange(4)]) == [2, 70304, 303, 70305]
    assert [trace.lines[i] for i in (0, 2, -1)] == [2, 303, 70305]
    # A volume picked from a multi-device file keeps its records' own lines.
    path = write(tmp_path, "a", "1,R,0,4096,10\n2,R,0,4096,20\n" + "\n" * 400 + "1,W,0,4096,30\n1,R,0,-1,40\n")
    with pytest.raises(TraceError, match="line 404, field 'size_bytes'"):
        idlewise.read_trace(path, format="alibaba")
    path = write(tmp_path, "a", "1,R,0,4096,10\n2,R,0,4096,20\n" + "\n" * 400 + "1,W,0,4096,30\n")
    assert list(idlewise.read_trace(path, format="alibaba").select_stream(1).lines) == [1, 403]
    # Splitting every device at once gives what picking each gives, records and lines.
    rng = np.random.default_rng(3)
    text = "".join(f"{d},{'RW'[w]},{o},4096,{t}\n" + "\n" * g for t, (d, w, o, g) in enumerate(zip(
        rng.integers(0, 5, 2000), rng.integers(0, 2, 2000), rng.integers(0, 1 << 20, 2000), rng.integers(0, 300, 2000))))
    trace = idlewise.read_trace(write(tmp_path, "a", text), format="alibaba")
    parts = trace.split_streams()
    assert list(parts) == trace.streams() == [0, 1, 2, 3, 4]
    for number, part in parts.items():
        one = trace.select_stream(number)
        assert part.name == one.name and part.stream is None and part.stream_names == one.stream_names
        for column in ("time_s", "offset_bytes", "size_bytes", "is_write"):
            assert np.array_equal(getattr(part, column), getattr(one, column)), column
        assert list(part.lines[np.arange(len(part))]) == list(one.lines[np.arange(len(one))])


def test_spc_lines_with_more_trailing_fields_than_the_first_are_read(tmp_path):
    path = write(tmp_path, "t", "1000000 0 1 1 1\n2000000 0 1 1 0 9\n")
    assert len(idlewise.read_trace(path, format="spc-ascii")) == 2
    path = write(tmp_path, "t", "0,1,512,r,0.1\n0,1,512,w,0.2,a,b\n")
    assert len(idlewise.read_trace(path, format="spc")) == 2


def test_a_stray_summary_line_keeps_later_events_and_json_reports_it(tmp_path, capsys):
    path = write(tmp_path, "b.txt", "  8,0 1 1 0.1 1 Q W 10 + 8 [x]\nCPU1 (8,0):\n  8,0 1 2 5.1 1 Q R 50 + 8 [x]\n")
    trace = idlewise.read_trace(path, format="blkparse")
    assert len(trace) == 2 and trace.skipped == {"summary lines": 1}
    assert main(["simulate", path, "--format", "blkparse", "--device", "hitachi-microdrive-1gb", "--policy", "timeout:1s", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["records_skipped"] == 1 and "1 summary lines" in rows[0]["read_report"]
    from idlewise.sweeps import TraceSource, sweep
    swept = sweep([TraceSource(path=path, format="blkparse")], ["hitachi-microdrive-1gb"], ["timeout:1s"], jobs=1)
    assert all(r["records_skipped"] == 1 for r in swept)


def test_srt_with_sector_size_zero_is_refused(tmp_path):
    from importlib import resources
    data = (resources.files("idlewise") / "data" / "hplajw" / "ajw.1week.srt").read_bytes()
    end = data.index(b"\x0c")
    header = data[:end].decode("ascii")
    import re
    assert re.search(r"sectorsize\s*=\s*\d+", header), header[:200]
    bad = re.sub(r"(sectorsize\s*=\s*)\d+", r"\g<1>0", header).encode("ascii") + data[end:]
    with pytest.raises(TraceError, match="sectorsize"):
        idlewise.read_srt(write(tmp_path, "t.srt", bad))


def test_parquet_oddities(tmp_path):
    columns = {"time_s": [0.0, 1.0], "offset_bytes": [0, 0], "size_bytes": [1, 1]}
    path = str(tmp_path / "a.parquet")
    pq.write_table(pa.table({**columns, "is_write": [0, 2]}), path)
    with pytest.raises(TraceError, match="field 'is_write'"):
        idlewise.read_trace(path)
    table = pa.table({**columns, "is_write": [False, True]}).replace_schema_metadata({b"idlewise.name": b"\xff\xfe"})
    pq.write_table(table, path)
    assert len(idlewise.read_trace(path)) == 2
    pq.write_table(pa.table({**columns, "is_write": pa.array([{"a": 1}, {"a": 2}])}), path)
    with pytest.raises(TraceError):
        idlewise.read_trace(path)


def test_arrays_devices_and_arguments_are_checked():
    t = [0.0, 1.0]
    # Found by benchmarks/fuzz.py: two-dimensional flag columns reached the engine as a TypeError.
    for bad in (dict(is_write=["a", "b"]), dict(is_write=[0, 256]), dict(is_write=[0.0, float("nan")]), dict(op=[0, 256]),
                dict(op=np.zeros((2, 2))), dict(is_write=np.zeros((2, 1), dtype=bool)), dict(op=[["R"], ["W"]])):
        with pytest.raises(TraceError):
            idlewise.Trace.from_arrays(t, [1, 1], **bad)
    with pytest.raises(TraceError):
        idlewise.Trace.from_arrays(t, [1, 1], lines=["a", "b"])
    trace = idlewise.Trace.from_arrays(t, [1, 1])
    with pytest.raises(IdlewiseError):
        idlewise.simulate(trace, None, "always-on")
    with pytest.raises(IdlewiseError):
        idlewise.simulate(trace, "hitachi-microdrive-1gb", None)
    with pytest.raises(IdlewiseError, match="base_power_w"):
        idlewise.simulate(trace, "hitachi-microdrive-1gb", "always-on", base_power_w="x")
    with pytest.raises(IdlewiseError, match="initial_mode names a mode of device 'hitachi-microdrive-1gb'"):
        idlewise.simulate(trace, "hitachi-microdrive-1gb", "always-on", initial_mode=3)
    # A seed past 64 bits is a whole number all the same: the message says the range.
    for seed in (2**64, -1, 1.5):
        with pytest.raises(IdlewiseError, match=r"transition_seed must be a whole number from 0 to 2\^64 - 1"):
            idlewise.simulate(trace, "hitachi-microdrive-1gb", "always-on", transition_seed=seed)


def test_a_mems_bus_too_slow_to_be_one_is_refused(tmp_path, capsys):
    # Found by benchmarks/fuzz.py: 1,000 s a sector made the sled spin for minutes on six requests
    # (a write waits for its data pass after pass, as DiskSim's does).
    assert main(["devices", "cmu-mems-g2", "--toml"]) == 0
    toml = capsys.readouterr().out.replace("sector_transfer_s = 5.12e-6", "sector_transfer_s = 1_000")
    path = write(tmp_path, "slow-bus.toml", toml)
    with pytest.raises(IdlewiseError, match="service.mems.sector_transfer_s: gives 1000 s for a 512-byte sector; at most 0.01 s"):
        idlewise.load_device(path)


def test_a_binary_device_file_is_a_clear_error(tmp_path):
    path = write(tmp_path, "d.toml", b"\xff\xfe\x00\x01binary")
    with pytest.raises(IdlewiseError, match="not a TOML device file"):
        idlewise.load_device(path)


def test_a_binary_file_given_as_a_device_or_a_manager_s_configuration_is_named(tmp_path, capsys):
    # (Found by the deep check: `manage unit --config x.parquet` ended in a UnicodeDecodeError.)
    path = write(tmp_path, "x.parquet", b"PAR1\x15\xa0\x00\xff")
    assert main(["devices", str(path), "--toml"]) == 2
    assert main(["manage", "unit", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: not a TOML device file: byte 5 is not UTF-8 text" in " ".join(err.split())
    assert f"{path}: not valid TOML: byte 5 is not UTF-8 text" in " ".join(err.split())
    assert "Traceback" not in err


def test_times_in_nanoseconds_given_as_seconds_are_refused_not_replayed_into_zero_responses(tmp_path, capsys):
    # Found by hand: a Parquet trace of nanosecond epoch times in `time_s` replayed, every
    # response 0 (a double resolves 256 s at 1.7e18) and the energy of 285 years.
    path = str(tmp_path / "ns.parquet")
    columns = {"offset_bytes": [0, 512, 1024], "size_bytes": [512] * 3, "is_write": [False] * 3}
    pq.write_table(pa.table({"time_s": [1.7e18, 1.7e18 + 5e9, 1.7e18 + 9e9], **columns}), path)
    assert main(["simulate", path, "--device", "hitachi-travelstar-5k320", "--policy", "timeout:1s"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "ns.parquet" in err and "record 0, field 'time_s'" in err and "closer than 256s" in err and "nanoseconds" in err
    assert "Traceback" not in err
    with pytest.raises(TraceError, match="record 0, field 'time_s'.*272 years"):
        idlewise.simulate(idlewise.read_trace(path), "hitachi-travelstar-5k320", ["timeout:1s"], progress=False)
    # Epoch seconds, and times just inside 2^33 s, replay.
    pq.write_table(pa.table({"time_s": [1.7e9, 1.7e9 + 5.0, 8_589_934_591.0], **columns}), path)
    assert main(["simulate", path, "--device", "hitachi-travelstar-5k320", "--policy", "timeout:1s", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)[0]
    assert run["requests"] == 3 and run["mean_response_s"] > 1.0  # two spin-ups among three requests


def test_a_recording_claiming_more_requests_than_memory_holds_names_the_interval(tmp_path, monkeypatch):
    # Found by the deep check: the refusal named no line. Each interval's rate is below the
    # corrupted-counter rate (10^8 a second); their sum is past the budget.
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", "1GB")
    fields = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
    lines = [f"{t} 8 0 sda {reads} 0 {reads} 0 {fields}" for t, reads in ((0, 0), (1e6, 10**9), (1e7, 10**13), (2e7, 2 * 10**13))]
    path = write(tmp_path, "big.diskstats", "\n".join(lines) + "\n")
    with pytest.raises(TraceError, match=r"big.diskstats: line 4: the counters of sda claim 20,000,000,000,000 requests "
                                         r"\(10,000,000,000,000 in the interval ending here\).*memory budget"):
        idlewise.read_trace(path, format="diskstats")


def test_a_bad_value_from_numpy_is_shown_as_the_value_it_holds():
    # NumPy 2's repr had messages say "got np.float64(2.0)", "got np.str_('X')".
    with pytest.raises(TraceError, match=r"field 'is_write': expected 0 \(read\) or 1 \(write\), got 2\.0$"):
        idlewise.Trace.from_arrays([0.0, 1.0], [1, 1], is_write=np.array([0.0, 2.0]))
    with pytest.raises(TraceError, match=r"field 'op': expected 'R' or 'W', got 'X'$"):
        idlewise.Trace.from_arrays([0.0, 1.0], [1, 1], op=np.array(["R", "X"]))


def test_numbers_too_long_to_group_are_written_with_their_exponent_never_cut():
    from idlewise.cli._common import _fmt_rate, _fmt_years
    from idlewise.traces.describe import grouped, span_text

    assert grouped(1_800_000_020.7027) == "1,800,000,020.7" and grouped(-2.5, 0) == "-2"
    assert grouped(4e299) == "4e+299" and grouped(123_456_789_012_345.0) == "1.235e+14"
    assert _fmt_years(1.9e298) == "1.9e+298" and _fmt_rate(3e15) == "3e+15" and _fmt_rate(45_728.9) == "45,729"
    assert span_text(9e9) == "285.19 years" and span_text(3 * 86400) == "3.00 days" and span_text(2e300) == "6.338e+292 years"
    assert [span_text(s) for s in (0.0, 0.0123, 9.99e-5, 0.0499, 0.05)] == ["0.0 s", "12.3 ms", "99.9 us", "49.9 ms", "0.1 s"]


def test_a_low_power_mode_above_ready_warns(tmp_path):
    text = idlewise.load_device("hitachi-microdrive-1gb")  # noqa: F841 - the catalog loads without warnings
    toml = ("name='w'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n[[modes]]\nname='b'\npower_w=2\n"
            "[[transitions]]\nfrom='a'\nto='b'\ntime_s=1\nenergy_j=1\n[[transitions]]\nfrom='b'\nto='a'\ntime_s=1\nenergy_j=1\n"
            "[service]\noverhead_s=0\nread_bandwidth_bytes_per_s=1e6\nwrite_bandwidth_bytes_per_s=1e6\nactive_power_w=1\n")
    with pytest.warns(idlewise.devices.DeviceWarning, match="more than the ready mode"):
        idlewise.load_device(write(tmp_path, "w.toml", toml))
    with pytest.raises(IdlewiseError, match="physical range"):
        idlewise.load_device(write(tmp_path, "x.toml", toml.replace("overhead_s=0", "overhead_s=1e308")))


def test_catalog_devices_load_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in idlewise.catalog_names():
            idlewise.load_device(name)


# §4: consistency

def test_ranges_units_and_several_devices_in_simulate(tmp_path, capsys):
    trace = idlewise.Trace.from_arrays(np.arange(0.0, 100.0, 7.0), np.full(15, 4096))
    results = idlewise.simulate(trace, "hitachi-microdrive-1gb", "timeout:0s..10s/5s", base_power_w="1.44W")
    assert [r["policy"] for r in results] == ["timeout:0s", "timeout:5s", "timeout:10s"]
    assert results[0]["base_power_w"] == 1.44
    path = write(tmp_path, "t.csv", "time_s,offset_bytes,size_bytes,op\n0,0,4096,R\n30,0,4096,W\n")
    assert main(["simulate", path, "--device", "hitachi-microdrive-1gb", "--device", "ibm-microdrive-340mb",
                 "--policy", "timeout:0s..10s/5s", "--base-power", "1.44W", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sorted({r["device"] for r in rows}) == ["hitachi-microdrive-1gb", "ibm-microdrive-340mb"]
    assert len(rows) == 6 and all(r["base_power_w"] == 1.44 for r in rows)
    assert main(["simulate", path, "--device", "hitachi-microdrive-1gb", "--policy", "stpm:knob=50,base=1.44", "--json"]) == 0
    capsys.readouterr()


def test_windows_take_days():
    from idlewise.traces import apply_transform
    trace = idlewise.Trace.from_arrays([0.0, 3600.0, 90_000.0, 200_000.0], [1, 1, 1, 1])
    assert len(apply_transform(trace, "window:1h..1d")) == 1
    assert len(apply_transform(trace, "window:0s..2d")) == 3


def test_a_parquet_footer_with_a_column_name_that_is_not_utf8(tmp_path):
    # Found by the corruption fuzz: pyarrow reads the file, then the column names raise
    # UnicodeDecodeError. Corrupt the first byte of the schema element named time_s.
    path = tmp_path / "t.parquet"
    idlewise.traces.write_parquet(idlewise.Trace.from_arrays([0.0, 1.0], [1, 1]), path)
    data = bytearray(path.read_bytes())
    footer = data.index(b"time_s")
    data[footer] = 0x80
    path.write_bytes(bytes(data))
    # Refused by name; or, where a pyarrow (14) takes the names from its own copy of the schema
    # and the byte hit something it does not read, read whole and right. Never a traceback.
    try:
        trace = idlewise.read_trace(str(path))
    except TraceError as e:
        assert "not a readable Parquet file" in str(e)
    else:
        assert trace.time_s.tolist() == [0.0, 1.0] and trace.size_bytes.tolist() == [1, 1]


def test_a_simple_csv_without_its_header_is_named_as_such(tmp_path, capsys):
    from idlewise.cli import main

    plain = tmp_path / "plain.csv"
    plain.write_text("0.0,0,4096,R\n1.0,4096,512,W\n")
    flags = tmp_path / "flags.csv"
    flags.write_text("0.0,0,4096,0\n1.0,4096,512,1\n")
    assert main(["simulate", str(plain), "--device", "hitachi-microdrive-1gb", "--policy", "timeout:1s"]) == 2
    err = capsys.readouterr().err
    assert "without its header line" in err and "time_s,offset_bytes,size_bytes,op" in err and "--write-flag" not in err
    assert main(["simulate", str(flags), "--device", "hitachi-microdrive-1gb", "--policy", "timeout:1s"]) == 2
    assert "--write-flag 1" in capsys.readouterr().err


def test_warnings_print_as_one_line_of_idlewise(tmp_path, capsys):
    from idlewise.cli import main

    trace = tmp_path / "zero.csv"
    trace.write_text("time_s,offset_bytes,size_bytes,op\n0.0,0,4096,R\n1.0,4096,0,W\n")
    # Read whole (--sort), the trace warns as Python does; streamed, its read report counts them.
    assert main(["simulate", str(trace), "--device", "hitachi-microdrive-1gb", "--policy", "timeout:1s", "--sort"]) == 0
    err = capsys.readouterr().err
    assert "idlewise: warning: " in err and "records have size 0" in err
    assert "TraceWarning" not in err and ".py:" not in err
