"""Device models: the bundled catalog and user TOML files. The model itself (validation, routes,
break-even times) is the engine's; this module only finds and reads the text."""

from __future__ import annotations

import os
from importlib import resources

from . import _core
from .errors import IdlewiseError

Device = _core.Device


def _catalog_dir():
    return resources.files("idlewise") / "catalog"


def catalog_names() -> list[str]:
    """Names of the bundled devices."""
    return sorted(p.name[: -len(".toml")] for p in _catalog_dir().iterdir() if p.name.endswith(".toml"))


def load_device(name_or_path: str | os.PathLike | Device) -> Device:
    """Loads a catalog device by name, or a device TOML file by path."""
    if isinstance(name_or_path, Device):
        return name_or_path
    text = os.fspath(name_or_path)
    if os.path.exists(text) or text.endswith(".toml"):
        try:
            with open(text, encoding="utf-8") as f:
                return Device.from_toml(f.read(), text)
        except OSError as e:
            raise IdlewiseError(f"{text}: cannot read device file: {e.strerror}") from None
    entry = _catalog_dir() / f"{text}.toml"
    if not entry.is_file():
        raise IdlewiseError(f"unknown device '{text}': not a file, and not in the catalog ({', '.join(catalog_names())})")
    return Device.from_toml(entry.read_text(encoding="utf-8"), f"catalog:{text}")


__all__ = ["Device", "catalog_names", "load_device"]
