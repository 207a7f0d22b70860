"""Every screen of every command at an 80- and a 200-column terminal (issue 64): nothing runs past
the width but a command on a line of its own, no name or number is cut ("…") or split at a
hyphen across lines, and what a narrow table leaves out is said in lines that fit."""

import argparse
import re

import pytest

import idlewise
from idlewise.cli import build_parser, main

from conftest import SRT

VM = "tests/data/diskstats/build-vm.diskstats"
DISK = "hitachi-travelstar-5k320"

#: What a line that may run past the width starts with: a command, copied whole (the advice's
#: steps, the demo's next step, a unit or rule file's line).
COMMAND = re.compile(r"^\s*(idlewise |sudo |echo |hdparm |hd-idle |nvme |ACTION==|options |HD_IDLE_OPTS=|"
                     r"DISK_DEVICES=|DISK_SPINDOWN|/dev/disk/by-id/|nvme_core\.|libahci\.|\$ )")
BOX = "│┃║"


def _help_pages() -> list[list[str]]:
    pages = [["--help"]]

    def walk(parser, words):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    pages.append([*words, name, "--help"])
                    walk(sub, [*words, name])

    walk(build_parser(), [])
    return pages


SCREENS = [
    ["demo"],
    ["devices"],
    ["policies"],
    ["trace", "formats"],
    ["trace", "stats", SRT, "--stream", "0"],
    ["simulate", SRT, "--stream", "0", "--device", DISK, "--policy", "timeout:10s", "--policy", "experts",
     "--policy", "stpm:knob=50", "--policy", "timeout:low-power-idle=5s,standby=60s"],
    ["sweep", SRT, "--stream", "0", "--device", DISK, "--device", "ibm-microdrive-340mb",
     "--policy", "timeout:5s..60s/5s", "--jobs", "1"],
    ["advise", VM, "--disk", "vda", "--device", "seagate-constellation-es1-500gb"],
    ["advise", VM, "--device", "samsung-pm981-1tb"],
    ["advise", SRT, "--stream", "0", "--device", "seagate-constellation-es1-500gb"],
    ["advise", SRT, "--stream", "0", "--device", DISK, "--price-per-kwh", "0.3", "--currency", "GBP"],
]


def _printed(argv, width, monkeypatch, capsys) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    assert code in (0, None), (argv, err)
    return out + err


def _misfits(text: str, width: int) -> list[str]:
    """The lines of ``text`` that break the rules of a screen ``width`` columns wide."""
    bad = []
    lines = [line.rstrip() for line in text.splitlines()]
    for i, line in enumerate(lines):
        # (One word alone, a web address, cannot be broken: it may run on.)
        if len(line) > width and not COMMAND.match(line) and " " in line.strip():
            bad.append(f"{len(line)} columns: {line}")
        if "…" in line:
            bad.append(f"cut: {line}")
        # A name split at its hyphen: a line (or a table cell) ending "word-" whose next line
        # goes on with a word.
        cells = [cell.rstrip() for cell in re.split(f"[{BOX}]", line)]
        following = lines[i + 1] if i + 1 < len(lines) else ""
        for k, cell in enumerate(cells):
            if re.search(r"[A-Za-z0-9]-$", cell):
                next_cells = re.split(f"[{BOX}]", following)
                goes_on = next_cells[k].strip() if k < len(next_cells) else ""
                if re.match(r"[A-Za-z0-9]", goes_on):
                    bad.append(f"split at a hyphen: {cell.strip()!r} / {goes_on!r}")
    return bad


@pytest.mark.parametrize("width", [80, 200])
@pytest.mark.parametrize("argv", _help_pages(), ids=" ".join)
def test_every_help_page_fits(argv, width, monkeypatch, capsys):
    text = _printed(argv, width, monkeypatch, capsys)
    assert text.startswith("usage: idlewise")
    assert _misfits(text, width) == []


@pytest.mark.parametrize("width", [80, 200])
@pytest.mark.parametrize("argv", SCREENS, ids=lambda argv: " ".join(argv[:2]))
def test_every_screen_fits(argv, width, monkeypatch, capsys):
    text = _printed(argv, width, monkeypatch, capsys)
    assert _misfits(text, width) == []
    left_out = [line for line in text.splitlines() if "columns left out" in line]
    # Said in one line that fits: the remedy is on it.
    assert all("--json" in line or "--wide" in line for line in left_out), left_out
    if width == 200:
        assert left_out == [] or argv[0] == "advise", left_out


@pytest.mark.parametrize("width", [80, 200])
def test_every_catalog_device_s_page_fits(width, monkeypatch, capsys):
    for name in idlewise.catalog_names():
        text = _printed(["devices", name], width, monkeypatch, capsys)
        assert _misfits(text, width) == [], name


def test_wide_shows_every_column_at_80(monkeypatch, capsys):
    argv = ["simulate", SRT, "--stream", "0", "--device", DISK, "--policy", "timeout:10s"]
    narrow = _printed(argv, 80, monkeypatch, capsys)
    wide = _printed([*argv, "--wide"], 80, monkeypatch, capsys)
    assert "left out to fit" in narrow and "left out to fit" not in wide
    def headers(text):
        return " ".join(line for line in text.splitlines() if line.startswith("┃"))

    assert "p99" in headers(wide) and "p99" not in headers(narrow)


def test_a_sweep_of_two_devices_at_80_shows_energy_and_response_for_each(monkeypatch, capsys):
    text = _printed(SCREENS[6], 80, monkeypatch, capsys)
    headers = [line for line in text.splitlines() if line.startswith("┃ policy")]
    assert len(headers) == 2  # a table per device
    assert text.count("energy") >= 2 and text.count("mean") >= 2
    assert "device ibm-microdrive-340mb" in text


def test_advice_numbers_read_as_numbers(monkeypatch, capsys):
    text = _printed(SCREENS[8], 80, monkeypatch, capsys)
    joined = " ".join(text.split())
    assert re.search(r"\b\d{1,3}(,\d{3})+ wake-ups a day", joined), joined
    hourly = re.search(r"([\d,.]+) requests an hour", joined).group(1)
    assert float(hourly.replace(",", "")) >= 100 and "." not in hourly  # 2,232, not 2231.51
    gbp = _printed(SCREENS[10], 80, monkeypatch, capsys)
    assert "GBP a year at 0.30 GBP per kWh" in " ".join(gbp.split())


def test_the_check_sees_what_breaks_a_screen():
    assert _misfits("word " * 17, 80)  # 85 columns of prose
    assert not _misfits("  idlewise advise " + "x" * 80, 80)  # a command, on a line of its own
    assert _misfits("│ hitachi- │\n│ travelstar-5k320 │", 80)  # a name split at its hyphen
    assert not _misfits("│ wake-ups/day │\n│ (any mode) │", 80)
    assert _misfits("timeout:low-power-i…", 80)
