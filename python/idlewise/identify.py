"""``--device auto``: which catalog entry models the disk being advised, from what this machine
says of it. Linux's sysfs gives the model string (``/sys/block/sda/device/model``) and whether
the disk rotates (``queue/rotational``); an NVMe drive's power states and APST support come
from its controller (``nvme id-ctrl``, when nvme-cli is installed). The model is matched against
the catalog's known model numbers (``data/disk_models.toml``); a disk not in it gets its class's
default entry, named as such, so the advice says what it rests on."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Optional

from ._package import package_text
from .errors import IdlewiseError
from ._compat import tomllib

#: Where sysfs and procfs are; tests point them at trees of their own.
SYSFS_ENV = "IDLEWISE_SYSFS_ROOT"
PROCFS_ENV = "IDLEWISE_PROCFS_ROOT"


@dataclass
class Identified:
    """What this machine says of a disk, and the catalog entry chosen for it."""

    disk: str
    model: str
    kind: str  # "hdd", "sata-ssd" or "nvme"
    catalog: str
    #: True: the model is one of the entry's; False: the entry is the class default.
    matched: bool
    #: For NVMe: whether the controller supports APST and its power states' exit latencies (µs),
    #: where nvme-cli could read them; None where it could not.
    apst: Optional[bool] = None
    exit_latencies_us: list = field(default_factory=list)
    #: Why the disk is a hypervisor's emulation (virtio, Xen, an emulated ATA/SCSI model), or None.
    virtual: Optional[str] = None
    #: True where the disk sits behind a USB bridge (many ignore ATA standby timers).
    usb: bool = False
    #: What of the running system the disk holds: "the root file system", "active swap (/dev/sda3)".
    holds: list = field(default_factory=list)

    def describe(self) -> str:
        how = (f"catalog entry for model '{self.model}'" if self.matched else
               f"the {self.kind} class default (no catalog entry for model '{self.model}')")
        apst = "" if self.apst is None else f"; APST {'supported' if self.apst else 'not supported'} by its controller"
        return f"/dev/{self.disk}: {self.catalog}, {how}{apst}"


def _read(path: str) -> Optional[str]:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return None


def _models() -> dict:
    text = package_text("data", "disk_models.toml")
    return tomllib.loads(text)


def _nvme_power(controller: str) -> tuple[Optional[bool], list]:
    """APST support and the power states' exit latencies, from ``nvme id-ctrl`` (None, [] when
    nvme-cli is missing or cannot read the controller, e.g. without root)."""
    nvme = shutil.which("nvme")
    if not nvme:
        return None, []
    try:
        done = subprocess.run([nvme, "id-ctrl", f"/dev/{controller}", "-o", "json"], capture_output=True, text=True, timeout=10)
        data = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        data = None
    if not isinstance(data, dict):
        return None, []
    return bool(data.get("apsta", 0) & 1), [int(ps.get("exit_lat", 0)) for ps in data.get("psds", [])]


def identify(disk: str, *, sysfs: Optional[str] = None) -> Identified:
    """The catalog entry for ``disk`` (``sda``, ``nvme0n1``) of this machine."""
    root = sysfs or os.environ.get(SYSFS_ENV, "/sys")
    block = os.path.join(root, "block", disk)
    if not os.path.isdir(block):
        raise IdlewiseError(f"--device auto: this machine has no disk '{disk}' ({block} is missing): identify the disks of the "
                            "machine the recording was made on, there, or name the catalog entry with --device NAME")
    model = _read(os.path.join(block, "device", "model")) or ""
    rotational = _read(os.path.join(block, "queue", "rotational"))
    path = os.path.realpath(os.path.join(block, "device"))
    virtual = _virtual(disk, model, path)
    nvme = re.fullmatch(r"nvme\d+n\d+", disk) is not None
    kind = "nvme" if nvme else "hdd" if rotational == "1" else "sata-ssd" if rotational == "0" else None
    if kind is None:
        raise IdlewiseError(f"--device auto: {block}/queue/rotational does not say whether '{disk}' rotates; "
                            "name the catalog entry with --device NAME")
    table = _models()
    normalised = " ".join(model.split()).upper()
    match = next((entry for entry in table["model"] if entry["pattern"].upper() in normalised), None)
    catalog = match["device"] if match else table["class"][kind]
    apst, latencies = _nvme_power(re.match(r"nvme\d+", disk).group(0)) if nvme else (None, [])
    return Identified(disk=disk, model=model or "(none given)", kind=kind, catalog=catalog, matched=match is not None,
                      apst=apst, exit_latencies_us=latencies, virtual=virtual, usb="/usb" in path,
                      holds=system_roles(disk, sysfs=root))


def _disks_under(name: str, sysfs: str, depth: int = 0) -> set:
    """The whole disks a block device of sysfs lies on: itself, a partition's disk, or, for a
    device-mapper or md device (LVM, LUKS, RAID), the disks under its slaves."""
    block = os.path.join(sysfs, "block")
    if depth > 8:  # a stack deeper than any real one: a loop in a made-up tree
        return set()
    if os.path.isdir(os.path.join(block, name)):
        slaves = os.path.join(block, name, "slaves")
        under = sorted(os.listdir(slaves)) if os.path.isdir(slaves) else []
        return set().union(*(_disks_under(s, sysfs, depth + 1) for s in under)) if under else {name}
    try:
        disks = sorted(os.listdir(block))
    except OSError:
        return set()
    return next(({d} for d in disks if os.path.isdir(os.path.join(block, d, name))), set())


def _block_name(source: str, sysfs: str) -> Optional[str]:
    """The sysfs name of a mount's or swap's source (``/dev/sda2``, ``/dev/mapper/vg-root``,
    ``/dev/disk/by-uuid/...``), or None for a source that is no block device (overlay, tmpfs)."""
    if not source.startswith("/dev/"):
        return None
    if source.startswith("/dev/mapper/"):
        wanted = source[len("/dev/mapper/"):]
        block = os.path.join(sysfs, "block")
        for name in sorted(os.listdir(block)) if os.path.isdir(block) else []:
            if _read(os.path.join(block, name, "dm", "name")) == wanted:
                return name
        return None
    # /dev/disk/by-*/ and /dev/root are links on the running system; elsewhere the name is it.
    return os.path.basename(os.path.realpath(source) if os.path.islink(source) else source)


def system_roles(disk: str, *, sysfs: Optional[str] = None, procfs: Optional[str] = None) -> list:
    """What of the running system ``disk`` holds, from ``/proc/mounts`` and ``/proc/swaps``:
    the root file system, active swap (a partition, or a file on one of its file systems).
    A disk holding either is one the system itself wakes, and waits for."""
    sysfs = sysfs or os.environ.get(SYSFS_ENV, "/sys")
    procfs = procfs or os.environ.get(PROCFS_ENV, "/proc")
    mounts = []
    for line in (_read(os.path.join(procfs, "mounts")) or "").splitlines():
        fields = line.split()
        if len(fields) >= 2:
            mounts.append((fields[0], fields[1].replace("\\040", " ")))

    def on_disk(source: str) -> bool:
        name = _block_name(source, sysfs)
        return name is not None and disk in _disks_under(name, sysfs)

    roles = []
    root = [source for source, point in mounts if point == "/"]
    if root and on_disk(root[-1]):  # the last mount on / is the one in use
        roles.append("the root file system")
    for line in (_read(os.path.join(procfs, "swaps")) or "").splitlines()[1:]:
        fields = line.split()
        if len(fields) < 2:
            continue
        source, kind = fields[0], fields[1]
        if kind == "file":
            # A swap file lives on the file system mounted deepest above it.
            holders = [(len(point), src) for src, point in mounts if source.startswith(point.rstrip("/") + "/")]
            source = max(holders)[1] if holders else ""
        if source and on_disk(source):
            roles.append(f"active swap ({fields[0]})")
    return roles


#: Model strings of the disks hypervisors emulate (QEMU, VirtualBox, VMware, Hyper-V, Xen).
VIRTUAL_MODELS = ("QEMU HARDDISK", "QEMU DVD", "VBOX HARDDISK", "VIRTUAL DISK", "VMWARE VIRTUAL", "MSFT VIRTUAL",
                  "XEN VBD")


def virtual_by_name(disk: str) -> Optional[str]:
    """Why a disk is a hypervisor's paravirtual disk by its name alone (vda, xvdb), or None: what
    a recording made elsewhere says of its disk."""
    return "a paravirtual disk (virtio or Xen)" if re.fullmatch(r"(vd|xvd)[a-z]+", disk or "") else None


def _virtual(disk: str, model: str, device_path: str) -> Optional[str]:
    """Why ``disk`` is a hypervisor's emulation rather than a drive, or None: a virtio or Xen
    paravirtual disk (its name, or virtio in its sysfs path), or an emulated model. Its
    ``rotational`` flag says nothing of a spindle (virtio reports 1)."""
    if virtual_by_name(disk) or "/virtio" in device_path:
        return "a paravirtual disk (virtio or Xen)"
    upper = " ".join(model.split()).upper()
    hit = next((m for m in VIRTUAL_MODELS if m in upper), None)
    return f"a hypervisor's emulated disk (model '{model.strip()}')" if hit else None


__all__ = ["Identified", "PROCFS_ENV", "SYSFS_ENV", "identify", "system_roles", "virtual_by_name"]
