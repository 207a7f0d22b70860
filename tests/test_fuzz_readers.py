"""Property-based fuzzing of every reader: any bytes in give a Trace or an IdlewiseError, never
another exception. Bounded to a few seconds per reader here; benchmarks/fuzz.py runs
over a million inputs."""

import random
import warnings

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

import idlewise
from fuzz_inputs import MAPPED_COLUMNS, MAPPED_SEED, SEEDS, mutate
from properties import property_test
from idlewise import IdlewiseError
from idlewise.traces.trace import REQUESTS_DERIVED

FORMATS = list(SEEDS) + ["parquet", "srt"]


# An error about the file as a whole rather than one of its lines.
WHOLE_FILE = ("empty", "binary", "no ", "not a", "only a header", "several formats", "could be", "recognises",
              "cannot read", "truncated", "unsupported", "header", "has no records", "has a single device",
              "column",  # Parquet: the column at fault
              "footer counts")  # Parquet: fewer records than its footer counts (a corrupted page)


def read_or_refuse(path, format, **mapping):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return idlewise.read_trace(path, format=format, **mapping)
        except IdlewiseError as e:
            message = str(e)
            # Every refusal names the file, and a line (or record) unless it is about the whole file.
            assert message.startswith(str(path)), message
            assert "line " in message or "record " in message or any(w in message for w in WHOLE_FILE), message
            return None


@pytest.mark.parametrize("fmt", FORMATS)
@property_test(300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), raw=st.binary(max_size=200), use_raw=st.booleans())
def test_any_input_gives_a_trace_or_an_idlewise_error(tmp_path, fmt, seed, raw, use_raw):
    data = raw if use_raw or fmt not in SEEDS else mutate(SEEDS[fmt], random.Random(seed))
    path = tmp_path / f"in.{fmt}"
    path.write_bytes(data)
    for format in (fmt, "auto"):
        trace = read_or_refuse(path, format)
        if trace is not None:
            # A diskstats line is a counter snapshot giving any number of requests.
            assert len(trace) > 0 and (trace.format in REQUESTS_DERIVED or trace.records_read >= len(trace))


@property_test(500, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), flag=st.sampled_from([None, 0, 1]))
def test_a_mutated_mapped_csv_gives_a_trace_or_an_error_naming_its_line(tmp_path, seed, flag):
    data = mutate(MAPPED_SEED, random.Random(seed))
    path = tmp_path / "in.csv"
    path.write_bytes(data)
    trace = read_or_refuse(path, "auto", columns=MAPPED_COLUMNS, write_flag=flag)
    if trace is not None:
        # Every record after the header is kept: a mapped CSV skips nothing silently.
        text = data.removeprefix(b"\xef\xbb\xbf")
        records = sum(1 for line in text.split(b"\n") if line.strip(b" \t\r\x0c")) - 1
        assert trace.records_read == len(trace) == records and not trace.skipped


def test_the_seeds_themselves_are_read(tmp_path):
    for fmt, text in SEEDS.items():
        path = tmp_path / f"seed.{fmt}"
        path.write_text(text)
        assert len(idlewise.read_trace(path, format=fmt)) >= 2, fmt
    path = tmp_path / "seed-mapped.csv"
    path.write_text(MAPPED_SEED)
    assert idlewise.read_trace(path, columns=MAPPED_COLUMNS).size_bytes.tolist() == [8192, 1024, 4096]


@property_test(300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(positions=st.lists(st.integers(0, 10**6), min_size=1, max_size=6), values=st.binary(min_size=6, max_size=6))
def test_a_parquet_file_with_corrupted_bytes_gives_a_trace_or_an_idlewise_error(tmp_path, positions, values):
    # Corruption anywhere, footer included (pyarrow raises ArrowInvalid, OSError or
    # ArrowNotImplementedError depending on where it lands).
    path = tmp_path / "t.parquet"
    trace = idlewise.Trace.from_arrays([0.0, 1.0, 2.0], [512, 4096, 8192], op=["R", "W", "R"])
    idlewise.traces.write_parquet(trace, path)
    data = bytearray(path.read_bytes())
    for position, value in zip(positions, values):
        data[position % len(data)] = value
    path.write_bytes(bytes(data))
    read_or_refuse(path, "parquet")
