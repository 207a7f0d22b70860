"""The manager's loop over a recording (``idlewise manage replay``): one poll a snapshot on a
virtual clock, commands recorded instead of run. On the same recording and policy its model is
``simulate --service observed``'s run (to the bit against a simulation keeping its timeline, which
replays each policy on its own; within 1e-12 where timeouts share a replay): the same device model
and policy object, fed the same requests served in the same observed times, from the recording's
start to its end."""

from __future__ import annotations

import os
from typing import Callable, Optional

from .. import _core
from ..devices import load_device
from ..errors import IdlewiseError
from .actuators import choose_actuator
from .commands import Inline
from .loop import Managed, Manager


def replay(recording: str, policy: str, device: str, *, disk: Optional[str] = None, knob: float = 50.0,
           emit: Optional[Callable[[dict], None]] = None) -> tuple:
    """Runs the manager's loop over a diskstats recording; returns the decisions (the lines the
    loop wrote) and the model's account at the recording's end (the row ``simulate(...,
    service="observed")`` gives). The recording is read as it is replayed: memory is an
    interval's batch, however long the recording."""
    from ..traces.readers.diskstats import disk_snapshots

    model = load_device(device)
    # As a replay of the recording does (and a live manager started with it), the model's run
    # begins at the recording's start, the first snapshot, idle until the first request.
    from .loop import live_spec

    live = _core.LiveDisk(model, live_spec(policy, model), start_s=0.0)
    decisions: list = []

    def write(record):
        decisions.append(record)
        if emit:
            emit(record)
    snapshots = disk_snapshots(os.fspath(recording), disk)
    m = None
    while True:
        try:
            t, counters = next(snapshots)
        except StopIteration as done:
            end_s = done.value
            break
        if m is None:
            disk = disk or _only_disk(recording)
            m = Managed(disk, model, live, choose_actuator(disk, model, "ata" if model.kind == "disk" else "auto"), act=True,
                        actual_mode=model.modes[0]["name"], live_policy=live.policy_name, name=disk)
            # The drive's I/O in flight is the live loop's guard; a recording's replay follows its requests.
            manager = Manager([m], write, executor=Inline(lambda argv: ("recorded", "")), knob=knob,
                              wall=lambda now, origin=_first_time(recording): origin + now, hold_in_flight=False)
        manager.poll(t, {m.disk: counters})
    if m is None or m.last_arrival_s is None:
        raise IdlewiseError(f"{recording}: no read or write completed on {disk or 'its disk'}: there is nothing to replay")
    # As simulate: the run goes on after the last completion as long as the recording went on
    # after its last request (a saturated model's completions run past the recording's end);
    # what the policy decides up to then is acted on at that end.
    end = live.last_finish_s() + max(0.0, end_s - m.last_arrival_s)
    for d in live.advance(end):
        manager._carry_out(m, d, max(end, d["time_s"]), overtaken=False)
    manager.collect(end)
    return decisions, live.finish(end)


def _first_time(recording) -> float:
    """The recording's first snapshot's Unix time (the log's wall-clock times are the recording's)."""
    from ..traces.inputs import open_input
    from ..traces.readers.diskstats import recording_lines

    with open_input(os.fspath(recording)) as f:
        for _, t, _, _, _, _ in recording_lines(f, os.fspath(recording)):
            return t
    raise IdlewiseError(f"{recording}: the recording is empty")


def _only_disk(recording) -> str:
    from ..traces.inputs import open_input
    from ..traces.readers.diskstats import recording_lines

    with open_input(os.fspath(recording)) as f:
        for _, _, _, _, name, _ in recording_lines(f, os.fspath(recording)):
            return name
    raise IdlewiseError(f"{recording}: the recording is empty")


__all__ = ["replay"]
