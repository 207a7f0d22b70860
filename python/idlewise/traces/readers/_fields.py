"""Fields of the line-oriented formats read in Python (diskstats recordings, biosnoop output):
strict ASCII numbers, as the engine's readers take them (no ``inf``, ``1_000`` or full-width
digits), and errors naming the file, line and field."""

from __future__ import annotations

import re

from ...errors import TraceError

_DECIMAL = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", re.ASCII)


def whole_number(text: str, path: str, line: int, field: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise TraceError(f"{path}: line {line}, field '{field}': expected a whole number, got {text!r}")
    value = int(text)
    if value >= 1 << 63:  # every column is 64-bit, as the engine's readers refuse beyond it too
        raise TraceError(f"{path}: line {line}, field '{field}': expected a whole number of at most "
                         f"{(1 << 63) - 1:,} (2^63 - 1: the columns are signed 64-bit), got {text}")
    return value


def non_negative(text: str, path: str, line: int, field: str, expected: str = "a non-negative number") -> float:
    if _DECIMAL.fullmatch(text) is None:
        raise TraceError(f"{path}: line {line}, field '{field}': expected {expected}, got {text!r}")
    return float(text)


__all__ = ["non_negative", "whole_number"]
