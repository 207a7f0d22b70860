"""``--format auto`` is the engine's (issue 63: one table of trace formats, in the engine, its
recognition beside it): a differential test against the Python rules it replaced, kept here as
the reference, over the first bytes of every bundled trace and over drawn heads (lines of each
format, mixed, with a byte-order mark, blank lines, other line ends, stray fields, Unicode, a
head cut at 65,536 bytes, NULs, web server logs): the same format, or the same refusal word for
word."""

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from idlewise.errors import TraceError
from idlewise.traces.detect import HEAD_BYTES, format_of_head, head_bytes
from idlewise.traces.formats import FORMATS, MAGIC

from properties import property_test

#: The Python rules before issue 63 (``traces/detect.py``), as they were.
BLKPARSE_EVENT = re.compile(r"^\s*(\d+),(\d+)\s+\d+\s+\d+\s+(\d+\.\d+)\s+\d+\s+([A-Za-z]+)\s+([A-Z]+)\s*(.*)$", re.ASCII)

_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)


def _is_int(text: str) -> bool:
    return _INT.fullmatch(text.strip()) is not None


def _is_number(text: str) -> bool:
    """A plain ASCII decimal, as the readers accept (no inf, nan, 0x10 or 1_000)."""
    return _NUMBER.fullmatch(text.strip()) is not None


def _reference_format_of_head(head: bytes, path: str) -> str:
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


def _outcome(rules, head: bytes, path: str = "trace.txt"):
    try:
        return ("format", rules(head, path))
    except TraceError as e:
        return ("refused", str(e))


def _same(head: bytes, path: str = "trace.txt") -> None:
    assert _outcome(format_of_head, head, path) == _outcome(_reference_format_of_head, head, path), head[:300]


_DATA = Path(__file__).resolve().parent / "data"


@pytest.mark.parametrize("path", sorted(str(p.relative_to(_DATA)) for p in _DATA.rglob("*") if p.is_file()))
def test_every_bundled_file_is_recognised_as_the_python_rules_did(path):
    _same(head_bytes(str(_DATA / path)), path)


_FIELD = st.one_of(
    st.integers(-5, 3_000_000).map(str), st.sampled_from(["R", "W", "r", "w", "Read", "Write", "0", "1", "hm", "sda", "+7", "1.5",
                                                          ".5", "2e3", "1e", "x", "", "٣", "TIME(s)", "LAT(ms)", "Q", "8,0"]),
    st.floats(0, 1e7, allow_nan=False).map(lambda x: f"{x:.6f}"), st.text(max_size=4))

_LINES = {
    "csv": lambda d: f"{d(st.floats(0, 100).map(str))},{d(st.integers(0, 10**9))},{d(st.integers(0, 65536))},{d(st.sampled_from('RW'))}",
    "disksim": lambda d: f"{d(st.floats(0, 1e6).map(lambda x: f'{x:.3f}'))} 0 {d(st.integers(0, 10**9))} 8 {d(st.sampled_from('01'))}",
    "spc-ascii": lambda d: f"{d(st.integers(0, 10**10))} 0 {d(st.integers(0, 10**9))} 8 {d(st.sampled_from('01'))}",
    "spc": lambda d: f"0,{d(st.integers(0, 10**9))},8192,{d(st.sampled_from('rwRW'))},{d(st.floats(0, 100).map(str))}",
    "msr": lambda d: f"{d(st.integers(10**17, 10**18))},hm,1,{d(st.sampled_from(['Read', 'Write']))},{d(st.integers(0, 10**9))},4096,2308",
    "blkparse": lambda d: f"  8,0    3        {d(st.integers(1, 99))}     {d(st.floats(0, 99).map(lambda x: f'{x:.9f}'))}  1245  Q   W 1000 + 8 [dd]",
    "alibaba": lambda d: f"{d(st.integers(0, 999))},{d(st.sampled_from('RW'))},{d(st.integers(0, 10**9))},4096,{d(st.integers(0, 10**16))}",
    "tencent": lambda d: f"{d(st.integers(10**9, 2 * 10**9))},{d(st.integers(0, 10**6))},8,{d(st.sampled_from('01'))},1063",
    "fiu": lambda d: f"{d(st.integers(0, 10**9))} 4316 syslogd {d(st.integers(0, 10**7))} 8 {d(st.sampled_from('RW'))} 6 0 73bdf9f1",
    "diskstats": lambda d: f"{d(st.floats(0, 1e6).map(str))} 8 0 sda {d(st.integers(0, 10**6))} 0 5 " + " ".join(["7"] * 8),
    "biosnoop": lambda d: "TIME(s)     COMM           PID    DISK    T SECTOR     BYTES   LAT(ms)",
    "nasa": lambda d: "host\tlogname\ttime\tmethod\turl\tresponse\tbytes",
    "clf": lambda d: f'199.72.81.{d(st.integers(0, 255))} - - [01/Jul/1995:00:00:01 -0400] "GET /x HTTP/1.0" 200 {d(st.sampled_from(["6245", "-"]))}',
    "simple": lambda d: f"{d(st.floats(0, 100).map(str))},{d(st.integers(0, 10**6))},{d(st.integers(0, 65536))},{d(st.sampled_from(['0', '1', 'R']))}",
    "junk": lambda d: ",".join(d(st.lists(_FIELD, max_size=8))),
    "junk-spaces": lambda d: " ".join(d(st.lists(_FIELD, max_size=16))),
}


@st.composite
def _heads(draw):
    kinds = draw(st.lists(st.sampled_from(sorted(_LINES)), min_size=1, max_size=3))
    lines = []
    # (A few lines drawn, repeated to pass the 50 the rules read: drawn each, a case is too big.)
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(kinds))
        line = _LINES[kind](draw)
        if draw(st.integers(0, 19)) == 0:  # a field changed, or stray text
            at = draw(st.integers(0, len(line)))
            line = line[:at] + draw(_FIELD) + line[at:]
        lines.append(line)
    lines = lines * draw(st.sampled_from([1, 1, 1, 7]))
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "   ", "\t"])))
    if lines and draw(st.integers(0, 4)) == 0:
        lines.insert(0, "time_s,offset_bytes,size_bytes,op")
    end = draw(st.sampled_from(["\n", "\n", "\r\n", "\r", "\x0c", "\u2028", "\x1e"]))
    head = end.join(lines).encode("utf-8")
    if draw(st.integers(0, 9)) == 0:
        head = b"\xef\xbb\xbf" + head
    if draw(st.integers(0, 19)) == 0:
        head = head + b"\xff\xfe" + draw(st.binary(max_size=8))
    if draw(st.integers(0, 29)) == 0:  # a head cut by the read, its last line in two
        head = (head * (HEAD_BYTES // max(len(head), 1) + 1))[:HEAD_BYTES]
    return head


@property_test(600)
@given(_heads())
def test_every_drawn_head_is_recognised_as_the_python_rules_did(head):
    _same(head)


@pytest.mark.parametrize("head", [
    b"", b"\n\n  \n", b"\x00abc", b"PAR1", b"$$TR_IOREC rest", b"x" * 257 + b"ustar" + b"x" * 10,
    b"1 2 3 4 5\n6 7 8 9 10\n", b"1000000 2 3 4 1\n", b"1.5 2 3 4 5\n", b"0.5,0,4096,1\n", b"0.5,0,4096,R\n",
    b"1,R,0,4096,5\n", b"0,1,8,r,0.5\n", b"1,2,3,1,5\n", b"0,0,8,R,0.5\n1,R,2,4,5\n",
    "é,ü\n".encode(), b"\xef\xbb\xbftime_s, size_bytes\n", b"hello world\n",
])
def test_known_heads_are_recognised_as_the_python_rules_did(head):
    _same(head)


def test_the_formats_named_in_refusals_are_the_table_s():
    with pytest.raises(TraceError, match=re.escape(f"known: {', '.join(FORMATS)})")):
        format_of_head(b"\x00\x01", "b.bin")
    assert all(format_of_head(magic + b"rest", "m") == name for name, magic in MAGIC.items())
