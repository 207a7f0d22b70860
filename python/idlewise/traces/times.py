"""Times given as dates or durations — NumPy ``datetime64``/``timedelta64``, which pandas' and
polars' time columns and Arrow's ``timestamp``/``duration`` columns become — as the seconds a
trace holds.

A duration is already time from an origin: its ticks times the tick. Dates are made relative to
an origin (the earliest) in exact integer ticks before scaling, as the readers of FILETIME and
microsecond formats do (`relative_times` in the engine's readers): a date of 2024 held as
seconds since 1970 would keep only 0.24 µs of a request's timing, a nanosecond one none. The
origin is kept as the trace's ``start_unix_s``, so what is said by the clock (a recording's
busiest hour) is said in UTC."""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..errors import TraceError

#: Seconds in a tick of each unit a date or duration may be given in (coarser ones, as
#: ``datetime64[D]``, are first made seconds, exactly).
TICK_S = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}

#: The longest span of ticks kept exact: past it a difference of two int64 ticks could overflow.
_MAX_TICKS = 1 << 62


def dates_or_durations(values) -> Optional[np.ndarray]:
    """``values`` as NumPy ``datetime64``/``timedelta64`` where they hold dates or durations (a
    pandas column with a time zone: its dates in UTC, which NumPy would hold as objects), else
    None."""
    dtype = getattr(values, "dtype", None)
    if getattr(dtype, "tz", None) is not None and hasattr(values, "to_numpy"):
        return values.to_numpy(dtype=f"datetime64[{getattr(dtype, 'unit', 'ns')}]")
    array = np.asarray(values)
    return array if array.dtype.kind in "mM" else None


def seconds_of(values: np.ndarray, origin: str | int = "earliest", *, where: str = "", field: str = "time_s",
               first_record: int = 0) -> tuple[np.ndarray, Optional[float], Optional[int]]:
    """``values`` (``datetime64`` or ``timedelta64``) as float64 seconds.

    Parameters
    ----------
    values : numpy.ndarray
        Dates or durations; a missing one (NaT) is refused, naming its record.
    origin : "earliest" or int
        Dates only: the tick made time 0 — the earliest date, or one given (a streamed file's
        earliest, read before its batches).
    where, first_record : str, int
        What an error names (the file), and the number of the first of ``values``' records.

    Returns
    -------
    (seconds, start_unix_s, origin_ticks)
        For dates, the Unix time of time 0 and the origin's ticks; for durations, None and None.
    """
    array = np.asarray(values)
    unit, count = np.datetime_data(array.dtype)
    if unit not in TICK_S:
        if unit not in ("W", "D", "h", "m"):
            raise TraceError(f"{where}column '{field}' holds times in {unit} ticks; give seconds, or dates or durations "
                             f"in s, ms, us or ns")
        array = array.astype(f"{'datetime64' if array.dtype.kind == 'M' else 'timedelta64'}[s]")
        unit, count = "s", 1
    missing = np.isnat(array)
    if missing.any():
        i = int(np.argmax(missing))
        raise TraceError(f"{where}record {first_record + i}, field '{field}': a missing time (NaT); every record needs one")
    ticks = array.view(np.int64)
    tick_s = TICK_S[unit] * count
    if array.dtype.kind == "m":
        return ticks.astype(np.float64) * tick_s, None, None
    if not len(ticks):
        return np.zeros(0), None, None
    start = int(ticks.min()) if origin == "earliest" else int(origin)
    if int(ticks.max()) - start > _MAX_TICKS or start - int(ticks.min()) > _MAX_TICKS:
        raise TraceError(f"{where}column '{field}': its dates lie more than 2^62 ticks of {unit} apart, too far to "
                         "subtract exactly (a trace's times lie within 272 years)")
    return (ticks - np.int64(start)).astype(np.float64) * tick_s, start * tick_s, start
