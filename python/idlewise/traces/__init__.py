"""Traces: the column container the engine replays, readers for the formats the field publishes,
workload transforms and idle-period statistics.

Readers live apart from simulation: each turns a file into a :class:`Trace` of columns
(``time_s``, ``offset_bytes``, ``size_bytes``, ``is_write``, and ``stream`` for multi-device
traces) and says what it read and skipped.
"""

from .readers import FORMATS, READERS, detect_format, read_csv, read_parquet, read_srt, read_trace, write_parquet
from .trace import Trace, TraceWarning

__all__ = ["FORMATS", "READERS", "Trace", "TraceWarning", "detect_format", "read_csv", "read_parquet", "read_srt",
           "read_trace", "write_parquet"]

from .transforms import apply_transform  # noqa: E402

__all__ += ["apply_transform"]
