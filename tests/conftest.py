import os
import signal
from pathlib import Path

import numpy as np
import pytest

import idlewise
import properties

# Every test sees one width whatever the terminal it runs in (COLUMNS=80 in a narrow one), wide
# enough that no message wraps however long the temporary directory's path (a message naming a
# file under a deep TMPDIR ran past 200 columns and wrapped mid-sentence): screens are checked
# at the widths their tests name (tests/test_screens.py at 80 and 200, tests/test_face.py,
# tests/test_nothing_misleads.py), not at the runner's. Subprocesses inherit it.
os.environ["COLUMNS"] = "1000"
os.environ.pop("LINES", None)


@pytest.fixture
def microdrive():
    return idlewise.load_device("hitachi-microdrive-1gb")


# A disk whose energies are easy to add up: 10 W ready (and serving), 1 W standby; stopping takes
# 1 s and 10 J, starting 10 s and 100 J; rated for 3,650 start/stop cycles.
TOY_DISK = """
name = "toy-disk"
kind = "disk"
[[modes]]
name = "ready"
power_w = 10.0
serves = true
[[modes]]
name = "standby"
power_w = 1.0
[[transitions]]
from = "ready"
to = "standby"
time_s = 1
energy_j = 10
[[transitions]]
from = "standby"
to = "ready"
time_s = 10
energy_j = 100
[service]
overhead_s = 0.0
read_bandwidth_bytes_per_s = 1e12
write_bandwidth_bytes_per_s = 1e12
active_power_w = 10.0
[limits]
start_stop_cycles = 3650
"""


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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if call.when == "call" and outcome.get_result().passed:
        properties.tally(item)


# A suite started as a background job of a script (`pytest &`, nohup) inherits SIGINT ignored,
# and Python then installs no KeyboardInterrupt handler: the Ctrl-C tests' simulated interrupt
# did nothing ("DID NOT RAISE"). The suite runs with Ctrl-C handled, however it was started.
if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL):
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: The signals whose handlers a test must leave as it found them: a handler one test leaves
#: (the command line's SIGTERM, once) decides how later tests' signals end.
_GUARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE")


@pytest.fixture(autouse=True)
def _signal_handlers_left_as_found():
    guarded = [getattr(signal, name) for name in _GUARDED_SIGNALS]
    before = {s: signal.getsignal(s) for s in guarded}
    yield
    changed = [s for s in guarded if signal.getsignal(s) is not before[s]]
    for s in changed:
        signal.signal(s, before[s])
    if changed:
        pytest.fail("the test left the handlers of " + ", ".join(signal.Signals(s).name for s in changed)
                    + " changed (restored now)", pytrace=False)
