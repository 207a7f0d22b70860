"""Progress bars for long calls into the engine: the call runs on a worker thread (the engine
releases the GIL) and advances a counter; after a second, if it is still running and stderr is a
terminal, a bar shows the count in its unit, the rate, the time spent and the time left."""

from __future__ import annotations

import threading

from . import _core

#: Seconds a call must last before a bar appears.
PROGRESS_AFTER_S = 1.0


def _count(n: float, unit: str) -> str:
    """12.3M requests, 412 MiB: short enough for an 80-column terminal."""
    if unit == "bytes":
        for suffix, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if n >= scale:
                return f"{n / scale:,.1f} {suffix}"
        return f"{n:,.0f} B"
    for suffix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:,.1f}{suffix}"
    return f"{n:,.0f}"


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else f"{seconds // 60}:{seconds % 60:02d}"


def _status(done: float, total: int, unit: str, spent_s: float, rate: float | None) -> str:
    """'114.3M of 132.0M request replays · 85.2M/s · 0:01 spent · 0:00 left'."""
    amount = f"{_count(done, unit)} of {_count(total, unit)}" if total else _count(done, unit)
    parts = [amount if unit == "bytes" else f"{amount} {unit}"]  # a byte count carries its unit
    if rate:
        parts.append(f"{_count(rate, unit)}/s")
    parts.append(f"{_clock(spent_s)} spent")
    if total and rate:
        parts.append(f"{_clock(max(total - done, 0) / rate)} left")
    return " · ".join(parts)


def run_with_progress(call, total: int, show: bool, label: str, unit: str = "requests"):
    """Runs ``call(counter)`` (``counter`` an engine :class:`Progress`) and returns its value;
    draws a bar of ``total`` (0: unknown, a count alone) in ``unit`` when it takes a while."""
    progress = _core.Progress()
    outcome: dict = {}
    # The worker's end is waited for on an Event, not Thread.join: a join interrupted by Ctrl-C
    # can mark a running thread as stopped (CPython's _wait_for_tstate_lock releases the lock
    # the thread still holds), and a process that then exits with a thread inside the engine or
    # Arrow aborts ("PyGILState_Release ... must be current").
    finished = threading.Event()

    def work():
        try:
            outcome["value"] = call(progress)
        except BaseException as e:  # handed to the caller's thread below
            outcome["error"] = e
        finally:
            finished.set()

    worker = threading.Thread(target=work, name="idlewise-engine", daemon=True)
    worker.start()
    try:
        return _watch(finished, progress, outcome, total, show, label, unit)
    except KeyboardInterrupt:
        # Ctrl-C (or SIGTERM) arrives here, in the main thread: ask the engine to stop at its
        # next block and wait for it, so that no thread is left inside the engine while the
        # interpreter exits (that aborted the process). Its partial result is dropped.
        progress.stop()
        while not finished.is_set():
            try:
                finished.wait()
            except KeyboardInterrupt:
                pass  # a second Ctrl-C: already stopping
        try:
            worker.join()  # it is only leaving its function now
        except KeyboardInterrupt:
            pass
        raise


def _watch(finished, progress, outcome: dict, total: int, show: bool, label: str, unit: str):
    finished.wait(PROGRESS_AFTER_S)
    if not finished.is_set() and show:
        import time

        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn

        # The rate is measured from when the bar appears (the engine has been running a second).
        started, first = time.monotonic(), progress.done
        columns = [SpinnerColumn(), TextColumn("{task.description}"), *([BarColumn(bar_width=16)] if total else []),
                   TextColumn("{task.fields[status]}")]
        with Progress(*columns, transient=True) as bar:
            task = bar.add_task(label, total=total or None, completed=first,
                                status=_status(first, total, unit, PROGRESS_AFTER_S, None))
            while not finished.is_set():
                finished.wait(0.1)
                done = progress.done
                spent = time.monotonic() - started
                rate = (done - first) / spent if spent > 0.3 and done > first else None
                bar.update(task, completed=done, status=_status(done, total, unit, spent + PROGRESS_AFTER_S, rate))
    finished.wait()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


__all__ = ["PROGRESS_AFTER_S", "run_with_progress"]
