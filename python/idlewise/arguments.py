"""Whole numbers a user gives (a device number, a thread count, a seed), checked where they enter
so that a value the engine cannot hold is an error naming the option and the limit, never an
OverflowError from deep inside. The limits are documented here and in the messages."""

from __future__ import annotations

import numbers as _numbers  # the standard library's

from .errors import IdlewiseError

#: Device numbers are the engine's 64-bit signed integers (glibc's makedev fits below 2^63).
DEVICE_NUMBER_MAX = 2**63 - 1
#: Threads of one call: more than any machine has cores, far fewer than the OS would start.
THREADS_MAX = 1024
#: Parts a sweep splits a trace's volumes into: each part reads the whole file again, so more
#: parts than a cluster has workers only repeat reads.
VOLUME_PARTS_MAX = 1024
#: Seeds are the engine's unsigned 64-bit integers.
SEED_MAX = 2**64 - 1


def whole(value, what: str, low: int, high: int) -> int:
    """``value`` as an int from ``low`` to ``high``, or an IdlewiseError naming ``what``."""
    subject = f"{what} must" if what else "must"
    if isinstance(value, bool) or not isinstance(value, (_numbers.Integral, str)):
        raise IdlewiseError(f"{subject} be a whole number from {low:,} to {high:,}, got {value!r}")
    try:
        number = int(value)
    except ValueError:
        raise IdlewiseError(f"{subject} be a whole number from {low:,} to {high:,}, got {value!r}") from None
    if not low <= number <= high:
        raise IdlewiseError(f"{subject} be from {low:,} to {high:,}, got {_shown(number)}")
    return number


def device_number(value, what: str = "stream") -> int:
    """A device's number (``--stream K``, ``stream:K``, ``stream=K``)."""
    return whole(value, what, -DEVICE_NUMBER_MAX - 1, DEVICE_NUMBER_MAX)


def thread_count(value, what: str = "threads") -> int:
    return whole(value, what, 1, THREADS_MAX)


def seed(value, what: str = "seed") -> int:
    return whole(value, what, 0, SEED_MAX)


def _shown(number: int) -> str:
    """A number as a person reads it: digits in full up to 30 of them, else its magnitude."""
    text = f"{number:,}"
    return text if len(text) <= 40 else f"a number of {len(str(abs(number)))} digits"


__all__ = ["DEVICE_NUMBER_MAX", "SEED_MAX", "THREADS_MAX", "VOLUME_PARTS_MAX", "device_number", "seed", "thread_count", "whole"]
