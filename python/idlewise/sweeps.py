"""Sweeps: every (trace, transform, device, policy) combination, one row per run: on this
machine's cores (the engine's threads, one trace read, the references once per group) or on an
existing Dask cluster.

Policy specs may hold one range each, ``START..STOP/STEP`` with units where the parameter has
them: ``timeout:0s..60s/2s`` expands to 31 specs, ``stpm:knob=0..100/10`` to 11. The runs of one
(trace, transform, device) share a trace load and the always-on and oracle references. Locally a
group is one call of the engine, whose threads share out its runs; on Dask a task is a chunk of
specs for one group, groups split into chunks only as far as needed to keep every worker busy.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from typing import Optional, Sequence, Union

from . import _core
from .devices import Device, load_device
from .errors import IdlewiseError
from .labels import distinct_labels
from .results import Results, group_keys
from .runcolumns import RunColumns
from .traces import Trace, apply_transform, read_trace
from .traces.transforms import split_selection
from .simulate import engine_specs, normalize_to_untransformed, spec_label
from .policy import Policy, is_python_spec, parsed
from .traces.formats import reads_whole
from .options import ReplayOptions
from .policies import expand_spec, family_of, policy_columns
from .output import save_figure, written_whole



@dataclass(frozen=True)
class TraceSource:
    """A trace a worker can load: a file (read in the worker) or an in-memory trace (pickled)."""

    path: Optional[str] = None
    format: str = "auto"
    stream: Optional[int] = None
    trace: Optional[Trace] = None
    #: Replay a file as it is read (memory bounded by a chunk's, however long the file; every spec
    #: of a task rides on the one pass): None (the default) wherever the file's format and the
    #: transform allow, True to insist (an error where they do not), False to read it whole.
    chunks: Optional[bool] = None
    #: The rows' name for the trace, set by plan() where two inputs' own names agree.
    name: Optional[str] = None

    @property
    def label(self) -> str:
        if self.name is not None:
            return self.name
        return self.trace.name if self.trace is not None else os.path.basename(self.path or "")


_LOADED: dict = {}


def _load(source: TraceSource) -> Trace:
    if source.trace is not None:
        return source.trace
    key = (source.path, source.format, source.stream)
    if key not in _LOADED:
        _LOADED.clear()  # keep one trace per worker process
        _LOADED[key] = read_trace(source.path, format=source.format, stream=source.stream)
    return _LOADED[key]


@dataclass(frozen=True)
class Task:
    source: TraceSource
    transform: str
    device: Union[str, Device]
    specs: tuple
    base_power_w: float
    response_from: str = "issue"
    #: Replayed as the file is read (see TraceSource.chunks), decided by plan().
    streamed: bool = False
    #: The rows' name for the device where two devices' own names agree (else the device's name).
    device_label: Optional[str] = None
    #: ``(k, n)``: only the file's volumes numbered ``k`` modulo ``n`` (a streamed group split
    #: among workers, or run in turn to bound memory); None for all.
    volume_part: Optional[tuple] = None


def run_task(task: Task, threads: int = 1) -> RunColumns:
    """Runs one chunk: every stream of the trace as its own device, each spec next to the references,
    on ``threads`` of the engine's threads. The runs come back as columns."""
    if task.streamed:
        return _run_streamed(task, threads)
    trace = _load(task.source)
    device = load_device(task.device)
    read = {"read_report": trace.read_report(), "records_skipped": sum(trace.skipped.values())}
    picked, transform = split_selection(task.transform)
    # A chain's stream:K picks the device (the other transforms work on each apart).
    parts = {picked: trace.select_stream(picked)} if picked is not None and task.source.stream is None else trace.split_streams()
    specs = engine_specs(task.specs, device, task.base_power_w)  # Python policies loaded here, where the task runs
    labels = [spec_label(spec) for spec in specs]
    done = []
    for stream, part in parts.items():
        transformed = apply_transform(part, transform or "none")
        options = ReplayOptions(base_power_w=task.base_power_w, response_from=task.response_from,
                                tail_s=transformed.idle_tail_s, lead_s=transformed.idle_lead_s, threads=threads)
        runs = RunColumns.from_engine(_core.evaluate(transformed.time_s, transformed.offset_bytes, transformed.size_bytes,
                                                     transformed.is_write, device, specs, options.engine(),
                                                     original_time_s=transformed.original_time_s))
        if runs.n != len(labels):
            raise IdlewiseError(f"the engine gave {runs.n} runs for {len(labels)} policies")  # zip_exact's promise
        normalize_to_untransformed(runs, transformed, device, base_power_w=task.base_power_w, tail_s=transformed.idle_tail_s,
                                   lead_s=transformed.idle_lead_s, threads=threads)
        for key, value in dict(spec=list(labels), trace=task.source.label, stream=stream, transform=task.transform,
                               family=families(runs), response_from=task.response_from,
                               **read).items():
            runs.set(key, value)
        if task.device_label is not None:
            runs.set("device", task.device_label)
        if stream is not None:
            runs.set("stream_name", trace.stream_label(stream))
        done.append(runs)
    return RunColumns.concat(done) if done else RunColumns(0)


def _run_streamed(task: Task, threads: int) -> RunColumns:
    from .simulate import simulate_file

    results = simulate_file(task.source.path, task.device, list(task.specs), format=task.source.format,
                            stream=task.source.stream, base_power_w=task.base_power_w, progress=False,
                            response_from=task.response_from, threads=threads, volume_part=task.volume_part,
                            transform=task.transform)
    from .runcolumns import ABSENT

    runs = results.columns()
    # The policy's columns (family, timeout_s, knob, param.<name>) beside the engine's record, as
    # Results.raw_records gives them, each label read once.
    policy = runs.get("policy")
    read = {label: policy_columns(str(label)) for label in dict.fromkeys(policy)}
    for key in dict.fromkeys(k for columns in read.values() for k in columns):
        if key not in runs:  # a run's own key stays, as setdefault kept it
            runs.set(key, [read[label].get(key, ABSENT) for label in policy])
    runs.set("transform", task.transform)
    runs.set("response_from", task.response_from)
    runs.set("trace", task.source.label)
    if task.device_label is not None:
        runs.set("device", task.device_label)
    return runs


def plan(traces, devices, policies, transforms=("none",), base_power_w: float = 0.0, workers: int = 1,
         response_from: str = "issue", chunks: Optional[bool] = None, volume_parts: int = 1, stream=None) -> list[Task]:
    """Expands specs, checks every spec against every device up front, and splits the work: a
    streamed group into ``volume_parts`` tasks by volume, then into chunks of specs as far as
    needed to keep every worker busy."""
    from .arguments import VOLUME_PARTS_MAX, device_number, whole

    if isinstance(volume_parts, str):
        raise IdlewiseError(f"volume_parts must be a whole number from 1 to {VOLUME_PARTS_MAX:,}, got {volume_parts!r}")
    volume_parts = whole(volume_parts, "volume_parts", 1, VOLUME_PARTS_MAX)
    if response_from not in ("issue", "original"):
        raise IdlewiseError(f"response_from must be 'issue' or 'original', got {response_from!r}")
    from .traces.inputs import local_path

    sources = [t if isinstance(t, TraceSource)
               else TraceSource(trace=t if stream is None else t.select_stream(stream)) if isinstance(t, Trace)
               else TraceSource(path=t, chunks=chunks) for t in traces]
    for s in sources:
        if s.stream is not None and not (isinstance(s.stream, str) and not s.stream.lstrip("-").isdigit()):
            device_number(s.stream, f"{s.label}: stream")
    # Standard input or a pipe: copied once here, so each task reads the same bytes.
    sources = [replace(s, path=local_path(s.path, fresh=True)) if s.path is not None else s for s in sources]
    if stream is not None:
        sources = [replace(s, stream=stream) if s.path is not None and s.stream is None else s for s in sources]
    # Two inputs are two groups of rows, told apart by their labels.
    labels = distinct_labels([s.label for s in sources], [s.path for s in sources])
    sources = [s if label == s.label else replace(s, name=label) for s, label in zip(sources, labels)]
    for s in sources:
        if s.path is not None and not os.path.exists(s.path):
            raise IdlewiseError(f"{s.path}: no such file")
    if isinstance(policies, (str, Policy)):
        policies = [policies]
    # Built-in specs and Python policies (instances, or python:FILE.py:Class specs, loaded where
    # a task runs: a process or a Dask worker loads the file itself).
    # A built-in's spec parsed here, once, for every task (a process or a worker parses its
    # pickled text again).
    specs = [parsed(e) for p in policies for e in (expand_spec(p) if isinstance(p, str) else [p])]
    if not specs:
        raise IdlewiseError("no policy given")
    device_refs = [d if isinstance(d, Device) or (isinstance(d, str) and not d.endswith(".toml")) else os.fspath(d) for d in devices]
    loaded = [load_device(d) for d in device_refs]
    device_labels = distinct_labels([d.name for d in loaded],
                                    [r if isinstance(r, str) and r.endswith(".toml") else None for r in device_refs])
    for d, device in zip(device_refs, loaded):
        engine_specs(specs, device, float(base_power_w))  # each checked, before any work
    for t in transforms:
        if not t.strip():
            raise IdlewiseError("empty transform; use 'none' for the trace as it is")
        for s in sources:
            split_selection(t, s.stream, f"{s.label}: ")  # two devices picked fail here, before any work
    for s in sources:
        if s.chunks and (s.path is None or reads_whole(s.path, _format(s))):
            raise IdlewiseError(f"{s.label}: only a text, Parquet or SRT trace file can be replayed as it is read")
    groups = [(s, t, (d, None if label == device.name else label), part) for s in sources for t in transforms
              for d, device, label in zip(device_refs, loaded, device_labels) for part in _volume_parts(s, t, volume_parts)]
    chunks = max(1, min(len(specs), math.ceil(workers / len(groups)))) if workers > 1 else 1
    size = math.ceil(len(specs) / chunks)
    return [Task(s, t, d, tuple(specs[i:i + size]), float(base_power_w), response_from, streamed=_streams(s, t),
                 device_label=label, volume_part=part)
            for s, t, (d, label), part in groups for i in range(0, len(specs), size)]


def _client(scheduler: str):
    """A client of the Dask cluster at ``scheduler`` (``tcp://HOST:PORT``), or an error saying
    what is wrong with the address or why the cluster did not answer."""
    import re

    if not isinstance(scheduler, str) or not re.fullmatch(r"([a-z]+://)?[^\s/:]+(:\d{1,5})", scheduler.strip()):
        raise IdlewiseError(f"scheduler {scheduler!r}: expected a Dask scheduler's address, tcp://HOST:PORT")
    from dask.distributed import Client

    try:
        return Client(scheduler.strip(), timeout="10s")
    except (OSError, ValueError, TimeoutError) as e:
        raise IdlewiseError(f"scheduler {scheduler}: no Dask scheduler answered ({e})") from None


def _volume_parts(source: TraceSource, transform: str, parts: int) -> list:
    """The parts a group's volumes are split into: only a streamed file of all its devices splits
    (a trace read whole holds them all anyway)."""
    if parts == 1 or not _streams(source, transform) or split_selection(transform, source.stream)[0] is not None:
        return [None]
    # No more parts than devices: each part reads the whole file, so an empty one is a wasted read.
    known = _devices_known(source)
    parts = parts if known is None else min(parts, known)
    return [None] if parts == 1 else [(k, parts) for k in range(parts)]


def _devices_known(source: TraceSource) -> Optional[int]:
    """How many devices a source holds, where that is known before it is read: an in-memory
    trace's, one for a device picked or a file whose format has no device column."""
    if source.trace is not None:
        return max(1, len(source.trace.streams()))
    if source.stream is not None:
        return 1
    format = _format(source)
    if format == "csv":
        return 1
    if format == "parquet":
        import pyarrow.parquet as pq

        try:
            if "stream" not in pq.read_schema(source.path).names:
                return 1
            import pyarrow.compute as pc

            # One column, read alone: cheap beside a replay of every column.
            return max(1, int(pc.count_distinct(pq.read_table(source.path, columns=["stream"]).column("stream")).as_py()))
        except Exception:  # the reader says what is wrong with the file
            return None
    return None


def _format(source: TraceSource) -> str:
    if source.format != "auto" or source.path is None:
        return source.format
    from .traces.detect import detect_format

    return detect_format(source.path)


def _streams(source: TraceSource, transform: str) -> bool:
    """Whether a group is replayed as its file is read: wherever it can be, unless told not to."""
    if source.chunks is not None:
        return source.chunks
    return source.path is not None and not reads_whole(source.path, _format(source))


def _progress_bar(total: int, show: bool):
    if not show:
        return None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("runs"), TimeElapsedColumn(),
                   TextColumn("left"), TimeRemainingColumn(), transient=True)
    bar.start()
    bar.add_task("runs", total=total)
    return bar


def sweep(traces: Sequence, devices: Sequence, policies: Sequence, *, transforms: Sequence[str] = ("none",),
          base_power_w: float = 0.0, jobs: Optional[int] = None, scheduler: Optional[str] = None,
          progress: Optional[bool] = None, response_from: str = "issue", chunks: Optional[bool] = None,
          volume_parts: int = 1, stream=None) -> Results:
    """Runs every combination of traces, devices, transforms and policies.

    Each (trace, transform, device) group is one call of the engine, which shares its runs among
    threads, so a trace is read once and its references computed once. Each trace file is
    replayed as it is read, every policy in one pass (:func:`idlewise.simulate_file`), wherever
    its format and the transform allow.

    Parameters
    ----------
    traces : sequence of str, os.PathLike, Trace or TraceSource
        Trace files (any format, compressed or not) or traces in memory.
    devices : sequence of str or Device
        Catalog names, device files or :class:`Device` objects.
    policies : sequence of str or idlewise.Policy
        Policy specs; ranges (``timeout:0s..600s/1s``, ``python:p.py:Mine:k=1..5/1``) expand to
        every value. Policies written in Python (:class:`idlewise.Policy` instances, a parameter
        grid of one class) run in processes, a chunk of them each, when ``jobs`` allows.
    transforms : sequence of str, default ("none",)
        Transform specs, each its own runs (``compress:64ops``, ``none``).
    base_power_w : float, default 0.0
        The platform's base power (see :func:`idlewise.simulate`).
    jobs : int, optional
        Threads on this machine (default: all cores).
    scheduler : str, optional
        Address of an existing Dask cluster (``tcp://HOST:PORT``) to run on instead.
    progress : bool, optional
        Show a bar of runs done and time left (default: when stderr is a terminal).
    response_from : {"issue", "original"}, default "issue"
        As :func:`idlewise.simulate`.
    chunks : bool, optional
        ``False`` reads each file whole, ``True`` insists on streaming (default: stream where
        possible).
    volume_parts : int, default 1
        Split each streamed file's devices into this many parts, each read from the whole file
        and replayed apart (on a cluster, on different workers; here in turn, each holding
        ``1/volume_parts`` of the runs' memory). The rows are the same either way.
    stream : int or str, optional
        Only that device of each trace (its number, or its name), as ``--stream`` does.

    Returns
    -------
    Results
        One run per (trace, stream, transform, device, policy), in the results schema
        (``docs/results.md``): sweeps of different devices and policies stack.

    Raises
    ------
    SweepInterrupted
        Ctrl-C or SIGTERM: it carries the rows finished (``rows``) and how many of the planned.
    """
    import sys

    from .arguments import thread_count

    workers = thread_count(jobs, "jobs") if jobs is not None else os.cpu_count() or 1
    if scheduler:
        client = _client(scheduler)
        workers = max(1, sum(client.nthreads().values()))
    # Policies written in Python hold the interpreter's lock in every call: the engine's threads
    # would take turns, so their runs are spread over processes instead, a chunk of specs each.
    in_processes = not scheduler and workers > 1 and any(_written_in_python(p) for p in
                                                          ([policies] if isinstance(policies, (str, Policy)) else policies))
    tasks = plan(traces, devices, policies, transforms, base_power_w, workers if scheduler or in_processes else 1, response_from,
                 chunks, volume_parts, stream)
    bar = _progress_bar(sum(len(t.specs) for t in tasks), sys.stderr.isatty() if progress is None else progress)
    results: list[RunColumns] = [RunColumns(0) for _ in tasks]
    # A multi-device trace gives one run per device and spec; how many devices is known only once
    # a task has read it, so the bar's total grows as each source reports.
    devices_in: dict = {id(t.source): n for t in tasks if (n := _devices_known(t.source)) is not None}

    def planned() -> int:
        return sum(len(t.specs) * devices_in.get(id(t.source), 1) for t in tasks)

    def done(i: int, rows: RunColumns) -> None:
        results[i] = rows
        devices_in[id(tasks[i].source)] = max(1, len(rows) // max(1, len(tasks[i].specs)))
        if bar is not None:
            bar.update(bar.task_ids[0], total=planned(), advance=len(rows))

    try:
        if scheduler:
            from dask.distributed import as_completed

            futures = client.map(run_task, tasks, pure=False)
            index = {f.key: i for i, f in enumerate(futures)}
            for future in as_completed(futures):
                done(index[future.key], future.result())
            client.close()
        elif in_processes and len(tasks) > 1:
            import concurrent.futures
            import multiprocessing

            # Forked, so a class defined in a notebook or loaded from a file is there already.
            context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
            with concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=context) as pool:
                futures = {pool.submit(run_task, task, 1): i for i, task in enumerate(tasks)}
                for future in concurrent.futures.as_completed(futures):
                    done(futures[future], future.result())
        else:
            for i, task in enumerate(tasks):
                done(i, run_task(task, threads=workers))
    except KeyboardInterrupt as e:
        finished = RunColumns.concat(results).records()
        stop = SweepInterrupted(finished, planned(), exact=all(id(t.source) in devices_in for t in tasks))
        stop.signal = getattr(e, "signal", None)
        raise stop from None
    finally:
        if bar is not None:
            bar.stop()
    return Results(_in_volume_order(tasks, results))


def _written_in_python(policy) -> bool:
    return isinstance(policy, Policy) or is_python_spec(policy)


def _in_volume_order(tasks: list, results: list) -> RunColumns:
    """Every task's runs, a group split into volume parts put back in the order of one run:
    by volume, then spec (a stable sort within the group)."""
    parts: list[RunColumns] = []
    group: list[RunColumns] = []
    for i, (task, done) in enumerate(zip(tasks, results)):
        if task.volume_part is None:
            parts.append(done)
            continue
        group.append(done)
        following = tasks[i + 1] if i + 1 < len(tasks) else None
        if following is None or following.volume_part is None or (following.source, following.transform, following.device) != \
                (task.source, task.transform, task.device):
            runs = RunColumns.concat(group)
            specs, streams = runs.get("spec"), runs.get("stream")
            order = {spec: n for n, spec in enumerate(dict.fromkeys(specs))}
            index = sorted(range(runs.n), key=lambda k: (streams[k] is not None, streams[k] or 0, order[specs[k]]))
            parts.append(runs.take(index))
            group = []
    return RunColumns.concat(parts) if parts else RunColumns(0)


class SweepInterrupted(KeyboardInterrupt):
    """A sweep stopped by Ctrl-C (or SIGTERM): ``rows`` of the runs it finished, of
    ``runs_planned``: exact once every trace has been read (``exact``); before, a file not yet
    read counts one device, so the sweep plans at least that many runs."""

    def __init__(self, rows: list[dict], runs_planned: int, exact: bool = True):
        super().__init__(f"{len(rows)} runs finished")
        self.rows = rows
        self.runs_done = len(rows)
        self.runs_planned = runs_planned
        self.exact = exact

    @property
    def of_planned(self) -> str:
        """``N of M runs`` or, before every trace was read, ``N of at least M runs``."""
        return f"{self.runs_done:,} of {'' if self.exact else 'at least '}{self.runs_planned:,} runs"


#: Frontier points a summary shows per group at most.
FRONTIER_POINTS = 8



def summary(rows: list[dict]) -> list[dict]:
    """The runs worth reading first, per (trace, stream, transform, device) group: the trade-off
    frontier among the policies a device can run (no other has less energy and a shorter mean
    response; the offline oracle, which beats them all, is shown as the bound instead) and each
    policy family's least-energy run. Each row gains ``why``: "frontier", "best <family>", both,
    or "bound" (the oracle) or "reference" (always-on)."""
    picks = summary_picks(group_keys(rows), [r["energy_j"] for r in rows], [r["mean_response_s"] for r in rows],
                          [family_of(r) for r in rows], [r.get("policy") for r in rows])
    return [{**rows[i], "why": why} for i, why in picks]


def families(runs: RunColumns) -> list[str]:
    """Each run's policy family, as :func:`~idlewise.policies.family_of` reads a row's."""
    given, labels = runs.get("family"), runs.get("policy")
    read = {label: family_of({"policy": label}) for label in dict.fromkeys(labels)}
    return [f if isinstance(f, str) and f else read[label] for f, label in zip(given, labels)]


def summary_picks(keys: list, energy: list, response: list, family: list, policy: list) -> list[tuple[int, str]]:
    """:func:`summary` on columns: (run, why) of the runs worth reading first, group by group
    (``keys``, a run's group), each group's by energy."""
    groups: dict = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    out = []
    # A few distinct reasons: each joined once, not a string a run.
    said: dict = {}

    def why(reasons: list) -> str:
        key = tuple(reasons)
        return said.get(key) or said.setdefault(key, ", ".join(reasons))
    for members in groups.values():
        if len(members) == 1:  # a device under one policy (a sweep of a million devices has as many)
            i, name = members[0], family[members[0]]
            reasons = ["bound"] if name == "oracle" else ["frontier"] if response[i] < math.inf else []
            if name not in ("oracle", "always-on"):
                reasons.append(f"best {name}")
            if reasons or policy[i] == "always-on":
                out.append((i, why(reasons or ["reference"])))
            continue
        by_energy = sorted(members, key=lambda i: (energy[i], response[i]))
        reasons: dict = {}
        fastest = math.inf
        frontier = []
        for i in by_energy:  # a run is on the frontier if it responds faster than every cheaper one
            if family[i] == "oracle":
                reasons.setdefault(i, []).append("bound")
                continue
            if response[i] < fastest:
                frontier.append(i)
                fastest = response[i]
        # A long frontier (a fine sweep) is shown at FRONTIER_POINTS points spread along it, its
        # two ends included; the file has every run.
        if len(frontier) > FRONTIER_POINTS:
            step = (len(frontier) - 1) / (FRONTIER_POINTS - 1)
            frontier = [frontier[round(k * step)] for k in range(FRONTIER_POINTS)]
        for i in frontier:
            reasons.setdefault(i, []).append("frontier")
        best: dict = {}
        for i in by_energy:
            best.setdefault(family[i], i)
        for name, i in best.items():
            if name not in ("oracle", "always-on"):
                reasons.setdefault(i, []).append(f"best {name}")
        for i in by_energy:
            if i in reasons or policy[i] == "always-on":
                out.append((i, why(reasons.get(i, ["reference"]))))
    return out


#: Panels a trade-off figure holds at most (rows of traces by columns of devices): a sweep with
#: more groups gets its first ones, and the figure's note says how many of how many.
MAX_FIGURE_ROWS, MAX_FIGURE_COLUMNS = 4, 3


def plot_tradeoff(results: Results, path: str) -> None:
    """Energy against mean response time, both normalised to always-on, as seed 001 Figures 2-3
    and seed 004 Figure 4b draw them, sized for a paper: a grid of small panels, traces (and
    their streams) down, devices across; a family's runs joined in parameter order in one colour
    everywhere, each transform its own marker and line style, always-on (the square at 1, 1)
    and the oracle (the star) as points; one legend for the figure. PDF, SVG or PNG by the
    file's extension."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    rows = list(results)
    traces = list(dict.fromkeys((r["trace"], r.get("stream")) for r in rows))
    devices = list(dict.fromkeys(r["device"] for r in rows))
    shown_traces, shown_devices = traces[:MAX_FIGURE_ROWS], devices[:MAX_FIGURE_COLUMNS]
    families = [f for f in dict.fromkeys(family_of(r) for r in rows) if f not in ("always-on", "oracle")]
    transforms = list(dict.fromkeys(r["transform"] for r in rows))
    colour = {f: f"C{i % 10}" for i, f in enumerate(families)}
    styles = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D")]
    style = {t: styles[i % len(styles)] for i, t in enumerate(transforms)}
    shown = [r for r in rows if (r["trace"], r.get("stream")) in shown_traces and r["device"] in shown_devices]
    top = max([1.05] + [1.05 * r["normalized_energy"] for r in shown if math.isfinite(r["normalized_energy"])])
    with plt.rc_context({"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "legend.fontsize": 7,
                         "xtick.labelsize": 7, "ytick.labelsize": 7}):
        fig, axes = plt.subplots(len(shown_traces), len(shown_devices), figsize=(2.6 * len(shown_devices) + 0.6,
                                 2.2 * len(shown_traces) + 0.9), squeeze=False, sharey=True)
        for i, (trace, stream) in enumerate(shown_traces):
            for j, device in enumerate(shown_devices):
                ax = axes[i, j]
                group = [r for r in rows if (r["trace"], r.get("stream")) == (trace, stream) and r["device"] == device]
                for transform in transforms:
                    line, marker = style[transform]
                    runs = [r for r in group if r["transform"] == transform]
                    first = transform == transforms[0]
                    for family in families:
                        members = [r for r in runs if family_of(r) == family]
                        # A run that never slept (stpm:knob=100, a timeout no gap reaches) is the
                        # always-on point of its transform: marked there, not joined across the panel.
                        curve = [m for m in members if m.get("wakeups", 1) > 0]
                        awake = [m for m in members if m.get("wakeups", 1) == 0][:1]
                        ax.plot([m["normalized_mean_response"] for m in curve], [m["normalized_energy"] for m in curve],
                                linestyle=line if len(curve) > 1 else "none", marker=marker, markersize=3, linewidth=1,
                                color=colour[family])
                        if awake and not first:
                            ax.plot([awake[0]["normalized_mean_response"]], [awake[0]["normalized_energy"]], marker="s",
                                    markersize=5, linestyle="none", color="grey", fillstyle="none")
                    oracle = [r for r in runs if family_of(r) == "oracle"]
                    if oracle:  # filled for the first transform, hollow for the others
                        ax.plot([oracle[0]["normalized_mean_response"]], [oracle[0]["normalized_energy"]], marker="*",
                                markersize=8, linestyle="none", color="black", fillstyle="full" if first else "none")
                ax.plot([1.0], [1.0], marker="s", markersize=5, linestyle="none", color="black", fillstyle="none")
                ax.set_xscale("log")
                ax.set_ylim(0, top)
                ax.grid(alpha=0.3, linewidth=0.5)
                if i == 0:
                    ax.set_title(device)
                if j == 0:
                    ax.set_ylabel(f"{trace}" + (f" #{stream}" if stream is not None else "") + "\nenergy / always-on")
                if i == len(shown_traces) - 1:
                    ax.set_xlabel("mean response / always-on")
        handles = [Line2D([], [], color=colour[f], linewidth=1.5, label=f) for f in families]
        handles += [Line2D([], [], color="grey", linestyle=style[t][0], marker=style[t][1], markersize=3, label=t)
                    for t in transforms if len(transforms) > 1]
        handles += [Line2D([], [], color="black", marker="s", fillstyle="none", linestyle="none", label="always-on"),
                    Line2D([], [], color="black", marker="*", markersize=8, linestyle="none", label="oracle")]
        if len(transforms) > 1:
            handles += [Line2D([], [], color="grey", marker="s", fillstyle="none", linestyle="none",
                               label="never slept, transformed"),
                        Line2D([], [], color="black", marker="*", markersize=8, fillstyle="none", linestyle="none",
                               label="oracle, transformed")]
        fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 4), frameon=False)
        left_out = len(traces) * len(devices) - len(shown_traces) * len(shown_devices)
        if left_out:
            fig.suptitle(f"the first {len(shown_traces)} of {len(traces)} traces and {len(shown_devices)} of {len(devices)} "
                         "devices; every run is in the rows", fontsize=7)
        legend_rows = math.ceil(len(handles) / 4)
        fig.tight_layout(rect=(0, 0.025 * legend_rows + 0.01, 1, 0.97 if left_out else 1))
        save_figure(fig, path, dpi=200)
        plt.close(fig)


def write_rows(results: Results, path: str, partial_of: Optional[str] = None) -> None:
    """Writes the runs to ``.parquet`` or ``.csv`` in the results schema (``docs/results.md``),
    whole or not at all (see :func:`idlewise.output.written_whole`). A Parquet file carries its
    provenance in its metadata (``idlewise.version``, ``idlewise.schema``, ``idlewise.command``,
    the traces, devices and policies); a CSV holds map columns as JSON text. ``partial_of``: the
    rows are those an interrupted sweep finished (``"296 of 1184 runs"``), said in the metadata
    (``idlewise.partial``)."""
    from .schema import write_csv, write_parquet

    if not path.endswith((".parquet", ".csv")):
        raise IdlewiseError(f"{path}: --out must end in .parquet or .csv")
    with written_whole(path) as temporary:
        if path.endswith(".parquet"):
            write_parquet(results.columns(), temporary, results.metadata(partial_of=partial_of))
        else:
            write_csv(results.columns(), temporary)


__all__ = ["SweepInterrupted", "Task", "TraceSource", "expand_spec", "plan", "plot_tradeoff", "run_task", "sweep", "write_rows"]
