"""Options several commands share, and the argument types with units (watts, seconds)."""

from __future__ import annotations

import argparse

from .. import _core
from ..traces.formats import FORMATS


def _watts(text: str) -> float:
    """A power with or without its unit: 1.44, 1.44W or 1440mW (the engine's parser, as in
    policy parameters such as stpm:base=1.44W)."""
    try:
        return _core.parse_power_w(text)
    except _core.IdlewiseError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _seconds(text: str) -> float:
    """A duration with its unit (2s, 500ms, 1h), as in policy specs."""
    try:
        return _core.parse_duration_s(text)
    except (_core.IdlewiseError, ValueError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _response_option(parser) -> None:
    parser.add_argument("--response-from", choices=("issue", "original"), default="issue",
                        help="measure responses from when a request is issued, or from its original time before a "
                             "transform issued it early (compress: successful read-ahead, so prefetched data waits 0)")


def _whole(low: int, high: int):
    """An argparse type: a whole number from ``low`` to ``high`` (``idlewise.arguments.whole``),
    its refusal argparse's usage error."""
    def parse(text: str) -> int:
        from ..arguments import whole
        from ..errors import IdlewiseError

        try:
            return whole(text, "", low, high)
        except IdlewiseError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    return parse


def _stream_key(text: str):
    """A device's number, or its name (diskstats and biosnoop files name their devices)."""
    from ..arguments import DEVICE_NUMBER_MAX

    return _whole(-DEVICE_NUMBER_MAX - 1, DEVICE_NUMBER_MAX)(text) if text.isdigit() else text


def _count(high: int):
    """An argparse type: a whole number from 1 to ``high``."""
    return _whole(1, high)


def _seed(text: str) -> int:
    from ..arguments import SEED_MAX

    return _whole(0, SEED_MAX)(text)


def _stream_option(parser) -> None:
    parser.add_argument("--stream", type=_stream_key, metavar="K",
                        help="only device K of a multi-device trace (its number, or its name in a diskstats or biosnoop file)")


def _wide_option(parser) -> None:
    parser.add_argument("--wide", action="store_true", help="every column (default: those that fit the terminal)")


def _trace_options(parser, stream: bool = True) -> None:
    from ._help import listed

    parser.add_argument("--format", default="auto", choices=("auto",) + FORMATS, metavar="FORMAT",
                        help=f"trace format: {listed(('auto',) + FORMATS)} (default auto: recognised from the content)")
    if stream:
        _stream_option(parser)
    parser.add_argument("--sort", action="store_true", help="sort records by time instead of refusing out-of-order times")
    parser.add_argument("--columns", metavar="KEY=COLUMN,...",
                        help="read a CSV with its own header: which column holds what, in which unit, e.g. "
                             "time_ms=ts,size_bytes=len,op=rw (keys: time[_s]|time_ms|time_us|time_ns, size[_bytes]|size_sectors"
                             "|size_kib, optional offset[_bytes]|offset_sectors|offset_kib, op, optional stream)")
    parser.add_argument("--write-flag", choices=("0", "1"),
                        help="with --columns: the op column holds 0/1 flags and this value means a write")
