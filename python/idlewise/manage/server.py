"""The applications' interface: a Unix socket whose clients send one JSON request a line
(``{"op": "status"}``, ``{"op": "hint", "disk": "sdb", "size_bytes": 1048576}``), answered by the
loop (which owns the models). Only root and the manager's own user are answered
(``SO_PEERCRED``); a client believes only a manager run by root or by itself.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import threading
from typing import Callable, Optional

from ..errors import IdlewiseError
from .paths import OwnSocket, default_socket, peer_uid, trusted

#: A request line longer than this is not one (a client cannot make the manager hold much).
MAX_REQUEST_BYTES = 64 * 1024
#: How long a connection may take to send its request.
CLIENT_TIMEOUT_S = 5.0


class Server:
    """Listens at ``path``; each request goes to ``requests`` as ``(request, reply queue)``;
    ``wake`` is called when one arrives (the loop waits on it)."""

    def __init__(self, path: str, requests: "queue.Queue", wake: Optional[Callable[[], None]] = None):
        self.own = OwnSocket(path)
        self.path, self.requests, self.wake = path, requests, wake
        self.refused = 0
        threading.Thread(target=self._accept, daemon=True, name="idlewise-socket").start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.own.listener.accept()
            except OSError:
                return
            try:
                uid = peer_uid(conn)
            except OSError:
                conn.close()
                continue
            if not trusted(uid):
                self.refused += 1
                try:
                    conn.sendall(b'{"error": "this manager answers root and its own user only"}\n')
                except OSError:
                    pass
                conn.close()
                continue
            threading.Thread(target=self._client, args=(conn,), daemon=True, name="idlewise-client").start()

    def _client(self, conn: socket.socket) -> None:
        conn.settimeout(CLIENT_TIMEOUT_S)
        with conn:
            buffer = b""
            while True:
                try:
                    chunk = conn.recv(4096)
                except OSError:
                    return
                if not chunk:
                    return
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if not self._answer_line(conn, line):
                        return
                if len(buffer) > MAX_REQUEST_BYTES:
                    self._send(conn, {"error": f"a request is one line of JSON of at most {MAX_REQUEST_BYTES} bytes"})
                    return

    def _answer_line(self, conn: socket.socket, line: bytes) -> bool:
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
        except ValueError as e:
            return self._send(conn, {"error": f"not a request: {e}"})
        reply: "queue.Queue" = queue.Queue()
        self.requests.put((request, reply))
        if self.wake:
            self.wake()
        try:
            answer = reply.get(timeout=CLIENT_TIMEOUT_S)
        except queue.Empty:
            answer = {"error": "the manager did not answer in time"}
        return self._send(conn, answer)

    @staticmethod
    def _send(conn: socket.socket, answer: dict) -> bool:
        try:
            conn.sendall((json.dumps(answer, allow_nan=False) + "\n").encode())
            return True
        except (OSError, ValueError):
            return False

    def close(self) -> None:
        self.own.remove()


class Client:
    """An application's side of the manager's socket (seed 000's two interfaces)."""

    def __init__(self, path: Optional[str] = None, timeout_s: float = 10.0):
        self.path, self.timeout_s = path or default_socket(), timeout_s

    def _ask(self, request: dict) -> dict:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(self.timeout_s)
                s.connect(self.path)
                uid = peer_uid(s)
                if not trusted(uid):
                    raise IdlewiseError(f"{self.path}: answered by user {uid}, neither root nor this user: not a manager "
                                        "to believe (a socket planted there?); nothing was sent")
                s.sendall((json.dumps(request) + "\n").encode())
                answer = s.makefile("r", encoding="utf-8").readline()
        except OSError as e:
            raise IdlewiseError(f"{self.path}: no manager answers ({e.strerror or e}); start one with idlewise manage run") from None
        try:
            reply = json.loads(answer or "{}")
        except ValueError:
            raise IdlewiseError(f"{self.path}: the answer is not JSON") from None
        if "error" in reply:
            raise IdlewiseError(reply["error"])
        return reply

    def status(self, size_bytes: float = 4096.0) -> list:
        """Each managed device: ``mode``, ``in_mode_s``, ``energy_j`` (the model's, so far),
        ``actual_mode``, ``spin_ups``, ``since_io_s``, ``in_flight`` and ``access`` (what
        reading ``size_bytes`` would cost now: ``time_s``, ``energy_j``)."""
        return self._ask({"op": "status", "size_bytes": size_bytes})["devices"]

    def hint(self, disk: str, size_bytes: float = 4096.0) -> list:
        """A ghost hint: an application would have read ``size_bytes`` from ``disk`` had it been
        ready. Returns the wake-up it caused, if the policy took it."""
        return self._ask({"op": "hint", "disk": disk, "size_bytes": size_bytes})["decisions"]


__all__ = ["Client", "Server"]
