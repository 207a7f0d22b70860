"""The optional parts of idlewise and what they need beyond the light core (numpy and rich):
``pip install 'idlewise[parquet]'`` for Arrow input and output, ``[report]`` for the HTML report
and the plots, ``[dask]`` for a cluster, ``[all]`` for everything. One home for the check: a
command or a function that needs an extra asks here before it does any work, and a missing one
is an error that says what to install."""

from __future__ import annotations

import importlib.util

from .errors import IdlewiseError

#: Each extra's modules (the distributions pyproject.toml's extras install).
EXTRAS = {
    "parquet": ("pyarrow",),
    "report": ("pyarrow", "matplotlib", "jinja2", "pandas"),
    "dask": ("dask", "distributed", "pyarrow"),
}


def missing(extra: str) -> list:
    """The modules of ``extra`` this Python cannot import."""
    return [m for m in EXTRAS[extra] if not _found(m)]


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses it, a half-installed package
        return False


def need(extra: str, what: str) -> None:
    """Refuses ``what`` (a command, an option, a file) unless ``extra`` is installed."""
    absent = missing(extra)
    if absent:
        raise IdlewiseError(f"{what} needs idlewise's '{extra}' extra ({', '.join(absent)} not installed): "
                            f"pip install 'idlewise[{extra}]'")


__all__ = ["EXTRAS", "missing", "need"]
