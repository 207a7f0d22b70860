"""The light install (issue 62): without pyarrow, pandas, matplotlib, jinja2, dask or polars, the
administrator's commands run (record, advise, manage, simulate, sweep, devices, demo, JSON and
CSV out), and a command that needs an extra stops before any work, naming the extra. Run in a
subprocess whose imports of the extras fail, as they would in an environment without them
(``tools/check-wheel`` does the same with a real venv, and measures its size)."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import idlewise
from conftest import DISKSIM, TRACES

BLOCKER = '''
import sys
BLOCKED = ("pyarrow", "pandas", "matplotlib", "jinja2", "polars", "dask", "distributed")
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _Block())
'''

BUILD_VM = str(TRACES / "diskstats" / "build-vm.diskstats")


@pytest.fixture(scope="module")
def light(tmp_path_factory):
    folder = tmp_path_factory.mktemp("light")
    (folder / "sitecustomize.py").write_text(BLOCKER)
    package = str(Path(idlewise.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), package])}

    def idlewise_cli(*argv):
        return subprocess.run([sys.executable, "-m", "idlewise", *argv], env=env, cwd=folder, capture_output=True, text=True)
    idlewise_cli.folder = folder
    return idlewise_cli


def test_the_extras_are_really_missing_there(light):
    done = light("--version")
    assert done.returncode == 0
    probe = subprocess.run([sys.executable, "-c", "import pyarrow"], env={**os.environ, "PYTHONPATH": str(light.folder)},
                           capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named" in probe.stderr


@pytest.mark.parametrize("argv", [
    ["demo"],
    ["devices"],
    ["devices", "hitachi-microdrive-1gb"],
    ["simulate", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--json"],
    ["simulate", BUILD_VM, "--stream", "vda", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:2s"],
    ["advise", BUILD_VM, "--stream", "vda", "--device", "hitachi-travelstar-5k320", "--json"],
    ["manage", "replay", BUILD_VM, "--stream", "vda", "--policy", "timeout:10s", "--device", "hitachi-travelstar-5k320", "--quiet"],
    ["trace", "stats", DISKSIM],
])
def test_the_administrator_s_commands_run_without_the_extras(light, argv):
    done = light(*argv)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


def test_a_sweep_writes_csv_without_arrow(light):
    done = light("sweep", DISKSIM, "--stream", "0", "--device", "hitachi-microdrive-1gb", "--policy", "timeout:1s..10s/3s",
                 "--out", "runs.csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(open(light.folder / "runs.csv")))
    assert len(rows) == 4 and rows[0]["policy"] == "timeout:1s"
    assert json.loads(rows[0]["energy_by_mode_j"])["standby"] >= 0
    # The same rows as Arrow's CSV writer gives them, number for number.
    full = idlewise.sweep([idlewise.TraceSource(path=DISKSIM, stream=0)], ["hitachi-microdrive-1gb"], ["timeout:1s..10s/3s"], jobs=1)
    for mine, theirs in zip(rows, full.to_dicts()):
        assert float(mine["energy_j"]) == theirs["energy_j"] and mine["family"] == theirs["family"]
        assert (mine["knob"] == "") == (theirs["knob"] is None)


@pytest.mark.parametrize("argv, extra, left", [
    (["sweep", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--out", "runs.parquet"], "parquet", "runs.parquet"),
    (["simulate", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--per-request", "r.parquet"], "parquet", "r.parquet"),
    (["report", DISKSIM, "--device", "hitachi-microdrive-1gb", "--out", "r.html"], "report", "r.html"),
    (["sweep", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--plot", "p.png"], "report", "p.png"),
    (["advise", BUILD_VM, "--stream", "vda", "--device", "hitachi-travelstar-5k320", "--plot", "a.png"], "report", "a.png"),
    (["trace", "convert", DISKSIM, "t.parquet"], "parquet", "t.parquet"),
    (["sweep", DISKSIM, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s", "--scheduler", "tcp://127.0.0.1:1"], "dask", None),
])
def test_what_needs_an_extra_stops_before_any_work_and_names_it(light, argv, extra, left):
    done = light(*argv)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"pip install 'idlewise[{extra}]'" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert left is None or not (light.folder / left).exists()
