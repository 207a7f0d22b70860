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
- ``stream:K`` — keep one device of a multi-device trace. Every other transform works on each
  device's requests apart, so the device a chain keeps is picked first wherever ``stream:K``
  stands in it (:func:`split_selection`): a file is then read keeping that device, as
  ``--stream K`` does.
- ``none`` — the trace unchanged.

Chain several with ``+``: ``window:0s..1h+compress-reorder:64ops``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import replace
from typing import Optional

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


def _concat(a: Optional[Trace], b: Optional[Trace]) -> Optional[Trace]:
    """Records of ``a`` then ``b`` (either may be None or empty)."""
    if a is None or not len(a):
        return b
    if b is None or not len(b):
        return a

    def joined(x, y):
        return None if x is None else np.concatenate([x, y])
    return replace(a, time_s=joined(a.time_s, b.time_s), offset_bytes=joined(a.offset_bytes, b.offset_bytes),
                   size_bytes=joined(a.size_bytes, b.size_bytes), is_write=joined(a.is_write, b.is_write),
                   original_time_s=joined(a.original_time_s, b.original_time_s), stream=joined(a.stream, b.stream),
                   lines=None)


class _Stage(ABC):
    """One transform, applied to a trace in pieces (in time order) as it is read: ``push`` takes
    the next piece and returns the records it can give out now, ``flush`` the rest at the end.
    Applied to a whole trace, it is ``push`` of all of it and ``flush``: one home for both."""

    @abstractmethod
    def push(self, part: Trace) -> Optional[Trace]:
        """The records of ``part`` (after any held back) that can be given out now."""

    def flush(self) -> Optional[Trace]:
        return None

    def apply(self, trace: Trace) -> Trace:
        out = _concat(self.push(trace), self.flush())
        return trace.subset(slice(0, 0)) if out is None else out


class _Compress(_Stage):
    """Groups of N operations or of N seconds from their first request, each issued at its
    first request's time (reordered by offset for ``compress-reorder``). The last group may go
    on in the next piece, so it waits there."""

    def __init__(self, amount: str, reorder: bool, spec: str):
        self.reorder = reorder
        self.count = self.interval_s = None
        m = re.fullmatch(r"\s*(\d+)\s*ops\s*", amount)
        if m:
            self.count = int(m.group(1))
            if self.count < 1:
                raise IdlewiseError(f"transform '{spec}': the group size must be at least 1 operation")
        else:
            try:
                self.interval_s = parse_duration_s(amount)
            except ValueError as e:
                raise IdlewiseError(f"transform '{spec}': {e}; or a count of operations such as '64ops'") from None
        self.waiting: Optional[Trace] = None

    def _starts(self, trace: Trace) -> np.ndarray:
        if self.count is not None:
            return np.arange(0, len(trace), self.count, dtype=np.int64)
        return _group_starts_by_time(trace.time_s, self.interval_s)

    def push(self, part: Trace) -> Optional[Trace]:
        data = _concat(self.waiting, part)
        if data is None or not len(data):
            return None
        starts = self._starts(data)
        # The last group is whole only when a count filled it; else it may go on.
        whole = len(data) if self.count is not None and len(data) % self.count == 0 else int(starts[-1])
        self.waiting = data.subset(slice(whole, None)) if whole < len(data) else None
        return self._issue(data.subset(slice(0, whole))) if whole else None

    def flush(self) -> Optional[Trace]:
        data, self.waiting = self.waiting, None
        return self._issue(data) if data is not None and len(data) else None

    def _issue(self, trace: Trace) -> Trace:
        starts = self._starts(trace)
        n = len(trace)
        group = np.zeros(n, dtype=np.int64)
        group[starts[1:]] = 1
        group = np.cumsum(group)
        times = trace.time_s[starts][group]
        # Each request keeps the time it was wanted, for responses measured from it (prefetching).
        wanted = trace.time_s if trace.original_time_s is None else trace.original_time_s
        order = np.lexsort((trace.offset_bytes, group)) if self.reorder else np.arange(n)
        out = trace.subset(order)
        return replace(out, time_s=times[order], original_time_s=wanted[order])


class _Window(_Stage):
    """Requests ``A <= time - first time < B``, the first time being the first request's."""

    def __init__(self, arg: str, spec: str):
        try:
            start_text, end_text = arg.split("..")
            self.start, self.end = parse_duration_s(start_text), parse_duration_s(end_text)
        except ValueError as e:
            raise IdlewiseError(f"transform '{spec}': expected window:START..END with units, e.g. window:0s..1h ({e})") from None
        if self.end <= self.start:
            raise IdlewiseError(f"transform '{spec}': the window ends before it starts")
        self.spec = spec
        self.first_s = self.last_s = None
        self.kept = 0

    def push(self, part: Trace) -> Optional[Trace]:
        if not len(part):
            return None
        if self.first_s is None:
            self.first_s = float(part.time_s[0])
        self.last_s = float(part.time_s[-1])
        offset = part.time_s - self.first_s
        kept = part.subset((offset >= self.start) & (offset < self.end))
        self.kept += len(kept)
        return kept

    def flush(self) -> Optional[Trace]:
        if not self.kept:
            span = 0.0 if self.first_s is None else self.last_s - self.first_s
            raise IdlewiseError(f"transform '{self.spec}': no request falls in the window (the trace spans {span:.1f} s)")
        return None


class _Scale(_Stage):
    """Every time offset from the first request multiplied by F."""

    def __init__(self, arg: str, spec: str):
        try:
            self.factor = float(arg)
        except ValueError:
            raise IdlewiseError(f"transform '{spec}': expected scale:FACTOR, a positive number") from None
        if not (self.factor > 0 and np.isfinite(self.factor)):
            raise IdlewiseError(f"transform '{spec}': the factor must be positive and finite")
        self.first_s = None

    def push(self, part: Trace) -> Optional[Trace]:
        if not len(part):
            return None
        if self.first_s is None:
            self.first_s = part.time_s[0]

        def scaled(t):
            return None if t is None else self.first_s + (t - self.first_s) * self.factor
        return replace(part, time_s=scaled(part.time_s), original_time_s=scaled(part.original_time_s))


class _SelectStream(_Stage):
    """One device of a multi-device trace (a whole trace only: a trace read as it is read keeps
    one with ``stream=``)."""

    def __init__(self, arg: str, spec: str):
        if not re.fullmatch(r"\s*-?\d+\s*", arg):
            raise IdlewiseError(f"transform '{spec}': expected stream:K with an integer K")
        from ..arguments import device_number

        self.number = device_number(arg, f"transform '{spec}': K")

    def push(self, part: Trace) -> Optional[Trace]:
        return part.select_stream(self.number)


def _stages(spec: str) -> list[_Stage]:
    stages = []
    for part in spec.strip().split("+"):
        part = part.strip()
        kind, _, arg = part.partition(":")
        if kind == "none" and not arg:
            continue
        if kind in ("compress", "compress-reorder") and arg:
            stages.append(_Compress(arg, kind == "compress-reorder", part))
        elif kind == "window" and arg:
            stages.append(_Window(arg, part))
        elif kind == "scale" and arg:
            stages.append(_Scale(arg, part))
        elif kind == "stream" and arg:
            stages.append(_SelectStream(arg, part))
        else:
            raise IdlewiseError(f"unknown or incomplete transform '{part}'; expected one of compress:N, compress:Nops, "
                                "compress-reorder:N, compress-reorder:Nops, window:A..B, scale:F, stream:K, none")
    return stages


def apply_transform(trace: Trace, spec: str) -> Trace:
    """Applies a transform spec (or a ``+`` chain of them) and returns a new trace."""
    spec = spec.strip()
    out = trace
    for stage in _stages(spec):
        out = stage.apply(out)
    if out is not trace:
        # (A transform changes the requests: busy times observed for the old ones do not fit.)
        out = replace(out, name=f"{trace.name} [{spec}]", lines=None, service_s=None)
        out.validate()
    return out


class TransformStream:
    """A transform chain applied to one device's requests as they are read, piece by piece in
    time order: the records ``push`` and ``flush`` give out, in order, are
    :func:`apply_transform` of the whole, bit for bit, while memory holds one group at most."""

    def __init__(self, spec: str):
        self.stages = _stages(spec)
        if any(isinstance(s, _SelectStream) for s in self.stages):
            raise IdlewiseError(f"transform '{spec}': stream:K picks the device a file is read for; take it out of the "
                                "chain first (split_selection), as every command does")

    def push(self, part: Trace) -> Optional[Trace]:
        for stage in self.stages:
            if part is None or not len(part):
                return None
            part = stage.push(part)
        return part

    def flush(self) -> Optional[Trace]:
        carried = None
        for stage in self.stages:
            pushed = stage.push(carried) if carried is not None and len(carried) else None
            carried = _concat(pushed, stage.flush())
        return carried


def split_selection(spec: Optional[str], stream=None, where: str = "") -> tuple:
    """The device a transform chain keeps, and the rest of the chain: ``(stream, rest)``, with
    ``rest`` None when nothing else is asked. ``stream`` is a device already picked (``--stream``);
    a chain that picks another, or two different ones, is an error (``where`` names the file)."""
    if spec is None or not spec.strip():
        return stream, None
    picked, rest = [], []
    for part, stage in zip((p.strip() for p in spec.strip().split("+")), _stages_each(spec)):
        if isinstance(stage, _SelectStream):
            picked.append(stage.number)
        elif stage is not None:
            rest.append(part)
    numbers = set(picked)
    if picked and stream is not None:
        if not str(stream).lstrip("-").isdigit():
            raise IdlewiseError(f"{where}transform '{spec.strip()}' picks device {picked[0]} by number, --stream {stream} by name; give one")
        numbers.add(int(stream))
    if len(numbers) > 1:
        also = f" with --stream {stream}" if stream is not None else ""
        raise IdlewiseError(f"{where}transform '{spec.strip()}'{also} picks devices {', '.join(map(str, sorted(numbers)))}; a replay keeps one")
    return (picked[0] if picked else stream), ("+".join(rest) or None)


def _stages_each(spec: str) -> list:
    """Each ``+`` part's stage (None for ``none``), in order: :func:`_stages` keeping places."""
    return [(_stages(part) or [None])[0] for part in spec.strip().split("+")]


__all__ = ["apply_transform", "KINDS", "TransformStream", "split_selection"]
