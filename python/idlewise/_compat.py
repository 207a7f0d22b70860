"""What the oldest Python idlewise supports (3.9) lacks, with one home for each stand-in."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 10):
    def zip_exact(*iterables):
        """``zip(..., strict=True)``: pairs, and a ValueError if the lengths differ."""
        return zip(*iterables, strict=True)
else:
    def zip_exact(*iterables):
        """``zip(..., strict=True)``: pairs, and a ValueError if the lengths differ."""
        lists = [list(i) for i in iterables]
        if len({len(items) for items in lists}) > 1:
            raise ValueError("zip_exact() arguments have different lengths")
        return zip(*lists)

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib

__all__ = ["tomllib", "zip_exact"]
