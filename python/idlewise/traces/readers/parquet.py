"""Parquet, the native format: columns ``time_s`` (double), ``offset_bytes`` (int64),
``size_bytes`` (int64), ``is_write`` (bool) and, for multi-device traces, ``stream`` (int64).
Writing then reading gives identical columns."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq

from ...errors import TraceError
from ..trace import Trace

SCHEMA = {"time_s": pa.float64(), "offset_bytes": pa.int64(), "size_bytes": pa.int64(), "is_write": pa.bool_()}


def write_parquet(trace: Trace, path) -> None:
    columns = {"time_s": trace.time_s, "offset_bytes": trace.offset_bytes, "size_bytes": trace.size_bytes,
               "is_write": trace.is_write.astype(bool)}
    if trace.stream is not None:
        columns["stream"] = trace.stream
    table = pa.table(columns).replace_schema_metadata({"idlewise.name": trace.name, "idlewise.source_format": trace.format})
    pq.write_table(table, os.fspath(path))


def read_parquet(path, *, sort: bool = False, name: str | None = None) -> Trace:
    path = os.fspath(path)
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as e:
        raise TraceError(f"{path}: not a readable Parquet file: {e}") from None
    missing = [c for c in SCHEMA if c not in table.column_names]
    if missing:
        raise TraceError(f"{path}: Parquet trace is missing column(s) {', '.join(missing)}; "
                         f"expected {', '.join(SCHEMA)} (and optionally stream)")
    for column, kind in SCHEMA.items():
        if table.column(column).null_count:
            raise TraceError(f"{path}: column '{column}' has {table.column(column).null_count} null values")
        try:
            table = table.set_column(table.column_names.index(column), column, table.column(column).cast(kind))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise TraceError(f"{path}: column '{column}' cannot be read as {kind}: {e}") from None
    meta = table.schema.metadata or {}
    stored_name = meta.get(b"idlewise.name", b"").decode() or os.path.basename(path)
    return Trace.from_arrays(
        table.column("time_s").to_numpy(), table.column("size_bytes").to_numpy(),
        offset_bytes=table.column("offset_bytes").to_numpy(), is_write=table.column("is_write").to_numpy(zero_copy_only=False),
        stream=table.column("stream").to_numpy() if "stream" in table.column_names else None,
        name=name or stored_name, path=path, lines=None, sort=sort, format="parquet")


