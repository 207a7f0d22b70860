"""A policy spec's range (``START..STOP/STEP``) is expanded by the engine (issue 63: ranges expand
in one place, the engine's ``policy::expand_range``): a differential test against the Python
expansion it replaced, kept here as the reference, over drawn specs (numbers whole and
fractional, with and without units on each part, points that belong to a number or to the
``..``, text before and after, several ranges, ranges too long or backwards): the same specs, or
a refusal where the reference refused."""

import math
import re

import pytest
from hypothesis import given, strategies as st

from idlewise import IdlewiseError, _core
from idlewise.policies import expand_spec
from idlewise.sweeps import expand_spec as sweeps_expand_spec

from properties import property_test

_NUMBER = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_RANGE = re.compile(rf"(?<![0-9.])(?P<a>{_NUMBER})(?P<ua>[a-z]*)\.\.(?P<b>{_NUMBER})(?P<ub>[a-z]*)/(?P<s>{_NUMBER})(?P<us>[a-z]*)")


def _reference_fmt(v: float) -> str:
    text = f"{v:.9f}".rstrip("0").rstrip(".")
    return text or "0"


def _reference_expand(spec: str) -> list[str]:
    """The Python expansion before issue 63 moved it into the engine; None where it refused."""
    matches = list(_RANGE.finditer(spec))
    if not matches:
        return [spec]
    if len(matches) > 1:
        return None
    m = matches[0]
    units = {m.group("ua"), m.group("ub"), m.group("us")} - {""}
    try:
        if units:
            a, b, step = (_core.parse_duration_s(m.group(k) + (m.group(u) or m.group("us") or m.group("ub") or m.group("ua")))
                          for k, u in (("a", "ua"), ("b", "ub"), ("s", "us")))
            suffix = "s"
        else:
            a, b, step = float(m.group("a")), float(m.group("b")), float(m.group("s"))
            suffix = ""
    except (ValueError, IdlewiseError):
        return None
    if not all(math.isfinite(v) for v in (a, b, step)):
        return None
    if step <= 0 or b < a:
        return None
    count = int(math.floor((b - a) / step + 1e-9)) + 1
    if count > 100_000:
        return None
    return [spec[: m.start()] + _reference_fmt(round(a + i * step, 9)) + suffix + spec[m.end():] for i in range(count)]


def _same_as_reference(spec: str) -> None:
    expected = _reference_expand(spec)
    if expected is None:
        with pytest.raises(IdlewiseError, match=re.escape(f"policy '{spec}': ")):
            expand_spec(spec)
    else:
        assert expand_spec(spec) == expected, spec


_numbers = st.one_of(st.integers(0, 400).map(str), st.sampled_from(["0", ".5", "0.5", "1.", "2.25", "10", "0.125", "7.0", "0.0001", "9" * 30]),
                     st.builds(lambda w, f: f"{w}.{f}", st.integers(0, 99), st.integers(0, 999)))
_units = st.sampled_from(["", "", "s", "ms", "min", "h", "us", "x"])
_texts = st.sampled_from(["", "timeout:", "stpm:knob=", "timeout:standby=", "randomized:seed=", "a1", "1", "1.", ".", ":", "/"])


@st.composite
def _specs(draw):
    parts = [draw(_texts)]
    for _ in range(draw(st.sampled_from([1, 1, 1, 2]))):
        start = draw(_numbers)
        # Mostly a stop past the start by a few steps (a range that expands), else any.
        stop = draw(st.one_of(st.builds(lambda n, f: f"{float(start) + n + f:g}", st.integers(0, 30), st.sampled_from([0, 0.5, 0.25])),
                              _numbers)) if start != "9" * 30 else draw(_numbers)
        unit = draw(_units)
        parts.append(f"{start}{draw(st.sampled_from([unit, unit, '']))}{draw(st.sampled_from(['..', '..', '..', '...', '.']))}"
                     f"{stop}{draw(st.sampled_from([unit, unit, '']))}{draw(st.sampled_from(['/', '/', '/', '']))}"
                     f"{draw(st.one_of(st.sampled_from(['1', '0.5', '2', '.25', '3', '0', '0.1']), _numbers))}{draw(st.sampled_from([unit, unit, '']))}")
        parts.append(draw(_texts))
    return "".join(parts)


@property_test(800)
@given(_specs())
def test_the_engine_expands_every_drawn_spec_as_the_python_reference_did(spec):
    _same_as_reference(spec)


@pytest.mark.parametrize("spec", [
    "timeout:0s..6s/2s", "stpm:knob=0..100/25", "timeout:standby=500ms..1.5s/500ms", "timeout:0..1min/30s",
    "timeout:0s..60s/0.6s", "timeout:.5s..1.5s/.5s", "stpm:knob=1...3/1", "timeout:1.5..2.5/0.5s,standby=3s",
    "timeout:1s..99s/1s", "breakeven", "timeout:5s..1s/1s", "timeout:0s..1000s/1ms", "timeout:0s..1s/1s,standby=0s..1s/1s",
    "stpm:knob=0.." + "9" * 400 + "/1", "timeout:0parsecs..2parsecs/1parsecs", "timeout:1..2/0", "x1..2/1", "1..2/1.5..3/1",
])
def test_the_engine_expands_known_specs_as_the_python_reference_did(spec):
    _same_as_reference(spec)


def test_one_expansion_serves_the_api_and_the_sweeps():
    assert sweeps_expand_spec is expand_spec
    assert expand_spec("timeout:1s..3s/1s") == _core.expand_policy_range("timeout:1s..3s/1s") == ["timeout:1s", "timeout:2s", "timeout:3s"]
