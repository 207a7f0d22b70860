"""A replay's options as one object, from the Python face to the engine: `simulate`,
`simulate_file`, `sweep` and the command line build one, and every replay the engine runs takes
it whole (`_core.ReplayOptions`), so that a new option is a field here and a keyword of the
binding's class, not a keyword threaded through five signatures."""

from __future__ import annotations

import dataclasses
from typing import Optional


@dataclasses.dataclass(frozen=True)
class ReplayOptions:
    """How a trace is replayed, beside the device and the policies.

    Attributes
    ----------
    base_power_w : float
        The platform's base power, charged over the run (system energy).
    initial_mode : int
        The mode the device is in at the first arrival (an index; 0 is its own starting mode).
    replay : str
        ``open`` (arrivals as recorded), ``closed`` or ``sync``.
    response_from : str
        Where a response is measured from: ``issue`` or ``original`` (a transformed trace).
    tail_s, lead_s : float
        How long the run goes on after the last request, and began before the first.
    transition_seed : int, optional
        Draw the times of wake-ups that vary from this seed's stream; their means otherwise.
    fold_offsets : bool
        Fold requests beyond the device's capacity onto it.
    keep_per_request : bool
        Keep every request's record.
    timeline_s : (float, float), optional
        Keep what the device did between these times.
    references : bool
        Replay always-on and the oracle beside the policies.
    max_volumes : int, optional
        The most volumes a streamed replay holds at once (the memory budget's).
    recording_start_s : float, optional
        Where a recording replayed as it is read began.
    threads : int
        Threads the replay may use.
    """

    base_power_w: float = 0.0
    initial_mode: int = 0
    replay: str = "open"
    response_from: str = "issue"
    tail_s: float = 0.0
    lead_s: float = 0.0
    transition_seed: Optional[int] = None
    fold_offsets: bool = False
    keep_per_request: bool = False
    timeline_s: Optional[tuple] = None
    references: bool = True
    max_volumes: Optional[int] = None
    recording_start_s: Optional[float] = None
    threads: int = 1

    def replace(self, **changes) -> "ReplayOptions":
        """These options with ``changes``."""
        return dataclasses.replace(self, **changes)

    def engine(self):
        """The engine's object of these options (`_core.ReplayOptions`), numbers as numbers."""
        from . import _core

        return _core.ReplayOptions(
            base_power_w=float(self.base_power_w), initial_mode=int(self.initial_mode), replay=self.replay,
            response_from=self.response_from, tail_s=float(self.tail_s), lead_s=float(self.lead_s),
            transition_seed=None if self.transition_seed is None else int(self.transition_seed),
            fold_offsets=bool(self.fold_offsets), keep_per_request=bool(self.keep_per_request), timeline_s=self.timeline_s,
            references=bool(self.references), max_volumes=self.max_volumes, recording_start_s=self.recording_start_s,
            threads=int(self.threads))


__all__ = ["ReplayOptions"]
