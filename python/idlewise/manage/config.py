"""The manager's configuration: a TOML file (``--config FILE``; ``/etc/idlewise/manage.toml`` when
it exists) with the manager's settings and a table per disk, and how a disk's name becomes the
kernel's.

```toml
[manager]                    # all optional
interval = "1s"              # between polls of /proc/diskstats
check_interval = "5min"      # between reads of each drive's real state (0: never)
log = "/var/log/idlewise/manage.jsonl"
socket = "/run/idlewise/manage.sock"
textfile = "/var/lib/prometheus/node-exporter/idlewise.prom"   # node_exporter's textfile collector
command_timeout = "30s"

[defaults]                   # what a disk's table does not say
policy = "timeout:20min"
device = "auto"              # a catalog model, a device file, or auto (identified from sysfs)
actuator = "auto"            # ata, scsi, scsi-stop, nvme, wifi, or auto
apply = false                # false: a dry run, logged only

[disks."/dev/disk/by-id/ata-WDC_WD40EFZX-68AWUN0_WD-XXXXXXXX"]
policy = "stpm:knob=50"
device = "wd-red-plus-4tb"
apply = true
```

A disk's NAME (here, and ``manage run DISK``) is a kernel name (``sdb``), a ``/dev/`` path
(``/dev/sdb``) or any ``/dev/disk/by-*`` link (to the disk or one of its partitions); it is
resolved to the kernel's name at start, and again when the disk comes back after it was gone
(unplugged and plugged in, it may come back as another ``sdX``).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Optional

from ..errors import IdlewiseError

#: The configuration read when none is named and it exists.
DEFAULT_CONFIG = "/etc/idlewise/manage.toml"

MANAGER_KEYS = {"interval", "check_interval", "log", "socket", "textfile", "command_timeout"}
DISK_KEYS = {"policy", "device", "actuator", "apply"}


@dataclass
class DiskSetting:
    """What to do with one disk."""

    name: str
    policy: str = "timeout:20min"
    device: str = "auto"
    actuator: str = "auto"
    apply: bool = False
    #: The kernel's name NAME resolves to (set when resolved; None while the disk is absent).
    disk: Optional[str] = None


@dataclass
class Settings:
    """The manager's settings (the command line's, over a file's)."""

    disks: list = field(default_factory=list)
    interval_s: float = 1.0
    check_interval_s: float = 300.0
    log: Optional[str] = None
    socket: Optional[str] = None
    textfile: Optional[str] = None
    command_timeout_s: float = 30.0
    source: str = "the command line"


def _seconds(value, where: str) -> float:
    from .. import _core

    try:
        seconds = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else _core.parse_duration_s(str(value))
    except (ValueError, _core.IdlewiseError) as e:
        raise IdlewiseError(f"{where}: not a duration ({e})") from None
    if not (math.isfinite(seconds) and seconds >= 0):
        raise IdlewiseError(f"{where}: a duration must be finite and not negative, got {value!r}")
    return seconds


def read_config(path: str) -> Settings:
    """The settings of a configuration file; errors name the file and the key."""
    from .._compat import tomllib

    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise IdlewiseError(f"{path}: cannot read the configuration: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise IdlewiseError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:  # (tomllib decodes the whole file before it parses)
        raise IdlewiseError(f"{path}: not valid TOML: byte {e.start} is not UTF-8 text") from None
    unknown = set(data) - {"manager", "defaults", "disks"}
    if unknown:
        raise IdlewiseError(f"{path}: unknown table(s) {', '.join(sorted(unknown))}; known: manager, defaults, disks")
    settings = Settings(source=path)
    manager = _table(data, "manager", path)
    _known(manager, MANAGER_KEYS, f"{path}: [manager]")
    for key, attribute in (("interval", "interval_s"), ("check_interval", "check_interval_s"), ("command_timeout", "command_timeout_s")):
        if key in manager:
            setattr(settings, attribute, _seconds(manager[key], f"{path}: [manager] {key}"))
    for key in ("log", "socket", "textfile"):
        if key in manager:
            if not isinstance(manager[key], str) or not manager[key]:
                raise IdlewiseError(f"{path}: [manager] {key}: a path, got {manager[key]!r}")
            setattr(settings, key, manager[key])
    defaults = _table(data, "defaults", path)
    _known(defaults, DISK_KEYS, f"{path}: [defaults]")
    disks = _table(data, "disks", path)
    if not disks:
        raise IdlewiseError(f'{path}: no [disks."NAME"] table: name the disks to manage')
    for name, table in disks.items():
        where = f'{path}: [disks."{name}"]'
        if not isinstance(table, dict):
            raise IdlewiseError(f"{where}: a table of {', '.join(sorted(DISK_KEYS))}")
        _known(table, DISK_KEYS, where)
        merged = {**defaults, **table}
        for key in ("policy", "device", "actuator"):
            if key in merged and not (isinstance(merged[key], str) and merged[key]):
                raise IdlewiseError(f"{where}: {key}: a non-empty string, got {merged[key]!r}")
        if "apply" in merged and not isinstance(merged["apply"], bool):
            raise IdlewiseError(f"{where}: apply: true or false, got {merged['apply']!r}")
        if "policy" not in merged:
            raise IdlewiseError(f"{where}: no policy (give one here or in [defaults])")
        settings.disks.append(DiskSetting(name=name, **merged))
    return settings


def _table(data: dict, key: str, path: str) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise IdlewiseError(f"{path}: {key} must be a table ([{key}])")
    return value


def _known(table: dict, keys: set, where: str) -> None:
    unknown = set(table) - keys
    if unknown:
        raise IdlewiseError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(keys))}")


def _dev_root() -> str:
    return os.environ.get("IDLEWISE_DEV_ROOT", "/dev")


def _sysfs() -> str:
    return os.environ.get("IDLEWISE_SYSFS_ROOT", "/sys")


def resolve_disk(name: str) -> Optional[str]:
    """The kernel's name of the disk ``name`` says (a kernel name, a ``/dev/`` path, a
    ``/dev/disk/by-*`` link to the disk or to one of its partitions), or None where nothing
    by that name is there now (a disk unplugged)."""
    dev = _dev_root()
    if name.startswith("/dev/"):
        path = os.path.join(dev, name[len("/dev/"):])
        if not os.path.lexists(path):
            return None
        kernel = os.path.basename(os.path.realpath(path))
    elif "/" in name:
        raise IdlewiseError(f"disk {name!r}: a disk is a kernel name (sdb), a /dev/ path or a /dev/disk/by-* link")
    else:
        kernel = name
    # A partition (a by-uuid or by-label link names one) stands for the disk it is on.
    block = os.path.join(_sysfs(), "class", "block", kernel)
    if os.path.exists(os.path.join(block, "partition")):
        return os.path.basename(os.path.dirname(os.path.realpath(block)))
    return kernel


__all__ = ["DEFAULT_CONFIG", "DiskSetting", "Settings", "read_config", "resolve_disk"]
