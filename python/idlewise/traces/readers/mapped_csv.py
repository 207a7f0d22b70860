"""CSV traces with their own column names and spellings: ``--columns
time_ms=ts,size_bytes=len,op=rw`` names which column holds what, in which unit; the operation
may be spelled ``R``/``W``, ``read``/``write`` (any case) or a 0/1 flag (``--write-flag``
says which value is a write); the offset may be left out (every request at offset 0).

The engine parses the file (``readers/mapped_csv.rs``) as it parses the simple CSV, streamed or
whole, in one pass over the bytes: this module spells the mapping for it (:func:`mapped_spec`)
and sniffs the header's delimiter. A value that is not a plain ASCII number, or an operation
spelled otherwise than the first record's, is reported with its line and column."""

from __future__ import annotations

import json
import os

from ...errors import TraceError
from ..trace import Trace
from ._text import read_text_trace

#: What a mapping may name: key -> (quantity, scale to the trace's unit).
KEYS = {
    # Without a unit, seconds and bytes (the issue's own spelling, --columns time=ts,size=bytes).
    "time": ("time", 1.0), "size": ("size", 1), "offset": ("offset", 1),
    "time_s": ("time", 1.0), "time_ms": ("time", 1e-3), "time_us": ("time", 1e-6), "time_ns": ("time", 1e-9),
    "size_bytes": ("size", 1), "size_sectors": ("size", 512), "size_kib": ("size", 1024),
    "offset_bytes": ("offset", 1), "offset_sectors": ("offset", 512), "offset_kib": ("offset", 1024),
    "op": ("op", None), "stream": ("stream", None),
}


def parse_columns(text: str) -> dict[str, str]:
    """``time_ms=ts,size_bytes=len,op=rw`` -> {key: CSV column}; needs a time, a size and an op."""
    mapping: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, column = item.partition("=")
        key, column = key.strip(), column.strip()
        if not eq or not column:
            raise TraceError(f"--columns: '{item}' must be KEY=COLUMN, e.g. time_ms=ts")
        if key not in KEYS:
            raise TraceError(f"--columns: unknown key '{key}'; known: {', '.join(KEYS)}")
        quantity = KEYS[key][0]
        clash = next((k for k in mapping if KEYS[k][0] == quantity), None)
        if clash:
            raise TraceError(f"--columns: '{key}' and '{clash}' both give the {quantity}; keep one")
        mapping[key] = column
    missing = [q for q in ("time", "size", "op") if not any(KEYS[k][0] == q for k in mapping)]
    if missing:
        examples = {"time": "time=... (seconds), time_ms=..., time_us=... or time_ns=...", "size": "size=... (bytes) or size_sectors=...",
                    "op": "op=..."}
        raise TraceError(f"--columns: no {' and no '.join(missing)} column; name it with " + "; ".join(examples[m] for m in missing))
    return mapping


def _header(path: str, delimiter: str | None) -> tuple[str, str, list[str]]:
    """The header line, its delimiter (given, or sniffed by the standard library among comma,
    semicolon, tab and bar) and its column names."""
    import csv

    import io

    from ..inputs import open_input

    if not os.path.exists(path) and path != "-":
        raise TraceError(f"{path}: no such file")
    with io.TextIOWrapper(open_input(path), encoding="utf-8", errors="replace", newline="") as f:
        line = f.readline()
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(line, delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    names = next(csv.reader([line], delimiter=delimiter), [])
    return line.strip(), delimiter, names


def _mapping(columns, write_flag) -> tuple[dict, str | None]:
    mapping = parse_columns(columns) if isinstance(columns, str) else parse_columns(",".join(f"{k}={v}" for k, v in columns.items()))
    if write_flag is not None and str(write_flag) not in ("0", "1"):
        raise TraceError(f"write_flag must be 0 or 1, got {write_flag!r}")
    return mapping, None if write_flag is None else str(write_flag)


def mapped_format(mapping: dict) -> str:
    """How a read report names a mapped CSV."""
    return "csv (mapped: " + ",".join(f"{k}={v}" for k, v in mapping.items()) + ")"


def mapped_spec(path: str | os.PathLike, mapping: dict, write_flag: str | int | None = None, delimiter: str | None = None) -> str:
    """The engine's name for this file read through ``mapping`` (checked by :func:`parse_columns`):
    the columns with their units in seconds and bytes, the write flag and the header's delimiter,
    as JSON after ``mapped-csv:``. The engine reads it as it reads every text format: one pass
    over the bytes, streamed or whole, errors naming the line and column."""
    _, delimiter, _ = _header(os.fspath(path), delimiter)
    column = {quantity: (key, mapping[key]) for key in mapping for quantity in [KEYS[key][0]]}

    def scaled(quantity):
        if quantity not in column:
            return None
        key, name = column[quantity]
        return [name, KEYS[key][1]]

    return "mapped-csv:" + json.dumps({"time": scaled("time"), "size": scaled("size"), "offset": scaled("offset"),
                                       "op": mapping["op"], "stream": mapping.get("stream"),
                                       "write_flag": None if write_flag is None else str(write_flag), "delimiter": delimiter})


def iter_mapped_batches(path: str | os.PathLike, columns: dict[str, str] | str, *, write_flag: str | int | None = None,
                        delimiter: str | None = None):
    """A mapped CSV's records a chunk at a time as the engine parses them: (time_s, offset_bytes,
    size_bytes, is_write as uint8, stream or None, each record's line). Memory stays a chunk's."""
    from ... import _core

    from ..inputs import local_path

    mapping, flag = _mapping(columns, write_flag)
    path = local_path(path)
    try:
        batches = _core.TextBatches(path, mapped_spec(path, mapping, flag, delimiter))
        try:
            yield from batches
        finally:
            batches.close()
    except _core.IdlewiseError as e:
        raise TraceError(f"{path}: {e}") from None


def read_mapped_csv(path: str | os.PathLike, columns: dict[str, str] | str, *, write_flag: str | int | None = None,
                    delimiter: str | None = None, sort: bool = False, name: str | None = None) -> Trace:
    """Reads a CSV trace whose header names its own columns; ``columns`` maps idlewise's keys
    (:data:`KEYS`: ``time_ms``, ``size_bytes``, ``offset_sectors``, ``op``, ``stream``...) to
    them, as a dict or the command line's ``key=column,...``. ``write_flag``: for a 0/1
    operation column, the value that means a write. ``delimiter``: default, the header's."""
    path = os.fspath(path)
    mapping, flag = _mapping(columns, write_flag)
    return read_text_trace(path, mapped_spec(path, mapping, flag, delimiter), sort=sort, name=name,
                           shown_as=mapped_format(mapping))


__all__ = ["KEYS", "iter_mapped_batches", "mapped_format", "mapped_spec", "parse_columns", "read_mapped_csv"]
