"""Workload transforms shown exactly on small inputs."""

import re

import numpy as np
import pytest

import idlewise
from idlewise import IdlewiseError
from idlewise.traces import apply_transform


def small():
    # time, offset
    return idlewise.Trace.from_arrays([0.0, 1.0, 2.5, 4.0, 4.2, 9.0], [10] * 6,
                                      offset_bytes=[50, 10, 40, 30, 20, 60], op=list("RWRWRR"))


def test_compress_by_time_anchors_groups_at_their_first_request():
    t = apply_transform(small(), "compress:3s")
    # Groups: [0, 1, 2.5] start 0; [4, 4.2] start 4 (>= 0+3); [9] start 9.
    assert list(t.time_s) == [0.0, 0.0, 0.0, 4.0, 4.0, 9.0]
    assert list(t.offset_bytes) == [50, 10, 40, 30, 20, 60]
    assert list(t.is_write) == [0, 1, 0, 1, 0, 0]


def test_compress_reorder_sorts_each_group_by_offset():
    t = apply_transform(small(), "compress-reorder:3s")
    assert list(t.time_s) == [0.0, 0.0, 0.0, 4.0, 4.0, 9.0]
    assert list(t.offset_bytes) == [10, 40, 50, 20, 30, 60]
    assert list(t.is_write) == [1, 0, 0, 0, 1, 0]


def test_count_based_compression():
    t = apply_transform(small(), "compress-reorder:4ops")
    assert list(t.time_s) == [0.0, 0.0, 0.0, 0.0, 4.2, 4.2]
    assert list(t.offset_bytes) == [10, 30, 40, 50, 20, 60]
    assert list(apply_transform(small(), "compress:2ops").time_s) == [0.0, 0.0, 2.5, 2.5, 4.2, 4.2]


def test_window_scale_stream_and_chains():
    assert list(apply_transform(small(), "window:1s..4.2s").time_s) == [1.0, 2.5, 4.0]
    assert list(apply_transform(small(), "scale:0.5").time_s) == [0.0, 0.5, 1.25, 2.0, 2.1, 4.5]
    chained = apply_transform(small(), "window:0s..5s+compress:2s")
    # window keeps 0..4.2; groups anchored at 0 ([0, 1]) and 2.5 ([2.5, 4.0, 4.2], all < 4.5).
    assert list(chained.time_s) == [0.0, 0.0, 2.5, 2.5, 2.5]
    multi = idlewise.Trace.from_arrays([0.0, 1.0, 2.0], [1, 1, 1], stream=[3, 5, 3])
    assert list(apply_transform(multi, "stream:3").time_s) == [0.0, 2.0]
    assert apply_transform(small(), "none") is not None


def test_compression_lengthens_idle_gaps_and_keeps_requests():
    rng = np.random.default_rng(4)
    times = np.cumsum(rng.exponential(1.0, 2000))
    trace = idlewise.Trace.from_arrays(times, np.full(2000, 4096), offset_bytes=rng.integers(0, 1 << 30, 2000))
    compressed = apply_transform(trace, "compress-reorder:64ops")
    assert len(compressed) == len(trace)
    assert sorted(compressed.offset_bytes) == sorted(trace.offset_bytes)
    r = idlewise.simulate(compressed, "hitachi-microdrive-1gb", "timeout:2s")[0]
    base = idlewise.simulate(trace, "hitachi-microdrive-1gb", "timeout:2s")[0]
    assert r["energy_j"] < base["energy_j"]


@pytest.mark.parametrize("spec, needle", [
    ("compress", "incomplete transform"), ("compress:2parsecs", "unknown time unit"), ("compress:0ops", "at least 1"),
    ("window:5s..1s", "ends before"), ("window:100s..200s", "no request"), ("scale:-1", "positive"),
    ("rotate:90", "unknown or incomplete"), ("stream:1", "single device"),
])
def test_bad_transforms(spec, needle):
    with pytest.raises(IdlewiseError, match=needle):
        apply_transform(small(), spec)


# --- a transform applied as the trace is read (issue 28) ------------------------------------------

from hypothesis import given, strategies as st

from properties import property_test

from idlewise.traces.transforms import TransformStream

CHAINS = ["compress:64ops", "compress-reorder:7ops", "compress:2s", "compress-reorder:0.5s", "compress:0s", "window:10s..2min",
          "scale:0.25", "window:5s..1h+compress-reorder:16ops", "compress:3ops+scale:2", "scale:3+compress:1s+window:0s..50s",
          "compress:1ops", "none"]


def _random_trace(rng, n):
    gaps = np.where(rng.random(n) < 0.7, rng.exponential(0.2, n), rng.exponential(20.0, n))
    gaps[rng.random(n) < 0.1] = 0.0  # requests at the same instant
    times = 1000.0 + np.cumsum(gaps)
    return idlewise.Trace.from_arrays(times, rng.integers(1, 64, n) * 512, offset_bytes=rng.integers(0, 1 << 30, n) // 512 * 512,
                                      is_write=rng.random(n) < 0.4, name="random")


@property_test(150)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 600), chain=st.sampled_from(CHAINS), cuts=st.lists(st.integers(0, 600), max_size=8))
def test_a_transform_applied_piece_by_piece_is_the_whole_transform(seed, n, chain, cuts):
    """Pieces cut anywhere (one record, empty, the whole) give out, in order, the records of the
    transform of the whole trace: times, original times, offsets, sizes, directions."""
    trace = _random_trace(np.random.default_rng(seed), n)
    try:
        whole = apply_transform(trace, chain)
    except IdlewiseError as e:
        with pytest.raises(IdlewiseError, match=re.escape(str(e).split(" (")[0])):
            _streamed(trace, chain, cuts)
        return
    streamed = _streamed(trace, chain, cuts)
    for column in ("time_s", "offset_bytes", "size_bytes", "is_write"):
        np.testing.assert_array_equal(getattr(streamed, column), getattr(whole, column), err_msg=column)
    if whole.original_time_s is None:
        assert streamed.original_time_s is None
    else:
        np.testing.assert_array_equal(streamed.original_time_s, whole.original_time_s)


def _streamed(trace, chain, cuts):
    from idlewise.traces.transforms import _concat

    stream = TransformStream(chain)
    bounds = sorted({0, len(trace), *(c for c in cuts if c <= len(trace))})
    out = None
    for a, b in zip(bounds, bounds[1:] + [len(trace)]):
        out = _concat(out, stream.push(trace.subset(slice(a, b))))
    out = _concat(out, stream.flush())
    return trace.subset(slice(0, 0)) if out is None else out


def test_a_chain_s_stream_k_is_taken_out_as_the_device_read():
    from idlewise.traces.transforms import split_selection

    # Every other transform works on each device apart, so the device is picked first, wherever
    # stream:K stands; two devices, or one by number beside --stream by name, are refused.
    assert split_selection("compress:2s+stream:1+window:0s..1h") == (1, "compress:2s+window:0s..1h")
    assert split_selection("stream:4") == (4, None) and split_selection("scale:2", 3) == (3, "scale:2")
    assert split_selection("stream:4", 4) == (4, None) and split_selection(None) == (None, None)
    with pytest.raises(IdlewiseError, match=r"'stream:1\+stream:2' picks devices 1, 2; a replay keeps one"):
        split_selection("stream:1+stream:2")
    with pytest.raises(IdlewiseError, match="with --stream 2 picks devices 1, 2"):
        split_selection("stream:1", 2)
    with pytest.raises(IdlewiseError, match="--stream sda by name; give one"):
        split_selection("stream:1", "sda")
    with pytest.raises(IdlewiseError, match="take it out of the chain first"):
        TransformStream("compress:2s+stream:1")
