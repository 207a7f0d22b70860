"""A tar archive of trace files (``.tar``, ``.tar.gz``, ``.tgz``, ``.tar.zst``, ...), as some
collections are published: read as the files it holds, each file a device of one multi-device
trace, named by its path in the archive (``--stream hm_0.csv`` picks one), each read in its own
format (recognised as any file is). A member that itself holds several devices gives one device
of the archive per device of the file (``member#K``), numbered as the file numbers it (volume K is
``--stream K``) unless two files use one number. A member with an end of its own (a diskstats
recording, whose idle after its last request is part of its answer) is refused: read it apart. Archives are read whole: every member is
written out to a temporary folder as the archive streams by (memory stays a block's), then read.
"""

from __future__ import annotations

import os
import tarfile
from dataclasses import replace

import numpy as np

from ...errors import TraceError
from ..trace import Trace
from ..detect import HEAD_BYTES  # a member's bytes read to know what it is before any is written
from ..inputs import trace_name

#: Bytes into a tar header where its magic ``ustar`` stands (POSIX.1-1988 and GNU tar alike).
TAR_MAGIC_OFFSET = 257


def is_tar(head: bytes) -> bool:
    return head[TAR_MAGIC_OFFSET:TAR_MAGIC_OFFSET + 5] == b"ustar"


def _members(path: str) -> list:
    """The archive's regular files written out, as (name in the archive, path on disk)."""
    import tempfile

    from ..inputs import _folder, open_input

    folder = tempfile.mkdtemp(dir=_folder())
    out = []
    try:
        with open_input(path) as raw, tarfile.open(fileobj=raw, mode="r|") as archive:
            for member in archive:
                if not member.isfile():
                    continue
                name = os.path.normpath(member.name).lstrip(os.sep)
                if name.startswith(".."):
                    raise TraceError(f"{path}: member {member.name!r} points outside the archive")
                target = os.path.join(folder, os.path.basename(path), name)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                _write_member(archive.extractfile(member), target, f"{path}: member {name}")
                out.append((name, target))
    except tarfile.TarError as e:
        raise TraceError(f"{path}: not a readable tar archive: {e}") from None
    if not out:
        raise TraceError(f"{path}: the archive holds no files")
    return out


#: The magic numbers of compressed files (a member may itself be compressed: read when it is read).
COMPRESSED = (b"\x1f\x8b", b"\x28\xb5\x2f\xfd", b"BZh", b"\xfd7zXZ\x00")


def _write_member(source, target: str, what: str) -> None:
    """A member written out to ``target``, once its first bytes show what it is: a member in no
    format idlewise reads is refused before anything is written, and a text member with a line
    past the readers' limit (1 MiB) once the copy reaches it, so a small archive of a huge
    member costs its head or its limit, not its size."""
    from ... import _core
    from ..detect import format_of_head
    from ..formats import MAGIC

    head = source.read(HEAD_BYTES)
    compressed = head.startswith(COMPRESSED)
    text = not compressed and format_of_head(head, what) not in MAGIC
    limit, since_newline = _core.MAX_LINE_BYTES, 0
    with open(target, "wb") as f:
        block = head
        while block:
            if text:
                # A block is at most the limit long: only a line that runs across blocks can pass it.
                first = block.find(b"\n")
                if first >= 0 and since_newline + first > limit:
                    since_newline += first
                else:
                    since_newline = since_newline + len(block) if first < 0 else len(block) - block.rfind(b"\n") - 1
                if since_newline > limit:
                    raise TraceError(f"{what}: a line longer than {limit} bytes (1 MiB): not a line of a trace")
            f.write(block)
            block = source.read(limit)


def read_archive(path, *, sort: bool = False, name: str | None = None) -> Trace:
    from . import read_trace

    path = os.fspath(path)
    devices, read, skipped = [], 0, {}  # (name, the file's own number or None, part)
    for member, on_disk in _members(path):
        trace = read_trace(on_disk, sort=sort)
        if trace.end_time_s is not None:
            # Its idle after the last request is part of its answer, and a trace of several
            # devices has one end: read such a recording apart rather than lose its end.
            raise TraceError(f"{path}: member {member} is a recording with an end of its own ({trace.format}); "
                             "extract it and read it apart (tar xf ARCHIVE MEMBER)")
        read += trace.records_read
        for why, count in trace.skipped.items():
            skipped[f"{member}: {why}"] = count
        split = trace.split_streams()
        for number, part in split.items():
            devices.append((member if len(split) == 1 else f"{member}#{trace.stream_label(number)}", number, part))
    numbers, own = _device_numbers([number for _, number, _ in devices])
    names = {device: label for device, (label, _, _) in zip(numbers, devices)}
    t, o, s, w, v = (np.concatenate(column) for column in zip(*(
        (part.time_s, part.offset_bytes, part.size_bytes, part.is_write, np.full(len(part), device, np.int64))
        for device, (_, _, part) in zip(numbers, devices))))
    order = np.argsort(t, kind="stable")  # every member's times from its own origin, as a multi-device file's
    trace = Trace.from_arrays(t[order], s[order], offset_bytes=o[order], is_write=w[order], stream=v[order],
                              name=name or trace_name(path), path=path, lines=None, sort=False, skipped=skipped,
                              records_read=read, format="tar", stream_names=names)
    return trace if own else replace(trace, numbers_are_the_files=False)


def _device_numbers(own: list) -> tuple[list[int], bool]:
    """The archive's number for each device, given the number its file gives it (None for a
    file of one device that numbers none), and whether the files' numbers were kept.

    A file's own numbers are kept (Tencent's and Alibaba's volume IDs, MSR's disk numbers), so
    ``--stream 1`` is the volume the file calls 1; devices of files that number none follow the
    largest. Where two files use one number for two devices, no number can be kept for both:
    the devices are numbered in order and are chosen by name (``member#1``)."""
    given = [n for n in own if n is not None]
    if len(set(given)) < len(given):
        return list(range(len(own))), False
    fresh = iter(range(max(given, default=-1) + 1, max(given, default=-1) + 1 + len(own)))
    return [n if n is not None else next(fresh) for n in own], True


__all__ = ["is_tar", "read_archive"]
