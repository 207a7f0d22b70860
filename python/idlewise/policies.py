"""Policy specs as users write them: one range per spec, ``START..STOP/STEP`` with units where
the parameter has them (``timeout:0s..60s/2s`` gives 31 specs, ``stpm:knob=0..100/10`` 11).
Accepted wherever a policy is given: ``simulate``, ``sweep``, the Python API. The engine reads
specs, ranges included (``idlewise_core::policy``); this module keeps no syntax of its own."""

from __future__ import annotations

import functools


def expand_spec(spec: str) -> list[str]:
    """Expands a ``START..STOP/STEP`` range in a policy spec into one spec per value (a spec
    without one is itself); a bad range raises :class:`idlewise.IdlewiseError` saying why."""
    from . import _core

    return _core.expand_policy_range(spec)


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
