"""Commands run off the loop: the loop hands a command over and goes on answering its socket,
its signals and its polls; the answer comes back on a later turn. A command that does not
answer within its timeout is killed (its whole process group) and reported as such; one that
cannot even be killed (a process stuck in the kernel) is left to itself and reported, and
never holds the loop.

:class:`Inline` runs each command where it is handed over (a replay's recording actuator, the
tests): the same loop, with answers at once.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
from typing import Callable, Optional

#: A command may take this long by default (a spin-up can take ~10 s on a large disk).
COMMAND_TIMEOUT_S = 30.0


def run_command(argv: list, timeout_s: float = COMMAND_TIMEOUT_S, stop: Optional[threading.Event] = None) -> tuple:
    """Runs ``argv`` in a process group of its own; returns (outcome, output): ``"done"`` or
    the failure (``failed: exit 5: ...``, ``failed: no answer in 30 s``), never raises."""
    try:
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 text=True, errors="replace", start_new_session=True)
    except FileNotFoundError:
        return f"failed: {argv[0]} is not installed", ""
    except OSError as e:
        return f"failed: {e.strerror or e}", ""
    waited, step = 0.0, 0.1
    while True:
        try:
            output, _ = child.communicate(timeout=step)
            break
        except subprocess.TimeoutExpired:
            waited += step
            if waited >= timeout_s or (stop is not None and stop.is_set()):
                _kill_group(child)
                try:
                    child.communicate(timeout=2.0)
                except subprocess.TimeoutExpired:
                    return f"failed: no answer in {timeout_s:g} s, and it could not be killed (left to itself)", ""
                return ("failed: stopped with the manager" if waited < timeout_s else f"failed: no answer in {timeout_s:g} s (killed)"), ""
    if child.returncode != 0:
        detail = (output or "").strip().splitlines()
        return f"failed: exit {child.returncode}" + (f": {detail[-1][:200]}" if detail else ""), output or ""
    return "done", output or ""


def _kill_group(child: subprocess.Popen) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Threaded:
    """One worker a device, so a device's commands run in order and a slow one holds no other
    device. ``submit`` returns at once; :meth:`answers` gives the answers that came back."""

    def __init__(self, run: Callable[[list], tuple] = run_command, timeout_s: float = COMMAND_TIMEOUT_S,
                 wake: Optional[Callable[[], None]] = None):
        self.run, self.timeout_s, self.wake = run, timeout_s, wake
        self.stop = threading.Event()
        self._answers: "queue.Queue" = queue.Queue()
        self._queues: dict = {}
        self._pending: dict = {}
        self._lock = threading.Lock()

    def submit(self, disk: str, argv: list, tag) -> None:
        with self._lock:
            self._pending[disk] = self._pending.get(disk, 0) + 1
            if disk not in self._queues:
                self._queues[disk] = queue.Queue()
                threading.Thread(target=self._work, args=(disk, self._queues[disk]), daemon=True,
                                 name=f"idlewise-command-{disk}").start()
        self._queues[disk].put((argv, tag))

    def busy(self, disk: str) -> bool:
        with self._lock:
            return self._pending.get(disk, 0) > 0

    def _work(self, disk: str, jobs: "queue.Queue") -> None:
        while True:
            argv, tag = jobs.get()
            if self.run is run_command:
                outcome, output = run_command(argv, self.timeout_s, self.stop)
            else:
                outcome, output = self.run(argv)
            with self._lock:
                self._pending[disk] -= 1
            self._answers.put((disk, argv, tag, outcome, output))
            if self.wake:
                self.wake()

    def answers(self) -> list:
        out = []
        while True:
            try:
                out.append(self._answers.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        """Stops waiting on commands under way (they are killed at their next check)."""
        self.stop.set()


class Inline:
    """Runs each command as it is handed over (``run(argv) -> (outcome, output)``)."""

    def __init__(self, run: Callable[[list], tuple]):
        self.run = run
        self._answers: list = []

    def submit(self, disk: str, argv: list, tag) -> None:
        outcome, output = self.run(argv)
        self._answers.append((disk, argv, tag, outcome, output))

    def busy(self, disk: str) -> bool:
        return False

    def answers(self) -> list:
        out, self._answers = self._answers, []
        return out

    def close(self) -> None:
        pass


__all__ = ["COMMAND_TIMEOUT_S", "Inline", "Threaded", "run_command"]
