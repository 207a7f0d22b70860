"""Every command's options fuzzed (issue 39: the class, not the instance): argument lists drawn
from the parser itself (each subcommand's options and positionals, with values that once broke
something: numbers beyond 64 bits, negatives, NaN, control characters, empty strings, missing
files, wrong suffixes), run in process on a ten-request trace. Whatever is drawn, the command
either works (0) or refuses with one line (2, argparse's usage error or `idlewise: error:`):
never a traceback. `python benchmarks/fuzz.py --only options` runs the same at scale."""

import argparse
import contextlib
import io
import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from idlewise.cli import build_parser, main

#: Commands left out: they run seeds' whole experiments or record this machine for a duration.
SLOW = {"experiment", "record", "demo"}

VALUES = ["", "0", "1", "-1", "2", "9" * 25, "-" + "9" * 25, "18446744073709551615", "nan", "inf", "-inf", "1e309",
          "0.5", "1s", "2min", "-3s", "0..10s/1s", "timeout:2s", "timeout:0s..1s/0s", "stpm:knob=500", "oracle", "always-on",
          "hitachi-microdrive-1gb", "cisco-350", "cmu-mems-g1", "no-such-device", "sda", "vda", "\x1b[2J", "ä", "a,b",
          "compress:8ops", "stream:3", "stream:" + "9" * 25, "window:0s..1s", "x.bmp", "x.csv", "x.parquet", "x.html",
          "/no/such/dir/x.parquet", "time_ms=ts,size_bytes=len", "tcp://127.0.0.1:1", "notaurl", "1..0", "open", "closed"]


def _commands(parser) -> dict:
    """Every leaf subcommand's parser, by its words (`trace stats`)."""
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                inner = _commands(sub)
                if inner:
                    found.update({(name, *words): p for words, p in inner.items()})
                else:
                    found[(name,)] = sub
    return found


COMMANDS = {words: p for words, p in _commands(build_parser()).items() if words[0] not in SLOW}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "t.csv").write_text("time_s,offset_bytes,size_bytes,op\n" + "".join(f"{i * 1.5},{4096 * i},4096,{'RW'[i % 2]}\n" for i in range(10)))
    return folder


def _argv(draw, words, sub, trace: str) -> list:
    argv = list(words)
    for action in sub._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        positional = not action.option_strings
        if not positional and not draw(st.booleans()):
            continue
        value_choices = list(action.choices) if action.choices else VALUES + [trace]
        if action.nargs == 0:
            argv.append(action.option_strings[0])
            continue
        count = 1 if action.nargs in (None, "?") else draw(st.integers(1, 3))
        values = [draw(st.sampled_from(value_choices)) for _ in range(count)]
        if positional and draw(st.integers(0, 3)):
            values[0] = trace  # mostly a real trace, so the options after it are reached
        if not positional:
            argv.append(action.option_strings[0])
        argv += [str(v) for v in values]
    return argv


@st.composite
def command_lines(draw, trace: str):
    words = draw(st.sampled_from(sorted(COMMANDS)))
    return _argv(draw, words, COMMANDS[words], trace)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_option_ends_in_a_traceback(workdir, data):
    argv = data.draw(command_lines(str(workdir / "t.csv")))
    err = io.StringIO()
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except SystemExit as stop:  # argparse's usage errors and --help
                code = stop.code
    finally:
        os.chdir(cwd)
    assert code in (0, 2), (argv, code, err.getvalue()[-2000:])
    assert "Traceback" not in err.getvalue(), (argv, err.getvalue()[-2000:])
