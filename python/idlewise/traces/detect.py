"""Recognition of a trace format from the first lines of a file. Kept apart from the readers,
and free of NumPy, so a streamed replay (``--chunks``) that only needs the format's name starts
quickly."""

from __future__ import annotations

import os
import re

from .. import _core
from ..errors import TraceError
from .formats import FORMATS, MAGIC

#: Recognises a blkparse event line.
BLKPARSE_EVENT = re.compile(r"^\s*(\d+),(\d+)\s+\d+\s+\d+\s+(\d+\.\d+)\s+\d+\s+([A-Za-z]+)\s+([A-Z]+)\s*(.*)$", re.ASCII)


def head_bytes(path: str, n: int = 65536) -> bytes:
    """The first ``n`` bytes as the formats read them (decompressed; a pipe's from its copy)."""
    from .inputs import open_input

    with open_input(path) as f:
        try:
            return f.read(n)
        except _core.IdlewiseError as e:
            raise TraceError(f"{path}: {e}") from None


_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)


def _is_int(text: str) -> bool:
    return _INT.fullmatch(text.strip()) is not None


def _is_number(text: str) -> bool:
    """A plain ASCII decimal, as the readers accept (no inf, nan, 0x10 or 1_000)."""
    return _NUMBER.fullmatch(text.strip()) is not None


def detect_format(path) -> str:
    """Recognises a trace format from the first lines of a file. Refuses rather than guesses:
    an unrecognised or ambiguous file is an error that says which ``--format`` to pass."""
    path = os.fspath(path)
    return format_of_head(head_bytes(path), path)


def format_of_head(head: bytes, path: str) -> str:
    """:func:`detect_format` of a file whose first (up to 65,536, decompressed) bytes are
    ``head``; errors begin with ``path``."""
    head = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    if head[257:262] == b"ustar":  # a tar archive's header (readers/archive.py)
        return "tar"
    for format, magic in MAGIC.items():
        if head.startswith(magic):
            return format
    if b"\x00" in head:
        raise TraceError(f"{path}: a binary file in no format idlewise knows (known: {', '.join(FORMATS)})")
    lines = [line for line in head.decode("utf-8", "replace").splitlines() if line.strip()]
    if len(head) == 65536 and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut by the read
    lines = lines[:50]
    if not lines:
        raise TraceError(f"{path}: the file is empty")
    header = [h.strip() for h in lines[0].split(",")]
    if "time_s" in header and "size_bytes" in header:
        return "csv"
    if any(line.lstrip().startswith("TIME(s)") and "LAT(ms)" in line for line in lines[:3]):
        return "biosnoop"
    if BLKPARSE_EVENT.match(lines[0]):
        return "blkparse"
    candidates = []
    if "," in lines[0]:
        rows = [[f.strip() for f in line.split(",")] for line in lines]
        if all(len(r) == 7 and r[3] in ("Read", "Write") and _is_int(r[0]) for r in rows):
            candidates.append("msr")
        if all(len(r) >= 5 and r[3].lower() in ("r", "w") and _is_int(r[0]) and _is_int(r[1]) and _is_number(r[4]) for r in rows):
            candidates.append("spc")
        if all(len(r) == 5 and r[1] in ("R", "W") and _is_int(r[0]) and _is_int(r[4]) for r in rows):
            candidates.append("alibaba")
        if all(len(r) == 5 and r[3] in ("0", "1") and _is_number(r[0]) and _is_int(r[1]) and _is_int(r[2]) for r in rows):
            candidates.append("tencent")
    else:
        rows = [line.split() for line in lines]
        if all(len(r) >= 15 and _is_number(r[0]) and all(_is_int(x) for x in r[1:3] + r[4:]) and not _is_int(r[3])
               for r in rows):
            return "diskstats"  # time, major, minor, a device name, then the kernel's counters
        if all(len(r) == 9 and r[5] in ("R", "W") and all(_is_int(r[i]) for i in (0, 1, 3, 4, 6, 7)) for r in rows):
            return "fiu"
        if all(len(r) == 5 and all(_is_number(x) for x in r) for r in rows):
            if not all(_is_int(r[0]) for r in rows):
                candidates.append("disksim")  # fractional milliseconds
            elif all(r[4] in ("0", "1") for r in rows) and max(int(r[0]) for r in rows) >= 1_000_000:
                candidates.append("spc-ascii")
            else:
                raise TraceError(f"{path}: five integer columns could be DiskSim ASCII (milliseconds) or SPC ASCII "
                                 "(nanoseconds); pass --format disksim or --format spc-ascii")
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise TraceError(f"{path}: the first lines fit several formats ({', '.join(candidates)}); pass --format")
    if "," in lines[0] and all(len(r) == 4 and _is_number(r[0]) and _is_int(r[1]) and _is_int(r[2]) for r in rows):
        # idlewise's own CSV, but its header is missing: say so rather than "unknown format".
        hint = (f"{path}: line 1: this looks like idlewise's simple CSV without its header line; add "
                "'time_s,offset_bytes,size_bytes,op' as the first line (op: R or W)")
        if all(r[3] in ("0", "1") for r in rows):
            hint += ("; with that header, an op column of 0/1 flags reads with --columns "
                     "time_s=time_s,offset_bytes=offset_bytes,size_bytes=size_bytes,op=op --write-flag 1")
        raise TraceError(hint)
    web = _web_log_kind(lines)
    if web:
        raise TraceError(f"{path}: line 1: {web}, not a block I/O trace: a web workload for a device comes from it "
                         f"with idlewise workload web --log {path} --out web.csv, replayed by idlewise cache web.csv"
                         + ("" if web.startswith("a NASA") else "; workload web reads the log as tab-separated "
                            "columns host, logname, time (Unix seconds), method, url, response, bytes"))
    raise TraceError(f"{path}: line 1: not a trace format idlewise recognises; pass --format "
                     f"({', '.join(FORMATS)})")


#: A web server's access log in the Common Log Format: host ident user [time] "request" status bytes.
COMMON_LOG_LINE = re.compile(r'^\S+ \S+ \S+ \[[^\]]+\] "[A-Z]+ [^"]*" \d{3} (\d+|-)')


def _web_log_kind(lines: list[str]) -> str | None:
    """What kind of web server log ``lines`` begin, if they begin one (users try them: the NASA
    log is the best known public workload of its era)."""
    header = [h.strip().lower() for h in lines[0].split("\t")]
    if header[:5] == ["host", "logname", "time", "method", "url"]:
        return "a NASA-format web access log (tab-separated)"
    if all(COMMON_LOG_LINE.match(line) for line in lines[:5]):
        return "a web server's access log (Common Log Format)"
    return None


__all__ = ["BLKPARSE_EVENT", "detect_format", "format_of_head", "head_bytes"]
