"""Experiments that reproduce the seeds, one module per seed; each only orchestrates engine runs.

``EXPERIMENTS`` maps a name (as ``idlewise experiment NAME`` takes it) to a function of a list of
workload paths (unused by experiments that need none) and an optional plot path, returning rows.
"""

from . import seed000, seed001, seed002, seed003, seed004

EXPERIMENTS = {**seed000.EXPERIMENTS, **seed001.EXPERIMENTS, **seed002.EXPERIMENTS, **seed003.EXPERIMENTS, **seed004.EXPERIMENTS}
#: Experiments that take no workload.
NO_WORKLOAD = frozenset(seed001.EXPERIMENTS) | frozenset(seed002.EXPERIMENTS) | frozenset(seed003.EXPERIMENTS) | {"mems-shutdown", "mems-optimum", "ghost-hint-conditions"}
#: Experiments that replay trace files given as arguments, with the trace options and a device.
TRACE_EXPERIMENTS = frozenset({"mems-timeout"})
#: Experiments that take --device.
DEVICE_EXPERIMENTS = frozenset(seed004.EXPERIMENTS)

__all__ = ["DEVICE_EXPERIMENTS", "EXPERIMENTS", "NO_WORKLOAD", "TRACE_EXPERIMENTS", "seed000", "seed001", "seed002", "seed003", "seed004"]
