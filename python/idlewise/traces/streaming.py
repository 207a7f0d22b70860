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

from ..errors import IdlewiseError
from .sources import BATCHED, batches_of, engine_format, file_format, picked_device, read_ahead, skipped_at_source, text_batches  # noqa: F401 - their home is sources
from .inputs import trace_name


def raw_batches(format: str, path: str, mapping, write_flag, disk: str | None = None):
    """A file's records a batch at a time with where each lies: (time_s, offset_bytes,
    size_bytes, is_write, stream or None, positions, "line" or "record"); then, once read,
    (records read, what was skipped, {"names": ..., "recording_end_s": ..., "moved": ...}).
    ``disk`` picks a device by name where the format names them."""
    if format in BATCHED and not mapping:
        read = 0
        with contextlib.closing(batches_of(format, path, disk)) as batches:
            for t, o, s, w, v, _, lines in batches:
                yield (t, o, s, w, v, lines, "line") if lines is not None else (t, o, s, w, v, read + np.arange(len(t)), "record")
                read += len(t)
            yield batches.records_read, list(batches.skipped.items()), {"names": batches.names,
                                                                          "recording_end_s": batches.recording_end_s,
                                                                          "moved": getattr(batches, "records_moved", 0),
                                                                          "start_unix_s": getattr(batches, "start_unix_s", None)}
        return
    with contextlib.closing(text_batches(format, path, mapping, write_flag)) as batches:
        for t, o, s, w, v, _, lines in batches:
            yield t, o, s, w, v, lines, "line"
    yield batches.records_read, list(batches.skipped.items()), {}


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


def check_devices_in_order(times, positions, word: str, streams, last: dict) -> None:
    """:func:`check_in_order` for every device of a batch at once (``last``: device -> its
    last (time, position)), in column operations: a batch of 100k devices costs no Python loop
    of NumPy calls. An error is the one :func:`check_in_order` gives for the lowest device out of
    order."""
    if streams is None:
        check_in_order(times, positions, word, last.setdefault(None, [-math.inf, 0]))
        return
    if not len(times):
        return
    order = np.argsort(streams, kind="stable")
    device, t = streams[order], times[order]
    starts = np.flatnonzero(np.concatenate([[True], device[1:] != device[:-1]]))
    ends = np.concatenate([starts[1:] - 1, [len(t) - 1]])
    devices = device[starts].tolist()
    before = np.fromiter((last.get(d, (-math.inf, 0))[0] for d in devices), float, len(devices))
    late_first = t[starts] < before
    late_within = (t[1:] < t[:-1]) & (device[1:] == device[:-1])
    if late_first.any() or late_within.any():
        bad = min(set(device[starts][late_first].tolist()) | set(device[1:][late_within].tolist()))
        mine = order[device == bad]
        check_in_order(times[mine], positions[mine], word, list(last.get(bad, (-math.inf, 0))))
    last.update(zip(devices, zip(t[ends].tolist(), positions[order][ends].tolist())))


def device_parts(path: str, read: dict, transform: str | None, what: str = "a report"):
    """One device's records of a file as they are read (transformed as they go), a part at a
    time; refuses a file of several devices unless ``read["stream"]`` picks one (``what`` is
    of one device). Errors name the file."""
    try:
        yield from _device_parts(path, read, transform, what)
    except IdlewiseError as e:
        if str(e).startswith(f"{path}: "):
            raise
        raise type(e)(f"{path}: {e}") from None


def _device_parts(path: str, read: dict, transform: str | None, what: str):
    records = FileRead(path, read.get("format", "auto"), keep=read.get("stream"), mapping=read.get("mapping"),
                       write_flag=read.get("write_flag"))
    seen: set = set()
    for device, part in transformed_parts(records, transform):
        seen.add(device)
        if len(seen) == 1:  # several devices are refused below, naming every one
            yield part
    if len(seen) > 1:
        names = ", ".join(map(str, sorted(seen)))
        raise IdlewiseError(f"{path}: the trace holds {len(seen)} devices ({names}); {what} is of one: pick it with --stream K")


def transformed_parts(read: "FileRead", transform: str | None):
    """Each device's records of ``read`` as they come, through that device's own transform
    chain (a group held back until it is whole), then what any chain held back at the end:
    ``(device, part)``, the part None while a chain holds a device's records back (a device is
    named from its first part on). Without a transform the parts are the read's."""
    from .transforms import TransformStream

    pipelines: dict = {}
    for device, part in read:
        pipeline = pipelines.get(device) or pipelines.setdefault(device, TransformStream(transform or "none"))
        yield device, pipeline.push(part)
    for device, pipeline in pipelines.items():
        rest = pipeline.flush()
        if rest is not None:
            yield device, rest


def _by_device(streams):
    """(device, its records in order) of a batch; one group of all for a single-device file."""
    if streams is None:
        return [(None, slice(None))]
    if not len(streams):
        return []  # a batch of none of the kept device's records
    order = np.argsort(streams, kind="stable")
    return [(int(streams[g[0]]), g) for g in np.split(order, np.flatnonzero(np.diff(streams[order])) + 1)]


class FileRead:
    """A file's records device by device as they are read, every device's in time order (the
    first late one refused, naming it), with the account a whole read's report gives: iterate
    for ``(device or None, Trace part)``, then :meth:`report`. ``keep`` keeps one device (the
    others counted as skipped); ``part``, ``(k, n)``, yields the devices numbered k modulo n
    (the others counted as kept: the read report is the whole file's)."""

    def __init__(self, path: str, format: str, *, keep=None, mapping=None, write_flag=None, part=None):
        # A recording's device named (vda) is picked as its batches are made.
        self.disk, keep = picked_device(format, path, keep)
        self.path, self.format, self.keep, self.part = path, format, keep, part
        self.mapping, self.write_flag = mapping, write_flag
        self.records = self.writes = self.zero_size = self.other = 0
        self.first_s, self.last_s = math.inf, -math.inf
        self.records_read, self.skipped = 0, []
        #: Device names where the file gives them, and a recording's end (once read).
        self.names: dict = {}
        self.recording_end_s = None
        #: Records put in time order as read (biosnoop's, listed as they completed).
        self.moved = 0
        self.start_unix_s = None

    def batches(self):
        """The kept records a batch at a time in file order (``stream`` set for a multi-device
        file), each device's checked to be in time order and counted. Errors name the file."""
        try:
            yield from self._batches()
        except IdlewiseError as e:
            if str(e).startswith(f"{self.path}: "):
                raise
            raise type(e)(f"{self.path}: {e}") from None

    def _batches(self):
        from .trace import Trace

        last: dict = {}
        name = trace_name(self.path)
        for item in raw_batches(self.format, self.path, self.mapping, self.write_flag, self.disk):
            if len(item) == 3:
                self.records_read, self.skipped, extra = item
                self.names = extra.get("names") or {}
                self.recording_end_s = extra.get("recording_end_s")
                self.moved = extra.get("moved", 0)
                self.start_unix_s = extra.get("start_unix_s")
                break
            t, o, sz, w, v, positions, word = item
            if v is None and self.keep is not None:
                # As a whole read refuses it (Trace.select_stream).
                raise IdlewiseError(f"{self.path}: the trace has a single device; there is no stream {self.keep} to select")
            o = np.zeros(len(t), np.int64) if o is None else o
            if v is not None and self.keep is not None:
                mine = v == self.keep
                self.other += int(len(v) - np.count_nonzero(mine))
                t, o, sz, w, v, positions = t[mine], o[mine], sz[mine], w[mine], v[mine], positions[mine]
            check_devices_in_order(t, positions, word, v, last)
            if not len(t):
                continue
            self.records += len(t)
            self.writes += int(np.count_nonzero(w))
            self.zero_size += int(np.count_nonzero(sz == 0))
            self.first_s, self.last_s = min(self.first_s, float(t.min())), max(self.last_s, float(t.max()))
            if self.part is not None:
                # Part k of n replays the devices numbered k modulo n (a single device: part 0);
                # the others are counted here as kept, since another part replays them.
                index, of = self.part
                mine = (v % of == index) if v is not None else np.full(len(t), index == 0)
                if not mine.all():
                    t, o, sz, w, v = t[mine], o[mine], sz[mine], w[mine], None if v is None else v[mine]
                    positions = positions[mine]
                if not len(t):
                    continue
            # A text file's parts keep their lines, so an error in a replay of them names its line.
            yield Trace(t, o, sz, w, name=name, stream=v, path=self.path, lines=positions if word == "line" else None)
        if self.other:
            self.skipped.append((f"records of other devices (kept device {self.keep})", self.other))

    def __iter__(self):
        for batch in self.batches():
            for device, records in _by_device(batch.stream):
                yield device, batch.subset(records) if device is not None else batch

    def report(self) -> str:
        """The read report of a whole read of the same file (after the iteration)."""
        from .trace import read_report_text

        return read_report_text(self.path, self.records_read, self.format, self.records, dict(self.skipped),
                                moved=self.moved, zero_size=self.zero_size)


def convert_to_parquet(read: "FileRead", out: str) -> None:
    """Writes a file's records, as ``read`` gives them, to idlewise Parquet a batch at a time:
    what a whole read written by :func:`write_parquet` holds, in memory of a batch."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..output import written_whole
    from .readers.parquet import metadata_of

    with written_whole(os.fspath(out)) as temporary:
        writer = None
        try:
            for batch in read.batches():
                columns = {"time_s": batch.time_s, "offset_bytes": batch.offset_bytes, "size_bytes": batch.size_bytes,
                           "is_write": np.asarray(batch.is_write).astype(bool)}
                if batch.stream is not None:
                    columns["stream"] = batch.stream
                table = pa.table(columns).replace_schema_metadata(metadata_of(trace_name(read.path), read.format))
                writer = writer or pq.ParquetWriter(temporary, table.schema)
                writer.write_table(table)
            if writer is None:
                raise IdlewiseError(f"{read.path}: no records to convert")
            # What is known once the file is read (what the reader skipped, a recording's device
            # names and end) is kept in the footer.
            known = metadata_of(trace_name(read.path), read.format, read.names or None, read.recording_end_s,
                                dict(read.skipped), read.start_unix_s)
            writer.add_key_value_metadata({k: v for k, v in known.items() if not k.startswith(("idlewise.name", "idlewise.source"))})
        finally:
            if writer is not None:
                writer.close()


__all__ = ["BATCHED", "FileRead", "convert_to_parquet", "batches_of", "check_in_order", "device_parts", "engine_format", "file_format", "raw_batches",
           "transformed_parts"]
