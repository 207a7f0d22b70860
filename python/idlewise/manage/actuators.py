"""How a decision is carried out on one kind of device, and how the device's real state is read
without waking it: one small class per host interface.

| backend | into a low-power mode | waking | the drive's state, without waking it |
|---|---|---|---|
| ``ata`` | STANDBY IMMEDIATE (``hdparm -y``) into a mode whose spindle stops | by itself on I/O; one direct read for a hint | CHECK POWER MODE (``hdparm -C``) |
| ``scsi`` | START STOP UNIT with the STANDBY power condition (``sg_start --pc=3``), which the drive leaves by itself on access | ``sg_start --pc=1`` (ACTIVE) for a hint | REQUEST SENSE (``sg_requests``): its low-power condition |
| ``scsi-stop`` | START STOP UNIT with START=0 (``sg_start --stop``): asked for by name only | ``sg_start --start`` | as ``scsi`` |
| ``nvme`` | Set Features, Power Management (``nvme set-feature -f 0x02 -v N``) | by itself on I/O | Get Features, Power Management (``nvme get-feature -f 0x02``) |
| ``wifi`` | ``iw dev IF set power_save on`` (PSM) | ``... off`` (CAM) | ``iw dev IF get power_save`` |

Why SCSI is not stopped: a SAS or SCSI disk stopped with START STOP UNIT stays stopped until a
START; the kernel does not start it on the next I/O, which fails (hd-idle's documentation warns
that "real SCSI disks won't start again"). A power condition (SPC-4 §5.11: idle, standby) is
one the drive leaves by itself when a command needs the media, as an ATA drive leaves standby.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from ..errors import IdlewiseError


def stopped_modes(device) -> list:
    """The modes whose spindle is stopped (leaving one uses a rated start/stop cycle), deepest
    (least power) last."""
    modes = [m for m in device.modes if m.get("stops_spindle")]
    return [m["name"] for m in sorted(modes, key=lambda m: -m["power_w"])]


class Actuator:
    """What carries a mode change out on one kind of device. ``command(from, to)``: the command
    entering ``to`` (None where the device does it itself, or no host command applies);
    ``wake()``: the command that wakes it without an application's I/O (a ghost hint);
    ``probe()``: the command that reads its state without waking it; ``judge(output, mode)``:
    from the probe's output and the model's mode, the mode the device is really in where the
    model is wrong (None: the model agrees, or the probe cannot tell)."""

    name = "none"
    #: Words for a log and ``status``.
    via = ""

    def __init__(self, target: str, device, via: str = ""):
        self.target, self.device, self.via = target, device, via
        self.ready = device.modes[0]["name"]

    def command(self, from_mode: str, to_mode: str) -> Optional[list]:
        return None

    def wake(self) -> Optional[list]:
        return None

    def probe(self) -> Optional[list]:
        return None

    def judge(self, output: str, model_mode: str) -> Optional[str]:
        return None

    def _judge_spindle(self, stopped: Optional[bool], named: Optional[str], model_mode: str) -> Optional[str]:
        """A probe that says whether the spindle turns (``stopped``, None: it cannot tell), or names
        a mode of the model (``named``): the mode to correct the model to, where it is wrong."""
        modes = {m["name"] for m in self.device.modes}
        if named in modes:
            return None if named == model_mode else named
        if stopped is None:
            return None
        down = stopped_modes(self.device)
        if stopped and model_mode not in down:
            return down[-1] if down else None
        if not stopped and model_mode in down:
            return self.ready  # woken: spinning, in whichever idle mode; the model wakes to ready
        return None


class AtaStandby(Actuator):
    """An ATA disk (SATA, PATA, or behind a SAT bridge): STANDBY IMMEDIATE into a mode whose
    spindle stops; the modes between (heads unloaded, lower speed) are the drive's own (APM,
    EPC); it spins up by itself on access."""

    name = "ata"

    def command(self, from_mode, to_mode):
        if to_mode in stopped_modes(self.device):
            return ["hdparm", "-y", f"/dev/{self.target}"]
        if from_mode in stopped_modes(self.device):
            return self.wake()  # a wake-up the policy plans (predictive's pre-wake)
        return None

    def wake(self):
        return ["dd", f"if=/dev/{self.target}", "of=/dev/null", "bs=4096", "count=1", "iflag=direct", "status=none"]

    def probe(self):
        return ["hdparm", "-C", f"/dev/{self.target}"]

    def judge(self, output, model_mode):
        # " drive state is:  standby" / "active/idle" / "idle_b" (EPC) / "sleeping" / "unknown"
        found = re.search(r"drive state is:\s*(\S+)", output)
        state = found.group(1).lower() if found else "unknown"
        if state == "unknown":
            return None
        if state == "sleeping":
            return self._judge_spindle(True, None, model_mode)
        return self._judge_spindle(state.startswith("standby"), state if state not in ("active/idle", "standby") else None,
                                   model_mode)


class ScsiPowerCondition(Actuator):
    """A SCSI or SAS disk: the STANDBY power condition, which it leaves by itself on access (see
    the module's doc for why it is not stopped)."""

    name = "scsi"

    def command(self, from_mode, to_mode):
        if to_mode in stopped_modes(self.device):
            return ["sg_start", "--pc=3", f"/dev/{self.target}"]
        if from_mode in stopped_modes(self.device):
            return self.wake()
        return None

    def wake(self):
        return ["sg_start", "--pc=1", f"/dev/{self.target}"]

    def probe(self):
        return ["sg_requests", f"/dev/{self.target}"]

    def judge(self, output, model_mode):
        # REQUEST SENSE in a low-power condition: ASC 5Eh ("Standby condition activated by
        # command", "Idle_b condition activated by timer", ...); none in the active one.
        text = output.lower()
        if "standby" in text and "condition" in text:
            return self._judge_spindle(True, None, model_mode)
        if "stopped" in text or "not ready" in text and "start unit" in text:
            return self._judge_spindle(True, None, model_mode)
        return self._judge_spindle(False, None, model_mode)


class ScsiStop(ScsiPowerCondition):
    """START STOP UNIT with START=0, only where asked for by name (``actuator = "scsi-stop"``):
    a disk stopped so needs a START, which the manager sends before it is used only if asked
    by a hint or a plan; the kernel sends none."""

    name = "scsi-stop"

    def command(self, from_mode, to_mode):
        if to_mode in stopped_modes(self.device):
            return ["sg_start", "--stop", f"/dev/{self.target}"]
        if from_mode in stopped_modes(self.device):
            return self.wake()
        return None

    def wake(self):
        return ["sg_start", "--start", f"/dev/{self.target}"]


class WifiPowerSave(Actuator):
    """An 802.11 interface: the ready mode is CAM (power save off), a mode that serves is PSM
    (``iw dev IF set power_save on``), seed 000's two modes of the card."""

    name = "wifi"

    def command(self, from_mode, to_mode):
        modes = {m["name"]: m for m in self.device.modes}
        if to_mode == self.ready:
            return ["iw", "dev", self.target, "set", "power_save", "off"]
        if modes[to_mode].get("serves"):
            return ["iw", "dev", self.target, "set", "power_save", "on"]
        return None

    def wake(self):
        return ["iw", "dev", self.target, "set", "power_save", "off"]

    def probe(self):
        return ["iw", "dev", self.target, "get", "power_save"]

    def judge(self, output, model_mode):
        found = re.search(r"power save:\s*(on|off)", output, re.IGNORECASE)
        if not found:
            return None
        psm = next((m["name"] for m in self.device.modes[1:] if m.get("serves")), None)
        on = found.group(1).lower() == "on"
        if on and psm and model_mode == self.ready:
            return psm
        if not on and model_mode != self.ready:
            return self.ready
        return None


class NvmePowerState(Actuator):
    """An NVMe controller: Power Management (feature 0x02) set to the power state a mode named
    ``psN`` is, through nvme-cli; the controller leaves a non-operational state by itself on I/O."""

    name = "nvme"

    def _controller(self) -> str:
        found = re.match(r"nvme\d+", self.target)
        return f"/dev/{found.group(0) if found else self.target}"

    def command(self, from_mode, to_mode):
        if to_mode.startswith("ps") and to_mode[2:].isdigit():
            return ["nvme", "set-feature", self._controller(), "-f", "0x02", "-v", to_mode[2:]]
        return None

    def probe(self):
        return ["nvme", "get-feature", self._controller(), "-f", "0x02"]

    def judge(self, output, model_mode):
        found = re.search(r"current value:\s*(0x[0-9a-f]+|\d+)", output, re.IGNORECASE)
        if not found:
            return None
        state = int(found.group(1), 0) & 0x1F  # PS, bits 4:0
        named = f"ps{state}"
        if named not in {m["name"] for m in self.device.modes}:
            named = self.ready if state == 0 else None
        return None if named in (None, model_mode) else named


ACTUATORS = {a.name: a for a in (AtaStandby, ScsiPowerCondition, ScsiStop, WifiPowerSave, NvmePowerState)}


def _sysfs() -> str:
    return os.environ.get("IDLEWISE_SYSFS_ROOT", "/sys")


def usb_bridge(disk: str) -> bool:
    """Whether the disk sits behind a USB bridge (its sysfs device path runs through USB): SAT
    bridges pass ATA commands or not, and some report every state as 'unknown'."""
    return "/usb" in os.path.realpath(os.path.join(_sysfs(), "block", disk, "device"))


def choose_actuator(disk: str, device, kind: str = "auto") -> Actuator:
    """The backend for ``disk``: named, or chosen from the device model and what sysfs says
    (an NVMe namespace, a network interface, an ATA disk behind libata or a SAT bridge, else
    SCSI with its power condition)."""
    via = "a USB bridge (SAT)" if device.kind != "network" and usb_bridge(disk) else ""
    if kind != "auto":
        if kind not in ACTUATORS:
            raise IdlewiseError(f"actuator {kind!r}: unknown; known: auto, {', '.join(ACTUATORS)}")
        return ACTUATORS[kind](disk, device, via)
    if device.kind == "network":
        return WifiPowerSave(disk, device)
    if disk.startswith("nvme"):
        return NvmePowerState(disk, device, via)
    try:
        with open(os.path.join(_sysfs(), "block", disk, "device", "vendor"), encoding="ascii", errors="replace") as f:
            vendor = f.read().strip()
    except OSError:
        vendor = "ATA"  # a disk sysfs does not describe: the common case
    # libata names every ATA disk's vendor "ATA"; a SAT bridge passes the drive's own through.
    return AtaStandby(disk, device, via) if vendor in ("ATA", "") or via else ScsiPowerCondition(disk, device, via)


__all__ = ["ACTUATORS", "Actuator", "AtaStandby", "NvmePowerState", "ScsiPowerCondition", "ScsiStop", "WifiPowerSave",
           "choose_actuator", "stopped_modes", "usb_bridge"]
