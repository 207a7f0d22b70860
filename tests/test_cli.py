"""The command line: demo, simulate (table and --json), devices, policies, and clean errors."""

import json
import subprocess
import sys

import pytest

from idlewise.cli import main

JSON_KEYS = {"policy", "device", "requests", "makespan_s", "energy_j", "system_energy_j", "energy_by_mode_j",
             "time_by_mode_s", "wakeups", "mean_response_s", "p50_response_s", "p95_response_s", "p99_response_s",
             "max_response_s", "delayed_requests", "normalized_energy", "normalized_mean_response", "energy_vs_oracle"}


@pytest.fixture
def csv_trace(tmp_path):
    path = tmp_path / "t.csv"
    lines = ["time_s,offset_bytes,size_bytes,op"] + [f"{i * 7.5},{i * 4096},4096,{'W' if i % 3 else 'R'}" for i in range(40)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_simulate_json_has_the_documented_keys(csv_trace, capsys):
    assert main(["simulate", csv_trace, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s",
                 "--policy", "oracle", "--base-power", "1.44", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [o["policy"] for o in out] == ["timeout:2s", "oracle"]
    assert JSON_KEYS <= set(out[0])
    assert out[0]["system_energy_j"] == pytest.approx(out[0]["energy_j"] + 1.44 * out[0]["makespan_s"])


def test_simulate_table(csv_trace, capsys):
    assert main(["simulate", csv_trace, "--device", "hitachi-microdrive-1gb", "--policy", "breakeven"]) == 0
    assert "breakeven" in capsys.readouterr().out


def test_demo_runs_on_the_bundled_trace(capsys):
    assert main(["demo", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    by_policy = {o["policy"]: o for o in out}
    assert by_policy["always-on"]["requests"] == 42252
    assert by_policy["oracle"]["energy_j"] <= by_policy["always-on"]["energy_j"]


def test_devices_and_policies(capsys):
    assert main(["devices"]) == 0
    assert "hitachi-microdrive-1gb" in capsys.readouterr().out
    assert main(["devices", "hitachi-microdrive-1gb"]) == 0
    out = capsys.readouterr().out
    assert "Figure 2" in out and "standby" in out
    assert main(["policies", "--json"]) == 0
    names = [f["name"] for f in json.loads(capsys.readouterr().out)]
    assert names == ["always-on", "timeout", "hd-idle", "epc", "apst", "breakeven", "randomized", "stpm", "experts", "predictive", "psm", "oracle"]


def test_errors_exit_2_without_traceback(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("time_s,offset_bytes,size_bytes,op\n0,0,1,R\n1,0,-1,R\n")
    p = subprocess.run([sys.executable, "-m", "idlewise.cli", "simulate", str(bad), "--device", "hitachi-microdrive-1gb",
                        "--policy", "timeout:2s"], capture_output=True, text=True)
    assert p.returncode == 2
    assert "bad.csv: line 3, field 'size_bytes'" in p.stderr
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr
    p = subprocess.run([sys.executable, "-m", "idlewise.cli", "simulate", str(bad), "--device", "nope", "--policy", "x"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr


@pytest.mark.parametrize("command", [
    ["policies"],
    ["devices"],
    ["simulate", "{trace}", "--device", "cmu-mems-g2", "--policy", "timeout:100ms", "--format", "disksim"],
])
def test_commands_that_need_no_numpy_start_without_it(command):
    """NumPy is a tenth of a second of start-up: a text trace's replay, the catalog and the policy
    list do not load it (nor the other commands' modules), so a short command stays short."""
    from pathlib import Path

    trace = str(Path(__file__).parent / "data" / "mems-disksim" / "visible.trace")
    argv = [a.format(trace=trace) for a in command]
    code = ("import runpy, sys\n"
            f"sys.argv = ['idlewise', *{argv!r}]\n"
            "try:\n    runpy.run_module('idlewise', run_name='__main__')\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "loaded = [m for m in ('numpy', 'idlewise.reporting', 'idlewise.experiments', 'idlewise.manage') if m in sys.modules]\n"
            "print('LOADED', loaded, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "LOADED []" in done.stderr, done.stderr[-500:]
