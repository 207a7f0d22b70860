"""CSV traces with their own column names and spellings: ``--columns
time_ms=ts,size_bytes=len,op=rw`` names which column holds what, in which unit; the operation
may be spelled ``R``/``W``, ``read``/``write`` (any case) or a 0/1 flag (``--write-flag``
says which value is a write); the offset may be left out (every request at offset 0).

pyarrow's CSV reader streams the named columns as text, a block at a time (any other columns
are never converted); each block's columns are converted at once and kept as the trace's
compact columns (25 bytes a request), so memory is the trace's, not its text's. A value that is
not a plain ASCII number is reported with its line and column, as the engine's readers do."""

from __future__ import annotations

import os
import re

import numpy as np

from ...errors import TraceError
from ..trace import LineNumbers, Trace

#: What a mapping may name: key -> (quantity, scale to the trace's unit).
KEYS = {
    # Without a unit, seconds and bytes (the issue's own spelling, --columns time=ts,size=bytes).
    "time": ("time", 1.0), "size": ("size", 1), "offset": ("offset", 1),
    "time_s": ("time", 1.0), "time_ms": ("time", 1e-3), "time_us": ("time", 1e-6), "time_ns": ("time", 1e-9),
    "size_bytes": ("size", 1), "size_sectors": ("size", 512), "size_kib": ("size", 1024),
    "offset_bytes": ("offset", 1), "offset_sectors": ("offset", 512), "offset_kib": ("offset", 1024),
    "op": ("op", None), "stream": ("stream", None),
}
READ_WORDS = frozenset({"r", "read", "rd"})
WRITE_WORDS = frozenset({"w", "write", "wr"})
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?", re.ASCII)
_WHOLE = re.compile(r"[0-9]+", re.ASCII)


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


def _numbers(values, path: str, column: str, whole: bool, first_line: int = 2) -> np.ndarray:
    """A text column to numbers in one cast (Arrow's, in C++); when that fails, or a value is
    negative or not finite, the first value that is not a plain ASCII number (no sign,
    ``inf``, ``0x``, ``1_000``) is an error naming its line (the header is line 1)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        out = pc.cast(pc.utf8_trim_whitespace(values), pa.int64() if whole else pa.float64()).to_numpy().astype(np.float64)
        fine = np.isfinite(out) & (out >= 0)
    except pa.ArrowInvalid:
        out, fine = None, None
    if fine is None or not fine.all():
        pattern = _WHOLE if whole else _DECIMAL
        text = values.to_pylist()
        bad = next((i for i, v in enumerate(text) if pattern.fullmatch(v.strip()) is None or (fine is not None and not fine[i])), None)
        if bad is not None:
            expected = "a whole non-negative number" if whole else "a non-negative number"
            raise TraceError(f"{path}: line {bad + first_line}, column '{column}': expected {expected}, got {text[bad]!r}")
        # Every value is written as a number: the cast failed on one beyond 64 bits.
        bad = next(i for i, v in enumerate(text) if int(v) >= 2 ** 53)
        raise TraceError(f"{path}: line {bad + first_line}, column '{column}': {text[bad].strip()} is too large for a byte count")
    if whole and len(out) and out.max() >= 2.0 ** 53:
        bad = int(np.argmax(out >= 2.0 ** 53))
        raise TraceError(f"{path}: line {bad + first_line}, column '{column}': {values[bad].as_py().strip()} is too large for a byte count")
    return out


def _ops(values, path: str, column: str, write_flag: str | None, first_line: int = 2, flags: bool | None = None):
    """Write flags of a block's operation column, and whether the column holds 0/1 flags (as
    the first block decided: ``flags``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    words = pc.utf8_lower(pc.utf8_trim_whitespace(values))
    if flags is None:
        flags = set(pc.unique(words).to_pylist()) <= {"0", "1"}
    if flags:
        if write_flag is None:
            raise TraceError(f"{path}: column '{column}' holds 0/1 flags; say which value is a write with --write-flag 1 "
                             "(or --write-flag 0; Python: write_flag='1')")
        known = pc.is_in(words, value_set=pa.array(["0", "1"]))
        is_write = pc.equal(words, str(write_flag))
    else:
        is_write = pc.is_in(words, value_set=pa.array(sorted(WRITE_WORDS)))
        known = pc.or_(is_write, pc.is_in(words, value_set=pa.array(sorted(READ_WORDS))))
    known = known.to_numpy(zero_copy_only=False)
    if not known.all():
        bad = int(np.argmin(known))
        expected = "a 0/1 flag, as the lines before" if flags else "R/W, read/write or a 0/1 flag"
        raise TraceError(f"{path}: line {bad + first_line}, column '{column}': expected {expected}, got {values[bad].as_py()!r}")
    return is_write.to_numpy(zero_copy_only=False), flags


def _header(path: str, delimiter: str | None) -> tuple[str, str, list[str]]:
    """The header line, its delimiter (given, or sniffed by the standard library among comma,
    semicolon, tab and bar) and its column names."""
    import csv

    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            line = f.readline()
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except OSError as e:
        raise TraceError(f"{path}: cannot read: {e.strerror}") from None
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


def iter_mapped_batches(path: str | os.PathLike, columns: dict[str, str] | str, *, write_flag: str | int | None = None,
                        delimiter: str | None = None):
    """A mapped CSV's records a block at a time, converted: (time_s, offset_bytes or None,
    size_bytes, is_write as uint8, stream or None, the block's first line). Memory stays a
    block's; a trace read whole or replayed as read (:func:`idlewise.simulate_file`) comes from
    here."""
    mapping, flag = _mapping(columns, write_flag)
    return _mapped_batches(os.fspath(path), mapping, flag, delimiter)


def _mapped_batches(path: str, mapping: dict, flag: str | None, delimiter: str | None):
    """:func:`iter_mapped_batches` of a mapping already parsed and checked."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    wanted = list(dict.fromkeys(mapping.values()))
    header, delimiter, names = _header(path, delimiter)
    absent = [c for c in wanted if c not in names]
    if absent:
        raise TraceError(f"{path}: line 1: no column named {', '.join(repr(c) for c in absent)} (the header is {header!r})")
    try:
        reader = pacsv.open_csv(path, parse_options=pacsv.ParseOptions(delimiter=delimiter),
                                read_options=pacsv.ReadOptions(block_size=1 << 20),
                                convert_options=pacsv.ConvertOptions(include_columns=wanted,
                                                                     column_types={c: pa.string() for c in wanted}))
    except pa.ArrowInvalid as e:
        raise TraceError(f"{path}: not a CSV file idlewise can read ({e})") from None
    time_key = next(k for k in mapping if KEYS[k][0] == "time")
    size_key = next(k for k in mapping if KEYS[k][0] == "size")
    offset_key = next((k for k in mapping if KEYS[k][0] == "offset"), None)
    rows, flags = 0, None
    try:
        for batch in reader:
            # Read as text, an empty field is "" (not null) and fails as a number below.
            text = {key: batch.column(batch.schema.get_field_index(column)) for key, column in mapping.items()}
            first_line = rows + 2  # the header is line 1
            time_s = _numbers(text[time_key], path, mapping[time_key], False, first_line) * KEYS[time_key][1]
            size = (_numbers(text[size_key], path, mapping[size_key], True, first_line) * KEYS[size_key][1]).astype(np.int64)
            offset = None if offset_key is None else \
                (_numbers(text[offset_key], path, mapping[offset_key], True, first_line) * KEYS[offset_key][1]).astype(np.int64)
            is_write, flags = _ops(text["op"], path, mapping["op"], flag, first_line, flags)
            stream = None if "stream" not in mapping else \
                _numbers(text["stream"], path, mapping["stream"], True, first_line).astype(np.int64)
            rows += batch.num_rows
            yield time_s, offset, size, is_write.astype(np.uint8), stream, first_line
    except pa.ArrowInvalid as e:
        raise TraceError(f"{path}: not a CSV file idlewise can read ({e})") from None
    if rows == 0:
        raise TraceError(f"{path}: no records after the header")


def read_mapped_csv(path: str | os.PathLike, columns: dict[str, str] | str, *, write_flag: str | int | None = None,
                    delimiter: str | None = None, sort: bool = False, name: str | None = None) -> Trace:
    """Reads a CSV trace whose header names its own columns; ``columns`` maps idlewise's keys
    (:data:`KEYS`: ``time_ms``, ``size_bytes``, ``offset_sectors``, ``op``, ``stream``...) to
    them, as a dict or the command line's ``key=column,...``. ``write_flag``: for a 0/1
    operation column, the value that means a write. ``delimiter``: default, the header's."""
    path = os.fspath(path)
    mapping, _ = _mapping(columns, write_flag)
    parts = list(zip(*_mapped_batches(path, mapping, write_flag, delimiter)))
    time_s, offset, size, is_write, stream, _ = parts
    rows = sum(len(t) for t in time_s)
    return Trace.from_arrays(np.concatenate(time_s), np.concatenate(size),
                             offset_bytes=None if offset[0] is None else np.concatenate(offset),
                             is_write=np.concatenate(is_write).astype(bool), name=name or os.path.basename(path), sort=sort,
                             path=path, lines=LineNumbers(1, np.ones(rows, dtype=np.uint8)),  # record i is line i + 2
                             stream=None if stream[0] is None else np.concatenate(stream), records_read=rows,
                             format=mapped_format(mapping))

__all__ = ["KEYS", "iter_mapped_batches", "mapped_format", "parse_columns", "read_mapped_csv"]
