"""Running policies on a trace. A thin layer: checks arguments, hands columns to the engine
(which releases the GIL), and draws a progress bar when a run takes more than a second."""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import sys
from dataclasses import replace

from . import _core
from .devices import Device, load_device
from .errors import IdlewiseError, TraceRecordError
from .options import ReplayOptions
from .policies import expand_specs
from .progress import run_with_progress
from .results import Results
from . import traces
from ._compat import zip_exact
from .traces.inputs import trace_name

def _power_w(value) -> float:
    """A base power: a number of watts or a string with its unit ('1.44W', '500mW')."""
    if isinstance(value, str):
        try:
            return _core.parse_power_w(value)
        except IdlewiseError as e:
            raise IdlewiseError(f"base_power_w: {e}") from None
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if math.isfinite(value) and value >= 0:
            return float(value)
        raise IdlewiseError(f"base_power_w: must be a finite, non-negative power, got {value!r}")
    raise IdlewiseError(f"base_power_w must be a number of watts or a string such as '1.44W', got {value!r}")


def threads_for(requests: int, runs: int, threads: int | None) -> int:
    """The engine's threads for a call: as asked, else every core when there is enough work to
    share (a thread costs ~0.1 ms to start; a short trace does not pay for it)."""
    if threads is not None:
        from .arguments import thread_count

        return thread_count(threads)
    return (os.cpu_count() or 1) if requests * runs >= 1_000_000 else 1


#: Memory a device's runs keep while a trace is replayed as read, per run, its result row
#: included (the two references are runs too). Measured 2026-11-26: 13.5 KB a run in the engine
#: over 1,000 volumes x 100 policies of 10k requests each (histograms of many responses; 28-31 KB
#: before they took small blocks), about 10 KB a result row in Python; 100k devices of 3
#: requests under two policies, 1.9 GB in all, 5 KB a run. 2026-11-27, once histograms listed
#: their buckets: 4.8 KB a run in the engine on the first workload (477 MiB in all); the budget
#: is kept, as the Python rows dominate.
BYTES_PER_VOLUME_RUN = 24 << 10


def volumes_within_budget(policies: int) -> int | None:
    """How many devices a streamed replay of ``policies`` (plus always-on and the oracle) holds
    within the memory budget (``IDLEWISE_MEMORY_BUDGET``, else the memory available)."""
    from .traces.budget import memory_budget_bytes

    budget = memory_budget_bytes()
    return None if budget is None else max(1, budget // (BYTES_PER_VOLUME_RUN * (policies + 2)))


def check_replay_options(replay: str, response_from: str, tail_s, transition_seed) -> None:
    """The replay options every engine takes (see :func:`simulate`), checked before a run."""
    if replay not in ("open", "closed", "sync"):
        raise IdlewiseError(f"replay must be 'open', 'closed' or 'sync', got {replay!r}")
    if response_from not in ("issue", "original"):
        raise IdlewiseError(f"response_from must be 'issue' or 'original', got {response_from!r}")
    if not (isinstance(tail_s, numbers.Real) and math.isfinite(tail_s) and tail_s >= 0):
        raise IdlewiseError(f"tail_s must be a non-negative number of seconds, got {tail_s!r}")
    if transition_seed is not None and not (isinstance(transition_seed, numbers.Integral) and 0 <= transition_seed < 2**64):
        raise IdlewiseError(f"transition_seed must be a whole number from 0 to 2^64 - 1, got {transition_seed!r}")


def engine_specs(policies, device, base_power_w: float = 0.0) -> list:
    """Policies as the engine takes them on ``device``, each checked: built-in specs (ranges
    expanded, each parsed once) and policies written in Python (:class:`idlewise.Policy`
    instances, or ``python:FILE.py:Class`` specs) made into engine handles. :func:`spec_label`
    names each."""
    from .policy import Policy, for_engine, resolved

    if isinstance(policies, (str, Policy, _core.PythonPolicy, _core.ParsedPolicy)):
        policies = [policies]
    try:
        given = list(policies)
    except TypeError:
        raise IdlewiseError(f"policies must be a spec or a list of specs, got {type(policies).__name__}") from None
    if not given:
        raise IdlewiseError("give one or more policies, e.g. 'timeout:2s' (see `idlewise policies`) or an idlewise.Policy")
    expanded = [one for p in given for one in (expand_specs([p]) if isinstance(p, str) else [p])]
    specs = [for_engine(p, device) for p in resolved(expanded)]
    for spec in specs:
        _core.check_policy(spec, device, base_power_w)
    return specs


def spec_label(spec) -> str:
    """The rows' ``policy`` of an engine spec: the text of a built-in's, a Python policy's name."""
    return spec if isinstance(spec, str) else spec.name


def _checked_run(device, policies, base_power_w, initial_mode, replay, response_from, tail_s, transition_seed):
    """The device, expanded specs, base power and initial mode index of a run, every one checked
    before a trace is read or replayed."""
    if not isinstance(device, (Device, str, os.PathLike)):
        raise IdlewiseError(f"simulate() needs a device (a catalog name, a TOML path or a Device), got {type(device).__name__}")
    device = load_device(device) if not isinstance(device, Device) else device
    base_power_w = _power_w(base_power_w)
    specs = engine_specs(policies, device, base_power_w)
    check_replay_options(replay, response_from, tail_s, transition_seed)
    if initial_mode is not None and not isinstance(initial_mode, str):
        raise IdlewiseError(f"initial_mode names a mode of device '{device.name}' ({', '.join(m['name'] for m in device.modes)}), "
                            f"got {type(initial_mode).__name__} {initial_mode!r}")
    mode_index = 0 if initial_mode is None else device.mode_index(initial_mode)
    return device, specs, base_power_w, mode_index


def simulate_file(path, device, policies, *, format: str = "auto", stream: int | None = None, base_power_w: float = 0.0,
                  initial_mode: str | None = None, progress: bool | None = None, replay: str = "open",
                  fold_offsets: bool = False, response_from: str = "issue", tail_s: float = 0.0,
                  transition_seed: int | None = None, threads: int | None = None, columns=None,
                  write_flag: str | int | None = None, volume_part: tuple[int, int] | None = None,
                  transform: str | None = None, timeline_s: tuple[float, float] | None = None,
                  per_request: str | os.PathLike | None = None, references: bool = True, service: str = "model",
                  observe=None) -> Results:
    """:func:`simulate` on a trace file of any length, replayed as it is read.

    Memory stays bounded by a chunk's (a few MB), however long the trace. Every device of a
    multi-device trace is replayed as its own disk. The results equal reading the file whole and
    calling :func:`simulate` on each device's part, bit for bit. The file must be in time order
    (sorting needs the trace in memory: :func:`read_trace` with ``sort=True``). Parquet is read a
    record batch at a time, an HP SRT trace a batch of records at a time, a diskstats recording's
    requests are made from its counters a batch at a time (its idle before the first request and
    after the last kept, as a whole read keeps them), biosnoop's output is put in arrival order
    holding only the requests in flight; a tar archive is read whole.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The trace: any format :func:`read_trace` knows, compressed (gzip, bzip2, xz, zstd) or
        piped.
    device, policies, base_power_w, initial_mode, replay, fold_offsets, response_from, tail_s, transition_seed, threads, progress, references, service
        As :func:`simulate` (``service="observed"``: a diskstats recording's).
    format : str, default "auto"
        The trace's format (``auto`` recognises it from the content).
    stream : int or str, optional
        Keep one device: its number, or its name where the format names devices.
    columns : dict or str, optional
        A CSV's own column names (``"time_ms=ts,size_bytes=len,op=rw"``), read a block at a time.
    write_flag : str or int, optional
        Which value of a mapped op column is a write.
    transform : str, optional
        A transform spec applied to each device's requests as they are read, one group held at a
        time (``stream:K`` excepted: keep a device with ``stream``).
    timeline_s : (float, float), optional
        As :func:`simulate`'s.
    per_request : str or os.PathLike, optional
        A Parquet file to write every run's per-request records to as they are replayed (the
        table :meth:`Results.per_request` gives), in memory that does not grow with the trace.
    observe : callable, optional
        Called with each batch of the replayed requests' arrival times (of the device kept, in
        time order) and the reader (its ``recording_start_s``, ``start_unix_s``): how the
        advisor sees what a recording held in the same pass.
    volume_part : (int, int), optional
        ``(k, n)``: replay only the devices whose number is ``k`` modulo ``n``, reading the whole
        file; the ``n`` parts' rows together are one run's (how a sweep shares a trace of many
        volumes among workers, or bounds its memory).

    Returns
    -------
    Results
        One run per (device, policy), in the results schema; ``first_time_s`` and
        ``last_time_s`` are the first and last arrivals replayed.
    """
    from .traces.sources import BATCHED, batches_of, engine_format, file_format, picked_device, read_ahead, text_batches  # no NumPy: a text trace's replay starts without it

    from .traces.inputs import local_path

    path = local_path(path, fresh=True)  # standard input or a pipe: copied once, so no reader loses its head
    device, specs, base_power_w, mode_index = _checked_run(device, policies, base_power_w, initial_mode, replay,
                                                           response_from, tail_s, transition_seed)
    format, mapping = file_format(path, format, columns, write_flag, stream, whole="read_trace() and simulate()")
    if transform is not None and str(transform).strip():
        from .traces.transforms import split_selection  # NumPy, as a transform needs it

        stream, transform = split_selection(transform, stream, f"{path}: ")  # a chain's stream:K is the device read
    # A recording's device may be named (vda): its batches pick it; a number keeps the runs' own filter.
    disk, number = picked_device(format, path, stream)
    stream = number if disk is None else stream
    if service not in ("model", "observed"):
        raise IdlewiseError(f"service must be 'model' or 'observed', got {service!r}")
    if service == "observed" and format != "diskstats":
        raise IdlewiseError(f"{path}: service 'observed' needs the time each request kept the device busy, which a "
                            f"{format} trace does not record (a diskstats recording does)")
    window = _timeline_window(timeline_s)
    if volume_part is not None:
        try:
            index, of = (int(v) for v in volume_part)
        except (TypeError, ValueError):
            raise IdlewiseError(f"volume_part must be (k, n), part k of n, got {volume_part!r}") from None
        if not 0 <= index < of:
            raise IdlewiseError(f"volume_part must be (k, n) with 0 <= k < n, got {volume_part!r}")
        volume_part = (index, of)
    try:
        size = os.path.getsize(path)
    except OSError as e:
        raise IdlewiseError(f"{path}: cannot read: {e.strerror}") from None
    show = sys.stderr.isatty() if progress is None else bool(progress)
    workers = threads_for(size // 30, len(specs) + 2, threads)  # text traces run ~30 bytes a record

    source = {}
    options = ReplayOptions(base_power_w=base_power_w, initial_mode=mode_index, replay=replay, fold_offsets=fold_offsets,
                            response_from=response_from, tail_s=tail_s, transition_seed=transition_seed, threads=workers)

    def call_batched(counter):
        # Closed here, on this thread, when a batch fails or the run is stopped: a reader left
        # open holds Arrow's threads, and the interpreter aborted when they met it at exit.
        reader = batches_of(format, path, disk) if format in BATCHED and not mapping else \
            text_batches(format, path, mapping, write_flag)
        with contextlib.closing(reader) as batches:
            runs = _core.StreamedRuns(device, specs,
                                      options.replace(timeline_s=window, max_volumes=volumes_within_budget(len(specs)),
                                                      references=bool(references),
                                                      recording_start_s=getattr(batches, "recording_start_s", None)).engine(),
                                      volume=None if stream is None or disk is not None else int(stream), volume_part=volume_part,
                                      positions="records" if format in ("parquet", "srt") and not mapping else "lines")
            for time_s, offset_bytes, size_bytes, is_write, volumes, busy, lines in read_ahead(batches):
                runs.feed(time_s, offset_bytes, size_bytes, is_write, volumes, progress=counter,
                          service_s=busy if service == "observed" else None, lines=lines)
                if observe is not None:
                    observe(time_s if stream is None or disk is not None or volumes is None else time_s[volumes == stream],
                            batches)
            source.update(records_read=batches.records_read, skipped=batches.skipped, names=batches.names,
                          recording_end_s=batches.recording_end_s, moved=getattr(batches, "records_moved", 0))
            done = runs.finish(recording_end_s=batches.recording_end_s)
        return done

    transformed = transform is not None and transform.strip() not in ("", "none")
    if observe is not None and (transformed or per_request is not None):
        raise IdlewiseError("observe is for a plain replay: not with a transform or per-request records")
    if transformed or per_request is not None:
        return _replay_in_parts(path, format, mapping, write_flag, device, specs, transform.strip() if transformed else "none",
                                   stream, volume_part, show, options, window, per_request, bool(references))

    def call(counter):
        if (format in BATCHED and not mapping) or observe is not None:
            return call_batched(counter)
        return _core.evaluate_file(path, engine_format(format, path, mapping, write_flag), device, specs,
                                   options.replace(timeline_s=window, max_volumes=volumes_within_budget(len(specs)),
                                                   references=bool(references)).engine(),
                                   progress=counter, volume=None if stream is None else int(stream), volume_part=volume_part)

    try:
        volumes, layout, records_read, skipped, kept = run_with_progress(call, 0, show, f"replaying {trace_name(path)}",
                                                                        unit="replays")
        if source:  # what the file's own reader read and skipped, beside what the runs did
            records_read, skipped = source["records_read"], [*source["skipped"].items(), *skipped]
        names = source.get("names") or {}
        if len(names) == 1 and stream is None and len(volumes) == 1:
            # A recording of one disk (or its conversion) is a single-device trace, as read whole.
            volumes = [(None, records, runs) for _, records, runs in volumes]
    except IdlewiseError as e:
        if str(e).startswith(f"{path}: "):
            raise  # a reader's error names the file already
        raise type(e)(f"{path}: {e}") from e.__cause__  # a Python policy's own exception kept
    from .traces.describe import describe_text, read_report_text

    report = read_report_text(path, records_read, format, kept["records"], dict(skipped), moved=source.get("moved", 0),
                              zero_size=kept["zero_size"])
    name = trace_name(path)
    records, stream_column = _volume_columns(volumes, layout, specs)
    # Streamed traces are not transformed: each row is normalised against its own always-on run.
    for key, value in dict(trace=name, stream=stream_column, transform="none", read_report=report,
                           records_skipped=sum(n for _, n in skipped),
                           normalized_against="always-on" if references else None).items():
        records.set(key, value)
    if any(volume is not None for volume, _, _ in volumes):
        from .runcolumns import ABSENT

        records.set("stream_name", [ABSENT if v is None else names.get(v, str(v)) for v in records.get("stream")])
    span_s = kept["last_time_s"] - kept["first_time_s"] if kept["records"] else 0.0
    # As a whole read names it: a device picked by number is the file's #K; a recording's disk
    # picked by name is the recording's own (its device_name says which).
    picked = names.get(stream, str(stream)) if stream is not None and disk is None else disk if format != "diskstats" else None
    label = f"{name}#{picked}" if picked is not None else name
    results = Results(records, label, describe_text(label, kept["records"], kept["writes"], span_s))
    # The first and last arrival kept (of every device replayed): what a whole read's trace says.
    results.first_time_s, results.last_time_s = (kept["first_time_s"], kept["last_time_s"]) if kept["records"] else (0.0, 0.0)
    if source.get("recording_end_s") is not None:
        results.recording_s = (0.0, source["recording_end_s"])  # a recording's span
    # The one device's name where the file names it (or one was picked by name).
    results.device_name = disk or (next(iter(names.values())) if len(names) == 1 else None)
    return results


def _volume_columns(volumes, layout, specs):
    """The runs of a streamed evaluation (every volume's, one after another, as the engine's
    columns) with each run's ``spec`` (as asked) set, and their ``stream`` column (each run's
    volume; None for a single-device trace)."""
    from .runcolumns import Numbers, RunColumns

    records = RunColumns.from_engine(layout)
    labels = [spec_label(spec) for spec in specs]
    if any(runs != len(labels) for _, _, runs in volumes) or records.n != len(labels) * len(volumes):
        raise IdlewiseError(f"the engine gave runs for other than {len(labels)} policies a volume")  # zip_exact's promise
    records.set("spec", labels * len(volumes))
    ids = [volume for volume, _, _ in volumes]
    if all(v is None for v in ids):
        return records, None
    if all(v is not None for v in ids):
        import array  # no NumPy: a text trace's replay starts without it

        return records, Numbers(memoryview(array.array("q", [v for v in ids for _ in labels])))
    return records, [v for v in ids for _ in labels]


def _as_records(done):
    """A streamed evaluation as dicts: [(volume, records, [run dicts])] (runs that go on as dicts)."""
    from .runcolumns import RunColumns

    volumes, layout, *rest = done
    runs = RunColumns.from_engine(layout).records()
    out, at = [], 0
    for volume, records, n in volumes:
        out.append((volume, records, runs[at:at + n]))
        at += n
    return (out, *rest)


def recording_start_of(format: str, path: str):
    """Where a recording's runs begin on its time line (0, its first snapshot) for a diskstats
    recording or a Parquet file converted from one; None for any other trace."""
    if format == "diskstats":
        return 0.0
    if format == "parquet":
        from .traces.readers.parquet import recording_of

        return 0.0 if recording_of(path)["end_time_s"] is not None else None
    return None


def _replay_in_parts(path, format, mapping, write_flag, device, specs, transform, stream, volume_part, show, options,
                        window, per_request=None, references=True) -> Results:
    """:func:`simulate_file` with a transform or per-request records: each device's requests go
    through the transform as they are read (its groups held back until whole), then to the runs,
    and, where the transform issues requests early, at their original times to the always-on run
    every row is normalised against (seed 001's "unmodified trace", as :func:`simulate` does).
    Per-request records are taken from the runs after each part and written out."""
    import numpy as np

    from .traces.streaming import FileRead, transformed_parts

    from .traces.trace import describe_text
    from .traces.transforms import TransformStream

    TransformStream(transform)  # a bad spec fails before the read
    keep = stream

    records_out = _PerRequestFiles(per_request, device, options.response_from, specs) if per_request is not None else None

    recording = {"recording_start_s": recording_start_of(format, path)}

    def call(counter):
        runs = _core.StreamedRuns(device, specs, options.replace(timeline_s=window, keep_per_request=records_out is not None,
                                                                 max_volumes=volumes_within_budget(len(specs) + 1),
                                                                 references=references, **recording).engine())
        # Without references, no row is normalised: the untransformed always-on run is not needed.
        reference = (_core.StreamedRuns(device, ["always-on"], options.replace(response_from="issue", **recording).engine())
                     if references else None)
        seen: set = set()
        early = False

        def feed(volume, out):
            nonlocal early
            if out is None or not len(out):
                return
            n = len(out)
            volumes = None if volume is None else np.full(n, volume, dtype=np.int64)
            write = np.ascontiguousarray(out.is_write, dtype=np.uint8)
            runs.feed(out.time_s, out.offset_bytes, out.size_bytes, write, volumes, progress=counter,
                      original_time_s=out.original_time_s)
            if records_out is not None:
                records_out.fed(volume, out.original_time_s)
                records_out.add(runs.take_per_request())
            if out.original_time_s is not None and reference is not None:
                early = True
                order = np.argsort(out.original_time_s, kind="stable")
                reference.feed(out.original_time_s[order], out.offset_bytes[order], out.size_bytes[order], write[order], volumes)

        read = FileRead(path, format, keep=keep, mapping=mapping, write_flag=write_flag, part=volume_part)
        for volume, part in transformed_parts(read, transform):
            seen.add(volume)
            feed(volume, part)
        if not seen:
            if volume_part is None or not read.records:
                raise IdlewiseError(f"no records{'' if keep is None else f' of device {keep}'} found in {read.records_read} records")
            return ([],), None, read  # a part that holds none of the file's devices
        done = _as_records(runs.finish(recording_end_s=read.recording_end_s))
        if records_out is not None:
            for volume, _, rows in done[0]:
                for run, r in enumerate(rows):
                    records_out.add([(volume, run, r)])  # the last records, with the reports
            records_out.write()
        return done, _as_records(reference.finish(recording_end_s=read.recording_end_s)) if early else None, read

    try:
        done, base, read = run_with_progress(call, 0, show, f"replaying {trace_name(path)}", unit="replays")
    except IdlewiseError as e:
        if str(e).startswith(f"{path}: "):
            raise
        raise type(e)(f"{path}: {e}") from e.__cause__  # a Python policy's own exception kept
    finally:
        if records_out is not None:
            records_out.discard()  # the temporary files (the output is whole or absent)
    name = trace_name(path)
    report = read.report()
    skipped = read.skipped
    bases = {volume: rows[0] for volume, _, rows in base[0]} if base is not None else {}
    records = []
    for volume, _, rows in done[0]:
        for spec, r in zip_exact(specs, rows):
            r["spec"] = spec_label(spec)
            r.update(trace=name, stream=volume, transform=transform, read_report=report,
                     records_skipped=sum(n for _, n in skipped), normalized_against="always-on" if references else None)
            if volume is not None:
                r["stream_name"] = read.names.get(volume, str(volume))
            if volume in bases:
                _normalize_against(r, bases[volume])
            records.append(r)
    span_s = read.last_s - read.first_s if read.records else 0.0
    results = Results(records, name, describe_text(name, read.records, read.writes, span_s))
    results.first_time_s, results.last_time_s = (read.first_s, read.last_s) if read.records else (0.0, 0.0)
    return results


class _PerRequestFiles:
    """Per-request records written as they are replayed: a temporary Parquet file per (device,
    run), joined at the end, device by device and run by run, into the table
    :meth:`Results.per_request` gives a trace read whole, with ``device``. Memory: a part's."""

    def __init__(self, path, device, response_from: str, specs: list):
        import tempfile

        self.path, self.device, self.response_from, self.runs = os.fspath(path), device.name, response_from, len(specs)
        self.specs = list(specs)
        self.folder = tempfile.mkdtemp(prefix=".idlewise-per-request-", dir=os.path.dirname(os.path.abspath(self.path)))
        # (device number, run) -> its temporary files in order, one a part, each closed once
        # written: a trace of thousands of devices under many policies holds no file open.
        self.files: dict = {}
        self.labels: dict = {}  # run -> its policy, as asked
        self.activities = None
        # Responses measured from original times: each device's original times fed and not yet
        # written by every run (from the request numbered `first`), and what each run wrote. A
        # MEMS device hands over records later than their part (they complete out of order).
        self.originals: dict = {}  # device number -> [first, original times]
        self.written: dict = {}  # (device number, run) -> records written

    def fed(self, volume, original_time_s) -> None:
        """Notes a part fed to the runs of device ``volume``, with its original times (or None)."""
        import numpy as np

        if self.response_from == "original" and original_time_s is not None:
            first, times = self.originals.get(volume, (0, np.empty(0)))
            self.originals[volume] = [first, np.concatenate([times, original_time_s])]

    def add(self, taken) -> None:
        """Records the runs handed over after a part (or with their reports, at the end), each
        run's in request order."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.parquet as pq

        for volume, run, d in taken:
            if "policy" in d:
                self.labels[run] = spec_label(self.specs[run]) if run < len(self.specs) else d["policy"]
            if "response_s" not in d or not len(d["response_s"]):
                continue
            self.activities = d["activity_labels"]
            key, n = (volume, run), len(d["response_s"])
            done = self.written.get(key, 0)
            wanted = d["arrival_s"]
            if volume in self.originals:
                first, times = self.originals[volume]
                wanted = times[done - first:done - first + n]
            self.written[key] = done + n
            table = pa.table({"arrival_s": d["arrival_s"], "start_s": d["start_s"], "finish_s": wanted + d["response_s"],
                              "response_s": d["response_s"], "at_arrival": np.asarray(d["at_arrival"], np.int32)})
            name = os.path.join(self.folder, f"{sum(map(len, self.files.values()))}.parquet")
            pq.write_table(table, name)
            self.files.setdefault(key, []).append(name)
        for volume in {volume for volume, _, _ in taken} & self.originals.keys():
            # Original times every run has written are let go: memory is what is outstanding.
            kept = self.originals[volume]
            everyone = min(self.written.get((volume, run), 0) for run in range(self.runs))
            if everyone > kept[0]:
                kept[1] = kept[1][everyone - kept[0]:]
                kept[0] = everyone

    def write(self) -> int:
        """Joins the runs into the output file; returns the rows written."""
        import pyarrow as pa

        from .output import written_whole

        order = sorted(self.files.items(), key=lambda kv: (kv[0][0] is not None, kv[0][0] or 0, kv[0][1]))
        with written_whole(self.path) as temporary:
            out: list = []  # the writer, once the first table gives the schema
            try:
                rows = self._join(order, temporary, out)
            finally:
                if out:
                    out[0].close()  # also when interrupted: written_whole then removes the file
            if not rows:
                raise IdlewiseError(f"{self.path}: no per-request records to write")
        self.files = {}
        return rows

    def _join(self, order, temporary: str, out: list) -> int:
        """Every run's records, device by device and run by run, into ``temporary``."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        from .results import per_request_table

        rows = 0
        # Run numbers as the results number them: device by device, run by run.
        for number, ((volume, run), names) in enumerate(order):
            request = 0
            for name in names:
                for batch in pq.ParquetFile(name).iter_batches(batch_size=1 << 20):
                    table = per_request_table(number, self.labels[run], self.device, volume, request, batch.column("arrival_s"),
                                              batch.column("start_s"), batch.column("finish_s"), batch.column("response_s"),
                                              batch.column("at_arrival"), self.activities or [])
                    if not out:
                        out.append(pq.ParquetWriter(temporary, table.schema))
                    out[0].write_table(table)
                    request += batch.num_rows
                    rows += batch.num_rows
        return rows

    def discard(self) -> None:
        """Removes the temporary files (after :meth:`write`, or when the run failed): each was
        closed once written, so there is nothing to close."""
        import shutil

        try:
            shutil.rmtree(self.folder, ignore_errors=True)
        except BaseException:
            # A signal (Ctrl-C, SIGTERM) raised mid-removal: finish it, then let the signal stop
            # the command (a half-removed folder of parts was left beside the output).
            shutil.rmtree(self.folder, ignore_errors=True)
            raise


def simulate(trace: "traces.Trace", device, policies, *, base_power_w: float = 0.0, initial_mode: str | None = None,
             keep_response_times: bool = False, progress: bool | None = None, replay: str = "open",
             fold_offsets: bool = False, response_from: str = "issue", tail_s: float = 0.0,
             transition_seed: int | None = None, threads: int | None = None, per_request: bool = False,
             timeline_s: tuple[float, float] | None = None, transform: str | None = None, references: bool = True,
             service: str = "model") -> Results:
    """Replays a trace on a device under each policy, beside the always-on and oracle references.

    A trace of several devices (an HP SRT or blkparse trace of two disks, a diskstats file) is
    replayed as one disk per device, as the command line does: each row carries its ``stream``
    (the device's number) and ``stream_name``. Pick one device with :meth:`Trace.select_stream`.

    Parameters
    ----------
    trace : Trace
        The requests (:func:`read_trace`, :meth:`Trace.from_arrays`).
    device : Device or str
        A :class:`Device`, a catalog name (``idlewise devices``) or a device TOML file.
    policies : str or list of str
        Policy specs (``"timeout:2s"``, ``"stpm:knob=50"``, ranges ``"timeout:1s..10s/1s"``;
        ``idlewise policies`` lists them). Rows spell each as given.
    base_power_w : float, default 0.0
        The platform's base power, which pays for delays (seed 000's system energy).
    initial_mode : str, optional
        The mode the device is in at the first arrival (default: ready).
    replay : {"open", "closed", "sync"}, default "open"
        ``"open"``: requests at their trace times; ``"closed"``: each request issued its trace
        gap after the previous one completes, so power-management delays stretch the run
        (``execution_time_s`` says by how much); ``"sync"``: seed 001's replay, each request at
        its trace time or when the previous one completes, whichever is later.
    fold_offsets : bool, default False
        Fold offsets onto the device, for traces made for a larger device (a MEMS device's block
        numbers ``mod (capacity - size)``, a disk's seek position ``mod capacity``); otherwise a
        request beyond a device's capacity is an error. A request larger than the whole device
        is an error either way.
    response_from : {"issue", "original"}, default "issue"
        Measure each response from when the request is issued, or from when it was originally
        wanted (a trace a transform issued early: ``compress``, seed 001's read-ahead).
    tail_s : float, default 0.0
        Run on this long after the last request completes, the device idling under its policy.
        A recording that ended later than its last request (:attr:`Trace.idle_tail_s`) runs on
        at least to its end.
    transition_seed : int, optional
        Draw the time of each wake-up that varies (``time_std_s``) from this seed; without it
        such wake-ups take their mean time.
    threads : int, optional
        The engine's threads sharing the runs (default: all cores); results do not depend on it.
    per_request : bool, default False
        Keep every request's times and what it found (:meth:`Results.per_request`);
        ``keep_response_times`` is the older name.
    timeline_s : (float, float), optional
        ``(from, to)`` in trace seconds: keep what the device did in that window
        (:meth:`Results.timeline`).
    transform : str, optional
        A transform spec (``compress:64ops``; :mod:`idlewise.traces.transforms`) applied to each
        device's requests before the replay.
    progress : bool, optional
        Draw a progress bar for runs over a second (default: when stderr is a terminal).
    references : bool, default True
        Replay always-on and the oracle beside the policies (and, on a MEMS device, compute
        seed 004's theoretical minima). ``False`` replays the policies alone, which costs their
        replays only (one MEMS policy: one replay instead of three); the rows' normalisations,
        ``energy_vs_oracle``, the theoretical minima and ``normalized_against`` are then null.
    service : {"model", "observed"}, default "model"
        How long each request keeps the device busy: the device model's service time, or the
        time the recording observed (:attr:`Trace.service_s`: a diskstats recording's busy time
        shared by its interval's requests), priced at the model's reading or writing power. The
        live manager decides by the observed one: its idle periods are the real device's.

    Returns
    -------
    Results
        One run per (device of the trace, policy), in the results schema (``docs/results.md``).

    Raises
    ------
    IdlewiseError
        A bad spec, device or option, or a record the device cannot serve (naming it).

    Examples
    --------
    >>> trace = idlewise.Trace.from_arrays([0.0, 30.0, 31.0], [4096, 4096, 8192])
    >>> idlewise.simulate(trace, "hitachi-microdrive-1gb", ["timeout:2s", "oracle"]).to_pandas()  # doctest: +SKIP
    """
    if not isinstance(trace, traces.Trace):
        raise IdlewiseError(f"simulate() needs a Trace, got {type(trace).__name__}; build one with Trace.from_arrays or read_trace")
    if service not in ("model", "observed"):
        raise IdlewiseError(f"service must be 'model' or 'observed', got {service!r}")
    if service == "observed" and trace.service_s is None:
        raise IdlewiseError(f"{trace.path or trace.name}: service 'observed' needs the time each request kept the device busy, "
                            f"which a {trace.format} trace does not record (a diskstats recording does)")
    device, specs, base_power_w, mode_index = _checked_run(device, policies, base_power_w, initial_mode, replay,
                                                           response_from, tail_s, transition_seed)
    picked, transform = traces.split_selection(transform)
    if picked is not None or trace.stream is not None:
        # Requests of different disks never queue behind one another: each is its own replay.
        # A chain's stream:K picks one first (the other transforms work on each apart).
        parts = trace.split_streams() if picked is None else {picked: trace.select_stream(picked)}
        from .runcolumns import RunColumns

        done = []
        for stream, part in parts.items():
            run = simulate(part, device, specs, base_power_w=base_power_w, initial_mode=initial_mode,
                           keep_response_times=keep_response_times, progress=progress, replay=replay,
                           fold_offsets=fold_offsets, response_from=response_from, tail_s=tail_s,
                           transition_seed=transition_seed, threads=threads, per_request=per_request,
                           timeline_s=timeline_s, transform=transform, references=references, service=service)
            runs = run.columns()
            for key, value in dict(trace=trace.name, stream=stream, stream_name=trace.stream_label(stream)).items():
                runs.set(key, value)
            done.append(runs)
        return Results(RunColumns.concat(done) if done else RunColumns(0), trace.name)
    # Rows name the trace as given; the transform has a column of its own (as a file replayed as
    # it is read names its rows).
    label = trace.name
    if transform:
        trace = traces.apply_transform(trace, transform)
        if service == "observed":
            raise IdlewiseError(f"{label}: a transform changes the requests, so the busy times observed no longer fit them; "
                                "replay a transformed trace with the model's service")
    show = sys.stderr.isatty() if progress is None else bool(progress)
    tail_s = max(float(tail_s), trace.idle_tail_s)
    # A recording that was idle before its first request runs from its start (issue 39).
    lead_s = trace.idle_lead_s
    keep = bool(per_request or keep_response_times)
    window = _timeline_window(timeline_s)

    def call(counter):
        options = ReplayOptions(base_power_w=base_power_w, initial_mode=mode_index, keep_per_request=keep, replay=replay,
                                fold_offsets=fold_offsets, response_from=response_from, tail_s=tail_s, lead_s=lead_s,
                                transition_seed=transition_seed, threads=threads_for(len(trace), len(specs) + 2, threads),
                                timeline_s=window, references=bool(references))
        return _core.evaluate(trace.time_s, trace.offset_bytes, trace.size_bytes, trace.is_write, device, specs, options.engine(),
                              progress=counter, original_time_s=trace.original_time_s,
                              service_s=trace.service_s if service == "observed" else None)

    runs = len(specs) + 2 * bool(references)
    try:
        # A request replayed in each of the runs counts once per run.
        from .runcolumns import RunColumns

        records = RunColumns.from_engine(run_with_progress(call, len(trace) * runs, show, f"replaying {trace.name} × {runs} runs",
                                                           unit="replays"))
    except TraceRecordError as e:
        raise trace.record_error(e) from None
    if records.n != len(specs):
        raise IdlewiseError(f"the engine gave {records.n} runs for {len(specs)} policies")  # zip_exact's promise
    if references:
        normalize_to_untransformed(records, trace, device, base_power_w=float(base_power_w), initial_mode=mode_index,
                                   replay=replay, fold_offsets=bool(fold_offsets), tail_s=float(tail_s), lead_s=lead_s,
                                   transition_seed=transition_seed, threads=threads)
    else:
        records.set("normalized_against", None)
    records.set("spec", [spec_label(spec) for spec in specs])  # as the user wrote it (a range expanded); "policy" is the engine's full label
    records.set("trace", label)
    records.set("transform", transform or "none")
    if "response_s" in records:
        from .runcolumns import ABSENT

        # The requester has its data a response after it wanted it.
        original = trace.original_time_s if response_from == "original" and trace.original_time_s is not None else None
        records.set("finish_s", [ABSENT if response is ABSENT else (arrival if original is None else original) + response
                                 for response, arrival in zip(records.columns["response_s"].values(),
                                                              records.columns["arrival_s"].values())])
    return Results(records, trace.name)


def untransformed(trace: "traces.Trace") -> "traces.Trace | None":
    """The trace before a transform issued its requests early (``compress``, ``compress-reorder``):
    every request at its original time, in original order; ``None`` for a trace not so changed."""
    if trace.original_time_s is None:
        return None
    import numpy as np

    order = np.argsort(trace.original_time_s, kind="stable")
    out = trace.subset(order)
    return replace(out, time_s=out.original_time_s, original_time_s=None)


def normalize_to_untransformed(records, trace, device, *, threads=None, **replay_options) -> None:
    """Seed 001 normalises "against the unmodified trace, with no standby timeout": for a trace a
    transform changed, every row's ``normalized_energy``, ``normalized_system_energy`` and
    ``normalized_mean_response`` are set against an always-on run of the untransformed trace (same
    device and replay, responses from issue), instead of the transformed trace's always-on run;
    ``normalized_against`` says which. A row of an unchanged trace keeps its always-on run's.
    ``records``: dicts, or :class:`~idlewise.runcolumns.RunColumns`."""
    from .runcolumns import RunColumns

    original = untransformed(trace)
    if original is None:
        if isinstance(records, RunColumns):
            if "normalized_against" not in records:
                records.set("normalized_against", "always-on")
        else:
            for r in records:
                r.setdefault("normalized_against", "always-on")
        return
    options = ReplayOptions(response_from="issue", threads=threads_for(len(original), 2, threads), **replay_options)
    base = next(r for r in RunColumns.from_engine(_core.evaluate(original.time_s, original.offset_bytes, original.size_bytes,
                                                                  original.is_write, device, ["always-on"], options.engine())).records()
                if r["policy"] == "always-on")
    if isinstance(records, RunColumns):
        for key, of in _NORMALIZED.items():
            records.set(key, _ratio(records.floats(of), base[of]))
        records.set("normalized_against", _UNTRANSFORMED)
        return
    for r in records:
        _normalize_against(r, base)


#: The normalised figures, each of its run's figure.
_NORMALIZED = {"normalized_energy": "energy_j", "normalized_system_energy": "system_energy_j",
               "normalized_mean_response": "mean_response_s"}
_UNTRANSFORMED = "always-on, untransformed trace"


def _ratio(a, b: float):
    """``a / b`` (numbers or a NumPy array), 1 where both are 0, infinite where only ``b`` is."""
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    if b:
        return a / b
    return np.where(a == b, 1.0, math.inf)


def _normalize_against(r: dict, base: dict) -> None:
    """A row's normalised figures against ``base``, the untransformed trace's always-on run."""
    for key, of in _NORMALIZED.items():
        r[key] = float(_ratio(r[of], base[of]))
    r["normalized_against"] = _UNTRANSFORMED


def _timeline_window(timeline_s):
    if timeline_s is None:
        return None
    try:
        start, end = (float(x) for x in timeline_s)
    except (TypeError, ValueError):
        raise IdlewiseError(f"timeline_s must be (from, to) in seconds, got {timeline_s!r}") from None
    if not (math.isfinite(start) and math.isfinite(end) and end > start):
        raise IdlewiseError(f"timeline_s must be a finite window with to > from, got {timeline_s!r}")
    return (start, end)


__all__ = ["simulate", "simulate_file"]
