"""Bad input gets a clear error naming the file, line or field; never a panic or a Rust traceback."""

import numpy as np
import pytest

import idlewise
from idlewise import IdlewiseError, TraceError
from conftest import TRACES

GOOD_DEVICE = """
name = "d"
kind = "disk"
[[modes]]
name = "idle"
power_w = 1.0
serves = true
[[modes]]
name = "standby"
power_w = 0.1
[[transitions]]
from = "idle"
to = "standby"
time_s = 1
energy_j = 1
[[transitions]]
from = "standby"
to = "idle"
time_s = 1
energy_j = 2
[service]
overhead_s = 0.01
read_bandwidth_bytes_per_s = 1e6
write_bandwidth_bytes_per_s = 1e6
active_power_w = 2
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("change, needle", [
    (("to = \"standby\"\ntime_s = 1\nenergy_j = 1", "to = \"sleep\"\ntime_s = 1\nenergy_j = 1"), "transitions[0].to: unknown mode 'sleep'"),
    (("power_w = 0.1", "power_w = -0.1"), "modes[1] (standby).power_w: must be non-negative"),
    (("time_s = 1\nenergy_j = 2", "time_s = -1\nenergy_j = 2"), "time_s: must be non-negative"),
    (("power_w = 1.0\n", ""), "missing field `power_w`"),
    (("serves = true\n", ""), "no ready mode"),
    (("active_power_w = 2", "active_power_w = 2\nbogus = 1"), "unknown field `bogus`"),
])
def test_bad_device_files_name_file_and_field(tmp_path, change, needle):
    path = write(tmp_path, "bad.toml", GOOD_DEVICE.replace(*change))
    with pytest.raises(IdlewiseError) as e:
        idlewise.load_device(path)
    assert needle in str(e.value)
    assert "bad.toml" in str(e.value)


def test_unknown_catalog_name_lists_the_catalog():
    with pytest.raises(IdlewiseError, match="not in the catalog.*hitachi-microdrive-1gb"):
        idlewise.load_device("no-such-disk")


@pytest.mark.parametrize("spec, needle", [
    ("timout:2s", "unknown policy 'timout'"),
    ("timeout:2", "has no unit"),
    ("timeout:2fortnights", "unknown time unit 'fortnights'"),
    ("timeout:deep=2s", "unknown mode 'deep'"),
    ("stpm:knob=101", "between 0 and 100"),
    ("randomized:seed=-1", "non-negative integer"),
    ("breakeven:fast=1", "unknown parameter 'fast'"),
])
def test_bad_policy_specs(spec, needle):
    trace = idlewise.Trace.from_arrays([0.0, 1.0], [4096, 4096])
    with pytest.raises(IdlewiseError) as e:
        idlewise.simulate(trace, "hitachi-microdrive-1gb", spec)
    assert needle in str(e.value) and spec in str(e.value)


def test_policy_needing_a_low_power_mode_on_a_single_mode_device():
    trace = idlewise.Trace.from_arrays([0.0, 1.0], [4096, 4096])
    with pytest.raises(IdlewiseError, match="only its ready mode"):
        idlewise.simulate(trace, "compaq-sandisk-cf-64mb", "timeout:1s")


@pytest.mark.parametrize("body, needle", [
    ("0.0,0,4096,R\nnan,0,4096,R\n", "line 3, field 'time_s': expected a number of seconds (a finite decimal number), got 'nan'"),
    ("0.0,0,4096,R\n1.0,0,-5,W\n", "line 3, field 'size_bytes': size must be non-negative"),
    ("0.0,0,4096,R\n1.0,0,4096\n", "line 3: expected 4 fields"),
    ("0.0,0,4096,R\nabc,0,4096,R\n", "line 3, field 'time_s': expected a number"),
    ("0.0,0,4096,R\n1.0,0,4096,X\n", "line 3, field 'op': expected 'R' or 'W'"),
    ("0.0,0,4096,R\n2.0,0,4096,R\n1.0,0,4096,W\n", "line 4, field 'time_s': time 1 is earlier"),
    ("", "the trace has no requests"),
])
def test_bad_csv_lines_are_named(tmp_path, body, needle):
    path = write(tmp_path, "t.csv", "time_s,offset_bytes,size_bytes,op\n" + body)
    with pytest.raises(TraceError) as e:
        idlewise.read_csv(path)
    assert needle in str(e.value) and "t.csv" in str(e.value)


def test_csv_header_and_binary_and_empty(tmp_path):
    with pytest.raises(TraceError, match="missing size_bytes"):
        idlewise.read_csv(write(tmp_path, "h.csv", "time_s,offset_bytes,bytes,op\n0,0,1,R\n"))
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(TraceError, match="binary file"):
        idlewise.read_csv(binary)
    with pytest.raises(TraceError, match="empty"):
        idlewise.read_csv(write(tmp_path, "e.csv", ""))


def test_sorting_reports_moved_records(tmp_path):
    path = write(tmp_path, "u.csv", "time_s,offset_bytes,size_bytes,op\n0.0,0,1,R\n2.0,0,1,R\n1.0,0,1,W\n3.0,0,1,R\n")
    trace = idlewise.read_csv(path, sort=True)
    assert trace.records_moved == 2
    assert list(trace.time_s) == [0.0, 1.0, 2.0, 3.0]
    assert list(trace.is_write) == [0, 1, 0, 0]


def test_from_arrays_errors_name_records():
    with pytest.raises(TraceError, match="record 1, field 'size_bytes'"):
        idlewise.Trace.from_arrays([0.0, 1.0], [1.0, float("nan")])
    with pytest.raises(TraceError, match="record 2, field 'time_s'"):
        idlewise.Trace.from_arrays([0.0, 2.0, 1.0], [1, 1, 1])
    with pytest.raises(TraceError, match="has 1 values"):
        idlewise.Trace.from_arrays([0.0, 2.0], [1])
    with pytest.raises(TraceError, match="'R' or 'W'"):
        idlewise.Trace.from_arrays([0.0], [1], op=["Q"])


def test_bad_options():
    trace = idlewise.Trace.from_arrays([0.0], [1])
    with pytest.raises(IdlewiseError, match="base_power_w"):
        idlewise.simulate(trace, "hitachi-microdrive-1gb", "always-on", base_power_w=-1)
    with pytest.raises(IdlewiseError, match="no mode 'deep'"):
        idlewise.simulate(trace, "hitachi-microdrive-1gb", "always-on", initial_mode="deep")


def test_truncated_srt(tmp_path):
    from importlib import resources
    data = (resources.files("idlewise") / "data" / "hplajw" / "ajw.1week.srt").read_bytes()
    path = tmp_path / "cut.srt"
    path.write_bytes(data[: len(data) - 13])
    with pytest.raises(TraceError, match="truncated"):
        idlewise.read_srt(path)


@pytest.mark.parametrize("argv, hint", [
    (["--device", "hitachi-travelstar-5k32", "--policy", "timeout:2s"], "unknown device 'hitachi-travelstar-5k32' (did you mean 'hitachi-travelstar-5k320'?)"),
    (["--device", "hitachi-travelstar-5k320", "--policy", "timeot:2s"], "unknown policy 'timeot' (did you mean 'timeout'?)"),
    (["--device", "hitachi-travelstar-5k320", "--policy", "stpm:knb=50"], "unknown parameter 'knb' (did you mean 'knob'?)"),
    (["--device", "hitachi-travelstar-5k320", "--policy", "oracle", "--initial-mode", "stanby"], "no mode 'stanby' (did you mean 'standby'?)"),
])
def test_a_near_miss_gets_a_did_you_mean(argv, hint, capsys):
    from idlewise.cli import main

    assert main(["simulate", str(TRACES / "disksim" / "ascii.trace"), *argv]) == 2
    assert hint in capsys.readouterr().err


def test_a_far_miss_gets_the_list_alone(capsys):
    from idlewise.cli import main

    assert main(["simulate", str(TRACES / "disksim" / "ascii.trace"), "--device", "banana", "--policy", "oracle"]) == 2
    err = capsys.readouterr().err
    assert "unknown device 'banana': not a file" in err and "did you mean" not in err
