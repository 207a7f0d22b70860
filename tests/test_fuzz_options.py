"""Every command's options fuzzed (issue 39: the class, not the instance): argument lists drawn
from the parser itself (each subcommand's options and positionals, with values that once broke
something: numbers beyond 64 bits, negatives, NaN, control characters, empty strings, missing
files, wrong suffixes), run in process on a ten-request trace. Whatever is drawn, the command
either works (0) or refuses with one line (2, argparse's usage error or `idlewise: error:`):
never a traceback. `python benchmarks/fuzz.py --only options` runs the same at scale."""

import contextlib
import io
import os

import pytest
from hypothesis import HealthCheck, given, strategies as st

from fuzz_inputs import command_line, commands, isolated_machine
from properties import property_test
from idlewise.cli import build_parser, main

COMMANDS = commands(build_parser())


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "t.csv").write_text("time_s,offset_bytes,size_bytes,op\n" + "".join(f"{i * 1.5},{4096 * i},4096,{'RW'[i % 2]}\n" for i in range(10)))
    return folder


@st.composite
def command_lines(draw, trace: str):
    words = draw(st.sampled_from(sorted(COMMANDS)))
    return command_line(lambda options: draw(st.sampled_from(options)), words, COMMANDS[words], trace)


# The suite draws the same cases every run (tests/properties.py); tools/deep-check and
# python benchmarks/fuzz.py --only options explore further.
@property_test(250, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_option_ends_in_a_traceback(workdir, data):
    argv = data.draw(command_lines(str(workdir / "t.csv")))
    err = io.StringIO()
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        with isolated_machine(str(workdir)), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except SystemExit as stop:  # argparse's usage errors and --help
                code = stop.code
    finally:
        os.chdir(cwd)
    assert code in (0, 2), (argv, code, err.getvalue()[-2000:])
    assert "Traceback" not in err.getvalue(), (argv, err.getvalue()[-2000:])


def _parsed(parser, argv):
    """What ``parser`` makes of ``argv``: its namespace (functions by name), or how it stopped
    and what it printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            args = vars(parser.parse_args(argv))
        except SystemExit as stop:
            return ("exit", stop.code, out.getvalue(), err.getvalue())
    # (NaN as text: two parses of "nan" give equal namespaces, though NaN != NaN.)
    return {key: getattr(value, "name", value) if callable(value) else "nan" if value != value else value
            for key, value in args.items()}


@property_test(300)
@given(data=st.data())
def test_the_parser_built_for_the_running_command_parses_as_the_whole_one(data):
    # main() builds only the running command's arguments (the others are listed by name): any
    # command line, its help included, is parsed or refused exactly as by every command's parser.
    argv = data.draw(command_lines("t.csv"))
    if data.draw(st.booleans()):
        argv = argv[: data.draw(st.integers(0, len(argv)))] + ["--help"]
    running = next((word for word in argv if not word.startswith("-")), None)
    assert _parsed(build_parser(running), argv) == _parsed(build_parser(), argv), argv


def test_every_command_s_help_is_the_whole_parser_s():
    import argparse

    whole = build_parser()
    names = next(a for a in whole._actions if isinstance(a, argparse._SubParsersAction)).choices
    for words in sorted(set(COMMANDS) | {(name,) for name in names}):
        argv = [*words, "--help"]
        assert _parsed(build_parser(argv[0]), argv) == _parsed(whole, argv), argv
    for argv in (["--help"], ["--version"], ["bogus"], []):
        running = next((word for word in argv if not word.startswith("-")), None)
        assert _parsed(build_parser(running), argv) == _parsed(build_parser(), argv), argv
