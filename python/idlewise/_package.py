"""Where the package's own files are: the device catalog, the bundled traces and tables.

A folder beside this file rather than ``importlib.resources``: idlewise ships a compiled
extension, so it is always installed as files (an extension module cannot be imported from a
zip archive), and ``importlib.resources`` (pathlib, tempfile, zipfile and inspect behind it) was
~20 ms of every command's start-up in a clean environment, a fifth of ``idlewise simulate`` on a
small trace.
"""

from __future__ import annotations

import os

_ROOT = os.path.dirname(os.path.abspath(__file__))


def package_path(*parts: str) -> str:
    """The path of a file or folder of the package, e.g. ``package_path("catalog", "x.toml")``."""
    return os.path.join(_ROOT, *parts)


#: The bundled week of the HP Labs hplajw trace (`data/hplajw/README.md`): the demo's and the
#: seeds' experiments' trace.
HPLAJW_WEEK = package_path("data", "hplajw", "ajw.1week.srt")


def package_text(*parts: str) -> str:
    """A text file of the package, read whole."""
    with open(package_path(*parts), encoding="utf-8") as f:
        return f.read()


def toml_names(*folder: str) -> list[str]:
    """The names (without ``.toml``) of the TOML files in a folder of the package, sorted."""
    return sorted(name[: -len(".toml")] for name in os.listdir(package_path(*folder)) if name.endswith(".toml"))
