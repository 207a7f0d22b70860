"""How a trace file is read as it streams, without NumPy (a replay's command starts without it):
its format (:func:`file_format`, with the checks of a column mapping), what the engine's text
reader is told (:func:`engine_format`), and a binary file's batches (:func:`batches_of`) read a
batch ahead (:func:`read_ahead`). What works on the records themselves is in
:mod:`idlewise.traces.streaming`."""

from __future__ import annotations

from ..errors import IdlewiseError, TraceError

#: Formats streamed a batch of records at a time, made in Python: the binary ones, a diskstats
#: recording, whose requests are made from its counters as they are consumed, and biosnoop's
#: output, put in arrival order as it is read.
BATCHED = ("parquet", "srt", "diskstats", "biosnoop")
#: Formats that name their devices (sda, nvme0n1): a name given as the device picks its records.
NAMED_DEVICES = ("diskstats", "biosnoop")


def check_mapping_options(path: str, format: str, columns, write_flag) -> None:
    """A column mapping reads a CSV, and a write flag needs a mapping: every reader of files
    checks both here."""
    if columns is not None and format not in ("auto", "csv"):
        raise TraceError(f"{path}: a column mapping reads a CSV file; it cannot be given with format '{format}'")
    if columns is None and write_flag is not None:
        raise TraceError(f"{path}: write_flag (--write-flag) goes with a column mapping (--columns ... op=COLUMN)")


def disk_named(format: str, stream) -> str | None:
    """The device name ``stream`` gives (``vda``), where the format names its devices; None for
    a device number or no pick."""
    if format in NAMED_DEVICES and isinstance(stream, str) and not stream.lstrip("-").isdigit():
        return stream
    return None


def picked_device(format: str, path: str, stream) -> tuple:
    """What ``stream`` picks of a file read as it streams: (the name its batches pick, in a
    format that names devices; the number the runs keep). A Parquet conversion of a recording
    answers to its devices' names (kept in its footer) with their numbers."""
    if stream is None:
        return None, None
    name = disk_named(format, stream)
    if name is not None:
        return name, None
    if isinstance(stream, str) and not stream.lstrip("-").isdigit() and format == "parquet":
        from .readers.parquet import recording_of

        names = recording_of(path)["stream_names"]
        for number, named in names.items():
            if named == stream:
                return None, number
        present = ", ".join(f"{n} ({d})" for n, d in names.items())
        raise TraceError(f"{path}: no device named '{stream}' in this trace; "
                         + (f"devices present: {present}" if names else "it names no devices: pick one by its number"))
    from ..arguments import device_number

    return None, device_number(stream, f"{path}: stream")


def batches_of(format: str, path: str, disk: str | None = None):
    """A trace's records in batches (``format`` one of :data:`BATCHED`): iterating gives
    (time_s, offset_bytes, size_bytes, is_write, device numbers or None, service_s or None,
    each record's line or None where records are numbered);
    once iterated, ``records_read``, ``skipped`` ({why: count}), ``names`` (device number ->
    name, where the file names them) and, for a recording, ``recording_start_s`` and
    ``recording_end_s`` (its first and last snapshot on the trace's time line). ``disk`` picks
    a device by name in a format that names them (:data:`NAMED_DEVICES`)."""
    if format == "diskstats":
        from .readers.diskstats import DiskstatsBatches

        return DiskstatsBatches(path, disk)
    if format == "biosnoop":
        from .readers.biosnoop import BiosnoopBatches

        return BiosnoopBatches(path, disk)
    return _Binary(format, path)


def text_batches(format: str, path: str, mapping=None, write_flag=None):
    """A text trace's records in batches, read by the engine's reader, with what
    :func:`batches_of` promises (no names, no recording span)."""
    return _Text(format, path, mapping, write_flag)


class _Text:
    def __init__(self, format: str, path: str, mapping, write_flag):
        from .. import _core
        from .inputs import local_path

        self._batches = _core.TextBatches(local_path(path), engine_format(format, path, mapping, write_flag))
        self.records_read, self.skipped, self.names = 0, {}, {}
        self.recording_start_s = self.recording_end_s = self.start_unix_s = None

    def __iter__(self):
        for t, o, s, w, v, lines in self._batches:
            yield t, o, s, w, v, None, lines.view("int64")  # the engine's uint64 lines, as every reader's
        self.records_read, self.skipped = self._batches.records_read, dict(self._batches.skipped)

    def close(self) -> None:
        self._batches.close()


class _Binary:
    """A Parquet or SRT file's batches with what :func:`batches_of` promises of them."""

    def __init__(self, format: str, path: str):
        self.format, self.path = format, path
        self.records_read, self.skipped, self.names = 0, {}, {}
        self.recording_start_s = self.recording_end_s = self.start_unix_s = None
        if format == "parquet":
            from .readers.parquet import iter_parquet_batches, recording_of

            self._dates: dict = {}
            self._batches = iter_parquet_batches(path, dates=self._dates)
            kept = recording_of(path)
            self.names, end, self.start_unix_s = kept["stream_names"], kept["end_time_s"], kept["start_unix_s"]
            if end is not None:  # a recording converted: it replays as its source does
                self.recording_start_s, self.recording_end_s = 0.0, end
        else:
            from .readers.hp_srt import iter_srt_batches

            self._batches = iter_srt_batches(path)

    def __iter__(self):
        for t, o, s, w, v in self._batches:
            self.records_read += len(t)
            # A Parquet trace's times given as dates: its clock known with its first batch.
            self.start_unix_s = getattr(self, "_dates", {}).get("start_unix_s", self.start_unix_s)
            yield t, o, s, w, v, None, None
        self.skipped = skipped_at_source(self.format, self.path)
        self.records_read += sum(self.skipped.values())

    def close(self) -> None:
        close = getattr(self._batches, "close", None)
        if close:
            close()


def skipped_at_source(format: str, path: str) -> dict:
    """What was skipped reading the file a binary trace was made from ({why: count}): a
    Parquet conversion keeps its source's (a blkparse file's summary lines)."""
    if format != "parquet":
        return {}
    from .readers.parquet import skipped_at_source as kept

    return kept(path)


def read_ahead(batches, depth: int = 2):
    """``batches`` (an iterator) read on a thread of its own, up to ``depth`` batches ahead of
    the caller: a Parquet file's decoding (which lets the GIL go) then overlaps the replay of the
    batch before, instead of taking turns with it (100 timeouts over 100M requests spent a third
    of their time waiting for batches). Batches come in order; an error the iterator raises comes
    after the batches before it, as it would unread ahead. When the caller stops early (an error,
    a stop, Ctrl-C) the thread is stopped and joined before this generator returns, so the
    caller may close ``batches`` on its own thread."""
    import queue
    import threading

    ahead: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def read() -> None:
        try:
            for batch in batches:
                while not stop.is_set():
                    try:
                        ahead.put((batch, None), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            ahead.put((done, None))
        except BaseException as e:  # handed to the caller, in its place among the batches
            ahead.put((done, e))

    reader = threading.Thread(target=read, name="idlewise-read-ahead", daemon=True)
    reader.start()
    try:
        while True:
            batch, error = ahead.get()
            if batch is done:
                if error is not None:
                    raise error
                return
            yield batch
    finally:
        stop.set()
        while reader.is_alive():
            try:
                ahead.get(timeout=0.1)  # a reader waiting to put its batch goes on, sees the stop
            except queue.Empty:
                pass
        reader.join()


def file_format(path: str, format: str = "auto", columns=None, write_flag=None, stream=None,
                whole: str | None = None) -> tuple[str, dict | None]:
    """How a file is read as it streams: its format (detected for ``auto``; a column mapping's
    as the read report names it) and its mapping (or None), the options checked. ``whole``, what
    to use instead, refuses a format that is read whole (diskstats, biosnoop); a device named
    rather than numbered (``stream``) is refused. Errors name the file."""
    check_mapping_options(path, format, columns, write_flag)
    mapping = None
    if columns is not None:
        from .readers.mapped_csv import _mapping, mapped_format

        mapping, _ = _mapping(columns, write_flag)
        format = mapped_format(mapping)
    elif format == "auto":
        from .detect import detect_format

        format = detect_format(path)
    from .formats import reads_whole

    if whole is not None and reads_whole(path, format):
        raise IdlewiseError(f"{path}: {format} files are read whole; use {whole}")
    if isinstance(stream, str) and not stream.lstrip("-").isdigit() and format not in (*NAMED_DEVICES, "parquet"):
        raise IdlewiseError(f"{path}: a device name ('{stream}') selects a device of a diskstats or biosnoop file; "
                            f"pick a {format} trace's device by its number")
    return format, mapping


def engine_format(format: str, path: str, mapping: dict | None, write_flag) -> str:
    """What the engine's text reader is told to read: ``format``, or a mapped CSV's mapping."""
    if not mapping:
        return format
    from .readers.mapped_csv import mapped_spec

    return mapped_spec(path, mapping, write_flag)
