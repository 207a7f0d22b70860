"""A row's policy columns are read by the engine (issue 63: a policy spec parsed once, in the
engine): a differential test against the Python reader it replaced, kept here as the reference,
over every label the engine gives for every family on every kind of device, and over drawn
labels; every row the same, bit for bit."""

import math

import pytest
from hypothesis import given, strategies as st

import idlewise
from idlewise import _core
from idlewise.policies import family_of, policy_columns

from conftest import trace_of
from properties import property_test


def _reference_number(text: str):
    """The Python reader's value of a parameter (before issue 63), as the reference."""
    try:
        return float(text)
    except ValueError:
        pass
    if text.endswith("W"):
        try:
            return float(text[:-1])
        except ValueError:
            return text
    try:
        return _core.parse_duration_s(text)
    except (ValueError, idlewise.IdlewiseError):
        return text


def reference_columns(spec: str) -> dict:
    family, _, rest = spec.partition(":")
    columns = {"family": family, "timeout_s": None, "knob": None}
    for item in filter(None, rest.split(",")):
        name, eq, value = item.partition("=")
        if not eq:
            number = _reference_number(name)
            if family in ("timeout", "hd-idle") and isinstance(number, float):
                columns["timeout_s"] = number
            continue
        number = _reference_number(value)
        columns[f"param.{name}"] = number
        if name == "knob":
            columns["knob"] = number
    return columns


def same(a: dict, b: dict) -> bool:
    """Equal keys in equal order, equal values (NaN equal to NaN, types kept)."""
    if list(a) != list(b):
        return False
    for key in a:
        x, y = a[key], b[key]
        if type(x) is not type(y):
            return False
        if isinstance(x, float) and not (x == y or (math.isnan(x) and math.isnan(y))):
            return False
        if not isinstance(x, float) and x != y:
            return False
    return True


SPECS = ["always-on", "timeout:2s", "timeout:low-power-idle=0.5s,standby=10min", "hd-idle:60s", "hd-idle:60s,interval=6s",
         "epc", "epc:standby_z=off", "apst", "apst:ps_max_latency_us=10000", "breakeven", "randomized:seed=7",
         "stpm:knob=50", "stpm:knob=95,base=1.44W", "experts", "experts:n=10,eta=2", "predictive", "predictive:a=0.3",
         "psm", "oracle"]
DEVICES = ["hitachi-travelstar-5k320", "hitachi-microdrive-1gb", "samsung-pm981-1tb", "seagate-constellation-es1-500gb",
           "cisco-350", "cmu-mems-g2"]


@pytest.mark.parametrize("device", DEVICES)
def test_every_label_the_engine_gives_reads_as_before(device):
    trace = trace_of([0.0, 0.5, 40.0, 41.0, 400.0, 4000.0])
    labels = set()
    for spec in SPECS:
        try:
            results = idlewise.simulate(trace, device, [spec], progress=False)
        except idlewise.IdlewiseError:  # a policy this device cannot run (apst on a disk, psm on a disk)
            continue
        labels |= {r["policy"] for r in results} | {spec}
    assert len(labels) >= 8
    for label in labels:
        assert same(policy_columns(label), reference_columns(label)), label


_WORDS = st.sampled_from(["timeout", "hd-idle", "stpm", "epc", "x", "python", "knob", "a", "base", "", "2s", "1.44W",
                          "1_000", "inf", "-nan", "1e-3", "off", "10min", "0.5 s", " 5 ", "W", "1__0", "_1", "5.", ".5"])
_LABELS = st.lists(st.one_of(_WORDS, st.text(alphabet="0123456789._eEWsmhin:=,- +", max_size=8)), min_size=1,
                   max_size=8).map(lambda parts: "".join(p + sep for p, sep in zip(parts, [":", "=", ",", "=", ",", "", ":", ","])))


@property_test(400)
@given(label=_LABELS)
def test_any_label_reads_as_the_python_reader_read_it(label):
    assert same(policy_columns(label), reference_columns(label)), label


def test_a_row_s_family_is_its_column_else_its_label_s():
    assert family_of({"policy": "stpm:knob=50"}) == "stpm"
    assert family_of({"policy": "x", "family": "mine"}) == "mine"
    assert family_of({"policy": "timeout:2s", "family": None}) == "timeout"


def test_the_families_the_drive_runs_itself_are_the_engine_s_to_say():
    """The live manager issues no command for the model's changes under a policy the drive runs
    itself: which those are is the engine's family table's to say, not a list of the manager's."""
    from idlewise import _core
    from idlewise.policies import run_by_the_drive

    assert {f["name"] for f in _core.policy_families() if f["run_by_the_drive"]} == {"epc", "apst"}
    assert run_by_the_drive("epc") and run_by_the_drive("epc:idle_b=10min,standby_z=off") and run_by_the_drive("apst")
    assert not any(run_by_the_drive(p) for p in ("timeout:2s", "hd-idle:60s", "oracle", "stpm:knob=50", "always-on"))
