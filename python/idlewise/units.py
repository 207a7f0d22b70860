"""Durations with units at the Python edge (the engine has its own parser for policy specs)."""

import re

_SCALE = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def parse_duration_s(text: str) -> float:
    """``'500ms'`` -> 0.5; units are required (us, ms, s, min, h)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-z]+)\s*", text)
    if not m:
        raise ValueError(f"'{text}' is not a duration with a unit (e.g. 2s, 500ms, 1min)")
    if m.group(2) not in _SCALE:
        raise ValueError(f"unknown time unit '{m.group(2)}' in '{text}'; expected one of {', '.join(_SCALE)}")
    return float(m.group(1)) * _SCALE[m.group(2)]
