"""Traces: the column container the engine replays, and readers for the formats idlewise knows.

Readers live apart from simulation: each turns a file into a :class:`Trace` of columns
(``time_s``, ``offset_bytes``, ``size_bytes``, ``is_write``) and says what it read.
"""

from .trace import Trace
from .simple_csv import read_csv
from .hp_srt import read_srt
from .load import read_trace

__all__ = ["Trace", "read_csv", "read_srt", "read_trace"]
