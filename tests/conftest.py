from pathlib import Path

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


# Real traces bundled with the repository (tests/data, with licences) and the package (hplajw).
TRACES = Path(__file__).resolve().parent / "data"
SRT = str(Path(idlewise.__file__).resolve().parent / "data" / "hplajw" / "ajw.1week.srt")
SPC_ASCII = str(TRACES / "spc" / "financial1-prefix.ascii")
DISKSIM = str(TRACES / "disksim" / "ascii.trace")
NASA = str(TRACES / "web" / "nasa_19950801.tsv")
