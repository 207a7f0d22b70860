"""Tencent CBS block traces: ``Timestamp,Offset,Size,IOType,VolumeID`` with the timestamp in
seconds, offset and size in 512-byte sectors, IOType 0 = read, 1 = write. The volume becomes the
stream."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa

from ..trace import Trace
from ._text import Field, integer, number, one_of, read_table, require

SECTOR_BYTES = 512
FIELDS = [
    Field("timestamp", pa.float64(), number, "a timestamp in seconds"),
    Field("offset", pa.int64(), integer, "an offset in 512-byte sectors"),
    Field("size", pa.int64(), integer, "a size in 512-byte sectors"),
    Field("iotype", pa.int64(), one_of("0", "1"), "0 (read) or 1 (write)"),
    Field("volume", pa.int64(), integer, "a volume id"),
]


def read_tencent(path, *, sort: bool = False, name: str | None = None) -> Trace:
    path = os.fspath(path)
    t = read_table(path, delimiter=",", fields=FIELDS, format_name="Tencent CBS")
    io = t.column("iotype").to_numpy()
    require(path, (io == 0) | (io == 1), io, "iotype", "0 (read) or 1 (write)")
    ts = t.column("timestamp").to_numpy()
    return Trace.from_arrays(
        ts - ts.min(), t.column("size").to_numpy() * SECTOR_BYTES, offset_bytes=t.column("offset").to_numpy() * SECTOR_BYTES,
        is_write=io == 1, stream=t.column("volume").to_numpy(), name=name or os.path.basename(path), path=path,
        lines=np.arange(1, t.num_rows + 1), sort=sort, format="tencent")
