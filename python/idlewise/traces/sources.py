"""How a trace file is read as it streams, without NumPy (a replay's command starts without it):
its format (:func:`file_format`, with the checks of a column mapping), what the engine's text
reader is told (:func:`engine_format`), and a binary file's batches (:func:`batches_of`) read a
batch ahead (:func:`read_ahead`). What works on the records themselves is in
:mod:`idlewise.traces.streaming`."""

from __future__ import annotations

from ..errors import IdlewiseError, TraceError

#: Binary formats streamed a batch of records at a time.
BATCHED = ("parquet", "srt")


def check_mapping_options(path: str, format: str, columns, write_flag) -> None:
    """A column mapping reads a CSV, and a write flag needs a mapping: every reader of files
    checks both here."""
    if columns is not None and format not in ("auto", "csv"):
        raise TraceError(f"{path}: a column mapping reads a CSV file; it cannot be given with format '{format}'")
    if columns is None and write_flag is not None:
        raise TraceError(f"{path}: write_flag (--write-flag) goes with a column mapping (--columns ... op=COLUMN)")


def batches_of(format: str, path: str):
    """A binary trace's records in batches (``format`` one of :data:`BATCHED`)."""
    if format == "parquet":
        from .readers.parquet import iter_parquet_batches

        return iter_parquet_batches(path)
    from .readers.hp_srt import iter_srt_batches

    return iter_srt_batches(path)


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
    if isinstance(stream, str) and not stream.isdigit():
        raise IdlewiseError(f"{path}: a device name ('{stream}') selects a device of a diskstats or biosnoop file; "
                            f"pick a {format} trace's device by its number")
    return format, mapping


def engine_format(format: str, path: str, mapping: dict | None, write_flag) -> str:
    """What the engine's text reader is told to read: ``format``, or a mapped CSV's mapping."""
    if not mapping:
        return format
    from .readers.mapped_csv import mapped_spec

    return mapped_spec(path, mapping, write_flag)
