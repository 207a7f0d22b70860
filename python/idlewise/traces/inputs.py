"""Traces as they are published and passed around: compressed (gzip, zstd, bzip2, xz, recognised
by their magic bytes whatever the file is called), piped (``-`` for standard input, a named pipe,
``<(zcat t.csv.gz)``), or a Python file object (``io.BytesIO``, an open file).

Every reader opens a trace through here or through the engine's opener
(``idlewise_core::readers::input``), which decompresses as it reads, in a decoder's memory.
Input that cannot be read twice (standard input, a pipe) is copied once, as it arrives and as it
came (compressed stays compressed), to a temporary file that lives until the process ends: a
format is recognised from the head of that copy and the records are read from the whole of it,
so no byte read to recognise the input is lost, whichever reader then reads it. Parquet and SRT
files, which are read by seeking, are decompressed into such a file when they come compressed.
"""

from __future__ import annotations

import atexit
import io
import os
import re
import shutil
import stat
import tempfile

from .. import _core
from ..errors import TraceError

#: The path that means standard input.
STDIN = "-"
#: Bytes copied from a pipe at a time (memory stays this, however long the input).
COPY_BYTES = 1 << 20


class _Raw(io.RawIOBase):
    """The engine's decompressing reader as a Python raw file."""

    def __init__(self, path: str):
        self._path = path
        try:
            self._input = _core.InputFile(path)
        except _core.IdlewiseError as e:
            raise TraceError(f"{path}: {_plain(e)}") from None
        self.compression = self._input.compression

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        try:
            data = self._input.read(len(buffer))
        except _core.IdlewiseError as e:
            raise TraceError(f"{self._path}: {_plain(e)}") from None
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        self._input.close()
        super().close()


def open_input(path) -> io.BufferedReader:
    """``path``'s bytes as the formats read them: decompressed, from a regular file (a pipe is
    copied first, see :func:`local_path`). Errors name the file."""
    return io.BufferedReader(_Raw(local_path(path)), COPY_BYTES)


def bounded_lines(f, path: str):
    """The lines of ``f`` (bytes, with their ends), numbered from 1; a line longer than the
    readers' limit (``MAX_LINE_BYTES``, 1 MiB) is refused naming it, once the limit is read
    past: a small compressed file of one endless line costs the limit, not the line."""
    limit = _core.MAX_LINE_BYTES
    number = 0
    while True:
        line = f.readline(limit + 2)
        if not line:
            return
        number += 1
        if len(line.rstrip(b"\r\n")) > limit:
            raise TraceError(f"{path}: line {number}: a line longer than {limit} bytes (1 MiB): not a line of a trace")
        yield number, line


def compression_of(path) -> str:
    """``"plain"``, ``"gzip"``, ``"zstd"``, ``"bzip2"`` or ``"xz"``, from the magic bytes."""
    with _Raw(local_path(path)) as raw:
        return raw.compression


def _plain(error) -> str:
    """An engine I/O error as the readers word theirs: without Rust's ``(os error 2)``."""
    return re.sub(r" \(os error \d+\)", "", str(error))


_COPIES: dict = {}
_FOLDER: list = []


def _folder() -> str:
    if not _FOLDER:
        _FOLDER.append(tempfile.mkdtemp(prefix="idlewise-input-"))
        atexit.register(shutil.rmtree, _FOLDER[0], True)
    return _FOLDER[0]


def local_path(path, *, seekable: bool = False, fresh: bool = False, format: str | None = None) -> str:
    """A regular file holding ``path``'s records: ``path`` itself when it is one; standard input
    (``-``), a named pipe or ``/dev/fd/N`` copied into a temporary file, once: later calls get
    the same copy (a pipe can be read only once), until a call with ``fresh``, which a command
    or an API function makes when it is given the path, reads the pipe again. With ``seekable``,
    a compressed file decompressed into one, refused at its first bytes unless they are those
    of the binary ``format`` given (``MAGIC``). The copy keeps the file's name (``stdin`` for ``-``), so
    rows are labelled as the input was."""
    if hasattr(path, "read"):  # a file object (io.BytesIO, an open file, a text stream): copied
        return _copy_file_object(path)
    try:
        path = os.fspath(path)
    except TypeError:
        raise TraceError(f"a trace is a file's path, '-' for standard input, or a file object with read(); "
                         f"got {type(path).__name__}") from None
    if fresh and _is_stream(path):
        for key in [k for k in _COPIES if k[0] == path]:
            del _COPIES[key]
    if (path, seekable) in _COPIES:
        return _COPIES[(path, seekable)]
    given = path
    if path not in _COPIES.values() and _is_stream(path):
        if (path, False) not in _COPIES:
            _COPIES[(path, False)] = _copy_stream(path)
        path = _COPIES[(path, False)]
    if seekable and compression_of(path) != "plain":
        with open_input(path) as source:
            if format is not None:
                from .formats import MAGIC

                magic = MAGIC[format]
                if source.peek(len(magic))[:len(magic)] != magic:
                    raise TraceError(f"{given}: not a {format} file: decompressed, it does not begin with "
                                     f"{magic.decode('ascii')} as every {format} file does")
            path = _copy(source, os.path.basename(path), path)
    if path != given:  # only copies are remembered: a file is read where it is, each time
        _COPIES[(given, seekable)] = path
    return path


def given_path(path) -> str:
    """The path a user gave for ``path``, a copy :func:`local_path` made or a file itself:
    ``-`` for standard input, the pipe's own path (``/dev/fd/63`` for a shell's ``<(...)``)."""
    path = str(path)
    for (given, _), copy in _COPIES.items():
        if copy == path:
            return given
    return path


def trace_name(path) -> str:
    """What a trace read from ``path`` is called in rows and tables: its file's name; ``stdin``
    for standard input; a pipe's path whole where its name alone is a number (``/dev/fd/63``,
    which a shell's ``<(...)`` passes), not the temporary copy it was read from."""
    given = given_path(path)
    if given == STDIN:
        return "stdin"
    name = os.path.basename(given)
    return given if name.isdigit() else name


def shown(text: str) -> str:
    """``text`` (an error or a report) with every temporary copy's path replaced by the path the
    user gave (``-`` said as standard input)."""
    for (given, _), copy in list(_COPIES.items()):
        if copy in text:
            text = text.replace(copy, "standard input" if given == STDIN else given)
    return text


def _is_stream(path: str) -> bool:
    """Standard input, a named pipe, a character device or a socket: bytes that come once."""
    if path == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # opening it says why
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _copy_file_object(source) -> str:
    """A file object's bytes (text is written as UTF-8) in a temporary file named as it is."""
    return _copy(source, os.path.basename(str(getattr(source, "name", "") or "")) or "stream", "the file object")


def _copy_stream(path: str) -> str:
    """Standard input's or a pipe's bytes, as they arrive, in a temporary file named as it is."""
    try:
        source = os.fdopen(os.dup(0), "rb", closefd=True) if path == STDIN else open(path, "rb")
    except OSError as e:
        raise TraceError(f"{path}: cannot read: {e.strerror}") from None
    with source:
        return _copy(source, "stdin" if path == STDIN else os.path.basename(path) or "input", path)


def _copy(source, name: str, what: str) -> str:
    """``source`` read to its end, a block at a time, into a temporary file called ``name``."""
    copy = os.path.join(tempfile.mkdtemp(dir=_folder()), name)
    with open(copy, "wb") as out:
        try:
            while block := source.read(COPY_BYTES):
                out.write(block.encode("utf-8") if isinstance(block, str) else block)
        except OSError as e:
            raise TraceError(f"{what}: cannot read: {e.strerror}") from None
    return copy


__all__ = ["STDIN", "bounded_lines", "compression_of", "given_path", "local_path", "open_input", "shown", "trace_name"]
