"""The rules that turn a claim's numbers into its verdict (`tools/claims.py`): every verdict in
`docs/claims.md` is one of these functions of the numbers, never typed in, and
`tests/test_claims_rules.py` changes a number and sees each rule's verdict change, both ways.

A claim is judged on every workload it was run on: the docs' own and at least one no page used
before. *Reproduced*: it holds on every one. *Holds under stated conditions*: on some, not all (the
row's conditions say which, and why). *Not reproduced*: on none. A fitted row (a parameter chosen
to hit the number) is *fitted* when ours still matches (a regression guard, never evidence) and
*not reproduced* when it no longer does; an input taken from the seed is *input, restated* while
ours restates it.

What "holds" means depends on the kind of number the seed states:

- a **change or share** (a percentage): within :data:`POINTS` percentage points of the seed's; or,
  where the seed's is smaller than :data:`SMALL` in size, of the same sign and within a factor of
  :data:`RATIO` of it (10 points would call 1.9 % a reproduction of 5 %);
- a **quantity** (a time, an energy, a power): within :data:`RELATIVE` of the seed's, relatively;
- a **factor range** ("2–4×"): inside the range, widened by the factor :data:`RANGE_SLACK` at
  each end;
- a **bound** ("> 75 %", "< 100 MB"): on the stated side of it;
- a **direction** ("falls", "dearer and slower"): as the claim says it goes, each part of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

REPRODUCED = "reproduced"
CONDITIONS = "holds under stated conditions"
NOT = "not reproduced"
FITTED = "fitted"
RESTATED = "input, restated"
VERDICTS = (REPRODUCED, CONDITIONS, NOT, FITTED, RESTATED)

#: A change or share holds within this many percentage points of the seed's...
POINTS = 10.0
#: ...unless the seed's is smaller than this (as a fraction): then within a factor of RATIO.
SMALL = 0.20
RATIO = 1.5
#: A quantity holds within this fraction of the seed's.
RELATIVE = 0.10
#: A factor range holds widened by this factor at each end ("2–4×": 1.6–5×).
RANGE_SLACK = 1.25


@dataclass(frozen=True)
class Judged:
    """A verdict and the rule that gave it."""
    verdict: str
    rule: str

    def __post_init__(self) -> None:
        assert self.verdict in VERDICTS, self.verdict


def close_share(ours: float, seed: float) -> bool:
    """A change or share (fractions: −0.42 for −42 %) holds."""
    if abs(seed) >= SMALL:
        return abs(ours - seed) * 100 <= POINTS + 1e-9
    if seed == 0:
        return abs(ours) * 100 <= POINTS
    ratio = ours / seed
    return 1 / RATIO <= ratio <= RATIO


def near(ours: float, seed: float) -> bool:
    """A quantity holds."""
    return abs(ours - seed) <= RELATIVE * abs(seed) + 1e-12


def in_range(ours: float, low: float, high: float) -> bool:
    """A factor holds within the seed's range, widened."""
    return low / RANGE_SLACK <= ours <= high * RANGE_SLACK


def _pairs(ours: Sequence[float], seeds: Sequence[float]):
    ours, seeds = list(ours), list(seeds)
    assert len(ours) == len(seeds), (ours, seeds)
    return zip(ours, seeds)


def by_workloads(holds: Sequence[bool], rule: str) -> Judged:
    """The verdict from whether the claim holds on each workload it was run on."""
    holds = list(holds)
    assert holds, "a claim is judged on at least one workload"
    verdict = REPRODUCED if all(holds) else CONDITIONS if any(holds) else NOT
    return Judged(verdict, rule)


def shares(workloads: Iterable[Sequence[float]], seeds: Sequence[float]) -> Judged:
    """Changes or shares: each workload's numbers against the seed's, pairwise."""
    return by_workloads([all(close_share(o, s) for o, s in _pairs(w, seeds)) for w in workloads], "shares")


def quantities(workloads: Iterable[Sequence[float]], seeds: Sequence[float]) -> Judged:
    """Quantities: each workload's numbers against the seed's, pairwise."""
    return by_workloads([all(near(o, s) for o, s in _pairs(w, seeds)) for w in workloads], "quantities")


def factor_range(workloads: Iterable[Sequence[float]], low: float, high: float) -> Judged:
    """Factors: every number of a workload inside the seed's range, widened."""
    return by_workloads([all(in_range(o, low, high) for o in w) for w in workloads], "range")


def bound(workloads: Iterable[Sequence[float]], limit: float, above: bool) -> Judged:
    """Bounds: every number of a workload on the stated side of the limit."""
    return by_workloads([all((o > limit) if above else (o < limit) for o in w) for w in workloads], "bound")


def direction(workloads: Iterable[Sequence[bool]]) -> Judged:
    """Directions: every part of the claim goes the way it says, on a workload."""
    return by_workloads([all(w) for w in workloads], "direction")


def fitted(ours: Sequence[float], seeds: Sequence[float]) -> Judged:
    """A fitted number: ours still matches the seed's (a quantity's rule), or it no longer does."""
    return Judged(FITTED if all(near(o, s) for o, s in _pairs(ours, seeds)) else NOT, "fitted")


def restated(ours: Sequence[float], seeds: Sequence[float]) -> Judged:
    """An input taken from the seed (a device's parameters): ours restates it, to rounding
    (1e-9 relative), or it no longer does."""
    same = all(abs(o - s) <= 1e-9 * max(abs(s), 1e-300) for o, s in _pairs(ours, seeds))
    return Judged(RESTATED if same else NOT, "restated")


def finite(values: Iterable[float]) -> list[float]:
    return [v for v in values if math.isfinite(v)]


#: What each rule says, for the claims page.
RULES = {
    "shares": f"a change or share within {POINTS:.0f} percentage points of the seed's, or within a factor of {RATIO:g} "
              f"(the same sign) where the seed's is under {SMALL * 100:.0f} % in size",
    "quantities": f"a time, energy or power within {RELATIVE * 100:.0f} % of the seed's",
    "range": f"a factor inside the seed's range widened by ×{RANGE_SLACK:g} at each end",
    "bound": "on the stated side of the seed's bound",
    "direction": "every part of the claim goes the way it says",
    "fitted": f"a fitted number: *fitted* while ours is within {RELATIVE * 100:.0f} % of the seed's (a regression guard), "
              "else *not reproduced*",
    "restated": "an input from the seed: *input, restated* while ours equals it (to 1e-9), else *not reproduced*",
}

__all__ = ["CONDITIONS", "FITTED", "Judged", "NOT", "RESTATED", "POINTS", "RATIO", "RELATIVE", "RANGE_SLACK", "REPRODUCED", "RULES", "SMALL",
           "VERDICTS", "bound", "by_workloads", "close_share", "direction", "factor_range", "fitted", "in_range", "near", "quantities",
           "restated", "shares"]
