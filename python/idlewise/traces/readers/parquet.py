"""Parquet, the native format: columns ``time_s`` (double seconds, or Arrow timestamps or
durations: :mod:`..times`), ``offset_bytes`` (int64), ``size_bytes`` (int64), ``is_write`` (bool)
and, for multi-device traces, ``stream`` (int64).
Writing then reading gives identical columns, and keeps in the file's metadata what else a replay
depends on: the devices' names (``idlewise.stream_names``, JSON) and a recording's end
(``idlewise.end_time_s``: a diskstats recording's idle after its last request)."""

from __future__ import annotations

import os

from ..._extras import need
from ...errors import TraceError, shown
from ..trace import Trace
from ..inputs import trace_name

#: The Parquet metadata key of a recording's wall-clock start (the Unix time of time 0).
START_KEY = "idlewise.start_unix_s"

#: The columns and their Arrow types (named, so Arrow loads only when a Parquet file is used).
SCHEMA = {"time_s": "float64", "offset_bytes": "int64", "size_bytes": "int64", "is_write": "bool_"}


def write_parquet(trace: Trace, path) -> None:
    """Writes a trace to Parquet, whole or not at all.

    Parameters
    ----------
    trace : Trace
        The requests; a multi-device trace keeps its ``stream`` column.
    path : str or os.PathLike
        The file to write (``*.parquet``).

    Notes
    -----
    The columns are ``time_s``, ``offset_bytes``, ``size_bytes``, ``is_write`` (and ``stream``);
    the schema's metadata keeps what a replay needs beyond them: the trace's name and source
    format, its device names (``idlewise.stream_names``) and a recording's end and wall-clock
    start (``idlewise.end_time_s``, ``idlewise.start_unix_s``), so a converted diskstats
    recording replays, and is described, as its source is.
    """
    need("parquet", f"{os.fspath(path)}: writing a Parquet trace")
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {"time_s": trace.time_s, "offset_bytes": trace.offset_bytes, "size_bytes": trace.size_bytes,
               "is_write": trace.is_write.astype(bool)}
    if trace.stream is not None:
        columns["stream"] = trace.stream
    table = pa.table(columns).replace_schema_metadata(metadata_of(trace.name, trace.format, trace.stream_names, trace.end_time_s,
                                                                  trace.skipped, trace.start_unix_s))
    from ...output import written_whole

    with written_whole(os.fspath(path)) as temporary:
        pq.write_table(table, temporary)


#: The file-footer key of what the source's reader skipped, {why: count} as JSON.
SKIPPED_KEY = b"idlewise.skipped"


def skipped_metadata(skipped: dict) -> dict:
    """The metadata that keeps what the source's reader skipped (a blkparse file's summary
    lines), so that the converted file reports it as its source did."""
    import json

    return {SKIPPED_KEY.decode(): json.dumps({str(k): int(v) for k, v in skipped.items()})} if skipped else {}


def skipped_at_source(path) -> dict:
    """What the reader of the file a Parquet trace was converted from skipped, {why: count}
    (empty for a file written otherwise)."""
    return _skipped_kept(os.fspath(path), _open(os.fspath(path)))


def _skipped_kept(path: str, file) -> dict:
    import json

    meta = file.metadata.metadata or {}
    if SKIPPED_KEY not in meta:
        return {}
    try:
        return {str(k): int(v) for k, v in json.loads(meta[SKIPPED_KEY]).items()}
    except (ValueError, TypeError, AttributeError) as e:
        raise TraceError(f"{path}: the file's idlewise metadata cannot be read ({e}); convert the trace again") from None


def metadata_of(name: str, source_format: str, stream_names=None, end_time_s=None, skipped=None,
                start_unix_s=None) -> dict:
    """The schema metadata of a trace written to Parquet: where it came from, and what a replay
    needs beyond the columns (device names, a recording's end), and what its reader skipped."""
    import json

    from ..formats import END_KEY

    metadata = {"idlewise.name": name, "idlewise.source_format": source_format, **skipped_metadata(skipped or {})}
    if stream_names:
        metadata["idlewise.stream_names"] = json.dumps({str(int(k)): v for k, v in stream_names.items()})
    if end_time_s is not None:
        metadata[END_KEY.decode()] = repr(float(end_time_s))
    if start_unix_s is not None:
        metadata[START_KEY] = repr(float(start_unix_s))
    return metadata


def _restored(path: str, meta: dict) -> dict:
    """The device names and recording end that :func:`metadata_of` kept, checked."""
    import json
    import math

    from ..formats import END_KEY

    restored = {}
    try:
        if b"idlewise.stream_names" in meta:
            names = json.loads(meta[b"idlewise.stream_names"])
            restored["stream_names"] = {int(k): str(v) for k, v in names.items()}
        for key, field in ((END_KEY, "end_time_s"), (START_KEY.encode(), "start_unix_s")):
            if key in meta:
                value = float(meta[key])
                if not math.isfinite(value):
                    raise ValueError(f"not finite: {value}")
                restored[field] = value
    except (ValueError, TypeError, AttributeError) as e:
        raise TraceError(f"{path}: the file's idlewise metadata cannot be read ({e}); convert the trace again") from None
    return restored


def _stream(path: str, table, first_record: int = 0):
    import numpy as np
    import pyarrow as pa

    if "stream" not in table.column_names:
        return None
    nulls = table.column("stream").null_count
    if nulls:
        raise TraceError(f"{path}: column 'stream' has {nulls:,} null values; every record names its device")
    try:
        streams = table.column("stream").cast(pa.int64()).to_numpy()
    except (pa.ArrowException, ValueError) as e:
        raise TraceError(f"{path}: column 'stream' cannot be read as int64: {e}") from None
    negative = np.flatnonzero(streams < 0)
    if len(negative):  # as every reader: a device's number is 0 or more
        i = int(negative[0])
        raise TraceError(f"{path}: record {first_record + i}, field 'stream': expected a device number (0 or more), got {int(streams[i])}")
    return streams


def _check_count(path: str, records: int, file) -> None:
    """Every record the file's footer counts was read: a file cut or rewritten while it was read,
    or one whose pages a corruption emptied, is refused, never replayed as the part that was there."""
    expected = file.metadata.num_rows
    if records != expected:
        raise TraceError(f"{path}: read {records:,} records where the file's footer counts {expected:,}: "
                         "the file is corrupted or changed while it was read (cut, or still being written)")


def _open(path: str, streaming: bool = False):
    need("parquet", f"{path}: a Parquet trace")
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..inputs import local_path

    path = local_path(path, seekable=True, format="parquet")  # Parquet seeks: a compressed or piped file is copied plain
    # Read batch by batch, Arrow's defaults pre-buffer whole row groups' pages and keep them:
    # 350 MB held for a 280 MB file. Unbuffered 1 MiB reads hold a batch's worth.
    options = {"pre_buffer": False, "buffer_size": 1 << 20} if streaming else {}
    try:
        file = pq.ParquetFile(path, **options)
        names = file.schema_arrow.names  # a corrupted footer can hold names that are not UTF-8
    except (pa.ArrowException, OSError, ValueError) as e:  # UnicodeDecodeError is a ValueError
        raise TraceError(f"{path}: not a readable Parquet file: {e}") from None
    missing = [c for c in SCHEMA if c not in names]
    if missing:
        raise TraceError(f"{path}: Parquet trace is missing column(s) {', '.join(missing)}; "
                         f"expected {', '.join(SCHEMA)} (and optionally stream)")
    return file


def _checked(path: str, table, first_record: int = 0, dates: dict | None = None):
    """The trace columns of ``table`` (a whole file's, or one record batch's) cast to their types,
    with errors that name the column (and the record, counted from ``first_record``). A
    ``time_s`` of Arrow timestamps or durations is made seconds (:mod:`..times`); timestamps
    from the tick ``dates["origin"]`` (the table's earliest where it is None), which is set,
    with ``dates["start_unix_s"]``, on the first batch."""
    import pyarrow as pa

    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    times = table.column("time_s")
    if pa.types.is_timestamp(times.type) or pa.types.is_duration(times.type):
        from ..times import seconds_of

        dates = {} if dates is None else dates
        try:
            ticks = times.to_numpy()  # datetime64 / timedelta64 in the column's unit (a null: NaT)
        except (pa.ArrowException, ValueError) as e:
            raise TraceError(f"{path}: column 'time_s' cannot be read as times: {e}") from None
        seconds, start, origin = seconds_of(ticks, "earliest" if dates.get("origin") is None else dates["origin"],
                                            where=f"{path}: ", first_record=first_record)
        if origin is not None and "start_unix_s" not in dates:
            dates.update(origin=origin, start_unix_s=start)
        table = table.set_column(table.column_names.index("time_s"), "time_s", pa.array(seconds, pa.float64()))
    for column, kind_name in SCHEMA.items():
        kind = getattr(pa, kind_name)()
        if column == "is_write" and not pa.types.is_boolean(table.column(column).type):
            values = table.column(column)
            try:
                flags = values.to_numpy(zero_copy_only=False)
                bad = ~((flags == 0) | (flags == 1))
            except (pa.ArrowException, TypeError, ValueError):
                raise TraceError(f"{path}: column 'is_write' must be booleans or 0/1, got {values.type}") from None
            if bad.any():
                i = int(bad.argmax())
                raise TraceError(f"{path}: record {first_record + i}, field 'is_write': expected 0 (read) or 1 (write), "
                                 f"got {shown(flags[i])}")
        if table.column(column).null_count:
            raise TraceError(f"{path}: column '{column}' has {table.column(column).null_count} null values")
        try:
            table = table.set_column(table.column_names.index(column), column, table.column(column).cast(kind))
        except (pa.ArrowException, ValueError) as e:
            raise TraceError(f"{path}: column '{column}' cannot be read as {kind}: {e}") from None
    return table


def read_parquet(path, *, sort: bool = False, name: str | None = None) -> Trace:
    import pyarrow as pa

    path = os.fspath(path)
    file = _open(path)
    try:
        table = file.read()
    except (pa.ArrowException, OSError, ValueError) as e:
        raise TraceError(f"{path}: not a readable Parquet file: {e}") from None
    _check_count(path, table.num_rows, file)
    dates: dict = {}
    table = _checked(path, table, dates=dates)
    # The trace is this file; a conversion's origin (idlewise trace convert msr.csv msr.parquet)
    # is said in the read report, not taken as the name.
    # (What is known only once a file is read, as a streamed conversion's end, is in its footer.)
    meta = {**(file.metadata.metadata or {}), **(table.schema.metadata or {})}
    origin = meta.get(b"idlewise.name", b"").decode("utf-8", "replace")
    source_format = meta.get(b"idlewise.source_format", b"").decode("utf-8", "replace")
    described = "parquet" + (f" (converted from {origin}" + (f", {source_format}" if source_format else "") + ")" if origin else "")
    skipped = _skipped_kept(path, file)
    return Trace.from_arrays(
        table.column("time_s").to_numpy(), table.column("size_bytes").to_numpy(),
        offset_bytes=table.column("offset_bytes").to_numpy(), is_write=table.column("is_write").to_numpy(zero_copy_only=False),
        stream=_stream(path, table),
        name=name or trace_name(path), path=path, lines=None, sort=sort, format=described, skipped=skipped,
        **{**_restored(path, meta), **({"start_unix_s": dates["start_unix_s"]} if "start_unix_s" in dates else {})})


#: Records a batch when a Parquet trace is replayed as it is read (about 8 MB of columns). Reading
#: holds several copies of a batch at once (Arrow's, its cast, NumPy's): batches of 1M records
#: held 210 MB beyond the interpreter; these, 160 MB, with no change in speed measured
#: (`benchmarks/parquet_stream.py`).
BATCH_RECORDS = 1 << 18


def recording_of(path) -> dict:
    """What a Parquet trace converted from a recording keeps of it: ``stream_names``, its
    ``end_time_s`` and ``start_unix_s`` (None where it was no recording), from the schema's
    metadata or the footer's."""
    file = _open(os.fspath(path))
    meta = {**(file.metadata.metadata or {}), **(file.schema_arrow.metadata or {})}
    restored = _restored(os.fspath(path), meta)
    return {"stream_names": restored.get("stream_names", {}), "end_time_s": restored.get("end_time_s"),
            "start_unix_s": restored.get("start_unix_s")}


def _earliest_date(path: str, file, batch_records: int):
    """The earliest tick of a ``time_s`` of timestamps (None for any other), read a batch of the
    one column at a time: a streamed read's times are then those of the file read whole, though
    a file of many devices is in time order only device by device."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_timestamp(file.schema_arrow.field("time_s").type):
        return None
    earliest = None
    try:
        for batch in file.iter_batches(batch_size=batch_records, columns=["time_s"]):
            least = pc.min(batch.column(0)).cast(pa.int64()).as_py()
            earliest = least if earliest is None or (least is not None and least < earliest) else earliest
    except (pa.ArrowException, OSError) as e:
        raise TraceError(f"{path}: not a readable Parquet file: {e}") from None
    return earliest


def iter_parquet_batches(path, batch_records: int | None = None, dates: dict | None = None):
    """A Parquet trace's records in batches, as NumPy columns (time_s, offset_bytes, size_bytes,
    is_write as uint8, stream or None), read one batch at a time: memory stays a batch's. Dates
    in ``time_s`` are made times from the earliest (read first, a column at a time), which
    ``dates`` (a dict) is given as ``start_unix_s`` once the first batch is read."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    path = os.fspath(path)
    file = _open(path, streaming=True)
    columns = [*SCHEMA, *(["stream"] if "stream" in file.schema_arrow.names else [])]
    first = 0
    dates = {} if dates is None else dates
    dates["origin"] = _earliest_date(path, file, batch_records or BATCH_RECORDS)
    try:
        for batch in file.iter_batches(batch_size=batch_records or BATCH_RECORDS, columns=columns):
            table = _checked(path, batch, first, dates)
            yield (np.ascontiguousarray(table.column("time_s").to_numpy()),
                   np.ascontiguousarray(table.column("offset_bytes").to_numpy()),
                   np.ascontiguousarray(table.column("size_bytes").to_numpy()),
                   # Arrow unpacks the bits straight to bytes (a third of NumPy's bool-then-cast).
                   np.ascontiguousarray(pc.cast(table.column("is_write"), pa.uint8()).to_numpy()),
                   _stream(path, table, first))
            first += batch.num_rows
    except (pa.ArrowException, OSError) as e:
        raise TraceError(f"{path}: not a readable Parquet file: {e}") from None
    _check_count(path, first, file)
