"""The command line's face (issue 12): --version, tables that fit a terminal without cutting a
policy name, and a sweep that prints what it ran."""

import re
import tomllib
from pathlib import Path

import pytest
from rich.console import Console

import idlewise
from idlewise.cli import _fmt_time, main, results_table

from conftest import SRT

ROOT = Path(__file__).resolve().parent.parent


def test_version_is_the_package_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    # One place holds the version: the workspace's Cargo.toml; the package takes it from there.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    assert capsys.readouterr().out.strip() == f"idlewise {cargo}"
    assert idlewise.__version__ == cargo
    from importlib.metadata import version

    assert version("idlewise") == cargo


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
        assert row.split("│")[1].strip() == r["spec"]  # as written: experts, not experts:n=25,...
        assert f"{r['energy_j']:,.1f}" in row  # energy is never left out
        # At 80 columns too: energy against always-on and the oracle, and the mean response.
        assert f"{r['normalized_energy']:.3f}" in row and f"{r['energy_vs_oracle']:.3f}" in row
        assert f" {_fmt_time(r['mean_response_s'])} " in row
    assert "left out to fit the terminal" in text  # and the reader is told what was
    wide = Console(width=200, record=True, file=open("/dev/null", "w"))
    wide.print(results_table(results, "t", wide=True, width=200))
    assert "cycles/day" in wide.export_text() and "left out" not in wide.export_text()


def test_the_readme_demo_is_what_the_demo_prints_on_80_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["demo"]) == 0
    printed = "\n".join(line.rstrip() for line in capsys.readouterr().out.rstrip("\n").splitlines())
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    demo = readme[readme.index("## Demo output"):]
    block = demo[demo.index("```text\n") + 8:demo.index("\n```", demo.index("```text\n"))]
    assert printed == block


def test_sweep_without_out_prints_its_runs(capsys):
    assert main(["sweep", SRT, "--stream", "0", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:0s..10s/5s",
                 "--transform", "none", "--transform", "compress:64ops", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "6 runs" in out
    rows = [line for line in out.splitlines() if re.match(r"│ timeout:", line)]
    # The transform tells the groups apart: a table each, headed by it, three runs in each.
    assert len(rows) == 6
    assert out.count("transform compress:64ops") == 1 and out.count("transform none") == 1
    assert out.index("transform none") < out.index("transform compress:64ops")


def test_devices_shows_sources_assumptions_seek_curve_and_timers(capsys):
    assert main(["devices", "samsung-pm981-1tb"]) == 0
    out = capsys.readouterr().out
    # An assumed value's reason is shown where the source would be (rich once swallowed it as markup).
    assert "assumed: operational idle of a PCIe 3.0 NVMe controller" in out
    assert main(["devices", "hitachi-travelstar-5k320"]) == 0
    out = capsys.readouterr().out
    # The seek curve passes through the datasheet's figures: 1 ms track-to-track, 12 ms average, 20 ms full stroke.
    assert "1 cyl: 1.00 ms" in out and "26,667 cyl: 12.00 ms" in out and "80,001 cyl: 20.00 ms" in out
    assert "rated load/unload cycles: 600,000 (the wake-ups that use one are counted as load_unload_wakeups" in out
    assert main(["devices", "seagate-constellation-es1-500gb"]) == 0
    out = capsys.readouterr().out
    assert "240.00 s" in out and "900.00 s" in out  # the EPC timers


def test_devices_toml_starts_a_device_file_and_validate_checks_it(tmp_path, capsys):
    assert main(["devices", "ibm-ultrastar-36z15", "--toml"]) == 0
    text = capsys.readouterr().out.replace('name = "ibm-ultrastar-36z15"', 'name = "my-nas-disk"')
    path = tmp_path / "nas.toml"
    path.write_text(text)
    mine, catalog = idlewise.load_device(str(path)), idlewise.load_device("ibm-ultrastar-36z15")
    assert mine.name == "my-nas-disk" and mine.modes == catalog.modes and mine.transitions == catalog.transitions
    assert main(["devices", "validate", str(path)]) == 0
    assert "nas.toml: valid: my-nas-disk (disk), 2 modes, 2 transitions" in capsys.readouterr().out
    # A custom device is reported by its name, not its file's.
    assert main(["simulate", SRT, "--stream", "0", "--device", str(path), "--policy", "timeout:10s", "--json"]) == 0
    assert '"device": "my-nas-disk"' in capsys.readouterr().out
    path.write_text(text.replace("power_w = 2.5", "power_w = -2.5"))
    assert main(["devices", "validate", str(path)]) == 2
    assert "nas.toml: modes[1] (standby).power_w: must be non-negative" in capsys.readouterr().err


def test_result_rows_carry_their_policy_parameters_and_arrow_has_every_column():
    trace = idlewise.read_trace(SRT, stream=0)
    a = idlewise.simulate(trace, "hitachi-travelstar-5k320", ["timeout:1min", "stpm:knob=50", "hd-idle:2min"], progress=False)
    b = idlewise.simulate(trace, "ibm-ultrastar-36z15", ["timeout:0.5s"], progress=False)
    results = idlewise.Results(a.to_dicts() + b.to_dicts())
    df = results.to_pandas()
    assert df["timeout_s"].fillna(-1).tolist() == [60.0, -1, 120.0, 0.5]
    assert df["knob"].fillna(-1).tolist() == [-1, 50.0, -1, -1]
    assert df["params"][1]["base"] == 0.0 and df["family"].tolist() == ["timeout", "stpm", "hd-idle", "timeout"]
    assert df["run"].tolist() == [0, 1, 2, 3]
    table = results.to_arrow()
    # The two devices have different modes: Arrow once took its columns from the first row only.
    assert table.column_names == list(df.columns)
    modes = [set(dict(m)) for m in table.column("energy_by_mode_j").to_pylist()]
    assert "standby" in modes[0] and "idle" in modes[3]


def test_simulate_rows_name_the_stream_and_transform_picked(capsys):
    import json

    assert main(["simulate", SRT, "--stream", "0", "--transform", "compress:64ops", "--device", "hitachi-travelstar-5k320",
                 "--policy", "timeout:10s", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["stream"] == 0 and row["transform"] == "compress:64ops"


def test_the_default_table_shows_the_wake_ups_that_use_rated_cycles():
    # breakeven on the 5K320 wakes out of active idle (no head unload) as well as out of
    # standby: only the latter use a rated start/stop cycle, and the table says how many.
    trace = idlewise.read_trace(SRT, stream=0)
    results = idlewise.simulate(trace, "hitachi-travelstar-5k320", ["breakeven"], progress=False)
    console = Console(width=160, record=True, file=open("/dev/null", "w"))
    console.print(results_table(results, "t", width=160))
    text = console.export_text()
    assert "spin-ups" in text
    r = results[0]
    assert 0 < r["cycle_wakeups"] < r["wakeups"]
    row = next(line for line in text.splitlines() if "breakeven" in line)
    assert f"{r['wakeups']:,}" in row and f"{r['cycle_wakeups']:,}" in row


def test_progress_says_its_unit_rate_and_time_left():
    from idlewise.progress import _status

    assert _status(114_294_784, 252_000_000, "replays", 2.0, 110e6) == "114.3M of 252.0M replays · 110.0M/s · 0:02 spent · 0:01 left"
    assert _status(5, 0, "replays", 1.0, None) == "5 replays · 0:01 spent"  # total unknown: no bar, no time left
    assert _status(412 << 20, 1300 << 20, "bytes", 3725.0, 200 << 20) == "412.0 MiB of 1.3 GiB · 200.0 MiB/s · 1:02:05 spent · 0:04 left"


def test_reading_a_text_trace_counts_its_bytes_for_the_bar(tmp_path):
    from idlewise import _core

    path = tmp_path / "t.csv"
    path.write_text("time_s,offset_bytes,size_bytes,op\n" + "".join(f"{i},0,4096,R\n" for i in range(1000)))
    counter = _core.Progress()
    columns = _core.read_text(str(path), "csv", progress=counter)
    assert len(columns["time_s"]) == 1000
    assert counter.done == path.stat().st_size


@pytest.mark.parametrize("command", [["simulate", "--policy", "timeout:2s"], ["sweep", "--policy", "timeout:2s"], ["advise"],
                                     ["report"]])
def test_a_device_name_is_checked_before_the_trace_is_read(command, capsys, tmp_path):
    # Reading this trace fails at its second line: the device's error comes first, so a typo
    # in a device name costs no read of a large trace.
    trace = tmp_path / "huge.csv"
    trace.write_text("time_s,offset_bytes,size_bytes,op\nnot-a-time,0,1,R\n")
    assert main([command[0], str(trace), "--device", "no-such-disk", *command[1:], *(
        ["--out", str(tmp_path / "x.html")] if command[0] == "report" else [])]) == 2
    err = capsys.readouterr().err
    assert "unknown device 'no-such-disk'" in err and "line 2" not in err


def test_sweep_works_from_a_script_without_a_main_guard(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "plain_script.py"
    script.write_text("import idlewise\n"
                      f"rows = idlewise.sweep([{SRT!r}], ['hitachi-travelstar-5k320'], ['timeout:2s', 'timeout:20s'], progress=False)\n"
                      "print(len(rows), sorted({r['policy'] for r in rows}))\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.strip() == "4 ['timeout:20s', 'timeout:2s']"  # two devices of the trace x two policies


def test_a_notebook_meets_the_whole_api():
    # dir() lists the names loaded on first use; advise and report of a path are functions of
    # the package; a Trace shows as a line, not its columns; file objects are traces too.
    import io

    names = dir(idlewise)
    for name in ("read_trace", "Trace", "sweep", "advise", "report", "simulate_file", "write_parquet"):
        assert name in names and callable(getattr(idlewise, name)), name
    from conftest import DISKSIM

    trace = idlewise.read_trace(DISKSIM)
    assert repr(trace) == "<Trace 'ascii.trace': 100,000 requests (20,366 writes) over 1,532.936 s, 14 devices, format disksim>"
    data = open(DISKSIM, "rb").read()
    assert len(idlewise.read_trace(io.BytesIO(data))) == len(trace)
    with pytest.raises(idlewise.IdlewiseError, match="a trace is a file's path, '-' for standard input, or a file object"):
        idlewise.read_trace(12)
    rows = idlewise.sweep([DISKSIM], ["hitachi-microdrive-1gb"], ["timeout:2s"], stream=3, progress=False).to_dicts()
    assert [(r["stream"], r["requests"]) for r in rows] == [(3, 75)]


def test_the_compiled_module_has_stubs_and_the_package_says_it_is_typed():
    import ast

    import idlewise._core as core

    package = Path(idlewise.__file__).parent
    assert (package / "py.typed").exists()
    stub = ast.parse((package / "_core.pyi").read_text())
    stubbed = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    stubbed |= {n.target.id for n in stub.body if isinstance(n, ast.AnnAssign)}
    public = {n for n in dir(core) if not n.startswith("_")} | {"__version__"}
    assert public <= stubbed, f"not in _core.pyi (python tools/write-core-stubs.py): {sorted(public - stubbed)}"


def test_public_functions_document_parameters_and_returns_numpydoc_style():
    """Issue 41: public functions had no Parameters/Returns sections."""
    import inspect

    for name in idlewise.__all__:
        thing = getattr(idlewise, name)
        if inspect.isclass(thing) or not callable(thing):
            continue
        doc = inspect.getdoc(thing) or ""
        try:
            takes = bool(inspect.signature(thing).parameters)
        except ValueError:  # a compiled function without a signature says so in its doc
            takes = True
        if takes:
            assert "Parameters\n----------" in doc, f"idlewise.{name}: no numpydoc Parameters section"
        if name != "write_parquet":  # returns None
            assert "Returns\n-------" in doc, f"idlewise.{name}: no numpydoc Returns section"
