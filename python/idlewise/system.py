"""Seed 000's whole system from Python: application traces, the mail and web workloads, and runs
of the energy-aware cache on a storage device and an 802.11 card sharing one clock (the
simulation itself is the engine's ``system`` module).

An application trace has the columns ``time_s,object,size_bytes,op,cached``: ``op`` ``R`` reads an
object (from the disk cache or the network), ``W`` sends one over the network (an upload), ``D``
deletes and ``N`` renames a cached object (both deferred in the write queue); ``cached`` is 1 when
the object is in the disk cache at the start.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from . import _core
from ._extras import need
from .devices import load_device
from .errors import IdlewiseError, TraceError, TraceRecordError, shown
from .traces.inputs import trace_name

COLUMNS = ("time_s", "object", "size_bytes", "op", "cached")
DEFAULT_STORAGE = "hitachi-microdrive-1gb"
DEFAULT_NETWORK = "cisco-350"
#: Static strategy (seed 000 Figure 7): the card's default PSM and a fixed disk timeout. The
#: microdrive's own timeout is not given by the seed; 10 s to standby is assumed.
STATIC_STORAGE_POLICY = "timeout:10s"
STATIC_NETWORK_POLICY = "psm"


#: Operation letters and the engine's codes for them.
OPS = {"R": 0, "W": 1, "D": 2, "N": 3}


@dataclass
class AppTrace:
    time_s: np.ndarray
    object: np.ndarray          # object names (str)
    size_bytes: np.ndarray
    is_write: np.ndarray        # sends (uploads)
    cached: np.ndarray
    #: Operation letters (R, W, D, N); None means R/W from ``is_write``.
    ops: Optional[np.ndarray] = None
    name: str = "workload"
    notes: dict = field(default_factory=dict)
    #: The CSV it was read from (its line numbers are the records' plus 2: the header, from 1).
    path: Optional[str] = None

    def __len__(self) -> int:
        return len(self.time_s)

    def object_ids(self) -> np.ndarray:
        _, ids = np.unique(self.object, return_inverse=True)
        return ids.astype(np.uint64)

    def op_letters(self) -> np.ndarray:
        return self.ops if self.ops is not None else np.where(self.is_write, "W", "R")

    def op_codes(self) -> np.ndarray:
        return np.vectorize(OPS.get, otypes=[np.uint8])(self.op_letters()) if len(self) else np.zeros(0, np.uint8)

    def to_table(self):
        """The trace as a pyarrow Table (the ``parquet`` extra)."""
        need("parquet", "an application trace as an Arrow table")
        import pyarrow as pa

        return pa.table({"time_s": self.time_s, "object": self.object.astype(str), "size_bytes": self.size_bytes.astype(np.int64),
                         "op": self.op_letters(), "cached": self.cached.astype(np.int8)})


def write_app_trace(trace: AppTrace, path) -> None:
    from .output import written_whole

    need("parquet", f"{os.fspath(path)}: writing an application trace")
    import pyarrow.csv as pacsv

    with written_whole(os.fspath(path)) as temporary:
        pacsv.write_csv(trace.to_table(), temporary, write_options=pacsv.WriteOptions(quoting_style="needed"))


def _fail_at(path: str, values, ok, field_name: str, expected: str):
    if not np.all(ok):
        i = int(np.argmax(~np.asarray(ok)))
        raise TraceError(f"{path}: line {i + 2}, field '{field_name}': expected {expected}, got {shown(values[i])}")


def read_app_trace(path) -> AppTrace:
    """Reads an application trace CSV; errors name the file, line and field."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        head = f.read(4096)
    if b"\x00" in head:
        raise TraceError(f"{path}: a binary file, not an application trace CSV")
    header = next(csv.reader([head.decode("utf-8", "replace").splitlines()[0]])) if head.strip() else []
    missing = [c for c in COLUMNS if c not in [h.strip() for h in header]]
    if missing:
        raise TraceError(f"{path}: line 1: the header must name {','.join(COLUMNS)}; missing {', '.join(missing)}")
    need("parquet", f"{path}: an application trace")
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        table = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(
            column_types={"time_s": pa.float64(), "object": pa.string(), "size_bytes": pa.float64(), "op": pa.string(),
                          "cached": pa.string()}, null_values=[], strings_can_be_null=False))
    except pa.ArrowInvalid as e:
        raise TraceError(f"{path}: {e}") from None
    if table.num_rows == 0:
        raise TraceError(f"{path}: the application trace has no events")
    t = table.column("time_s").to_numpy()
    size = table.column("size_bytes").to_numpy()
    op = np.char.upper(table.column("op").to_numpy(zero_copy_only=False).astype(str))
    cached = table.column("cached").to_numpy(zero_copy_only=False).astype(str)
    _fail_at(path, t, np.isfinite(t), "time_s", "a finite time in seconds")
    _fail_at(path, t, np.concatenate([[True], np.diff(t) >= 0]), "time_s", "times in order")
    _fail_at(path, size, np.isfinite(size) & (size >= 0), "size_bytes", "a non-negative size")
    _fail_at(path, op, np.isin(op, tuple(OPS)), "op", "'R' (read), 'W' (send), 'D' (delete) or 'N' (rename)")
    _fail_at(path, cached, np.isin(cached, ("0", "1")), "cached", "0 or 1")
    return AppTrace(t, table.column("object").to_numpy(zero_copy_only=False).astype(str), size, op == "W", cached == "1",
                    ops=op, name=trace_name(path), path=path)


def mail_workload(seed: int = 0, messages: int = 41, duration_s: float = 900.0, send_every: int = 8) -> AppTrace:
    """A morning's mail like seed 000's: ``messages`` cached messages read in a ``duration_s`` burst,
    with a reply sent (uploaded) after every ``send_every``-th message.

    Assumed distributions (the seed publishes none): message sizes log-normal with a 4 KiB median and
    σ = 1.2 (text messages with a heavy tail of attachments), clipped to 512 B–2 MiB; think times
    exponential, scaled so the session lasts ``duration_s``.
    """
    rng = np.random.default_rng(seed)
    sizes = np.clip(np.exp(rng.normal(np.log(4096), 1.2, messages)), 512, 2 * 1024 * 1024).round()
    events = []
    for i in range(messages):
        events.append((f"msg-{i:03d}", sizes[i], False, True))
        if send_every and (i + 1) % send_every == 0:
            events.append((f"reply-{i:03d}", np.clip(np.exp(rng.normal(np.log(2048), 0.8)), 256, 256 * 1024).round(), True, False))
    think = rng.exponential(1.0, len(events))
    times = np.concatenate([[0.0], np.cumsum(think[1:])])
    times *= duration_s / times[-1]
    return AppTrace(times, np.array([e[0] for e in events]), np.array([e[1] for e in events], dtype=float),
                    np.array([e[2] for e in events]), np.array([e[3] for e in events]), name=f"mail-seed{seed}",
                    notes={"messages": messages, "sends": sum(e[2] for e in events)})


def web_workload(log, seed: int = 0, window_s: float = 1200.0, host: Optional[str] = None, start: Optional[float] = None,
                 cached_fraction: float = 0.5) -> AppTrace:
    """A web-browsing workload from a NASA-format access log (TSV: host logname time method url
    response bytes referer useragent): the requests of one client-like host in a ``window_s``
    window — by default the (host, window) with the most distinct objects — with
    ``cached_fraction`` of its objects in the disk cache at the start, chosen with ``seed``.

    Object sizes are the largest byte count the log shows for the URL (304 responses carry none);
    requests of URLs the log never sizes, and non-GET requests, are skipped and counted in ``notes``.
    """
    import pandas as pd

    from .traces.inputs import open_input

    path = os.fspath(log)
    # Opened here, never handed to pandas as a name it might take for a URL (tcp://, s3://);
    # a compressed log (the NASA logs ship as .gz) is read as it is.
    with open_input(path) as f:
        try:
            df = pd.read_csv(f, sep="\t", dtype=str, keep_default_na=False, quoting=3)
        except (OSError, ValueError, pd.errors.ParserError) as e:
            raise TraceError(f"{path}: cannot read as a NASA access log: {e}") from None
    need = {"host", "time", "method", "url", "bytes"}
    if not need <= set(df.columns):
        raise TraceError(f"{path}: line 1: expected the columns host, logname, time, method, url, response, bytes; "
                         f"missing {', '.join(sorted(need - set(df.columns)))}")
    times = pd.to_numeric(df["time"], errors="coerce")
    if times.isna().any():
        i = int(times.isna().to_numpy().argmax())
        raise TraceError(f"{path}: line {i + 2}, field 'time': expected Unix seconds, got {df['time'].iloc[i]!r}")
    df = df.assign(t=times.astype(float), b=pd.to_numeric(df["bytes"], errors="coerce").fillna(0.0))
    sizes = df.groupby("url")["b"].max()
    gets = df[df["method"] == "GET"]
    if host is None or start is None:
        best = (-1, None, None)
        for h, group in gets.groupby("host"):
            t = group["t"].to_numpy()
            urls = group["url"].to_numpy()
            for i in range(len(t)):
                j = np.searchsorted(t, t[i] + window_s, side="left")
                distinct = len(set(urls[i:j]))
                if distinct > best[0]:
                    best = (distinct, h, float(t[i]))
        _, host, start = best if host is None else (0, host, start)
        if start is None:
            start = float(gets[gets["host"] == host]["t"].min())
    stream = gets[(gets["host"] == host) & (gets["t"] >= start) & (gets["t"] < start + window_s)]
    if stream.empty:
        raise IdlewiseError(f"{path}: no GET requests from host {host!r} in [{start}, {start + window_s})")
    size = stream["url"].map(sizes).to_numpy()
    sized = size > 0
    stream, size = stream[sized], size[sized]
    urls = stream["url"].to_numpy().astype(str)
    distinct = np.unique(urls)
    rng = np.random.default_rng(seed)
    cached_urls = set(rng.choice(distinct, size=int(round(cached_fraction * len(distinct))), replace=False))
    return AppTrace(stream["t"].to_numpy() - start, urls, size.astype(float), np.zeros(len(urls), dtype=bool),
                    np.array([u in cached_urls for u in urls]), name=f"web-{host}",
                    notes={"host": host, "start_unix_s": start, "distinct_objects": len(distinct),
                           "requests": len(urls), "skipped_unsized": int((~sized).sum())})


class System:
    """Seed 000's OS power manager for application models written in Python.

    Register devices (catalog names, TOML paths or :class:`Device`) under names of your choice,
    each with its policy; then, as your model runs, ask what mode each is in and what changing
    modes costs (``query_current_mode``, ``query_mode_info``, ``query_transition_cost``), send
    requests and ghost hints, and register callbacks. Deregistering returns a device's account.
    Every method but ``register_device`` is the engine's (``idlewise._core.System``).
    """

    def __init__(self, base_power_w: float = 0.0):
        self._core = _core.System(base_power_w)

    def register_device(self, name: str, device, policy: str, start_s: float = 0.0, initial_mode: Optional[str] = None):
        self._core.register_device(name, load_device(device), policy, start_s=start_s, initial_mode=initial_mode)

    def __getattr__(self, attr):
        return getattr(self._core, attr)


def run_cache(trace: AppTrace, *, storage=DEFAULT_STORAGE, network=DEFAULT_NETWORK, cache: str = "adaptive",
              knob: float = 50.0, ghost_hints: bool = True, base_power_w: float = 1.44,
              io_cpu_power_w: float = _core.SEED000_IO_CPU_POWER_W,
              storage_policy: Optional[str] = None, network_policy: Optional[str] = None,
              closed_loop: bool = True, storage_initial_mode: Optional[str] = None,
              network_initial_mode: Optional[str] = None) -> dict:
    """Runs the trace on the system. ``cache='adaptive'`` uses STPM at ``knob`` on both devices by
    default; ``'static'`` always reads cached items from the disk, with the card in PSM and a fixed
    disk timeout (``STATIC_*_POLICY``). ``io_cpu_power_w`` is what the platform draws above its
    base power while a device serves (the default is fitted to seed 000's Figure 3)."""
    if cache not in ("adaptive", "static"):
        raise IdlewiseError(f"cache must be 'adaptive' or 'static', got {cache!r}")
    if not (0 <= knob <= 100):
        raise IdlewiseError(f"knob must be between 0 and 100, got {knob}")
    storage_dev = load_device(storage)
    network_dev = load_device(network) if network is not None else None
    # The cache manager fetches from a card through its round trips and beacons: a disk in the
    # card's place would be charged as no disk is (and come out below its own lower bound).
    if storage_dev.kind == "network":
        raise IdlewiseError(f"storage: {storage_dev.name} is a network card; the storage device is a disk, flash card or "
                            "MEMS device (idlewise devices lists each with its kind)")
    if network_dev is not None and network_dev.kind != "network":
        raise IdlewiseError(f"network: {network_dev.name} is a {network_dev.kind}, not a network card; "
                            "name an 802.11 card (idlewise devices lists each with its kind)")
    adaptive = cache == "adaptive"
    sp = storage_policy or (f"stpm:knob={knob:g}" if adaptive else STATIC_STORAGE_POLICY)
    np_ = network_policy or (f"stpm:knob={knob:g}" if adaptive else STATIC_NETWORK_POLICY)
    try:
        result = _core.run_system(
            trace.time_s.astype(np.float64), trace.object_ids(), trace.size_bytes.astype(np.float64),
            trace.op_codes(), trace.cached.astype(np.uint8), storage_dev, sp,
            network_dev, np_ if network_dev is not None else None, knob=float(knob), base_power_w=float(base_power_w), io_cpu_power_w=float(io_cpu_power_w),
            adaptive=adaptive, ghost_hints=ghost_hints, closed_loop=closed_loop,
            storage_initial_mode=0 if storage_initial_mode is None else storage_dev.mode_index(storage_initial_mode),
            network_initial_mode=0 if network_initial_mode is None or network_dev is None else network_dev.mode_index(network_initial_mode))
    except TraceRecordError as e:  # (an application trace has no Trace to say where: its record, or its line)
        message, index, field_name = e.args
        where = f"{trace.path}: line {index + 2}" if trace.path else f"{trace.name}: record {index}"
        raise TraceError(f"{where}, field '{field_name}': {message}") from None
    result.update(workload=trace.name, cache=cache, knob=knob, ghost_hints_enabled=ghost_hints and adaptive,
                  storage=storage_dev.name, network=network_dev.name if network_dev is not None else None)
    return result


__all__ = ["AppTrace", "COLUMNS", "System", "mail_workload", "read_app_trace", "run_cache", "web_workload", "write_app_trace"]
