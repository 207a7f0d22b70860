"""Hybrid disks (seed 003): a disk with a flash NVCache that takes writes while the platters are
spun down, flushed back on each spin-up or when full by one of four algorithms. The engine does
the work; this module reads hybrid descriptions, checks arguments and runs every combination."""

from __future__ import annotations

import itertools
import math
import numbers
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import _core
from ._package import package_path, package_text, toml_names
from .devices import Device, load_device
from .errors import IdlewiseError, TraceRecordError
from .results import Results
from .options import ReplayOptions
from .simulate import _power_w, check_replay_options
from . import traces
from .traces.inputs import trace_name

if TYPE_CHECKING:
    from .traces.streaming import FileRead

#: The four flushing algorithms of seed 003 Figure 2.
FLUSH_ALGORITHMS = {
    1: "one redirected request at a time",
    2: "DRAM-sized chunks",
    3: "double-buffered chunks",
    4: "double-buffered chunks, sorted and merged",
}
FLUSH_WHEN = ("each", "full")


def hybrid_names() -> list[str]:
    """Names of the bundled hybrid disk descriptions.

    Returns
    -------
    list of str
    """
    return toml_names("catalog", "hybrid")


def load_hybrid(name_or_path: str | os.PathLike) -> dict:
    """Reads a hybrid description.

    Parameters
    ----------
    name_or_path : str or os.PathLike
        A bundled name (:func:`hybrid_names`) or a TOML file (``docs/hybrid.md``).

    Returns
    -------
    dict
        Its ``disk`` and ``flash`` loaded as :class:`Device` (a path is taken relative to the
        description's file), its sizes in bytes (``nvcache_bytes`` None when unbounded), flush
        settings and policy.
    """
    text_path = os.fspath(name_or_path)
    if os.path.exists(text_path) or text_path.endswith(".toml"):
        try:
            with open(text_path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise IdlewiseError(f"{text_path}: cannot read hybrid description: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise IdlewiseError(f"{text_path}: not a TOML file: byte {e.start} is not UTF-8 text") from None
        origin, base = text_path, os.path.dirname(os.path.abspath(text_path))
    else:
        if not os.path.isfile(package_path("catalog", "hybrid", f"{text_path}.toml")):
            raise IdlewiseError(f"unknown hybrid disk '{text_path}': not a file, and not bundled ({', '.join(hybrid_names())})")
        text, origin, base = package_text("catalog", "hybrid", f"{text_path}.toml"), f"catalog:hybrid/{text_path}", None
    description = _core.hybrid_description(text, origin)
    for part in ("disk", "flash"):
        value = description[part]
        local = os.path.join(base, value) if base and not os.path.isabs(value) else value
        try:
            description[part] = load_device(local if base and os.path.exists(local) else value)
        except IdlewiseError as e:
            raise IdlewiseError(f"hybrid description {origin}: {part}: {e}") from None
    return description


def size_bytes(value, what: str, *, unbounded_ok: bool) -> int | None:
    """A size: bytes as an integer, a string with a unit ('64MiB', '100KB'), or for an unbounded
    NVCache 'inf', math.inf or None."""
    if value is None or (isinstance(value, float) and math.isinf(value) and value > 0):
        if unbounded_ok:
            return None
        raise IdlewiseError(f"{what}: must be a finite size")
    if isinstance(value, str):
        try:
            parsed = _core.parse_size_bytes(value)
        except IdlewiseError as e:
            raise IdlewiseError(f"{what}: {e}") from None
        if parsed is None and not unbounded_ok:
            raise IdlewiseError(f"{what}: must be a finite size, got {value!r}")
        return parsed
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and 0 <= value < 2**63:
        return int(value)
    raise IdlewiseError(f"{what}: a size is a whole number of bytes or a string such as '64MiB', got {value!r}")


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


@dataclass(frozen=True)
class HybridSetup:
    """Checked parts and the combinations to run: what :func:`prepare` makes of the arguments."""

    disk: Device
    flash: Device
    policy: object  # a spec, or a Python policy's engine handle
    configs: tuple  # (nvcache_bytes or None, dram_bytes, flush_when, flush_algorithm)
    base_power_w: float
    name: str | None = None
    final_flush: bool = False


def prepare(disk=None, flash=None, *, description=None, nvcache=None, dram=None, flush_when=None, flush_algorithm=None,
            policy: str | None = None, base_power_w: float = 0.0, final_flush: bool = False) -> HybridSetup:
    """Checks a hybrid disk's parts, sizes, flush choices and policy without a trace, so a bad
    argument fails before a long read. Arguments as for :func:`hybrid`."""
    d = load_hybrid(description) if description is not None else {}
    disk = disk if disk is not None else d.get("disk")
    flash = flash if flash is not None else d.get("flash")
    if disk is None or flash is None:
        raise IdlewiseError("a hybrid disk needs a disk and a flash part: give disk= and flash=, or description= "
                            f"(bundled: {', '.join(hybrid_names())})")
    disk, flash = load_device(disk), load_device(flash)
    if disk.kind != "disk":
        raise IdlewiseError(f"disk: '{disk.name}' is a {disk.kind} device, not a disk")
    if flash.kind != "flash":
        raise IdlewiseError(f"flash: '{flash.name}' is a {flash.kind} device, not flash")
    policy = policy if policy is not None else (d.get("policy") or "experts")
    from .policy import Policy
    from .simulate import engine_specs

    if not isinstance(policy, (str, Policy, _core.PythonPolicy)):
        raise IdlewiseError(f"policy must be one spec such as 'experts' or 'timeout:10s', or an idlewise.Policy; got {policy!r}")
    base_power_w = _power_w(base_power_w)
    specs = engine_specs([policy], disk, base_power_w)
    if len(specs) != 1:
        raise IdlewiseError(f"policy '{policy}': a hybrid disk runs one policy, not a range of {len(specs)}")
    policy = specs[0]
    _core.check_hybrid_policy(policy, disk, base_power_w)
    if nvcache is None:
        nvcache = d["nvcache_bytes"] if d else "64MiB"
    if dram is None:
        dram = d.get("dram_bytes", "16MiB")
    nvcaches = [size_bytes(v, "nvcache", unbounded_ok=True) for v in _as_list(nvcache)]
    drams = [size_bytes(v, "dram", unbounded_ok=False) for v in _as_list(dram)]
    whens = _as_list(flush_when if flush_when is not None else (d.get("flush_when") or "full"))
    for w in whens:
        if w not in FLUSH_WHEN:
            raise IdlewiseError(f"flush_when must be 'each' or 'full', got {w!r}")
    algorithms = _as_list(flush_algorithm if flush_algorithm is not None else (d.get("flush_algorithm") or 4))
    for a in algorithms:
        if not (isinstance(a, numbers.Integral) and not isinstance(a, bool) and int(a) in FLUSH_ALGORITHMS):
            raise IdlewiseError(f"flush_algorithm must be 1, 2, 3 or 4 (seed 003 Figure 2), got {a!r}")
    configs = tuple((n, m, w, int(a)) for n, m, w, a in itertools.product(nvcaches, drams, whens, algorithms))
    if not isinstance(final_flush, bool):
        raise IdlewiseError(f"final_flush must be True or False, got {final_flush!r}")
    return HybridSetup(disk, flash, policy, configs, base_power_w, d.get("name"), final_flush)


def hybrid(trace: "traces.Trace", disk=None, flash=None, *, description=None, nvcache=None, dram=None, flush_when=None,
           flush_algorithm=None, policy=None, base_power_w: float = 0.0, initial_mode: str | None = None,
           replay: str = "open", response_from: str = "issue", tail_s: float = 0.0,
           transition_seed: int | None = None, setup: HybridSetup | None = None, final_flush: bool = False) -> Results:
    """Replays a trace on a hybrid disk: a rotating disk under a policy with flash as its NVCache.

    Parameters
    ----------
    trace : Trace
        The requests.
    disk, flash : str or Device, optional
        The rotating disk and the NVCache's flash (default: the description's).
    description : str, optional
        A hybrid description (bundled name or TOML path) whose parts and sizes are the defaults;
        arguments given here override it.
    nvcache, dram : str, int or list, optional
        Sizes (``'64MiB'``, ``'100KB'``, bytes; ``nvcache='inf'`` is unbounded). Without a
        description: NVCache 64 MiB, DRAM 16 MiB (seed 003).
    flush_when : {"each", "full"} or list, optional
        Flush at each spin-up or when full (default ``full``).
    flush_algorithm : int (1-4) or list, optional
        Seed 003 Figure 2's algorithm (default 4).
    policy : str, optional
        The disk's spin-down policy (default ``experts``).
    base_power_w, initial_mode, replay, response_from, tail_s, transition_seed
        As :func:`idlewise.simulate`.
    final_flush : bool, optional
        Flush what the NVCache still holds after the last request (spinning the disk up if
        need be) and charge it; by default it is left there and reported as ``bytes_unflushed``.
    setup : HybridSetup, optional
        From :func:`prepare`: replaces the parts, sizes and policy.

    Returns
    -------
    Results
        One run per combination of the four list arguments, in the hybrid results schema
        (``docs/results.md``): the hybrid's account (energy of disk and flash, spin-ups,
        responses, redirected and flushed bytes, flush time and its parts) and the plain disk's
        under the same policy (``plain_disk_energy_j``, ``plain_disk_spinups``), so
        ``energy_saved_j`` and ``spinups_saved`` show what the NVCache bought.
    """
    if not isinstance(trace, traces.Trace):
        raise IdlewiseError(f"hybrid() needs a Trace, got {type(trace).__name__}; build one with Trace.from_arrays or read_trace")
    if setup is None:
        setup = prepare(disk, flash, description=description, nvcache=nvcache, dram=dram, flush_when=flush_when,
                        flush_algorithm=flush_algorithm, policy=policy, base_power_w=base_power_w, final_flush=final_flush)
    # A recording's idle before its first request and after its last are run, as simulate runs them.
    runs = _runs(setup, initial_mode, replay, response_from, max(float(tail_s), trace.idle_tail_s), transition_seed,
                 lead_s=trace.idle_lead_s)
    try:
        runs.feed(trace.time_s, trace.offset_bytes, trace.size_bytes, trace.is_write, original_time_s=trace.original_time_s)
    except TraceRecordError as e:
        raise trace.record_error(e) from None
    return _results(runs.finish(), trace.name, setup)


def _runs(setup: HybridSetup, initial_mode, replay, response_from, tail_s, transition_seed, lead_s: float = 0.0,
          recording_start_s=None):
    """Every configuration's run and the plain disk's, to be fed a trace a part at a time."""
    check_replay_options(replay, response_from, tail_s, transition_seed)
    mode_index = 0 if initial_mode is None else setup.disk.mode_index(initial_mode)
    options = ReplayOptions(base_power_w=setup.base_power_w, initial_mode=mode_index, replay=replay, response_from=response_from,
                            tail_s=tail_s, lead_s=lead_s, recording_start_s=recording_start_s, transition_seed=transition_seed)
    return _core.HybridRuns(setup.disk, setup.flash, setup.policy, list(setup.configs), options.engine(),
                            final_flush=setup.final_flush)


def _results(rows, name: str, setup: HybridSetup, **extra) -> Results:
    for r in rows:
        r["trace"] = name
        if setup.name:
            r["hybrid"] = setup.name
        r.update(extra)
    return Results(rows, name)


def hybrid_file(path: str | os.PathLike, disk=None, flash=None, *, format: str = "auto", stream=None, transform: str | None = None,
                columns=None, write_flag=None, initial_mode: str | None = None, replay: str = "open",
                response_from: str = "issue", tail_s: float = 0.0, transition_seed: int | None = None,
                setup: HybridSetup | None = None, **parts) -> tuple[Results, "FileRead"]:
    """:func:`hybrid` of every device of a trace file, replayed as the file is read.

    Memory is the runs', whatever the trace's length; each device's requests are transformed as
    they go. The rows are those of :func:`hybrid` on each device of the trace read whole.

    Parameters
    ----------
    path : str or os.PathLike
        The trace file (any format :func:`read_trace` reads as it goes).
    disk, flash, setup, **parts
        As :func:`hybrid` (``description``, ``nvcache``, ``dram``, ``flush_when``,
        ``flush_algorithm``, ``policy``, ``base_power_w``, ``final_flush``).
    format, stream, transform, columns, write_flag
        As :func:`idlewise.simulate_file`.
    initial_mode, replay, response_from, tail_s, transition_seed
        As :func:`idlewise.simulate`.

    Returns
    -------
    (Results, FileRead)
        The rows, one per (device, configuration) with ``stream``; and the read (its
        ``report()`` is a whole read's read report).
    """
    import numpy as np

    from .traces.streaming import FileRead, file_format, transformed_parts
    from .traces.transforms import TransformStream, split_selection

    path = os.fspath(path)
    if setup is None:
        setup = prepare(disk, flash, **parts)
    format, mapping = file_format(path, format, columns, write_flag, stream, whole="read_trace() and hybrid()")
    stream, transform = split_selection(transform, stream, f"{path}: ")  # a chain's stream:K is the device read
    transform = None if transform is None or transform.strip() in ("", "none") else transform.strip()
    if transform is not None:
        TransformStream(transform)  # a bad spec fails before the read
    from .simulate import recording_start_of

    read = FileRead(path, format, keep=stream, mapping=mapping, write_flag=write_flag)
    start = recording_start_of(format, path)  # a recording's runs begin at its start, as read whole
    devices: dict = {}

    def feed(device, part):
        if part is None or not len(part):
            return
        runs = devices[device]
        try:
            runs.feed(part.time_s, part.offset_bytes, part.size_bytes, np.ascontiguousarray(part.is_write, dtype=np.uint8),
                      original_time_s=part.original_time_s)
        except TraceRecordError as e:
            raise part.record_error(e) from None

    for device, part in transformed_parts(read, transform):
        if device not in devices:
            devices[device] = _runs(setup, initial_mode, replay, response_from, tail_s, transition_seed, recording_start_s=start)
        feed(device, part)
    if not devices:
        raise IdlewiseError(f"{path}: no records{'' if stream is None else f' of device {stream}'} found in {read.records_read} records")
    name = trace_name(path)
    rows = []
    for device in sorted(devices, key=lambda d: (d is not None, d)):
        # Named as a whole read's split and transform name each device's trace.
        named = (name if device is None else f"{name}#{device}") + (f" [{transform}]" if transform else "")
        rows.extend(_results(devices[device].finish(recording_end_s=read.recording_end_s), named, setup, stream=device))
    return Results(rows, name), read


__all__ = ["FLUSH_ALGORITHMS", "FLUSH_WHEN", "HybridSetup", "hybrid", "hybrid_file", "hybrid_names", "load_hybrid", "prepare",
           "size_bytes"]
