"""Property-based fuzzing of every reader: any bytes in give a Trace or an IdlewiseError, never
another exception. Bounded to a few seconds per reader here; benchmarks/fuzz_readers.py runs
over a million inputs."""

import random
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import idlewise
from fuzz_inputs import SEEDS, mutate
from idlewise import IdlewiseError

FORMATS = list(SEEDS) + ["parquet", "srt"]


def read_or_refuse(path, format):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return idlewise.read_trace(path, format=format)
        except IdlewiseError:
            return None


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), raw=st.binary(max_size=200), use_raw=st.booleans())
def test_any_input_gives_a_trace_or_an_idlewise_error(tmp_path, fmt, seed, raw, use_raw):
    data = raw if use_raw or fmt not in SEEDS else mutate(SEEDS[fmt], random.Random(seed))
    path = tmp_path / f"in.{fmt}"
    path.write_bytes(data)
    for format in (fmt, "auto"):
        trace = read_or_refuse(path, format)
        if trace is not None:
            assert len(trace) > 0 and trace.records_read >= len(trace)


def test_the_seeds_themselves_are_read(tmp_path):
    for fmt, text in SEEDS.items():
        path = tmp_path / f"seed.{fmt}"
        path.write_text(text)
        assert len(idlewise.read_trace(path, format=fmt)) >= 2, fmt
