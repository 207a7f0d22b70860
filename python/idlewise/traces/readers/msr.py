"""MSR Cambridge block traces (SNIA IOTTA): ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,
ResponseTime`` with Timestamp and ResponseTime in Windows FILETIME ticks (100 ns; timestamps count
from 1601), Type ``Read``/``Write``, Offset and Size in bytes. Times are made relative to the first
record in integer ticks before conversion, so no precision is lost to the 1601 epoch. The disk
number becomes the stream."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..trace import Trace
from ._text import Field, integer, one_of, read_table, require

FIELDS = [
    Field("timestamp", pa.int64(), integer, "a FILETIME timestamp (100 ns ticks)"),
    Field("hostname", pa.string(), str, "a host name"),
    Field("disk", pa.int64(), integer, "a disk number"),
    Field("type", pa.string(), one_of("Read", "Write"), "'Read' or 'Write'"),
    Field("offset", pa.int64(), integer, "a byte offset"),
    Field("size", pa.int64(), integer, "a size in bytes"),
    Field("response", pa.int64(), integer, "a response time in 100 ns ticks"),
]


def read_msr(path, *, sort: bool = False, name: str | None = None) -> Trace:
    path = os.fspath(path)
    t = read_table(path, delimiter=",", fields=FIELDS, format_name="MSR Cambridge")
    kind = t.column("type")
    is_write = pc.equal(kind, "Write").to_numpy(zero_copy_only=False)
    require(path, is_write | pc.equal(kind, "Read").to_numpy(zero_copy_only=False), kind, "type", "'Read' or 'Write'")
    ticks = t.column("timestamp").to_numpy()
    return Trace.from_arrays(
        (ticks - ticks.min()) * 1e-7, t.column("size").to_numpy(), offset_bytes=t.column("offset").to_numpy(),
        is_write=is_write, stream=t.column("disk").to_numpy(), name=name or os.path.basename(path), path=path,
        lines=np.arange(1, t.num_rows + 1), sort=sort, format="msr")
