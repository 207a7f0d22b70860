"""Experiments that reproduce the seeds, one module per seed; each only orchestrates engine runs.

``EXPERIMENTS`` maps a name (as ``idlewise experiment NAME`` takes it) to a function of a list of
workload paths (unused by experiments that need none) and an optional plot path, returning rows.
"""

from . import seed000, seed002

EXPERIMENTS = {**seed000.EXPERIMENTS, **seed002.EXPERIMENTS}
#: Experiments that take no workload.
NO_WORKLOAD = frozenset(seed002.EXPERIMENTS)

__all__ = ["EXPERIMENTS", "NO_WORKLOAD", "seed000", "seed002"]
