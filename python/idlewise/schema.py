"""The results schema: the columns every output of runs has (Parquet, CSV, JSON, pandas, polars,
Arrow), whatever the devices and policies run. ``docs/results.md`` documents each column.

Rules, so that two sweeps of different devices and policy families stack (``pl.concat``,
``pd.concat``, ``UNION ALL``) and every column is queried unquoted in SQL:

- names are ASCII snake_case; a column's type never depends on its values (a column empty in a
  run is a typed null, not a Null column);
- per-mode and per-transition figures are map columns keyed by the device's own mode names
  (``energy_by_mode_j['standby']``; a transition is ``'from->to'``), and long tables of their
  own (:meth:`Results.modes`, :meth:`Results.transitions`) joined on ``run``;
- ``policy`` is the policy as the user spelled it (``timeout:60s``), ``policy_canonical`` the
  engine's name for it (``timeout:1min``); a policy's parameters are ``params`` (a map of
  numbers; a value that is not a number, as EPC's ``off``, is null) beside typed ``timeout_s``
  and ``knob`` columns;
- null means "does not apply" or "never": ``years_to_rated_cycles`` is null for a run that wears
  no rated cycle (no wake-up) or a device without a rating, as JSON can only say it; a map with
  no entries (a policy without parameters, a run without a mode change) is null.
"""

from __future__ import annotations

import json
import math

#: Bumped when a column changes meaning or type; added columns do not bump it.
SCHEMA_VERSION = 2

_F, _I, _S, _B = "float64", "int64", "string", "bool"
_MAP_F, _MAP_I = "map<string,float64>", "map<string,int64>"
_LIST_F, _LIST_I = "list<float64>", "list<int64>"

#: Every run's columns, in order: (name, type, meaning). The meanings are docs/results.md's.
RUN_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run", _I, "the row's number in its results (0, 1, ...): the key of the long mode and transition tables"),
    ("trace", _S, "the trace's label (file name, #device, [transform])"),
    ("stream", _I, "the device number within a multi-device trace; null for a single-device trace"),
    ("stream_name", _S, "the device's name in the trace (a diskstats or blkparse name, or the number)"),
    ("transform", _S, "the transform applied to the trace ('none' for none)"),
    ("device", _S, "the device model's name"),
    ("policy", _S, "the policy as it was asked for (timeout:60s)"),
    ("policy_canonical", _S, "the engine's name for the policy, every parameter given (timeout:1min)"),
    ("family", _S, "the policy family (timeout, stpm, oracle, ...)"),
    ("timeout_s", _F, "a single-timeout policy's timeout; null otherwise"),
    ("knob", _F, "a self-tuning policy's knob (0 = save energy ... 100 = performance); null otherwise"),
    ("params", _MAP_F, "the policy's named parameters as numbers (durations in seconds, powers in watts); null where not a number"),
    ("requests", _I, "requests replayed"),
    ("records_skipped", _I, "records the reader skipped (see read_report); null where no file was read"),
    ("read_report", _S, "what the reader read, kept and skipped"),
    ("first_arrival_s", _F, "when the run began: the first request's arrival, or a recording's start when it was idle before"),
    ("makespan_s", _F, "from the first arrival to the end of the run"),
    ("execution_time_s", _F, "the run's length as the energy counts it"),
    ("energy_j", _F, "the device's energy"),
    ("system_energy_j", _F, "the device's energy plus base_power_w over the run"),
    ("base_power_w", _F, "the platform's base power (pays for delays)"),
    ("energy_by_mode_j", _MAP_F, "energy spent resting in each mode, by the device's mode names"),
    ("time_by_mode_s", _MAP_F, "time spent resting in each mode"),
    ("transitions", _MAP_I, "mode changes, by 'from->to'"),
    ("transition_time_s", _F, "time in transitions"),
    ("transition_energy_j", _F, "energy of transitions"),
    ("service_time_s", _F, "time serving requests"),
    ("service_energy_j", _F, "energy serving requests"),
    ("wakeups", _I, "returns to the ready mode"),
    ("cycle_wakeups", _I, "wake-ups that use a rated start/stop cycle"),
    ("load_unload_wakeups", _I, "wake-ups that use a rated load/unload cycle"),
    ("mean_response_s", _F, "mean response time"),
    ("p50_response_s", _F, "median response time (histogram, within 0.05 %)"),
    ("p95_response_s", _F, "95th percentile of response time"),
    ("p99_response_s", _F, "99th percentile of response time"),
    ("max_response_s", _F, "longest response time"),
    ("delayed_requests", _I, "requests that waited for power management (a wake-up, a beacon)"),
    ("rated_start_stop_cycles", _F, "the device's start/stop rating; null where it states none"),
    ("rated_load_unload_cycles", _F, "the device's load/unload rating; null where it states none"),
    ("normalized_energy", _F, "energy_j / the reference run's (normalized_against)"),
    ("normalized_system_energy", _F, "system_energy_j / the reference run's"),
    ("normalized_mean_response", _F, "mean_response_s / the reference run's"),
    ("energy_vs_oracle", _F, "energy_j / the offline optimum's on the same trace and device"),
    ("normalized_against", _S, "the reference run (always-on); null, as the ratios, when replayed without references"),
    ("response_from", _S, "where a response is measured from: the request's issue or its arrival"),
    ("wakeups_per_day", _F, "wake-ups per day of the run"),
    ("cycle_wakeups_per_day", _F, "rated start/stop cycles used per day"),
    ("load_unload_wakeups_per_day", _F, "rated load/unload cycles used per day"),
    ("years_to_rated_cycles", _F, "years to the first rating used up at this rate; null: never, or no rating"),
    ("offered_load", _F, "ready service time over the span of the arrivals: at 1 or more the device cannot keep up "
                         "with the trace whatever the policy (responses measure its queue); null when all arrive at once, "
                         "and for a hybrid disk"),
    ("theoretical_min_energy_j", _F, "MEMS: seed 004's theoretical minimum energy; null for other devices"),
    ("theoretical_min_response_s", _F, "MEMS: seed 004's theoretical minimum mean response; null for other devices"),
)

#: A hybrid disk's run (``idlewise hybrid``): every run column, then the NVCache's account.
HYBRID_COLUMNS: tuple[tuple[str, str, str], ...] = RUN_COLUMNS + (
    ("hybrid", _S, "the hybrid description's name; null when built from parts"),
    ("disk", _S, "the rotating disk's model"),
    ("flash", _S, "the NVCache's flash model"),
    ("nvcache_bytes", _I, "the NVCache's size; null for an unbounded one"),
    ("dram_bytes", _I, "the DRAM write buffer's size"),
    ("flush_when", _S, "when the NVCache is flushed: each spin-up or when full (seed 003)"),
    ("flush_algorithm", _I, "how it is flushed: seed 003 Figure 2's algorithm 1-4"),
    ("final_flush", _B, "whether what the NVCache holds after the last request is flushed and charged"),
    ("disk_energy_j", _F, "the disk's energy"),
    ("flash_energy_j", _F, "the NVCache's energy"),
    ("flash_busy_s", _F, "time the NVCache was busy"),
    ("spinups", _I, "the disk's spin-ups"),
    ("writes_redirected", _I, "writes the NVCache took while the disk was down"),
    ("bytes_redirected", _I, "bytes the NVCache took while the disk was down"),
    ("bytes_superseded", _I, "cached bytes overwritten before a flush"),
    ("bytes_written_to_disk", _I, "bytes written to the disk by requests"),
    ("reads_from_nvcache", _I, "reads served by the NVCache"),
    ("reads_spinning_up", _I, "reads that spun the disk up"),
    ("flushes", _I, "NVCache flushes"),
    ("flush_time_s", _F, "time spent flushing"),
    ("flush_nvcache_time_s", _F, "of it, reading the NVCache"),
    ("flush_disk_time_s", _F, "of it, writing the disk"),
    ("flush_disk_ios", _I, "disk writes of flushes"),
    ("flush_nvcache_reads", _I, "NVCache reads of flushes"),
    ("merges", _I, "adjacent extents merged by flushes"),
    ("bytes_flushed", _I, "bytes flushed"),
    ("flush_disk_bytes_written", _I, "bytes flushes wrote to the disk"),
    ("flush_bytes_read", _I, "bytes flushes read from the NVCache"),
    ("bytes_unflushed", _I, "bytes still in the NVCache at the end (not charged; 0 with final_flush)"),
    ("max_bytes_cached_per_spindown", _I, "the most bytes cached in one spin-down"),
    ("bytes_cached_per_spindown", _LIST_I, "bytes cached in each spin-down"),
    ("spindown_ends_s", _LIST_F, "when each spin-down ended"),
    ("flash_bytes_written", _I, "bytes written to flash (redirected and cached)"),
    ("plain_disk_energy_j", _F, "the same disk without an NVCache, same policy"),
    ("plain_disk_spinups", _I, "its spin-ups"),
    ("plain_disk_mean_response_s", _F, "its mean response time"),
    ("energy_saved_j", _F, "plain_disk_energy_j - energy_j"),
    ("spinups_saved", _I, "plain_disk_spinups - spinups"),
)

#: The long tables: one row per (run, mode) and per (run, transition).
MODE_COLUMNS = (("run", _I, "the run's row"), ("mode", _S, "the device's mode"),
                ("energy_j", _F, "energy spent resting in the mode"), ("time_s", _F, "time spent resting in it"))
TRANSITION_COLUMNS = (("run", _I, "the run's row"), ("from_mode", _S, "mode left"), ("to_mode", _S, "mode entered"),
                      ("count", _I, "times the run took it"))

#: Keys of a run's record the schema renames or leaves to other tables.
_RENAMED = {"policy": "policy_canonical", "spec": "policy"}
#: Per-request arrays and timelines: read through Results.per_request() and .timeline().
ARRAY_KEYS = frozenset({"arrival_s", "start_s", "finish_s", "response_s", "at_arrival", "activity_labels", "timeline"})


def arrow_type(name: str):
    import pyarrow as pa

    return {_F: pa.float64(), _I: pa.int64(), _S: pa.string(), _B: pa.bool_(), _MAP_F: pa.map_(pa.string(), pa.float64()),
            _MAP_I: pa.map_(pa.string(), pa.int64()), _LIST_F: pa.list_(pa.float64()), _LIST_I: pa.list_(pa.int64())}[name]


def arrow_schema(columns):
    import pyarrow as pa

    return pa.schema([pa.field(name, arrow_type(kind)) for name, kind, _ in columns])


def columns_of(records) -> tuple:
    """The schema a list of run records (or :class:`~idlewise.runcolumns.RunColumns`) takes: a
    hybrid disk's, or every other run's."""
    return HYBRID_COLUMNS if "flush_algorithm" in _as_columns(records) else RUN_COLUMNS


def _as_columns(records):
    """Records as :class:`~idlewise.runcolumns.RunColumns` (as they are, if they are)."""
    from .runcolumns import RunColumns

    return records if isinstance(records, RunColumns) else RunColumns.from_records(list(records))


def _finite_or_null(value):
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _number_or_null(value):
    return _finite_or_null(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _convert(kind: str, value):
    if value is None:
        return None
    if kind == _F:
        return _finite_or_null(value)
    if kind == _I:
        return int(value)
    if kind == _S:
        return str(value)
    if kind == _B:
        return bool(value)
    if kind == _MAP_F:
        return {str(k): _number_or_null(v) for k, v in value.items()} or None
    if kind == _MAP_I:
        return {str(k): int(v) for k, v in value.items()} or None
    if kind == _LIST_F:
        return [float(v) for v in value]
    return [int(v) for v in value]  # _LIST_I


def rows(records, columns=None) -> list[dict]:
    """Run records (dicts, or :class:`~idlewise.runcolumns.RunColumns`) as the schema's rows:
    every column, in order, typed, nulls for what does not apply. A record key the schema does
    not know follows the schema's columns (never a silent drop); ``tests/test_schema.py`` runs
    every kind of run to see that none does."""
    from .runcolumns import ABSENT

    runs = _as_columns(records)
    columns = columns or columns_of(runs)
    values = {name: _listed(v) for name, v in _column_values(runs, columns).items()}
    extra = {key: runs.columns[key].values() for key in unknown_keys(runs)}
    out = []
    for i in range(len(runs)):
        row = {name: _convert(kind, values[name][i]) for name, kind, _ in columns}
        row.update((key, v[i]) for key, v in extra.items() if v[i] is not ABSENT)
        out.append(row)
    return out


def unknown_keys(records) -> list[str]:
    """Keys of the records the schema does not name (none, for every kind of run idlewise makes)."""
    runs = _as_columns(records)
    known = {name for name, _, _ in columns_of(runs)}
    return [k for k in runs.columns if k not in known and not _derived(k)]


def _derived(key: str) -> bool:
    """Record keys the schema's policy columns are made from, or that other tables hold."""
    return key in ARRAY_KEYS or key in ("run", "spec", "policy", "family", "timeout_s", "knob") or key.startswith("param.")


def _listed(values) -> list:
    """A column's values as a list (a :class:`~idlewise.runcolumns.Column` read out)."""
    from .runcolumns import ABSENT, Column

    return [None if v is ABSENT else v for v in values.values()] if isinstance(values, Column) else values


def _column_values(runs, columns, first_run: int = 0) -> dict:
    """Each schema column's values over the runs, as :func:`rows` gives them row by row (before
    conversion): the policy columns from each label's reading (once a label), the others as
    recorded; a column the runs hold as numbers, maps or one value stays a
    :class:`~idlewise.runcolumns.Column` (read out by :func:`_listed`, or made an Arrow array
    whole by :func:`_array`)."""
    from .policies import policy_columns
    from .runcolumns import ABSENT, Coded, Maps, Numbers, Same

    n = len(runs)
    # Each distinct (label, as asked, family given, params given) read once: a sweep's 100,000
    # runs hold a hundred.
    given = {key: (runs.columns[key].values() if key in runs.columns else [ABSENT] * n)
             for key in ("policy", "spec", "family", "params", "policy_canonical")}
    # A row's own params (a dict, unhashable) are keyed by the row: such rows are not shared.
    given["params"] = [v if v is ABSENT else i for i, v in enumerate(given["params"])]
    params = runs.columns["params"].values() if "params" in runs.columns else None
    keyed = Coded.of(list(zip(*given.values())))
    read = {label: policy_columns(label) for label in dict.fromkeys(str(k[0] or "") if k[0] is not ABSENT else "" for k in keyed.choices)}

    def of(pick):
        return Coded([pick(dict(zip(given, k))) for k in keyed.choices], keyed.codes)

    def label(k) -> str:
        return "" if k["policy"] is ABSENT else str(k["policy"] or "")

    def known(value):
        return None if value is ABSENT else value
    out = {}
    for name, _, _ in columns:
        column = runs.columns.get(name)
        if name == "run":
            out[name] = range(first_run, first_run + n)
        elif name == "policy":
            out[name] = of(lambda k: known(k["spec"]) or label(k))
        elif name == "policy_canonical":  # a row of the schema's own (Results of to_dicts) keeps its
            out[name] = of(lambda k: label(k) if k["policy_canonical"] is ABSENT else k["policy_canonical"])
        elif name == "family":
            out[name] = of(lambda k: known(k["family"]) or read[label(k)]["family"])
        elif name in ("timeout_s", "knob"):
            out[name] = of(lambda k: read[label(k)][name])
        elif name == "params":
            out[name] = of(lambda k: {p.removeprefix("param."): v for p, v in read[label(k)].items() if p.startswith("param.")}
                           if k["params"] is ABSENT else params[k["params"]])
        elif _derived(name):
            out[name] = [None] * n
        elif isinstance(column, (Numbers, Maps, Same)):
            out[name] = column
        else:
            out[name] = runs.get(name)
    return out


def _array(kind: str, values):
    """A column's values converted as :func:`_convert` converts each, as an Arrow array: the
    numbers through NumPy in one pass (straight from the runs' arrays where they hold them), the
    rest value by value."""
    import numpy as np
    import pyarrow as pa

    from .runcolumns import Coded, Column, Maps, Numbers

    if kind == _F and isinstance(values, Column) and not isinstance(values, Coded):
        numbers = values.floats()
        return pa.array(numbers, type=pa.float64(), mask=~np.isfinite(numbers))
    if kind == _I and isinstance(values, Numbers) and values.numpy().dtype.kind in "iu":
        missing = None if values.missing is None else np.asarray(values.missing)
        return pa.array(values.numpy().astype(np.int64, copy=False), type=pa.int64(), mask=missing)
    if kind in (_MAP_F, _MAP_I) and isinstance(values, Maps) and len(values.names):
        return _map_array(kind, values)
    if isinstance(values, Coded):  # each distinct value converted once
        return _array(kind, values.choices).take(pa.array(values.codes, type=pa.int64()))
    values = _listed(values)
    if kind == _F:
        numbers = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        return pa.array(numbers, type=pa.float64(), mask=~np.isfinite(numbers))
    if kind == _I:
        return pa.array([None if v is None else int(v) for v in values], type=pa.int64())
    if kind == _S:
        return pa.array([None if v is None else str(v) for v in values], type=pa.string())
    return pa.array([_convert(kind, v) for v in values], type=arrow_type(kind))


def _map_array(kind: str, maps):
    """A map column from a matrix of runs × names, as :func:`_convert` makes each run's map: a
    float entry not finite is null, a count below zero no entry, a run with no entries null."""
    import numpy as np
    import pyarrow as pa

    matrix = maps.numpy()
    present = matrix >= 0 if kind == _MAP_I else np.ones(matrix.shape, dtype=bool)
    per_run = present.sum(axis=1)
    offsets = np.concatenate([[0], np.cumsum(per_run)]).astype(np.int32)
    # Each entry's name taken from the names by index: no Python string a run (a million runs'
    # maps were a list of ten million).
    keys = pa.array(list(maps.names), type=pa.string()).take(pa.array(np.nonzero(present)[1].astype(np.int64)))
    items = matrix[present]
    if kind == _MAP_F:
        items = pa.array(items.astype(np.float64), type=pa.float64(), mask=~np.isfinite(items))
    else:
        items = pa.array(items.astype(np.int64), type=pa.int64())
    # Made from its buffers, its validity a bitmap: MapArray.from_arrays takes no mask before
    # pyarrow 17, and the extras' floor is 14.
    kind_type = arrow_type(kind)
    entries = pa.StructArray.from_arrays([keys, items], fields=[kind_type.key_field, kind_type.item_field])
    valid = pa.py_buffer(np.packbits(per_run > 0, bitorder="little").tobytes())
    return pa.Array.from_buffers(kind_type, len(per_run), [valid, pa.py_buffer(offsets.tobytes())], children=[entries])


def table(records, metadata: dict | None = None, first_run: int = 0):
    """The runs (dicts, or :class:`~idlewise.runcolumns.RunColumns`) as a pyarrow Table of the
    schema, ``metadata`` in its schema (``idlewise.*``), built a column at a time (the rows of
    :func:`rows`, never made: a sweep of 100,000 runs took 15 s as dicts). ``first_run``: the
    ``run`` number of the first (a part of a larger set)."""
    from ._extras import need

    need("parquet", "the runs as an Arrow table (Parquet, pandas, polars)")
    import pyarrow as pa

    runs = _as_columns(records)
    columns = columns_of(runs)
    schema = arrow_schema(columns)
    values = _column_values(runs, columns, first_run)
    arrays = [_array(kind, values[name]) for name, kind, _ in columns]
    for key in unknown_keys(runs):  # a key the schema does not know follows its columns, typed as given
        column = pa.array(runs.get(key))
        schema = schema.append(pa.field(key, column.type))
        arrays.append(column)
    if metadata:
        schema = schema.with_metadata({k: str(v) for k, v in metadata.items()})
    return pa.Table.from_arrays(arrays, schema=schema)


#: Runs a Parquet file's row group holds, each group's table made and written apart: a million
#: runs' table was held whole (some 400 MB) beside the runs.
RUNS_PER_ROW_GROUP = 1 << 16


def write_parquet(records, path, metadata: dict | None = None) -> None:
    """The runs as a Parquet file of the schema (``metadata`` in it), a row group of
    :data:`RUNS_PER_ROW_GROUP` runs at a time: the same table as :func:`table`'s."""
    import pyarrow.parquet as pq

    runs = _as_columns(records)
    n = len(runs)
    if n <= RUNS_PER_ROW_GROUP or unknown_keys(runs):  # (a key the schema does not know is typed by its values)
        pq.write_table(table(runs, metadata), path)
        return
    writer = None
    try:
        for start in range(0, n, RUNS_PER_ROW_GROUP):
            part = table(runs.take(range(start, min(n, start + RUNS_PER_ROW_GROUP))), metadata, first_run=start)
            if writer is None:
                writer = pq.ParquetWriter(path, part.schema)
            writer.write_table(part)
    finally:
        if writer is not None:
            writer.close()


def long_tables(records):
    """The mode and transition tables (:data:`MODE_COLUMNS`, :data:`TRANSITION_COLUMNS`)."""
    import pyarrow as pa

    modes, transitions = [], []
    for i, r in enumerate(records.records() if hasattr(records, "records") else records):
        times = r.get("time_by_mode_s") or {}
        for mode, energy in (r.get("energy_by_mode_j") or {}).items():
            modes.append({"run": i, "mode": mode, "energy_j": float(energy), "time_s": float(times.get(mode, 0.0))})
        for hop, count in (r.get("transitions") or {}).items():
            source, _, target = hop.partition("->")
            transitions.append({"run": i, "from_mode": source, "to_mode": target, "count": int(count)})
    return (pa.Table.from_pylist(modes, schema=arrow_schema(MODE_COLUMNS)),
            pa.Table.from_pylist(transitions, schema=arrow_schema(TRANSITION_COLUMNS)))


def write_csv(records, path: str) -> None:
    """The runs to a CSV file of the schema's columns, without Arrow (the light install writes
    CSV too): the header and strings quoted, nulls empty, booleans ``true``/``false``, map and
    list columns as JSON text (``{"standby": 1.5}``), as Arrow's CSV writer writes them."""
    runs = _as_columns(records)
    data = rows(runs)
    names = [name for name, _, _ in columns_of(runs)] + unknown_keys(runs)

    def cell(value) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return repr(value) if math.isfinite(value) else ""
        text = json.dumps(value, allow_nan=False) if isinstance(value, (dict, list)) else str(value)
        return '"' + text.replace('"', '""') + '"'
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write(",".join(f'"{name}"' for name in names) + "\n")
        for row in data:
            out.write(",".join(cell(row.get(name)) for name in names) + "\n")


def csv_ready(table):
    """A table CSV can hold: map and list columns as JSON text (``{"standby": 1.5}``)."""
    import pyarrow as pa

    out = table
    for i, field in enumerate(table.schema):
        if pa.types.is_map(field.type) or pa.types.is_list(field.type):
            values = table.column(i).to_pylist()
            text = [None if v is None else json.dumps(dict(v) if pa.types.is_map(field.type) else v, allow_nan=False)
                    for v in values]
            out = out.set_column(i, pa.field(field.name, pa.string()), pa.array(text, pa.string()))
    return out


def provenance(records, command: str | None = None, partial_of: str | None = None) -> dict:
    """What a results file says of itself in its metadata: the version that wrote it, the
    schema, the command, the traces, devices and policies run."""
    from . import __version__

    runs = _as_columns(records)

    def distinct(key):
        return json.dumps(sorted({str(v) for v in dict.fromkeys(runs.get(key)) if v is not None}))
    policies = (spec or policy for spec, policy in zip(runs.get("spec"), runs.get("policy")))
    meta = {"idlewise.version": __version__, "idlewise.schema": f"{'hybrid' if columns_of(runs) is HYBRID_COLUMNS else 'runs'}/{SCHEMA_VERSION}",
            "idlewise.traces": distinct("trace"), "idlewise.devices": distinct("device"),
            "idlewise.policies": json.dumps(list(dict.fromkeys(str(p) for p in policies)))}
    if command:
        meta["idlewise.command"] = command
    if partial_of is not None:
        meta["idlewise.partial"] = partial_of
    return meta


__all__ = ["HYBRID_COLUMNS", "MODE_COLUMNS", "RUN_COLUMNS", "SCHEMA_VERSION", "TRANSITION_COLUMNS", "arrow_schema", "rows",
           "table", "write_csv"]
