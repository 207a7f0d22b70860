"""HP SRT binary traces (the HP Labs "hplajw" and cello family, as shipped with DiskSim).

Layout: an ASCII header up to the first form-feed byte (0x0C), then big-endian 32-bit records
``size, id, sec, usec, start_us, stop_us, size_bytes, sectno, devno, drivertype, cylno, ioflags,
info[, queuelen]`` (version 4 adds ``queuelen``). ``id`` holds the record type in its low 16 bits
and the version above them; ``ioflags`` bit 0x1 marks a read; the disk is ``(devno >> 8) & 0xff``
as DiskSim maps it. The arrival time is ``sec + usec·1e-6``; the byte offset is
``sectno × sectorsize`` with the sector size from the header.
"""

from __future__ import annotations

import os
import re

import numpy as np

from ...errors import TraceError
from ..trace import Trace


def _records(path: str):
    with open(path, "rb") as f:
        data = f.read()
    end = data.find(b"\x0c")
    if end < 0 or not data.startswith(b"$$TR_IOREC"):
        raise TraceError(f"{path}: not an HP SRT trace (expected a '$$TR_IOREC' header ending in a form feed)")
    header = data[:end].decode("ascii", "replace")
    body = memoryview(data)[end + 1:]
    if len(body) < 8:
        raise TraceError(f"{path}: the trace has no records after its header")
    first = np.frombuffer(body[:8], dtype=">u4")
    record_bytes, record_id = int(first[0]), int(first[1])
    version = record_id >> 16
    if record_bytes not in (52, 56) or version not in (3, 4):
        raise TraceError(f"{path}: byte {end + 1}: unsupported SRT record (size {record_bytes}, version {version}); expected 52- or 56-byte records of version 3 or 4")
    words = record_bytes // 4
    whole = len(body) // record_bytes
    if whole * record_bytes != len(body):
        raise TraceError(f"{path}: truncated: {len(body) - whole * record_bytes} bytes after the last whole {record_bytes}-byte record (record {whole})")
    records = np.frombuffer(body, dtype=">u4").reshape(whole, words)
    bad = np.nonzero(records[:, 0] != record_bytes)[0]
    if len(bad):
        raise TraceError(f"{path}: record {int(bad[0])}: size field {int(records[bad[0], 0])}, expected {record_bytes}")
    return header, records


def read_srt(path: str | os.PathLike, *, disk: int | None = None, sort: bool = False, name: str | None = None) -> Trace:
    """Reads an HP SRT trace; each disk (DiskSim's ``(devno >> 8) & 0xff`` mapping) is a stream.
    ``disk`` keeps one disk only; records of other disks are counted in ``trace.skipped``."""
    path = os.fspath(path)
    header, records = _records(path)
    match = re.search(r"sectorsize\s*=\s*([0-9]{1,9})\b", header, re.ASCII)
    sector_bytes = int(match.group(1)) if match else 512
    if not 0 < sector_bytes <= 1 << 20:
        raise TraceError(f"{path}: header field 'sectorsize' is {sector_bytes}; expected a sector size of 1 to 1,048,576 bytes")
    disks = (records[:, 8] >> 8) & 0xFF
    keep = np.ones(len(records), dtype=bool) if disk is None else disks == disk
    skipped = {} if disk is None else {f"records of other disks (not disk {disk})": int((~keep).sum())}
    if not keep.any():
        found = ", ".join(str(d) for d in np.unique(disks))
        raise TraceError(f"{path}: no records for disk {disk}; the trace has disks {found}")
    r = records[keep]
    return Trace.from_arrays(
        r[:, 2].astype(np.float64) + r[:, 3].astype(np.float64) * 1e-6,
        r[:, 6].astype(np.int64),
        offset_bytes=r[:, 7].astype(np.int64) * sector_bytes,
        is_write=(r[:, 11] & 1) == 0,
        name=name or os.path.basename(path) + ("" if disk is None else f"#{disk}"),
        path=path,
        sort=sort,
        skipped=skipped,
        stream=None if disk is not None else disks[keep].astype(np.int64),
        records_read=len(records),
        format="srt",
    )


__all__ = ["read_srt"]
