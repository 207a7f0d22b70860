"""Traces: the column container the engine replays, readers for the formats the field publishes,
workload transforms and idle-period statistics.

Readers live apart from simulation: each turns a file into a :class:`Trace` of columns
(``time_s``, ``offset_bytes``, ``size_bytes``, ``is_write``, and ``stream`` for multi-device
traces) and says what it read and skipped.
"""

from .formats import FORMATS

# Everything else loads on first use (PEP 562), so importing the package costs no NumPy or Arrow.
_LAZY = {
    "READERS": ".readers", "detect_format": ".detect", "read_csv": ".readers", "read_parquet": ".readers",
    "read_srt": ".readers", "read_trace": ".readers", "write_parquet": ".readers",
    "Trace": ".trace", "TraceWarning": ".trace", "apply_transform": ".transforms", "split_selection": ".transforms",
}

__all__ = ["FORMATS", *_LAZY]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
