"""The project's simple CSV format: a header ``time_s,offset_bytes,size_bytes,op`` (any column
order) and one request per line, ``op`` being ``R`` or ``W``.

Parsing is pyarrow's. When pyarrow refuses a file, a line-by-line pass finds the first bad line
and field so the error can say exactly where and what was expected.
"""

from __future__ import annotations

import csv
import os

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ...errors import TraceError
from ..trace import Trace

COLUMNS = ("time_s", "offset_bytes", "size_bytes", "op")
_TYPES = {"time_s": pa.float64(), "offset_bytes": pa.int64(), "size_bytes": pa.int64(), "op": pa.string()}


def _diagnose(path: str) -> str | None:
    """Finds the first line that does not fit the format; None if every line looks right."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            return f"{path}: the file is empty; expected the header {','.join(COLUMNS)}"
        header = [h.strip() for h in header]
        for line_number, row in enumerate(reader, start=2):
            if len(row) != len(header):
                return f"{path}: line {line_number}: expected {len(header)} fields ({','.join(header)}), got {len(row)}"
            for name, value in zip(header, row):
                value = value.strip()
                if name == "time_s":
                    try:
                        float(value)
                    except ValueError:
                        return f"{path}: line {line_number}, field 'time_s': expected a number of seconds, got {value!r}"
                elif name in ("offset_bytes", "size_bytes"):
                    try:
                        int(value)
                    except ValueError:
                        return f"{path}: line {line_number}, field '{name}': expected a whole number of bytes, got {value!r}"
                elif name == "op" and value.upper() not in ("R", "W"):
                    return f"{path}: line {line_number}, field 'op': expected 'R' or 'W', got {value!r}"
    return None


def read_csv(path: str | os.PathLike, *, sort: bool = False, name: str | None = None) -> Trace:
    """Reads a simple-CSV trace. Raises :class:`TraceError` naming the file, line and field of the
    first malformed record; times out of order are an error unless ``sort=True``."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        head = f.read(4096)
    if b"\x00" in head:
        raise TraceError(f"{path}: this is a binary file, not a CSV trace")
    if not head.strip():
        raise TraceError(f"{path}: the file is empty; expected the header {','.join(COLUMNS)}")
    header = [h.strip() for h in next(csv.reader([head.decode("utf-8", "replace").splitlines()[0]]))]
    missing = [c for c in COLUMNS if c not in header]
    unknown = [c for c in header if c not in COLUMNS]
    if missing or unknown:
        raise TraceError(
            f"{path}: line 1: header must name the columns {','.join(COLUMNS)}"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; unknown {', '.join(unknown)}" if unknown else "")
        )
    try:
        table = pacsv.read_csv(
            path,
            convert_options=pacsv.ConvertOptions(column_types=_TYPES, null_values=[], strings_can_be_null=False,
                                                quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError) as e:
        raise TraceError(_diagnose(path) or f"{path}: {e}") from None
    if table.num_rows == 0:
        raise TraceError(f"{path}: the trace has no requests (only a header)")
    for column in COLUMNS:
        if table.column(column).null_count:
            raise TraceError(_diagnose(path) or f"{path}: column '{column}' has empty values")
    ops = np.char.upper(table.column("op").to_numpy(zero_copy_only=False).astype(str))
    bad = ~np.isin(ops, ("R", "W"))
    if bad.any():
        i = int(np.argmax(bad))
        raise TraceError(f"{path}: line {i + 2}, field 'op': expected 'R' or 'W', got {ops[i]!r}")
    return Trace.from_arrays(
        table.column("time_s").to_numpy(),
        table.column("size_bytes").to_numpy(),
        offset_bytes=table.column("offset_bytes").to_numpy(),
        is_write=ops == "W",
        name=name or os.path.basename(path),
        path=path,
        lines=np.arange(2, table.num_rows + 2),
        sort=sort,
        format="csv",
    )


__all__ = ["read_csv", "COLUMNS"]
