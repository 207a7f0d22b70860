"""Every command and its Python equivalent give the same rows on the same inputs (issue 30).

The Python ``simulate`` once replayed a two-disk trace as one disk (44,519 requests in one row)
while the command line, ``simulate_file`` and ``sweep`` gave a row per disk. Running each entry
point on the same trace and comparing the rows keeps the faces from drifting apart again.
"""

import json
from pathlib import Path

import pytest

import idlewise
from idlewise.cli import main
from idlewise.errors import IdlewiseError
from idlewise.reporting import report
from idlewise.sweeps import sweep

from conftest import SRT

DEVICE = "hitachi-travelstar-5k320"
POLICIES = ["timeout:5s", "timeout:30s"]
# What a row must agree on, whoever produced it.
FIELDS = ("policy", "stream", "requests", "energy_j", "mean_response_s", "wakeups", "makespan_s")


def rows(records) -> list[tuple]:
    out = []
    for r in records:
        if r["policy"] in ("always-on", "oracle") and r["policy"] not in POLICIES:
            continue
        out.append(tuple(round(r.get(k), 9) if isinstance(r.get(k), float) else r.get(k) for k in FIELDS))
    return sorted(out)


def cli_json(capsys, argv) -> list[dict]:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def python_rows():
    return rows(idlewise.simulate(idlewise.read_trace(SRT), DEVICE, POLICIES, progress=False))


def test_the_two_disks_of_a_trace_are_two_rows_from_python(python_rows):
    # The numbers the issue measured on the command line.
    by_stream = {r[1]: r for r in python_rows if r[0] == "timeout:5s"}
    assert set(by_stream) == {0, 1}
    assert by_stream[0][2] == 42_252 and by_stream[1][2] == 2_267
    assert by_stream[0][3] == pytest.approx(165_764.6, abs=0.1) and by_stream[1][3] == pytest.approx(129_861.6, abs=0.1)


def test_simulate_command_equals_python(capsys, python_rows):
    argv = ["simulate", SRT, "--device", DEVICE, "--json"] + [a for p in POLICIES for a in ("--policy", p)]
    assert rows(cli_json(capsys, argv)) == python_rows


def test_simulate_file_equals_python(python_rows):
    assert rows(idlewise.simulate_file(SRT, DEVICE, POLICIES, progress=False)) == python_rows


def test_sweep_command_and_sweep_equal_python(capsys, python_rows):
    argv = ["sweep", SRT, "--device", DEVICE, "--jobs", "1", "--json"] + [a for p in POLICIES for a in ("--policy", p)]
    assert rows(cli_json(capsys, argv)) == python_rows
    assert rows(sweep([SRT], [DEVICE], POLICIES, jobs=1, progress=False)) == python_rows


def test_one_stream_picked_equals_its_row(capsys, python_rows):
    picked = rows(idlewise.simulate(idlewise.read_trace(SRT, stream=1), DEVICE, POLICIES, progress=False))
    from_cli = rows(cli_json(capsys, ["simulate", SRT, "--stream", "1", "--device", DEVICE, "--json"]
                             + [a for p in POLICIES for a in ("--policy", p)]))
    mine = [r for r in python_rows if r[1] == 1]
    # A picked trace has one device: its rows carry no stream from Python, the picked one from the CLI.
    assert [r[2:] for r in picked] == [r[2:] for r in mine] == [r[2:] for r in from_cli]


def test_report_and_advice_refuse_two_disks_alike(capsys, tmp_path):
    trace = idlewise.read_trace(SRT)
    with pytest.raises(IdlewiseError, match=r"holds 2 devices \(0, 1\); a report is of one"):
        report(trace, DEVICE, POLICIES, tmp_path / "r.html")
    assert main(["report", SRT, "--device", DEVICE, "--out", str(tmp_path / "r.html")]) != 0
    assert "holds 2 devices (0, 1); a report is of one" in capsys.readouterr().err
    with pytest.raises(IdlewiseError, match=r"holds 2 devices \(0, 1\); advice is of one"):
        from idlewise.advisor import advise
        advise(trace, DEVICE, progress=False)


def test_per_request_and_timeline_of_two_disks_say_which_disk():
    trace = idlewise.read_trace(SRT)
    first = float(trace.time_s[0])
    r = idlewise.simulate(trace, DEVICE, ["timeout:5s"], per_request=True, timeline_s=(first, first + 3600), progress=False)
    table = r.per_request("timeout:5s")
    assert table.num_rows == len(trace) and sorted(set(table["stream"].to_pylist())) == [0, 1]
    assert table["stream"].to_pylist().count(1) == 2_267
    assert set(r.timeline("timeout:5s")["stream"].to_pylist()) == {0, 1}


def test_json_rows_carry_the_policy_parameters_as_the_tables_do(capsys):
    trace = idlewise.read_trace(SRT, stream=0)
    frame = idlewise.simulate(trace, DEVICE, ["timeout:5s", "stpm:knob=30"], progress=False).to_pandas()
    printed = cli_json(capsys, ["simulate", SRT, "--stream", "0", "--device", DEVICE, "--policy", "timeout:5s",
                                "--policy", "stpm:knob=30", "--json"])
    for row, (_, expected) in zip(printed, frame.iterrows()):
        for key in ("family", "timeout_s", "knob"):
            assert key in row and (row[key] == expected[key] or (row[key] is None and expected[key] != expected[key]))


def test_cache_command_equals_run_cache_with_and_without_the_cpu_during_io(capsys, tmp_path):
    from idlewise.system import mail_workload, run_cache, write_app_trace

    trace = mail_workload(seed=1)
    path = tmp_path / "mail.csv"
    write_app_trace(trace, path)
    for power in (None, 0.0):
        argv = ["cache", str(path), "--json"] + ([] if power is None else ["--io-cpu-power", f"{power}W"])
        printed = cli_json(capsys, argv)
        expected = run_cache(trace) if power is None else run_cache(trace, io_cpu_power_w=power)
        for key in ("energy_j", "io_cpu_energy_j", "mean_response_s"):
            assert printed[key] == pytest.approx(expected[key], rel=1e-12)
        assert (printed["io_cpu_energy_j"] > 0) == (power is None)


def test_a_picked_named_device_is_named_in_its_rows(capsys):
    path = str(Path(__file__).parent / "data" / "diskstats" / "build-vm.diskstats")
    printed = cli_json(capsys, ["simulate", path, "--stream", "vda", "--device", DEVICE, "--policy", "timeout:5s", "--json"])
    whole = idlewise.simulate(idlewise.read_trace(path), DEVICE, ["timeout:5s"], progress=False)
    assert [(r["stream"], r["stream_name"]) for r in printed] == [(r["stream"], r["stream_name"]) for r in whole] == [(65024, "vda")]
