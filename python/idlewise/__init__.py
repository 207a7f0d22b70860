"""idlewise: how much energy would this device have used on this workload under that power
policy, what would it have cost in response time and wear, and how close is that to the best
possible?

Quick start::

    import idlewise
    trace = idlewise.read_trace("trace.csv")            # or Trace.from_arrays(...)
    results = idlewise.simulate(trace, "hitachi-microdrive-1gb", ["timeout:2s", "breakeven"])
    results.to_pandas()
"""

from ._core import policy_families
from .devices import Device, catalog_names, load_device
from .errors import IdlewiseError, TraceError
from .hybrid import hybrid, hybrid_file, hybrid_names, load_hybrid
from .results import Results
from .simulate import simulate, simulate_file

# Traces load NumPy and Arrow: on first use (PEP 562), so `import idlewise` and the command line
# start fast.
_LAZY = {"Policy": ".policy", "PolicyError": ".policy", "Trace": ".traces", "read_csv": ".traces", "read_srt": ".traces", "read_trace": ".traces",
         "write_parquet": ".traces", "sweep": ".sweeps", "TraceSource": ".sweeps", "advise": ".advisor",
         "report": ".reporting", "report_from_rows": ".reporting"}


def __getattr__(name: str):
    if name == "__version__":
        # One home for the version: the workspace's Cargo.toml, compiled into the engine (and
        # read from there by maturin for the package's metadata).
        from ._core import __version__

        return __version__
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

def __dir__() -> list:
    # What a notebook's completion and dir() offer: the lazy names too.
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Device", "IdlewiseError", "Policy", "PolicyError", "Results", "Trace", "TraceError", "TraceSource", "advise", "catalog_names", "hybrid", "hybrid_file",
    "hybrid_names", "load_device", "load_hybrid", "policy_families", "read_csv", "read_srt", "read_trace", "report",
    "report_from_rows", "simulate", "simulate_file", "sweep", "write_parquet",
]
