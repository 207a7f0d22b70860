"""The :class:`Trace` column container.

Columns are numpy arrays in the dtypes the engine borrows without copying. Validation of values
(finite, ordered times; non-negative sizes) happens in the engine; errors come back with the
record index, which a trace read from a file turns into ``file:line``.

A trace read from a multi-device file keeps a ``stream`` column (the device number of each
record); :meth:`Trace.select_stream` and :meth:`Trace.split_streams` give per-device traces.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from .. import _core
from ..errors import TraceError, TraceRecordError, shown
from .times import dates_or_durations, seconds_of
from .describe import SECONDS_PER_YEAR, REQUESTS_DERIVED, counted, describe_text, read_report_text, span_text  # noqa: F401 - their home is describe


class TraceWarning(UserWarning):
    """Something in a trace looks wrong but is not an error (zero sizes, an implausible span)."""


def _column(name: str, values, dtype, origin: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise TraceError(f"{origin}: column '{name}' must be one-dimensional, got shape {array.shape}")
    if np.issubdtype(dtype, np.integer) and array.dtype.kind == "f":
        bad = ~np.isfinite(array) | (array != np.floor(array))
        if bad.any():
            i = int(np.argmax(bad))
            raise TraceError(f"{origin}: record {i}, field '{name}': expected a whole number of bytes, got {array[i]}")
    if array.dtype.kind not in "biuf":
        raise TraceError(f"{origin}: column '{name}' must be numeric, got dtype {array.dtype}")
    return np.ascontiguousarray(array, dtype=dtype)


def _zero_or_one(name: str, values, origin: str) -> np.ndarray:
    """A read/write flag column: booleans, or numbers that are exactly 0 or 1 (not 256, which
    would wrap to 0, nor NaN)."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise TraceError(f"{origin}: column '{name}' must be one-dimensional, got shape {array.shape}")
    if array.dtype.kind == "b":
        return np.ascontiguousarray(array, dtype=np.uint8)
    if array.dtype.kind not in "iuf":
        raise TraceError(f"{origin}: column '{name}' must hold booleans or 0/1, got dtype {array.dtype}")
    bad = ~((array == 0) | (array == 1))
    if bad.any():
        i = int(np.argmax(bad))
        raise TraceError(f"{origin}: record {i}, field '{name}': expected 0 (read) or 1 (write), got {shown(array[i])}")
    return np.ascontiguousarray(array, dtype=np.uint8)


def _ops(op, is_write, n: int, origin: str) -> np.ndarray:
    if op is not None and is_write is not None:
        raise TraceError(f"{origin}: give either 'op' or 'is_write', not both")
    if is_write is not None:
        return _zero_or_one("is_write", is_write, origin)
    if op is None:
        return np.zeros(n, dtype=np.uint8)
    ops = np.asarray(op)
    if ops.ndim != 1:
        raise TraceError(f"{origin}: column 'op' must be one-dimensional, got shape {ops.shape}")
    if ops.dtype.kind in "biuf":
        return _zero_or_one("op", ops, origin)
    upper = np.char.upper(ops.astype(str))
    is_w = upper == "W"
    bad = ~(is_w | (upper == "R"))
    if bad.any():
        i = int(np.argmax(bad))
        raise TraceError(f"{origin}: record {i}, field 'op': expected 'R' or 'W', got {shown(ops[i])}")
    return is_w.astype(np.uint8)


class LineNumbers:
    """The file line of each record as the engine's readers keep it: one byte a record for the
    step from the record before (255 marks a long step, kept apart as (record, step)), since only
    an error message reads a line number. Indexing with an integer gives that record's line; with
    a mask or index array, an int64 array of the lines selected."""

    def __init__(self, base: int, steps: np.ndarray, long_steps=()):
        self._base = int(base)
        self._steps = steps
        self._long = [(int(i), int(step)) for i, step in long_steps]

    def __len__(self) -> int:
        return len(self._steps)

    def to_numpy(self) -> np.ndarray:
        steps = self._steps.astype(np.int64)
        for i, step in self._long:
            steps[i] = step
        return self._base + np.cumsum(steps)

    def __getitem__(self, index):
        if isinstance(index, (int, np.integer)):
            n = len(self)
            if not -n <= index < n:
                raise IndexError(f"record {index} of {n}")
            index = int(index) % n
            line = self._base + int(self._steps[:index + 1].sum(dtype=np.int64))
            return line + sum(step - 255 for i, step in self._long if i <= index)
        return self.to_numpy()[index]


@dataclass(frozen=True)
class Trace:
    """A request stream as columns, in arrival order."""

    time_s: np.ndarray
    offset_bytes: np.ndarray
    size_bytes: np.ndarray
    is_write: np.ndarray
    name: str = "trace"
    #: File the trace came from, for error messages.
    path: Optional[str] = None
    #: 1-based file line of each record (None when not read from a line-oriented file).
    lines: "Optional[np.ndarray | LineNumbers]" = field(default=None, repr=False)
    #: Records whose position changed when the trace was sorted by time (0 if not sorted).
    records_moved: int = 0
    #: What the reader skipped and why, e.g. {"summary lines": 3}.
    skipped: dict = field(default_factory=dict)
    #: Device number of each record, for multi-device traces (None: a single device).
    stream: Optional[np.ndarray] = field(default=None, repr=False)
    #: Records (or lines) the reader examined, skipped ones included.
    records_read: int = 0
    #: The format the trace was read in.
    format: str = "arrays"
    #: When each request was originally wanted, where a transform issued it earlier (seed 001's
    #: compression: successful read-ahead); None when every request is issued at its own time.
    original_time_s: Optional[np.ndarray] = field(default=None, repr=False)
    #: Names of the devices behind stream numbers, where the file names them (a diskstats
    #: recording's ``sda``, biosnoop's DISK column); :meth:`select_stream` takes either. A
    #: single-device trace keeps its one device's name here.
    stream_names: Optional[dict] = field(default=None, repr=False)
    #: When the recording ended, on the trace's time line (a diskstats recording's last
    #: snapshot): the device was idle from the last request until then. None: at the last request.
    end_time_s: Optional[float] = None
    #: How long each request kept the real device busy, where the trace says (a diskstats
    #: recording: its interval's busy time shared by its requests); ``simulate(service=
    #: "observed")`` serves it in that time. None where the trace does not say.
    service_s: Optional[np.ndarray] = field(default=None, repr=False)
    #: Whether the stream numbers are the ones the file gives its devices (a volume ID). False
    #: for an archive whose files use one number for two devices: numbered in order there, its
    #: devices are chosen by name, never by a number the user would read as a volume's.
    numbers_are_the_files: bool = True
    #: The wall-clock (Unix) time of the trace's time 0, where the file gives one (a diskstats
    #: recording's first snapshot): what the advice's times of day are read on.
    start_unix_s: Optional[float] = None

    @classmethod
    def from_arrays(cls, time_s, size_bytes, op=None, *, offset_bytes=None, is_write=None, name="trace",
                    sort=False, path=None, lines=None, skipped=None, stream=None, records_read=None,
                    format="arrays", stream_names=None, end_time_s=None, service_s=None, start_unix_s=None) -> "Trace":
        """Builds a trace from array-likes. ``op`` holds 'R'/'W' strings or 0/1; ``is_write`` booleans.
        ``time_s`` holds seconds, or dates or durations (``datetime64``/``timedelta64``, as pandas'
        and polars' time columns): dates are made times from the earliest, which is kept as
        ``start_unix_s`` (:mod:`idlewise.traces.times`).

        Times must be in order unless ``sort=True``, which sorts stably and records how many
        records moved in :attr:`records_moved`.
        """
        origin = path or name
        dates = dates_or_durations(time_s)  # (pandas', polars', Arrow's time columns)
        if dates is not None:
            time_s, start, _ = seconds_of(dates, where=f"{origin}: ")
            start_unix_s = start if start_unix_s is None else start_unix_s
        t = _column("time_s", time_s, np.float64, origin)
        n = len(t)
        size = _column("size_bytes", size_bytes, np.int64, origin)
        offset = np.zeros(n, dtype=np.int64) if offset_bytes is None else _column("offset_bytes", offset_bytes, np.int64, origin)
        w = _ops(op, is_write, n, origin)
        for column_name, column in (("size_bytes", size), ("offset_bytes", offset), ("op", w)):
            if len(column) != n:
                raise TraceError(f"{origin}: column '{column_name}' has {len(column)} values but 'time_s' has {n}")
        line_numbers = lines if lines is None or isinstance(lines, LineNumbers) else _column("lines", lines, np.int64, origin)
        if line_numbers is not None and len(line_numbers) != n:
            raise TraceError(f"{origin}: column 'lines' has {len(line_numbers)} values but 'time_s' has {n}")
        streams = None if stream is None else _column("stream", stream, np.int64, origin)
        if streams is not None and len(streams) != n:
            raise TraceError(f"{origin}: column 'stream' has {len(streams)} values but 'time_s' has {n}")
        service = None if service_s is None else _column("service_s", service_s, np.float64, origin)
        if service is not None:
            if len(service) != n:
                raise TraceError(f"{origin}: column 'service_s' has {len(service)} values but 'time_s' has {n}")
            bad = np.flatnonzero(~(np.isfinite(service) & (service >= 0)))
            if len(bad):
                raise TraceError(f"{origin}: record {int(bad[0])}, field 'service_s': a service time must be a "
                                 f"non-negative number of seconds, got {float(service[bad[0]])}")
        moved = 0
        if sort and n:
            if np.isnan(t).any():
                i = int(np.argmax(np.isnan(t)))
                where = f"line {line_numbers[i]}" if line_numbers is not None else f"record {i}"
                raise TraceError(f"{origin}: {where}, field 'time_s': time must be a finite number, got nan")
            order = np.argsort(t, kind="stable")
            moved = int(np.count_nonzero(order != np.arange(n)))
            t, size, offset, w = t[order], size[order], offset[order], w[order]
            if line_numbers is not None:
                line_numbers = line_numbers[order]
            if streams is not None:
                streams = streams[order]
            if service is not None:
                service = service[order]
        trace = cls(t, offset, size, w, name=name, path=path, lines=line_numbers, records_moved=moved,
                    skipped=dict(skipped or {}), stream=streams,
                    records_read=n + sum((skipped or {}).values()) if records_read is None else records_read,
                    format=format, stream_names=None if stream_names is None else dict(stream_names),
                    end_time_s=None if end_time_s is None else float(end_time_s), service_s=service,
                    start_unix_s=None if start_unix_s is None else float(start_unix_s))
        trace.validate()
        trace.warn_if_suspicious()
        return trace

    def warn_if_suspicious(self) -> None:
        """Warns (:class:`TraceWarning`) about zero sizes and spans that suggest a wrong time unit."""
        origin = self.path or self.name
        zero = int(np.count_nonzero(self.size_bytes == 0))
        if zero:
            warnings.warn(f"{origin}: {zero:,} records have size 0 (served in the overhead time alone)", TraceWarning, stacklevel=3)
        if len(self) >= 100:
            span = self.span_s
            if span < 1e-3:
                warnings.warn(f"{origin}: {len(self):,} requests within {span:.3g} s; is the time unit right?", TraceWarning, stacklevel=3)
            elif span > 10 * SECONDS_PER_YEAR:
                warnings.warn(f"{origin}: the trace spans {span / SECONDS_PER_YEAR:,.0f} years; is the time unit right?", TraceWarning, stacklevel=3)

    def subset(self, mask_or_index, *, name: Optional[str] = None) -> "Trace":
        """The records selected by a boolean mask or index array, in their order."""
        def pick(a):
            return None if a is None else a[mask_or_index]
        return replace(self, time_s=self.time_s[mask_or_index], offset_bytes=self.offset_bytes[mask_or_index],
                       size_bytes=self.size_bytes[mask_or_index], is_write=self.is_write[mask_or_index],
                       lines=pick(self.lines), stream=pick(self.stream), original_time_s=pick(self.original_time_s),
                       service_s=pick(self.service_s), name=name or self.name)

    def streams(self) -> list[int]:
        """Device numbers present (``[]`` for a single-device trace)."""
        return [] if self.stream is None else [int(s) for s in np.unique(self.stream)]

    @property
    def device_name(self) -> Optional[str]:
        """The name of a single-device trace's device, where the file names it."""
        names = self.stream_names or {}
        return next(iter(names.values())) if self.stream is None and len(names) == 1 else None

    def stream_label(self, stream: int) -> str:
        """A device's name where the file gives one (``sda``), else its number."""
        return (self.stream_names or {}).get(stream, str(stream))

    def _stream_number(self, stream) -> int:
        from ..arguments import device_number

        if not isinstance(stream, str) or stream.lstrip("-").isdigit():
            if not self.numbers_are_the_files:
                names = ", ".join(self.stream_label(s) for s in self.streams())
                raise TraceError(f"{self.path or self.name}: its files use one device number for several devices, so a "
                                 f"number would not say which; name the device: {names}")
            return device_number(stream, f"{self.path or self.name}: stream")
        by_name = {name: number for number, name in (self.stream_names or {}).items()}
        if stream not in by_name:
            known = ", ".join(sorted(by_name)) if by_name else "none: this format numbers its devices"
            raise TraceError(f"{self.path or self.name}: no device named '{stream}'; devices named in the trace: {known}")
        return by_name[stream]

    def select_stream(self, stream) -> "Trace":
        """The records of one device, as a single-device trace. ``stream`` is the device's number,
        or its name where the file names devices (diskstats, biosnoop)."""
        if self.stream is None:
            # A single-device trace whose file names its device (a one-disk recording, or its
            # Parquet conversion) answers to that device's name and number.
            (number, name), = self.stream_names.items() if self.stream_names and len(self.stream_names) == 1 else ((None, None),)
            if str(stream) in (str(number), name):
                return self
            raise TraceError(f"{self.path or self.name}: the trace has a single device; there is no stream {stream} to select")
        number = self._stream_number(stream)
        mask = self.stream == number
        if not mask.any():
            present = ", ".join(self.stream_label(s) if self.stream_label(s) == str(s) else f"{s} ({self.stream_label(s)})"
                                for s in self.streams())
            raise TraceError(f"{self.path or self.name}: no records for stream {stream}; streams present: {present}")
        one = self._one_stream(number, mask)
        # Every record accounted for, in the words of a file replayed as read.
        others = len(self) - len(one)
        if others:
            one = replace(one, skipped={**one.skipped, f"records of other devices (kept device {number})": others})
        return one

    def _one_stream(self, number: int, records) -> "Trace":
        label = self.stream_label(number)
        return replace(self.subset(records, name=f"{self.name}#{label}"), stream=None,
                       stream_names=None if self.stream_names is None else {number: label})

    def require_one_device(self, what: str, pick: str) -> None:
        """Refuses a trace of several devices for ``what`` (a report, advice), naming them and how to
        ``pick`` one."""
        if self.stream is not None and len(self.streams()) > 1:
            names = ", ".join(self.stream_label(s) for s in self.streams())
            raise TraceError(f"{self.path or self.name}: the trace holds {len(self.streams())} devices ({names}); "
                             f"{what} is of one: {pick}")

    def split_streams(self) -> dict:
        """One single-device trace per device number (the trace itself if it has one device)."""
        if self.stream is None:
            return {None: self}
        # One stable sort groups every device's records in file order, and the line numbers
        # are expanded once (not once per device).
        order = np.argsort(self.stream, kind="stable")
        numbers, starts = np.unique(self.stream[order], return_index=True)
        whole = replace(self, lines=self.lines.to_numpy()) if isinstance(self.lines, LineNumbers) else self
        ends = [*starts[1:], len(order)]
        return {int(n): whole._one_stream(int(n), order[a:b]) for n, a, b in zip(numbers, starts, ends)}

    def read_report(self) -> str:
        return read_report_text(self.path or self.name, self.records_read, self.format, len(self), self.skipped,
                                moved=self.records_moved, zero_size=int(np.count_nonzero(self.size_bytes == 0)))

    def __len__(self) -> int:
        return len(self.time_s)

    def __repr__(self) -> str:
        # What a notebook shows: the trace in a line, not its columns element by element.
        devices = len(self.streams())
        return (f"<Trace {self.name!r}: {len(self):,} requests ({int(np.count_nonzero(self.is_write)):,} writes) over "
                f"{self.span_s:,.3f} s" + (f", {devices:,} devices" if devices else "") + f", format {self.format}>")

    def validate(self) -> None:
        """Raises :class:`TraceError` naming the file and line (or record) of the first bad record."""
        try:
            _core.validate_trace(self.time_s, self.offset_bytes, self.size_bytes, self.is_write)
        except TraceRecordError as e:
            raise self.record_error(e) from None
        except _core.IdlewiseError as e:
            raise TraceError(f"{self.path or self.name}: {e}") from None

    def record_error(self, error: TraceRecordError) -> TraceError:
        message, index, field_name = error.args
        if self.lines is not None and 0 <= index < len(self.lines):
            where = f"line {int(self.lines[index])}"
        else:
            where = f"record {index}"
        return TraceError(f"{self.path or self.name}: {where}, field '{field_name}': {message}")

    @property
    def idle_tail_s(self) -> float:
        """How long the recording went on after the last request (0 without a recorded end)."""
        if self.end_time_s is None or not len(self):
            return 0.0
        return max(0.0, float(self.end_time_s - self.time_s[-1]))

    @property
    def idle_lead_s(self) -> float:
        """How long the recording went on before the first request: a recording (a trace with a
        recorded end: a diskstats recording, or its Parquet conversion) begins at time 0, its
        first snapshot; 0 for any other trace."""
        if self.end_time_s is None or not len(self):
            return 0.0
        return max(0.0, float(self.time_s[0]))

    @property
    def span_s(self) -> float:
        return float(self.time_s[-1] - self.time_s[0]) if len(self) else 0.0

    def describe(self) -> str:
        return describe_text(self.name, len(self), int(self.is_write.sum()), self.span_s)
