"""Shared machinery of the line-oriented readers: a fast pyarrow parse, and, when pyarrow refuses a
file, a line-by-line pass that names the first bad line and field.

Each format describes its fields as :class:`Field` (name, Arrow type, a Python check used only for
diagnosis, and what was expected); the readers then turn the Arrow table into trace columns.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ...errors import TraceError


@dataclass(frozen=True)
class Field:
    name: str
    type: pa.DataType
    check: Callable[[str], object]
    expected: str


def integer(text: str) -> int:
    return int(text)


def number(text: str) -> float:
    return float(text)


def one_of(*allowed: str) -> Callable[[str], str]:
    def check(text: str) -> str:
        if text not in allowed:
            raise ValueError(text)
        return text
    return check


def require(path: str, ok, values, field: str, expected: str) -> None:
    """Raises a TraceError naming the first record where ``ok`` is false (line = record + 1:
    the formats that use this have no header)."""
    if not np.all(ok):
        i = int(np.argmax(~np.asarray(ok)))
        value = values[i]
        value = value.as_py() if hasattr(value, "as_py") else value
        raise TraceError(f"{path}: line {i + 1}, field '{field}': expected {expected}, got {value!r}")


def head_bytes(path: str, n: int = 65536) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError as e:
        raise TraceError(f"{path}: cannot read: {e.strerror}") from None


def refuse_binary(path: str, head: bytes, format_name: str) -> None:
    if b"\x00" in head:
        raise TraceError(f"{path}: this is a binary file, not a {format_name} text trace")
    if not head.strip():
        raise TraceError(f"{path}: the file is empty")


def _split(line: str, delimiter: Optional[str]) -> list[str]:
    return line.split() if delimiter is None else [f.strip() for f in line.split(delimiter)]


def diagnose(path: str, delimiter: Optional[str], fields: list[Field], format_name: str, *,
             min_fields: Optional[int] = None, skip_lines: int = 0) -> Optional[str]:
    """The first line that does not fit, as a message; None when every line fits."""
    want = len(fields)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line_number, line in enumerate(f, start=1):
            if line_number <= skip_lines or not line.strip():
                continue
            parts = _split(line.rstrip("\r\n"), delimiter)
            if len(parts) < (min_fields or want) or (min_fields is None and len(parts) != want):
                return (f"{path}: line {line_number}: expected {want} fields ({' '.join(fl.name for fl in fields)}) "
                        f"for the {format_name} format, got {len(parts)}")
            for field, text in zip(fields, parts):
                try:
                    field.check(text)
                except ValueError:
                    return f"{path}: line {line_number}, field '{field.name}': expected {field.expected}, got {text!r}"
    return None


def read_table(path: str, *, delimiter: Optional[str], fields: list[Field], format_name: str,
               extra_columns: bool = False, skip_lines: int = 0) -> pa.Table:
    """Parses a headerless delimited file into an Arrow table with the fields' names and types.

    ``delimiter=None`` means runs of white space. ``extra_columns`` allows trailing fields beyond
    the described ones (they are dropped). Malformed input raises :class:`TraceError` naming the
    line and field.
    """
    path = os.fspath(path)
    head = head_bytes(path)
    refuse_binary(path, head, format_name)
    first = head.decode("utf-8", "replace").splitlines()[skip_lines] if len(head.splitlines()) > skip_lines else ""
    if delimiter is None:
        fast_delimiter = "\t" if "\t" in first else " "
        width = len(first.split())
    else:
        fast_delimiter = delimiter
        width = len(first.split(delimiter))
    names = [f.name for f in fields] + [f"extra_{i}" for i in range(max(0, width - len(fields)))]
    if width > len(fields) and not extra_columns:
        names = names[: len(fields)]
    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=skip_lines),
            parse_options=pacsv.ParseOptions(delimiter=fast_delimiter, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                column_types={f.name: f.type for f in fields}, include_columns=[f.name for f in fields],
                null_values=[], strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError) as e:
        message = diagnose(path, delimiter, fields, format_name, min_fields=len(fields) if extra_columns else None,
                           skip_lines=skip_lines)
        if message:
            raise TraceError(message) from None
        if delimiter is None:
            return _slow_whitespace(path, fields, skip_lines)
        raise TraceError(f"{path}: not a valid {format_name} trace: {e}") from None
    return table


def _slow_whitespace(path: str, fields: list[Field], skip_lines: int) -> pa.Table:
    """Mixed runs of spaces and tabs, which pyarrow's single-character delimiter cannot split:
    parse in Python (the lines have been checked already)."""
    columns: list[list] = [[] for _ in fields]
    with open(path, encoding="utf-8", errors="replace") as f:
        for line_number, line in enumerate(f, start=1):
            if line_number <= skip_lines or not line.strip():
                continue
            for column, field, text in zip(columns, fields, line.split()):
                column.append(field.check(text))
    return pa.table({f.name: pa.array(c, type=f.type) for f, c in zip(fields, columns)})
