"""A systemd service for the manager (``idlewise manage unit``), and the notifications it sends
systemd (``Type=notify``: ready, the watchdog's keep-alive, stopping), through the datagram
socket systemd names in ``NOTIFY_SOCKET`` (sd_notify's protocol, a few lines: no library)."""

from __future__ import annotations

import os
import shlex
import socket
import sys
from typing import Optional

#: systemd restarts the manager when it misses this many seconds of keep-alives.
WATCHDOG_S = 30


def unit_text(config: str, *, wifi: bool = False, nvme: bool = False) -> str:
    """The unit for ``manage run --config CONFIG``, hardened to what the manager needs: raw
    access to the disks (CAP_SYS_RAWIO, CAP_SYS_ADMIN for SG_IO and nvme-cli), netlink for an
    802.11 card (``wifi``), /sys writable for NVMe's APST bound (``nvme``), its runtime and log
    directories; nothing else."""
    start = shlex.join([sys.executable, "-m", "idlewise.cli", "manage", "run", "--config", config])
    capabilities = "CAP_SYS_RAWIO CAP_SYS_ADMIN" + (" CAP_NET_ADMIN" if wifi else "")
    families = "AF_UNIX AF_NETLINK" if wifi else "AF_UNIX"
    lines = [
        "[Unit]",
        "Description=idlewise power manager (spins disks down under a policy)",
        "After=local-fs.target",
        "",
        "[Service]",
        "Type=notify",
        "NotifyAccess=main",
        f"ExecStart={start}",
        "ExecReload=/bin/kill -HUP $MAINPID",
        f"WatchdogSec={WATCHDOG_S}",
        "Restart=on-failure",
        "RestartSec=10",
        "RuntimeDirectory=idlewise",
        "RuntimeDirectoryMode=0755",
        "LogsDirectory=idlewise",
        "LogsDirectoryMode=0750",
        f"CapabilityBoundingSet={capabilities}",
        f"AmbientCapabilities={capabilities}",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=yes",
        "PrivateTmp=yes",
        *([] if nvme else ["ProtectKernelTunables=yes"]),
        "ProtectKernelModules=yes",
        "ProtectKernelLogs=yes",
        "ProtectControlGroups=yes",
        "ProtectClock=yes",
        "ProtectHostname=yes",
        f"RestrictAddressFamilies={families}",
        "RestrictNamespaces=yes",
        "RestrictRealtime=yes",
        "RestrictSUIDSGID=yes",
        "LockPersonality=yes",
        "SystemCallArchitectures=native",
        "SystemCallFilter=@system-service",
        "UMask=0027",
        "",
        "[Install]",
        "WantedBy=multi-user.target",
    ]
    return "\n".join(lines) + "\n"


def notify(message: str) -> bool:
    """Sends ``message`` (``READY=1``, ``WATCHDOG=1``, ``STOPPING=1``) to systemd when it asked
    for notifications; False where it did not, or the send failed."""
    path = os.environ.get("NOTIFY_SOCKET")
    if not path:
        return False
    address = "\0" + path[1:] if path.startswith("@") else path
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.connect(address)
            s.sendall(message.encode())
        return True
    except OSError:
        return False


def watchdog_interval_s() -> Optional[float]:
    """How often systemd wants a keep-alive (half its watchdog time), or None."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return int(usec) / 2e6
    except ValueError:
        return None


__all__ = ["WATCHDOG_S", "notify", "unit_text", "watchdog_interval_s"]
