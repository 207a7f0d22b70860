"""No record is dropped, merged, clamped or reordered without a word: each place where a reader or
the engine could do so is either an error naming the line or a decision counted in the read report
(README, "What happens to every record"). One test per place, each comparing against what the
file holds."""

import numpy as np
import pytest

import idlewise
from idlewise import IdlewiseError
from idlewise.cli import main
from screens import last_message

DISK = "hitachi-travelstar-5k320"  # 80,000 cylinders of 4 MB: 320 GB


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def energy_rows(results):
    return [(r["policy"], r["requests"], r["energy_j"], r["mean_response_s"]) for r in results.to_dicts()]


def test_zero_size_records_are_kept_and_counted_whole_and_streamed(tmp_path, capsys):
    path = write(tmp_path, "z.csv", "time_s,offset_bytes,size_bytes,op\n0,0,0,R\n1,4096,4096,W\n2,0,0,W\n")
    with pytest.warns(idlewise.traces.TraceWarning, match="2 records have size 0"):
        trace = idlewise.read_trace(path)
    assert len(trace) == 3
    assert "kept 3 (2 of size 0, served in the command overhead alone)" in trace.read_report()
    streamed = idlewise.simulate_file(path, DISK, ["timeout:1s"], progress=False)
    assert streamed.to_dicts()[0]["read_report"] == trace.read_report()
    assert main(["simulate", str(path), "--device", DISK, "--policy", "timeout:1s"]) == 0
    assert "kept 3 (2 of size 0" in capsys.readouterr().err


@pytest.mark.parametrize("chunks", [False, True])
def test_a_request_beyond_a_disks_capacity_is_an_error_naming_its_line(tmp_path, capsys, chunks):
    # 320 GB: the first request ends at the last byte, the second starts one byte later.
    last = 320_000_000_000 - 4096
    path = write(tmp_path, "big.csv", f"time_s,offset_bytes,size_bytes,op\n0,{last},4096,R\n1,{last + 1},4096,W\n")
    assert main(["simulate", str(path), "--device", DISK, "--policy", "timeout:1s"] + (["--chunks"] if chunks else [])) == 2
    err = last_message(capsys.readouterr().err)  # whole, however long the temporary directory's path
    assert f"line 3, field 'offset_bytes': bytes {last + 1}..{last + 4096} lie beyond device '{DISK}'" in err
    assert "--fold-offsets" in err and "Traceback" not in err


def test_folded_offsets_seek_as_their_remainder_does():
    capacity = 320_000_000_000
    times, sizes = [0.0, 1.0, 2.0], [4096, 4096, 4096]
    near = idlewise.Trace.from_arrays(times, sizes, offset_bytes=[0, 10 ** 9, 5 * 10 ** 9])
    far = idlewise.Trace.from_arrays(times, sizes, offset_bytes=[0, capacity + 10 ** 9, 3 * capacity + 5 * 10 ** 9])
    with pytest.raises(IdlewiseError, match="record 1, field 'offset_bytes'.*beyond device"):
        idlewise.simulate(far, DISK, ["timeout:1s"], progress=False)
    folded = idlewise.simulate(far, DISK, ["timeout:1s", "oracle"], progress=False, fold_offsets=True)
    assert energy_rows(folded) == energy_rows(idlewise.simulate(near, DISK, ["timeout:1s", "oracle"], progress=False))


def test_a_disk_without_cylinders_gives_no_capacity_and_says_so(tmp_path, capsys):
    assert main(["devices", "hitachi-travelstar-5k320"]) == 0
    assert "320 GB in all" in capsys.readouterr().out
    assert main(["devices", DISK, "--toml"]) == 0
    toml = capsys.readouterr().out
    assert "\ncylinders = 80000\n" in toml
    path = write(tmp_path, "no-cylinders.toml", "\n".join(line for line in toml.splitlines() if not line.startswith("cylinders")))
    assert main(["devices", str(path)]) == 0
    assert "capacity not given: offsets unchecked" in capsys.readouterr().out


def test_the_time_origin_does_not_matter():
    """Negative and shifted times are a time origin, not an error: the same gaps give the same
    run to the last bit of energy."""
    rng = np.random.default_rng(7)
    gaps = rng.exponential(5.0, 300)
    sizes = rng.integers(1, 64, 300) * 4096
    offsets = rng.integers(0, 10 ** 6, 300) * 4096
    rows = []
    for origin in (0.0, -1e4, 3.5e6):
        trace = idlewise.Trace.from_arrays(origin + np.cumsum(gaps), sizes, offset_bytes=offsets)
        rows.append(energy_rows(idlewise.simulate(trace, DISK, ["timeout:2s", "stpm:knob=50", "oracle"], progress=False)))
    for other in rows[1:]:
        for a, b in zip(rows[0], other):
            assert a[:2] == b[:2]
            assert a[2] == pytest.approx(b[2], rel=1e-9) and a[3] == pytest.approx(b[3], rel=1e-9)


def test_repeated_times_are_all_served_one_after_another():
    trace = idlewise.Trace.from_arrays([0.0, 0.0, 0.0, 10.0], [990_000] * 4, offset_bytes=[0, 0, 0, 0])
    row = idlewise.simulate(trace, "hitachi-microdrive-1gb", ["always-on"], progress=False).to_dicts()[0]
    assert row["requests"] == 4
    service = row["mean_response_s"]  # responses 1, 2 and 3 services, then 1: mean 7/4 of a service
    single = idlewise.simulate(idlewise.Trace.from_arrays([0.0], [990_000]), "hitachi-microdrive-1gb", ["always-on"],
                               progress=False).to_dicts()[0]["mean_response_s"]
    assert service == pytest.approx(7 / 4 * single, rel=1e-9)


def test_times_out_of_order_are_an_error_or_a_counted_sort(tmp_path, capsys):
    path = write(tmp_path, "o.csv", "time_s,offset_bytes,size_bytes,op\n0,0,512,R\n2,0,512,R\n1,0,512,W\n3,0,512,R\n")
    with pytest.raises(IdlewiseError, match="line 4, field 'time_s'"):
        idlewise.read_trace(path)
    trace = idlewise.read_trace(path, sort=True)
    assert list(trace.time_s) == [0, 1, 2, 3] and "sorted, moving 2" in trace.read_report()
    assert main(["simulate", str(path), "--device", DISK, "--policy", "timeout:1s", "--chunks"]) == 2
    assert "line 4, field 'time_s'" in capsys.readouterr().err


def test_every_device_of_a_multi_device_trace_gets_its_own_row(tmp_path):
    path = write(tmp_path, "two.trace", "0.0 0 0 8 1\n1.0 1 8 8 1\n2.5 0 16 8 0\n")
    trace = idlewise.read_trace(path, format="disksim")
    rows = idlewise.simulate(trace, DISK, ["timeout:1s"], progress=False).to_dicts()
    assert sorted((r["stream"], r["requests"]) for r in rows) == [(0, 2), (1, 1)]
    streamed = idlewise.simulate_file(path, DISK, ["timeout:1s"], format="disksim", progress=False).to_dicts()
    assert sorted((r["stream"], r["requests"]) for r in streamed) == [(0, 2), (1, 1)]
