"""A trace and its read in words, without NumPy (a replay's command prints them without loading
it): the one-line description of a trace and the report of what a read kept and skipped."""

from __future__ import annotations


#: Formats whose lines are not requests but snapshots requests are derived from, and what their
#: lines are called in a read report.
REQUESTS_DERIVED = {"diskstats": "counter snapshots"}


def read_report_text(origin: str, records_read: int, format: str, kept: int, skipped: dict, *, moved: int = 0,
                     zero_size: int = 0) -> str:
    """What a read did with every record, in one line: how many it examined, kept, skipped and
    why, moved by sorting, and kept that ask for no data."""
    skipped_text = ", ".join(f"{n:,} {why}" for why, n in skipped.items() if n)
    if format in REQUESTS_DERIVED:
        # Its lines are counter snapshots, each giving any number of requests: "kept" would
        # read as more kept than read.
        read_and_kept = f"read {records_read:,} {REQUESTS_DERIVED[format]} as {format}, giving {kept:,} requests"
    else:
        read_and_kept = f"read {counted(records_read, 'record')} as {format}, kept {kept:,}"
    return (f"{origin}: {read_and_kept}"
            + (f" ({zero_size:,} of size 0, served in the command overhead alone)" if zero_size else "")
            + (f", skipped {skipped_text}" if skipped_text else "")
            + (f"; sorted, moving {moved:,}" if moved else ""))


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``1 request``, ``2 requests``: a count and its noun, in the number it takes."""
    return f"{n:,} {word if n == 1 else plural or word + 's'}"


def describe_text(name: str, requests: int, writes: int, span_s: float) -> str:
    """A trace in one line, whether it was read whole or streamed."""
    return (f"{name}: {counted(requests, 'request')} ({counted(requests - writes, 'read')}, {counted(writes, 'write')}) "
            f"over {span_text(span_s)}")


#: Past this a number is written with its exponent (``4.2e+15``): its digits grouped would be
#: wider than a table's column or a line, and a cut number reads as another number.
GROUPED_MAX = 1e12

#: A Julian year, as the yearly figures (advise's) count it.
SECONDS_PER_YEAR = 365.25 * 86400


def grouped(value: float, decimals: int = 1) -> str:
    """A number as a reader takes it in: digits grouped (``1,800,000,020.7``) up to
    :data:`GROUPED_MAX`, four significant figures and an exponent past it."""
    return f"{value:,.{decimals}f}" if abs(value) < GROUPED_MAX else f"{value:.4g}"


def span_text(span_s: float) -> str:
    """A trace's span in the unit a reader thinks in: seconds, minutes, hours, days, years."""
    if span_s >= 2 * SECONDS_PER_YEAR:  # (a trace of centuries: times in nanoseconds read as seconds?)
        return f"{grouped(span_s / SECONDS_PER_YEAR, 2)} years"
    if span_s >= 2 * 86400:
        return f"{span_s / 86400:,.2f} days"
    if span_s >= 2 * 3600:
        return f"{span_s / 3600:,.2f} h"
    if span_s >= 600:
        return f"{span_s / 60:,.1f} min"
    if 0 < span_s < 0.05:  # (it read "0.0 s": a burst's span, a busy recording's longest quiet)
        return f"{span_s * 1e3:.3g} ms" if span_s >= 1e-4 else f"{span_s * 1e6:.3g} us"
    return f"{span_s:,.1f} s"
