import numpy as np
import pytest

import idlewise


@pytest.fixture
def microdrive():
    return idlewise.load_device("hitachi-microdrive-1gb")


def trace_of(times, sizes=None, ops=None, offsets=None):
    times = np.asarray(times, dtype=float)
    sizes = np.full(len(times), 4096) if sizes is None else sizes
    return idlewise.Trace.from_arrays(times, sizes, op=ops, offset_bytes=offsets)
