"""A trace file as it is read, a part at a time in time order, for the code that works on it
as it streams (a transform, a report's statistics, an experiment's idle periods): the records of
each batch or chunk with where they lie, the order check a streamed file needs, and one device's
records (transformed as they go). Replays fed the same way are the engine's (``StreamedRuns``,
``evaluate_file``)."""

from __future__ import annotations

import contextlib
import math
import os

import numpy as np

from .. import _core
from ..errors import IdlewiseError

#: Binary formats streamed a batch of records at a time.
BATCHED = ("parquet", "srt")


def batches_of(format: str, path: str, mapping: dict | None = None, write_flag=None):
    """A binary trace's records in batches, or a mapped CSV's (its reader loads when used)."""
    if mapping:
        from .readers.mapped_csv import iter_mapped_batches

        return ((t, np.zeros(len(t), dtype=np.int64) if o is None else o, s, w, v)
                for t, o, s, w, v, _ in iter_mapped_batches(path, mapping, write_flag=write_flag))
    if format == "parquet":
        from .readers.parquet import iter_parquet_batches

        return iter_parquet_batches(path)
    from .readers.hp_srt import iter_srt_batches

    return iter_srt_batches(path)


def raw_batches(format: str, path: str, mapping, write_flag):
    """A file's records a batch at a time with where each lies: (time_s, offset_bytes,
    size_bytes, is_write, stream or None, positions, "line" or "record"); then, once read,
    (records read, what was skipped)."""
    if mapping or format in BATCHED:
        read = 0
        with contextlib.closing(batches_of(format, path, mapping, write_flag)) as batches:
            for t, o, s, w, v in batches:
                # A mapped CSV's records are its lines from 2; a binary file's, records from 0.
                yield t, o, s, w, v, (read + 2 if mapping else read) + np.arange(len(t)), "line" if mapping else "record"
                read += len(t)
        yield read, []
        return
    batches = _core.TextBatches(path, format)
    try:
        for t, o, s, w, v, lines in batches:
            yield t, o, s, w, v, lines, "line"
    finally:
        batches.close()
    yield batches.records_read, list(batches.skipped)


def check_in_order(times, positions, word: str, last: list) -> None:
    """Refuses a device's records out of time order before a transform regroups them (its
    groups assume time order), naming the first late one; ``last`` carries the device's last
    (time, position) from part to part."""
    if not len(times):
        return
    late = times[1:] < times[:-1]
    if times[0] < last[0] or late.any():
        i = 0 if times[0] < last[0] else int(np.argmax(late)) + 1
        before = (last[0], last[1]) if i == 0 else (times[i - 1], positions[i - 1])
        raise IdlewiseError(f"{word} {positions[i]}, field 'time_s': time {times[i]} is earlier than {word} {before[1]}'s "
                            f"{before[0]}; times must be in time order to be replayed as they are read; sorting (--sort, "
                            "sort=True) reads the trace whole and sorts it")
    last[0], last[1] = times[-1], positions[-1]


def device_parts(path: str, read: dict, transform: str | None):
    """One device's records of a file as they are read (transformed as they go), a part at a
    time; refuses a file of several devices unless ``read["stream"]`` picks one. Errors name
    the file."""
    try:
        yield from _device_parts(path, read, transform)
    except IdlewiseError as e:
        if str(e).startswith(f"{path}: "):
            raise
        raise type(e)(f"{path}: {e}") from None


def _device_parts(path: str, read: dict, transform: str | None):
    from .trace import Trace
    from .transforms import TransformStream

    keep = read.get("stream")
    pipeline = TransformStream(transform) if transform else None
    last, seen = [-math.inf, 0], set()
    format = read.get("format", "auto")
    for item in raw_batches(format, path, read.get("mapping"), read.get("write_flag")):
        if len(item) == 2:
            break
        t, o, sz, w, v, positions, word = item
        if v is not None:
            seen.update(np.unique(v).tolist())
            mine = v == keep if keep is not None else np.ones(len(v), dtype=bool)
            t, o, sz, w, positions = t[mine], None if o is None else o[mine], sz[mine], w[mine], positions[mine]
        if keep is None and len(seen) > 1:
            continue  # refused below, naming every device
        if not len(t):
            continue
        check_in_order(t, positions, word, last)
        part = Trace(t, np.zeros(len(t), np.int64) if o is None else o, sz, w, name=os.path.basename(path))
        yield pipeline.push(part) if pipeline else part
    if keep is None and len(seen) > 1:
        names = ", ".join(map(str, sorted(seen)))
        raise IdlewiseError(f"{path}: the trace holds {len(seen)} devices ({names}); a report is of one: pick it with --stream K")
    if pipeline:
        yield pipeline.flush()



__all__ = ["BATCHED", "batches_of", "check_in_order", "device_parts", "raw_batches"]
