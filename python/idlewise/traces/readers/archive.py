"""A tar archive of trace files (``.tar``, ``.tar.gz``, ``.tgz``, ``.tar.zst``, ...), as some
collections are published: read as the files it holds, each file a device of one multi-device
trace, named by its path in the archive (``--stream hm_0.csv`` picks one), each read in its own
format (recognised as any file is). A member that itself holds several devices gives one device
of the archive per device of the file (``member#K``). A member with an end of its own (a diskstats
recording, whose idle after its last request is part of its answer) is refused: read it apart. Archives are read whole: every member is
written out to a temporary folder as the archive streams by (memory stays a block's), then read.
"""

from __future__ import annotations

import os
import tarfile

import numpy as np

from ...errors import TraceError
from ..trace import Trace

#: Bytes into a tar header where its magic ``ustar`` stands (POSIX.1-1988 and GNU tar alike).
TAR_MAGIC_OFFSET = 257


def is_tar(head: bytes) -> bool:
    return head[TAR_MAGIC_OFFSET:TAR_MAGIC_OFFSET + 5] == b"ustar"


def _members(path: str) -> list:
    """The archive's regular files written out, as (name in the archive, path on disk)."""
    import shutil
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
                source = archive.extractfile(member)
                with open(target, "wb") as f:
                    shutil.copyfileobj(source, f, 1 << 20)
                out.append((name, target))
    except tarfile.TarError as e:
        raise TraceError(f"{path}: not a readable tar archive: {e}") from None
    if not out:
        raise TraceError(f"{path}: the archive holds no files")
    return out


def read_archive(path, *, sort: bool = False, name: str | None = None) -> Trace:
    from . import read_trace

    path = os.fspath(path)
    parts, names, read, skipped = [], {}, 0, {}
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
            device = len(names)
            names[device] = member if len(split) == 1 else f"{member}#{trace.stream_label(number)}"
            parts.append((part.time_s, part.offset_bytes, part.size_bytes, part.is_write, np.full(len(part), device, np.int64)))
    t, o, s, w, v = (np.concatenate(column) for column in zip(*parts))
    order = np.argsort(t, kind="stable")  # every member's times from its own origin, as a multi-device file's
    return Trace.from_arrays(t[order], s[order], offset_bytes=o[order], is_write=w[order], stream=v[order],
                             name=name or os.path.basename(path), path=path, lines=None, sort=False, skipped=skipped,
                             records_read=read, format="tar", stream_names=names)


__all__ = ["is_tar", "read_archive"]
