"""Workload transforms (seed 001 §3.2 and simple selections), written as spec strings:

- ``compress:N`` — group requests into consecutive intervals of N seconds, each anchored at its
  first request (a group holds every request that arrives less than N after it); every request of
  a group is issued at the time of the group's first request ("Compression N": successful
  predictive read-ahead). ``compress:Nops`` groups N consecutive operations instead (the seed's
  "64-operation compression"). Each request keeps its original time (``original_time_s``), so
  responses can be measured from when the data was wanted (``response_from="original"``).
- ``compress-reorder:N`` / ``compress-reorder:Nops`` — the same, with each group sorted by block
  offset (stable), as if the data had been laid out to reduce arm movement
  ("Compression/Reordering N").
- ``window:A..B`` — keep requests with ``A <= time - first_time < B`` (durations with units).
- ``scale:F`` — multiply every time offset from the first request by F (F < 1 speeds up).
- ``stream:K`` — keep one device of a multi-device trace.
- ``none`` — the trace unchanged.

Chain several with ``+``: ``window:0s..1h+compress-reorder:64ops``.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from ..errors import IdlewiseError
from .._core import parse_duration_s
from .trace import Trace

KINDS = ("none", "compress", "compress-reorder", "window", "scale", "stream")


def _group_starts_by_time(t: np.ndarray, interval_s: float) -> np.ndarray:
    """Indices of the first request of each group, groups anchored at their first request."""
    starts = []
    i, n = 0, len(t)
    while i < n:
        starts.append(i)
        i = int(np.searchsorted(t, t[i] + interval_s, side="left")) if interval_s > 0 else i + 1
        # A zero-length interval still holds requests at the same instant.
        if interval_s == 0:
            while i < n and t[i] == t[starts[-1]]:
                i += 1
    return np.asarray(starts, dtype=np.int64)


def _compress(trace: Trace, amount: str, reorder: bool, spec: str) -> Trace:
    m = re.fullmatch(r"\s*(\d+)\s*ops\s*", amount)
    n = len(trace)
    if m:
        count = int(m.group(1))
        if count < 1:
            raise IdlewiseError(f"transform '{spec}': the group size must be at least 1 operation")
        starts = np.arange(0, n, count, dtype=np.int64)
    else:
        try:
            interval_s = parse_duration_s(amount)
        except ValueError as e:
            raise IdlewiseError(f"transform '{spec}': {e}; or a count of operations such as '64ops'") from None
        starts = _group_starts_by_time(trace.time_s, interval_s)
    group = np.zeros(n, dtype=np.int64)
    group[starts[1:]] = 1
    group = np.cumsum(group)
    times = trace.time_s[starts][group]
    # Each request keeps the time it was wanted, for responses measured from it (prefetching).
    wanted = trace.time_s if trace.original_time_s is None else trace.original_time_s
    order = np.lexsort((trace.offset_bytes, group)) if reorder else np.arange(n)
    out = trace.subset(order)
    return replace(out, time_s=times[order], original_time_s=wanted[order])


def _window(trace: Trace, arg: str, spec: str) -> Trace:
    try:
        start_text, end_text = arg.split("..")
        start, end = parse_duration_s(start_text), parse_duration_s(end_text)
    except ValueError as e:
        raise IdlewiseError(f"transform '{spec}': expected window:START..END with units, e.g. window:0s..1h ({e})") from None
    if end <= start:
        raise IdlewiseError(f"transform '{spec}': the window ends before it starts")
    offset = trace.time_s - trace.time_s[0]
    kept = trace.subset((offset >= start) & (offset < end))
    if not len(kept):
        raise IdlewiseError(f"transform '{spec}': no request falls in the window (the trace spans {trace.span_s:.1f} s)")
    return kept


def _scale(trace: Trace, arg: str, spec: str) -> Trace:
    try:
        factor = float(arg)
    except ValueError:
        raise IdlewiseError(f"transform '{spec}': expected scale:FACTOR, a positive number") from None
    if not (factor > 0 and np.isfinite(factor)):
        raise IdlewiseError(f"transform '{spec}': the factor must be positive and finite")
    def scaled(t):
        return None if t is None else trace.time_s[0] + (t - trace.time_s[0]) * factor
    return replace(trace, time_s=scaled(trace.time_s), original_time_s=scaled(trace.original_time_s))


def apply_transform(trace: Trace, spec: str) -> Trace:
    """Applies a transform spec (or a ``+`` chain of them) and returns a new trace."""
    spec = spec.strip()
    out = trace
    for part in spec.split("+"):
        part = part.strip()
        kind, _, arg = part.partition(":")
        if kind == "none" and not arg:
            continue
        if kind in ("compress", "compress-reorder") and arg:
            out = _compress(out, arg, kind == "compress-reorder", part)
        elif kind == "window" and arg:
            out = _window(out, arg, part)
        elif kind == "scale" and arg:
            out = _scale(out, arg, part)
        elif kind == "stream" and arg:
            if not re.fullmatch(r"\s*-?\d+\s*", arg):
                raise IdlewiseError(f"transform '{part}': expected stream:K with an integer K")
            out = out.select_stream(int(arg))
        else:
            raise IdlewiseError(f"unknown or incomplete transform '{part}'; expected one of compress:N, compress:Nops, "
                                "compress-reorder:N, compress-reorder:Nops, window:A..B, scale:F, stream:K, none")
    if out is not trace:
        out = replace(out, name=f"{trace.name} [{spec}]", lines=None)
        out.validate()
    return out


__all__ = ["apply_transform", "KINDS"]
