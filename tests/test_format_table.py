"""One table of trace formats, in the engine (issue 63): the Python readers, `--format auto`,
the memory budget, the sort hint and the help all read it, and each agrees with what it says."""

import json

import idlewise
from idlewise.cli import main
from idlewise.traces import budget
from idlewise.traces.detect import detect_format
from idlewise.traces.formats import MAGIC, TABLE, TIME_FIELDS
from idlewise.traces.readers import READERS

from fuzz_inputs import SEEDS
from test_readers import SAMPLES


def test_every_format_of_the_table_has_a_reader_and_no_reader_is_outside_it():
    assert list(READERS) == [f["name"] for f in TABLE]


def test_each_text_format_is_recognised_as_the_table_names_it(tmp_path):
    # (The fuzzer's spc-ascii seed is read with --format: three lines of it fit no rule alone.)
    samples = {**SEEDS, "spc-ascii": SAMPLES["spc-ascii"][0]}
    assert set(samples) == {f["name"] for f in TABLE} - set(MAGIC) - {"tar"}
    for name, text in samples.items():
        path = tmp_path / f"sample.{name}"
        path.write_text(text)
        assert detect_format(str(path)) == name
        assert len(idlewise.read_trace(str(path), format=name).time_s) > 0


def test_each_binary_format_begins_with_its_magic_and_is_recognised_by_it(tmp_path):
    trace = idlewise.Trace.from_arrays([0.0, 1.0], [4096, 4096])
    path = tmp_path / "t.parquet"
    idlewise.traces.write_parquet(trace, str(path))
    assert path.read_bytes().startswith(MAGIC["parquet"]) and detect_format(str(path)) == "parquet"
    srt = "python/idlewise/data/hplajw/ajw.1week.srt"
    assert open(srt, "rb").read(16).startswith(MAGIC["srt"]) and detect_format(srt) == "srt"


def test_the_sort_hint_keys_on_the_table_s_time_field(tmp_path, monkeypatch):
    # A CSV too large for a budget of one byte: the hint sorts on its first field, keeping its header.
    path = tmp_path / "big.csv"
    path.write_text(SEEDS["csv"])
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", "1")
    assert TIME_FIELDS["csv"] == (1, ",", 1)
    try:
        budget.check_whole_read_fits(str(path), "csv", sort=True)
    except idlewise.IdlewiseError as e:
        assert "sort -s -t',' -k1,1g" in str(e) and "head -n 1" in str(e)
    else:
        raise AssertionError("a one-byte budget fits a CSV")


def test_trace_formats_lists_the_table(capsys):
    assert main(["trace", "formats", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [f["name"] for f in listed] == [f["name"] for f in TABLE]
    assert all(f["fields"] for f in listed if f["name"] != "tar")
    assert main(["trace", "formats"]) == 0
    out = capsys.readouterr().out
    assert all(f["name"] in out for f in TABLE)
