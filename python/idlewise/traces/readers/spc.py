"""UMass / Storage Performance Council traces.

- ``spc``: the published CSV, ``ASU,LBA,Size,Opcode,Timestamp[,...]`` with LBA in 512-byte
  sectors, Size in bytes, Opcode ``r``/``w`` (either case) and Timestamp in seconds; trailing
  fields are ignored. The ASU (application storage unit) becomes the stream.
- ``spc-ascii``: the converted form shipped with SSDsim, ``arrival_ns devno lsn size_sectors op``
  separated by white space, op 1 = read, 0 = write.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..trace import Trace
from ._text import Field, integer, number, one_of, read_table, require

SECTOR_BYTES = 512
CSV_FIELDS = [
    Field("asu", pa.int64(), integer, "an application storage unit number"),
    Field("lba", pa.int64(), integer, "a logical block address (512-byte sectors)"),
    Field("size", pa.int64(), integer, "a size in bytes"),
    Field("opcode", pa.string(), one_of("r", "w", "R", "W"), "'r' or 'w'"),
    Field("timestamp", pa.float64(), number, "a timestamp in seconds"),
]
ASCII_FIELDS = [
    Field("arrival_ns", pa.int64(), integer, "an arrival time in nanoseconds"),
    Field("devno", pa.int64(), integer, "a device number"),
    Field("lsn", pa.int64(), integer, "a sector number (512-byte sectors)"),
    Field("size_sectors", pa.int64(), integer, "a size in 512-byte sectors"),
    Field("op", pa.int64(), one_of("0", "1"), "1 (read) or 0 (write)"),
]


def read_spc(path, *, sort: bool = False, name: str | None = None) -> Trace:
    path = os.fspath(path)
    t = read_table(path, delimiter=",", fields=CSV_FIELDS, format_name="UMass/SPC", extra_columns=True)
    op = pc.utf8_lower(t.column("opcode")).to_numpy(zero_copy_only=False)
    require(path, np.isin(op, ("r", "w")), op, "opcode", "'r' or 'w'")
    return Trace.from_arrays(
        t.column("timestamp").to_numpy(), t.column("size").to_numpy(),
        offset_bytes=t.column("lba").to_numpy() * SECTOR_BYTES, is_write=op == "w",
        stream=t.column("asu").to_numpy(), name=name or os.path.basename(path), path=path,
        lines=np.arange(1, t.num_rows + 1), sort=sort, format="spc")


def read_spc_ascii(path, *, sort: bool = False, name: str | None = None) -> Trace:
    path = os.fspath(path)
    t = read_table(path, delimiter=None, fields=ASCII_FIELDS, format_name="SPC ASCII (arrival_ns devno lsn size_sectors op)")
    op = t.column("op").to_numpy()
    require(path, (op == 0) | (op == 1), op, "op", "1 (read) or 0 (write)")
    return Trace.from_arrays(
        t.column("arrival_ns").to_numpy() * 1e-9, t.column("size_sectors").to_numpy() * SECTOR_BYTES,
        offset_bytes=t.column("lsn").to_numpy() * SECTOR_BYTES, is_write=op == 0,
        stream=t.column("devno").to_numpy(), name=name or os.path.basename(path), path=path,
        lines=np.arange(1, t.num_rows + 1), sort=sort, format="spc-ascii")
