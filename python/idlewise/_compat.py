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


def __getattr__(name: str):
    # The TOML parser on first use (PEP 562): only identifying a device reads TOML in Python,
    # and its import (with datetime's) was 3-4 ms of every command's start-up.
    if name == "tomllib":
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # the same parser, before it joined the standard library
            import tomli as tomllib
        globals()["tomllib"] = tomllib
        return tomllib
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["tomllib", "zip_exact"]
