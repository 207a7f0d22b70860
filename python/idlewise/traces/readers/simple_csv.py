"""The project's simple CSV format: a header ``time_s,offset_bytes,size_bytes,op`` (any column
order) and one request per line, ``op`` being ``R`` or ``W`` (either case). Parsed by the engine
(``readers/csv.rs``): errors name the line and field."""

from __future__ import annotations

import os

from ..trace import Trace
from ._text import read_text_trace

COLUMNS = ("time_s", "offset_bytes", "size_bytes", "op")


def read_csv(path: str | os.PathLike, *, sort: bool = False, name: str | None = None) -> Trace:
    """Reads a simple-CSV trace (``time_s,offset_bytes,size_bytes,op``).

    Parameters
    ----------
    path : str or os.PathLike
    sort : bool, default False
        Sort by time; otherwise times out of order are an error.
    name : str, optional
        The trace's name (default: the file's).

    Returns
    -------
    Trace

    Raises
    ------
    TraceError
        Naming the file, line and field of the first malformed record.
    """
    return read_text_trace(path, "csv", sort=sort, name=name)


__all__ = ["read_csv", "COLUMNS"]
