"""The command line's face (issue 12): --version, tables that fit a terminal without cutting a
policy name, and a sweep that prints what it ran."""

import re
import tomllib
from pathlib import Path

import pytest
from rich.console import Console

import idlewise
from idlewise.cli import main, results_table

from conftest import SRT

ROOT = Path(__file__).resolve().parent.parent


def test_version_is_the_package_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    assert capsys.readouterr().out.strip() == f"idlewise {pyproject}"
    assert idlewise.__version__ == pyproject == cargo


@pytest.mark.parametrize("width", [80, 100])
def test_results_table_fits_the_terminal_and_keeps_policy_names_whole(width):
    trace = idlewise.read_trace(SRT, stream=0)
    policies = ["timeout:1min", "timeout:10s", "timeout:2s", "experts", "predictive", "stpm:knob=50"]
    results = idlewise.simulate(trace, "hitachi-travelstar-5k320", policies, progress=False)
    console = Console(width=width, record=True, file=open("/dev/null", "w"))
    console.print(results_table(results, "t", width=width))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text  # neither a name nor a number is cut
    rows = [line for line in text.splitlines() if line.startswith("│")]
    assert len(rows) == len(results)  # one line each: nothing wraps
    for r, row in zip(results, rows):
        assert row.split("│")[1].strip() == r["policy"]
        assert f"{r['energy_j']:,.1f}" in row  # energy is never left out
    assert "left out to fit the terminal" in text  # and the reader is told what was
    wide = Console(width=200, record=True, file=open("/dev/null", "w"))
    wide.print(results_table(results, "t", wide=True, width=200))
    assert "cycles/day" in wide.export_text() and "left out" not in wide.export_text()


def test_sweep_without_out_prints_its_runs(capsys):
    assert main(["sweep", SRT, "--stream", "0", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:0s..10s/5s",
                 "--transform", "none", "--transform", "compress:64ops", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "6 runs" in out
    rows = [line for line in out.splitlines() if re.match(r"│ timeout:", line)]
    assert len(rows) == 6 and sum("compress:64ops" in r for r in rows) == 3  # the transform tells rows apart
