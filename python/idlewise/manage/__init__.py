"""The power manager, live (``idlewise manage``): seed 000's system on this machine's devices.

The loop (:mod:`.loop`) watches block devices' activity in ``/proc/diskstats``, feeds each
device's model (the engine's ``LiveDisk``: the very device model and policy object a replay
runs) the requests each interval stands for, served in the time the drive reported it busy, and
carries out the mode changes the policy decides, at wall-clock time, through a small actuator
(:mod:`.actuators`), off the loop (:mod:`.commands`). A dry run (the default) only logs what it
would do. It reads each drive's real state without waking it and corrects the model where the
drive was moved by something else; a failed command leaves the model where the drive is.

Every decision is one JSON line: ``time_s`` (when the policy made it, seconds from the start),
``acted_s`` (when the loop acted), ``done_s`` (when its command answered), ``wall`` (the wall-clock
time, ISO 8601 UTC), ``disk``, ``from_mode``, ``to_mode``, ``reason``, ``command`` and ``outcome``.

Applications ask through a Unix socket (:mod:`.server`): each device's mode, since when, the
model's energy so far and what an access would cost now; and ghost hints. Only root and the
manager's user are answered; what is made on the file system harms nothing (:mod:`.paths`).

Disks and their settings come from the command line or a TOML file (:mod:`.config`);
``manage unit`` prints a systemd service for it (:mod:`.unit`), ``manage status --prometheus`` the
state as Prometheus reads it (:mod:`.exposition`). ``replay`` (:mod:`.replay`) runs the same loop
over a recording: its model is ``simulate --service observed``'s. ``docs/manage.md`` says it all.
"""

from .actuators import ACTUATORS, Actuator, choose_actuator
from .commands import COMMAND_TIMEOUT_S, Inline, Threaded, run_command
from .config import DEFAULT_CONFIG, DiskSetting, Settings, read_config, resolve_disk
from .exposition import exposition, write_textfile
from .loop import Managed, Manager, NetCounters, prepare, read_counters, run, settings_for, spin_down
from .paths import default_socket, open_log
from .replay import replay
from .server import Client, Server
from .unit import unit_text

__all__ = ["ACTUATORS", "Actuator", "COMMAND_TIMEOUT_S", "Client", "DEFAULT_CONFIG", "DiskSetting", "Inline", "Managed",
           "Manager", "NetCounters", "Server", "Settings", "Threaded", "choose_actuator", "default_socket", "exposition",
           "open_log", "prepare", "read_config", "read_counters", "replay", "resolve_disk", "run", "run_command",
           "settings_for", "spin_down", "unit_text", "write_textfile"]
