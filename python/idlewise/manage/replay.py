"""The manager's loop over a recording (``idlewise manage replay``): one poll a snapshot on a
virtual clock, commands recorded instead of run. On the same recording and policy its model is
``simulate --service observed``'s run, to the bit: the same device model and policy object, fed
the same requests served in the same observed times, from the recording's start to its end."""

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
    service="observed")`` gives)."""
    from ..traces import read_trace
    from ..traces.readers.diskstats import _parse

    devices, snapshots = _parse(os.fspath(recording))
    if disk is None:
        if len(devices) != 1:
            raise IdlewiseError(f"{recording}: the recording holds {', '.join(devices)}: pick one with --stream NAME")
        disk = next(iter(devices))
    if disk not in devices:
        raise IdlewiseError(f"{recording}: no device '{disk}' in the recording; devices recorded: {', '.join(devices)}")
    _, _, _, times, values = devices[disk]
    origin = times[0]
    model = load_device(device)
    requests = read_trace(recording, format="diskstats", stream=disk)
    # As a replay of the recording does (and a live manager started with it), the model's run
    # begins at the recording's start, the first snapshot, idle until the first request.
    live = _core.LiveDisk(model, policy, start_s=0.0)
    decisions: list = []

    def write(record):
        decisions.append(record)
        if emit:
            emit(record)
    m = Managed(disk, model, live, choose_actuator(disk, model, "ata" if model.kind == "disk" else "auto"), act=True,
                actual_mode=model.modes[0]["name"], live_policy=policy, name=disk)
    # The drive's I/O in flight is the live loop's guard; a recording's replay follows its requests.
    manager = Manager([m], write, executor=Inline(lambda argv: ("recorded", "")), knob=knob,
                      wall=lambda now: origin + now, hold_in_flight=False)
    for t, counters in zip(times, values):
        manager.poll(t - origin, {disk: counters})
    # As simulate: the run goes on after the last completion as long as the recording went on
    # after its last request (a saturated model's completions run past the recording's end);
    # what the policy decides up to then is acted on at that end.
    end = live.last_finish_s() + requests.idle_tail_s
    for d in live.advance(end):
        manager._carry_out(m, d, max(end, d["time_s"]), overtaken=False)
    manager.collect(end)
    return decisions, live.finish(end)


__all__ = ["replay"]
