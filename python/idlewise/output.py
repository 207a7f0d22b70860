"""Where results go: a destination checked before the work starts, and files written whole or
not at all.

A run can take hours; finding then that the directory does not exist, or is read-only, wastes
them, so commands check their destinations first. A file is written under a temporary name beside
its destination and renamed when complete, so an interrupted or failed write (Ctrl-C, a full
disk) never leaves a file at the final path that looks finished.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .errors import IdlewiseError


#: What a figure may be written as (matplotlib's formats that need no extra library).
FIGURE_SUFFIXES = (".png", ".pdf", ".svg", ".svgz", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")


def check_destination(path, suffixes: tuple[str, ...] = ()) -> Path:
    """Refuses, before any work, a destination that cannot be written: a wrong suffix, a missing
    or read-only directory, a directory in the file's place."""
    if not str(path).strip():
        raise IdlewiseError("an empty file name; give the file to write")
    p = Path(path)
    if p.is_dir():
        raise IdlewiseError(f"{path}: is a directory; give a file name")
    if suffixes and p.suffix.lower() not in suffixes:
        listed = ", ".join(suffixes[:-1]) + (" or " if len(suffixes) > 1 else "") + suffixes[-1]
        raise IdlewiseError(f"{path}: the file must end in {listed}")
    parent = p.parent
    if not parent.is_dir():
        raise IdlewiseError(f"{path}: cannot write: the directory {parent} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{p.name}.", suffix=".check"):
            pass
    except OSError as e:
        raise IdlewiseError(f"{path}: cannot write in {parent}: {e.strerror or e}") from None
    return p


@contextmanager
def written_whole(path):
    """Yields a temporary path beside ``path`` (with the same suffix, so writers that go by it
    still do); renames it to ``path`` when the block ends, removes it if the block fails."""
    p = Path(path)
    temporary = p.with_name(f".{p.stem}.partial-{os.getpid()}{p.suffix}")
    try:
        yield str(temporary)
        os.replace(temporary, p)
    except OSError as e:
        # A full disk, a quota: the message names the file the user asked for, not the
        # temporary one, and nothing half-written is left.
        temporary.unlink(missing_ok=True)
        raise IdlewiseError(f"{path}: cannot write: {e.strerror or e}") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def save_figure(fig, path, **savefig_options) -> None:
    """``fig.savefig`` written whole."""
    with written_whole(path) as temporary:
        fig.savefig(temporary, **savefig_options)


__all__ = ["check_destination", "save_figure", "written_whole"]
