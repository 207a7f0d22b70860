"""Alibaba cloud block traces: ``device_id,opcode,offset,length,timestamp`` with opcode ``R``/``W``,
offset and length in bytes and the timestamp in microseconds. The device id becomes the stream."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..trace import Trace
from ._text import Field, integer, one_of, read_table, require

FIELDS = [
    Field("device_id", pa.int64(), integer, "a device id"),
    Field("opcode", pa.string(), one_of("R", "W"), "'R' or 'W'"),
    Field("offset", pa.int64(), integer, "a byte offset"),
    Field("length", pa.int64(), integer, "a length in bytes"),
    Field("timestamp_us", pa.int64(), integer, "a timestamp in microseconds"),
]


def read_alibaba(path, *, sort: bool = False, name: str | None = None) -> Trace:
    path = os.fspath(path)
    t = read_table(path, delimiter=",", fields=FIELDS, format_name="Alibaba")
    op = t.column("opcode")
    is_write = pc.equal(op, "W").to_numpy(zero_copy_only=False)
    require(path, is_write | pc.equal(op, "R").to_numpy(zero_copy_only=False), op, "opcode", "'R' or 'W'")
    us = t.column("timestamp_us").to_numpy()
    return Trace.from_arrays(
        (us - us.min()) * 1e-6 if len(us) else us * 1e-6, t.column("length").to_numpy(),
        offset_bytes=t.column("offset").to_numpy(), is_write=is_write, stream=t.column("device_id").to_numpy(),
        name=name or os.path.basename(path), path=path, lines=np.arange(1, t.num_rows + 1), sort=sort, format="alibaba")
