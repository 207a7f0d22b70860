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
from ..inputs import local_path
from ..trace import Trace
from ..inputs import trace_name


#: Records per batch when a trace is streamed (56 MB of a version-4 trace).
BATCH_RECORDS = 1 << 20


class _Layout:
    """What the header and the first record say: where the records start, their size, how many
    there are, and the sector size."""

    def __init__(self, path: str, f):
        head = f.read(1 << 16)
        end = head.find(b"\x0c")
        while end < 0 and head.startswith(b"$$TR_IOREC"):
            more = f.read(1 << 16)
            if not more:
                break
            head += more
            end = head.find(b"\x0c")
        if end < 0 or not head.startswith(b"$$TR_IOREC"):
            raise TraceError(f"{path}: not an HP SRT trace (expected a '$$TR_IOREC' header ending in a form feed)")
        header = head[:end].decode("ascii", "replace")
        self.body_offset = end + 1
        body_bytes = os.fstat(f.fileno()).st_size - self.body_offset
        f.seek(self.body_offset)
        first_words = f.read(8)
        if body_bytes < 8 or len(first_words) < 8:
            raise TraceError(f"{path}: the trace has no records after its header")
        first = np.frombuffer(first_words, dtype=">u4")
        self.record_bytes, record_id = int(first[0]), int(first[1])
        version = record_id >> 16
        if self.record_bytes not in (52, 56) or version not in (3, 4):
            raise TraceError(f"{path}: byte {self.body_offset}: unsupported SRT record (size {self.record_bytes}, version {version}); "
                             "expected 52- or 56-byte records of version 3 or 4")
        self.count = body_bytes // self.record_bytes
        if self.count * self.record_bytes != body_bytes:
            raise TraceError(f"{path}: truncated: {body_bytes - self.count * self.record_bytes} bytes after the last whole "
                             f"{self.record_bytes}-byte record (record {self.count})")
        match = re.search(r"sectorsize\s*=\s*([0-9]{1,9})\b", header, re.ASCII)
        self.sector_bytes = int(match.group(1)) if match else 512
        if not 0 < self.sector_bytes <= 1 << 20:
            raise TraceError(f"{path}: header field 'sectorsize' is {self.sector_bytes}; expected a sector size of 1 to 1,048,576 bytes")

    def read(self, path: str, f, first: int, count: int) -> np.ndarray:
        """Records ``first`` to ``first + count`` as rows of big-endian words, sizes checked."""
        f.seek(self.body_offset + first * self.record_bytes)
        words = self.record_bytes // 4
        records = np.fromfile(f, dtype=">u4", count=count * words)
        if len(records) != count * words:  # the file shrank since its size was read
            raise TraceError(f"{path}: truncated while read: record {first + len(records) // words} of {self.count} "
                             "is missing (was the file being written or cut?)")
        records = records.reshape(count, words)
        bad = np.nonzero(records[:, 0] != self.record_bytes)[0]
        if len(bad):
            raise TraceError(f"{path}: record {first + int(bad[0])}: size field {int(records[bad[0], 0])}, expected {self.record_bytes}")
        return records


def _disks(records: np.ndarray) -> np.ndarray:
    """Each record's disk, as DiskSim maps the device number."""
    return ((records[:, 8] >> 8) & 0xFF).astype(np.int64)


def _columns(records: np.ndarray, sector_bytes: int):
    """time_s, offset_bytes, size_bytes and is_write of records."""
    return (records[:, 2].astype(np.float64) + records[:, 3].astype(np.float64) * 1e-6,
            records[:, 7].astype(np.int64) * sector_bytes,
            records[:, 6].astype(np.int64),
            (records[:, 11] & 1) == 0)


def read_srt(path: str | os.PathLike, *, disk: int | None = None, sort: bool = False, name: str | None = None) -> Trace:
    """Reads an HP SRT trace; each disk (DiskSim's ``(devno >> 8) & 0xff`` mapping) is a stream.

    Parameters
    ----------
    path : str or os.PathLike
    disk : int, optional
        Keep one disk only; records of other disks are counted in ``trace.skipped``.
    sort : bool, default False
        Sort by time.
    name : str, optional
        The trace's name (default: the file's).

    Returns
    -------
    Trace
    """
    path = os.fspath(path)
    with open(local_path(path, seekable=True, format="srt"), "rb") as f:
        layout = _Layout(path, f)
        records = layout.read(path, f, 0, layout.count)
    disks = _disks(records)
    keep = np.ones(len(records), dtype=bool) if disk is None else disks == disk
    skipped = {} if disk is None else {f"records of other disks (not disk {disk})": int((~keep).sum())}
    if not keep.any():
        found = ", ".join(str(d) for d in np.unique(disks))
        raise TraceError(f"{path}: no records for disk {disk}; the trace has disks {found}")
    time_s, offset_bytes, size_bytes, is_write = _columns(records[keep], layout.sector_bytes)
    return Trace.from_arrays(
        time_s, size_bytes, offset_bytes=offset_bytes, is_write=is_write,
        name=name or trace_name(path) + ("" if disk is None else f"#{disk}"),
        path=path,
        sort=sort,
        skipped=skipped,
        stream=None if disk is not None else disks[keep],
        records_read=len(records),
        format="srt",
    )


def iter_srt_batches(path, batch_records: int | None = None):
    """An SRT trace's records in batches, as NumPy columns (time_s, offset_bytes, size_bytes,
    is_write as uint8, disk), read one batch at a time: memory stays a batch's."""
    path = os.fspath(path)
    with open(local_path(path, seekable=True, format="srt"), "rb") as f:
        layout = _Layout(path, f)
        step = batch_records or BATCH_RECORDS
        for first in range(0, layout.count, step):
            records = layout.read(path, f, first, min(step, layout.count - first))
            time_s, offset_bytes, size_bytes, is_write = _columns(records, layout.sector_bytes)
            yield time_s, offset_bytes, size_bytes, is_write.astype(np.uint8), _disks(records)


__all__ = ["iter_srt_batches", "read_srt"]
