"""UMass / Storage Performance Council traces.

- ``spc``: the published CSV, ``ASU,LBA,Size,Opcode,Timestamp[,...]`` with LBA in 512-byte
  sectors, Size in bytes, Opcode ``r``/``w`` (either case) and Timestamp in seconds; trailing
  fields are ignored. The ASU (application storage unit) becomes the stream.
- ``spc-ascii``: the converted form shipped with SSDsim, ``arrival_ns devno lsn size_sectors op``
  separated by white space, op 1 = read, 0 = write; trailing fields are ignored.
"""

from __future__ import annotations

from ..trace import Trace
from ._text import read_text_trace


def read_spc(path, *, sort: bool = False, name: str | None = None) -> Trace:
    return read_text_trace(path, "spc", sort=sort, name=name)


def read_spc_ascii(path, *, sort: bool = False, name: str | None = None) -> Trace:
    return read_text_trace(path, "spc-ascii", sort=sort, name=name)


__all__ = ["read_spc", "read_spc_ascii"]
