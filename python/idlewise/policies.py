"""Policy specs as users write them: one range per spec, ``START..STOP/STEP`` with units where
the parameter has them (``timeout:0s..60s/2s`` gives 31 specs, ``stpm:knob=0..100/10`` 11).
Accepted wherever a policy is given: ``simulate``, ``sweep``, the Python API."""

from __future__ import annotations

import functools
import math
import re

from ._core import parse_duration_s
from .errors import IdlewiseError

# A number matches one way only (digits, then an optional fraction) and a range starts where a
# number does: the ambiguous ``[0-9]*\.?[0-9]+`` backtracked for minutes on a long run of digits.
_NUMBER = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_RANGE = re.compile(rf"(?<![0-9.])(?P<a>{_NUMBER})(?P<ua>[a-z]*)\.\.(?P<b>{_NUMBER})(?P<ub>[a-z]*)/(?P<s>{_NUMBER})(?P<us>[a-z]*)")


def _fmt(v: float) -> str:
    text = f"{v:.9f}".rstrip("0").rstrip(".")
    return text or "0"


def expand_spec(spec: str) -> list[str]:
    """Expands a ``START..STOP/STEP`` range in a policy spec into one spec per value."""
    matches = list(_RANGE.finditer(spec))
    if not matches:
        return [spec]
    if len(matches) > 1:
        raise IdlewiseError(f"policy '{spec}': only one range per spec is supported; give several --policy values")
    m = matches[0]
    units = {m.group("ua"), m.group("ub"), m.group("us")} - {""}
    try:
        if units:
            a, b, step = (parse_duration_s(m.group(k) + (m.group(u) or m.group("us") or m.group("ub") or m.group("ua")))
                          for k, u in (("a", "ua"), ("b", "ub"), ("s", "us")))
            suffix = "s"
        else:
            a, b, step = float(m.group("a")), float(m.group("b")), float(m.group("s"))
            suffix = ""
    except ValueError as e:
        raise IdlewiseError(f"policy '{spec}': {e}") from None
    if not all(math.isfinite(v) for v in (a, b, step)):
        raise IdlewiseError(f"policy '{spec}': a range's START, STOP and STEP must be finite numbers")
    if step <= 0 or b < a:
        raise IdlewiseError(f"policy '{spec}': a range needs START <= STOP and a positive STEP")
    count = int(math.floor((b - a) / step + 1e-9)) + 1
    if count > 100_000:
        raise IdlewiseError(f"policy '{spec}': the range expands to {count:,} specs; use a coarser step")
    return [spec[: m.start()] + _fmt(round(a + i * step, 9)) + suffix + spec[m.end():] for i in range(count)]


@functools.lru_cache(maxsize=4096)
def _engine_columns(label: str) -> tuple:
    from . import _core

    return _core.policy_columns(label)


def policy_columns(spec: str) -> dict:
    """The columns a result row gets from its (canonical) policy label, as the engine reads it
    (``idlewise_core::policy::PolicyColumns``, the one home of that reading): ``family``, a
    numeric ``timeout_s`` for a single-timeout policy, ``knob``, and ``param.<name>`` for every
    named parameter (numbers where they are numbers). A sweep's rows share a few labels: each
    is read once."""
    family, timeout_s, knob, params = _engine_columns(str(spec))
    columns = {"family": family, "timeout_s": timeout_s, "knob": knob}
    columns.update((f"param.{name}", value) for name, value in params)
    return columns


def family_of(row) -> str:
    """A row's policy family: its ``family`` column where it has one, else its label's."""
    family = row.get("family") if hasattr(row, "get") else None
    if isinstance(family, str) and family:
        return family
    return policy_columns(str(row["policy"]))["family"]


@functools.lru_cache(maxsize=None)
def _run_by_the_drive() -> frozenset:
    from . import _core

    return frozenset(f["name"] for f in _core.policy_families() if f["run_by_the_drive"])


def run_by_the_drive(label: str) -> bool:
    """Whether the drive itself runs a policy once it is set up (ATA EPC's timers, NVMe APST),
    as the engine's family table says: a live manager then issues no command of its own."""
    return policy_columns(str(label))["family"] in _run_by_the_drive()


def expand_specs(specs) -> list[str]:
    """Every spec of a list, ranges expanded, in order."""
    return [one for spec in specs for one in expand_spec(spec)]


__all__ = ["expand_spec", "expand_specs", "family_of", "policy_columns"]
