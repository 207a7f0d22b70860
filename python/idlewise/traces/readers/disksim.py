"""DiskSim ASCII traces: ``arrival_ms devno blkno bcount flags`` separated by white space, with
``blkno`` and ``bcount`` in 512-byte sectors and flags bit 0 set for a read (DiskSim's
``ascii`` input format). Multi-device: ``devno`` becomes the stream."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa

from ..trace import Trace
from ._text import Field, integer, number, read_table

SECTOR_BYTES = 512
FIELDS = [
    Field("arrival_ms", pa.float64(), number, "an arrival time in milliseconds"),
    Field("devno", pa.int64(), integer, "a device number"),
    Field("blkno", pa.int64(), integer, "a block number (512-byte sectors)"),
    Field("bcount", pa.int64(), integer, "a size in 512-byte sectors"),
    Field("flags", pa.int64(), integer, "integer flags (bit 0 = read)"),
]


def read_disksim(path, *, sort: bool = False, name: str | None = None) -> Trace:
    path = os.fspath(path)
    t = read_table(path, delimiter=None, fields=FIELDS, format_name="DiskSim ASCII")
    flags = t.column("flags").to_numpy()
    return Trace.from_arrays(
        t.column("arrival_ms").to_numpy() * 1e-3, t.column("bcount").to_numpy() * SECTOR_BYTES,
        offset_bytes=t.column("blkno").to_numpy() * SECTOR_BYTES, is_write=(flags & 1) == 0,
        stream=t.column("devno").to_numpy(), name=name or os.path.basename(path), path=path,
        lines=np.arange(1, t.num_rows + 1), sort=sort, format="disksim")
