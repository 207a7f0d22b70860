"""The manager's state in Prometheus' text exposition format (version 0.0.4): ``manage status
--prometheus``, and a file for node_exporter's textfile collector (``textfile`` in the
configuration, ``--textfile``), rewritten whole after every poll. No client library: the format
is a few lines of text."""

from __future__ import annotations

import os
import tempfile

from ..errors import IdlewiseError

#: (name, type, help) of each metric, in the order they are written.
METRICS = (
    ("idlewise_disk_mode", "gauge", "1 for the mode the model holds the disk in (label mode)"),
    ("idlewise_disk_actual_mode", "gauge", "1 for the mode the drive last said it was in (label mode)"),
    ("idlewise_disk_model_energy_joules", "counter", "the model's energy since the manager started"),
    ("idlewise_disk_spin_ups_total", "counter", "spin-ups seen since the manager started (by I/O, a hint, or outside it)"),
    ("idlewise_disk_seconds_since_io", "gauge", "seconds since the last poll that saw I/O"),
    ("idlewise_disk_in_flight", "gauge", "I/Os in flight at the last poll (the drive's queue)"),
    ("idlewise_disk_commands_failed_total", "counter", "commands that failed (each retried with backoff)"),
    ("idlewise_disk_acting", "gauge", "1 where the manager acts on the disk, 0 where it only logs (a dry run)"),
)


def _label(value: str) -> str:
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def exposition(devices: list) -> str:
    """The text exposition of ``status`` answers (one dict a disk)."""
    lines = []
    values = {name: [] for name, _, _ in METRICS}
    for d in devices:
        disk = f'disk="{_label(d["disk"])}",device="{_label(d["device"])}"'
        values["idlewise_disk_mode"].append(f'{{{disk},mode="{_label(d["mode"])}"}} 1')
        if d.get("actual_mode"):
            values["idlewise_disk_actual_mode"].append(f'{{{disk},mode="{_label(d["actual_mode"])}"}} 1')
        values["idlewise_disk_model_energy_joules"].append(f"{{{disk}}} {d['energy_j']:.6g}")
        values["idlewise_disk_spin_ups_total"].append(f"{{{disk}}} {int(d.get('spin_ups', 0))}")
        if d.get("since_io_s") is not None:
            values["idlewise_disk_seconds_since_io"].append(f"{{{disk}}} {d['since_io_s']:.3f}")
        values["idlewise_disk_in_flight"].append(f"{{{disk}}} {int(d.get('in_flight') or 0)}")
        values["idlewise_disk_commands_failed_total"].append(f"{{{disk}}} {int(d.get('failed_commands', 0))}")
        values["idlewise_disk_acting"].append(f"{{{disk}}} {1 if d.get('acting') else 0}")
    for name, kind, help_text in METRICS:
        lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
        lines += [name + v for v in values[name]]
    return "\n".join(lines) + "\n"


def write_textfile(path: str, text: str) -> None:
    """Replaces ``path`` with ``text`` whole (a temporary file beside it, renamed over it), as
    node_exporter's textfile collector asks; refuses a path that is not a regular file of this
    user (a link is replaced as a name, never followed)."""
    import stat

    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise IdlewiseError(f"{path}: not a regular file of this user: the textfile is never written over anything else")
    except FileNotFoundError:
        pass
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".idlewise-", suffix=".prom.tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


__all__ = ["METRICS", "exposition", "write_textfile"]
