"""Device models: the bundled catalog and user TOML files. The model itself (validation, routes,
break-even times) is the engine's; this module only finds and reads the text."""

from __future__ import annotations

import os
import warnings

from . import _core
from ._package import package_path, package_text, toml_names
from .errors import IdlewiseError

Device = _core.Device


#: A disk's wear ratings: (what wears, the device's rating attribute, the result's count of the
#: wake-ups that use one). A result row also has ``<count>_per_day`` and ``rated_<attribute>``.
WEAR_RATINGS = (("start/stop", "start_stop_cycles", "cycle_wakeups"),
                ("load/unload", "load_unload_cycles", "load_unload_wakeups"))


def wear_ratings(device: Device) -> list[tuple[str, float, str]]:
    """The ratings ``device`` gives: (kind, rated cycles, the result's count of wake-ups using one)."""
    return [(kind, getattr(device, attribute), count) for kind, attribute, count in WEAR_RATINGS
            if getattr(device, attribute) is not None]


class DeviceWarning(UserWarning):
    """A device value that is allowed but looks wrong (a low-power mode above the ready mode)."""


def catalog_names() -> list[str]:
    """Names of the bundled devices.

    Returns
    -------
    list of str
        Every catalog entry's name, sorted (``idlewise devices`` shows them).
    """
    return toml_names("catalog")


def load_device(name_or_path: str | os.PathLike | Device) -> Device:
    """Loads a catalog device by name, or a device TOML file by path.

    Parameters
    ----------
    name_or_path : str, os.PathLike or Device
        A catalog name (``hitachi-microdrive-1gb``), a ``.toml`` file (``docs/devices.md``), or
        a :class:`Device`, returned as it is.

    Returns
    -------
    Device

    Raises
    ------
    IdlewiseError
        An unknown name (with the nearest catalog names) or a file that is not a valid device,
        naming the field.
    """
    if isinstance(name_or_path, Device):
        return name_or_path
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise IdlewiseError(f"a device is a catalog name, a TOML path or a Device, got {type(name_or_path).__name__}")
    text = os.fspath(name_or_path)
    if os.path.exists(text) or text.endswith(".toml"):
        try:
            with open(text, encoding="utf-8") as f:
                device = Device.from_toml(f.read(), text)
        except OSError as e:
            raise IdlewiseError(f"{text}: cannot read device file: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise IdlewiseError(f"{text}: not a TOML device file: byte {e.start} is not UTF-8 text") from None
    else:
        if not os.path.isfile(package_path("catalog", f"{text}.toml")):
            hint = _core.did_you_mean(text, catalog_names())
            raise IdlewiseError(f"unknown device '{text}'{hint}: not a file, and not in the catalog ({', '.join(catalog_names())})")
        device = Device.from_toml(package_text("catalog", f"{text}.toml"), f"catalog:{text}")
    for message in device.warnings:
        warnings.warn(message, DeviceWarning, stacklevel=2)
    return device


__all__ = ["Device", "DeviceWarning", "catalog_names", "load_device"]
