"""Results of a simulation: one record per run, as the results schema's rows (``docs/results.md``:
dicts, pyarrow, pandas, polars, the Arrow stream interface), with long tables of modes,
transitions, requests and timelines. Every table a method returns is a :class:`pyarrow.Table`
(``.to_pandas()``, ``pl.from_arrow``); :meth:`Results.to_pandas` and :meth:`Results.to_polars` give
the runs as frames."""

from __future__ import annotations

import math

#: Keys every result has, in the order tables and JSON show them first.
KEYS = (
    "policy", "device", "requests", "makespan_s", "energy_j", "system_energy_j", "energy_by_mode_j",
    "time_by_mode_s", "transitions", "wakeups", "mean_response_s", "p50_response_s", "p95_response_s",
    "p99_response_s", "max_response_s", "delayed_requests", "normalized_energy", "normalized_mean_response",
    "energy_vs_oracle",
)


from .schema import ARRAY_KEYS


def json_ready(value):
    """Non-finite numbers become None (JSON has no NaN), through dicts and lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_ready(v) for v in value]
    return value


def saturation_note(row: dict) -> str | None:
    """What to say of a run whose device model cannot keep up with its trace (``offered_load``
    of 1 or more: its ready service takes longer than the span its requests arrive over), or
    None. Its responses then measure the model's queue, whatever the policy."""
    load = row.get("offered_load")
    if load is None or not load >= 1.0:
        return None
    where = f"{row['device']}" + (f" (stream {row.get('stream_name') or row['stream']})" if row.get("stream") is not None else "")
    return (f"{where} cannot keep up with the trace: its service takes {load:.2f}x the time its requests arrive over, "
            f"so responses measure the model's queue, not power management")


def saturation_notes(rows) -> list[str]:
    """:func:`saturation_note` once for each (device, trace, stream, transform) saturated."""
    seen, notes = set(), []
    for row in rows:
        note = saturation_note(row)
        key = (row.get("device"), row.get("trace"), row.get("stream"), row.get("transform"))
        if note and key not in seen:
            seen.add(key)
            notes.append(note)
    return notes


#: What tells a sweep's groups apart: runs are compared within a group only.
GROUP_KEYS = ("trace", "stream", "transform", "device")


def group_keys(rows) -> list[tuple]:
    """Each run's group (:data:`GROUP_KEYS`, as text): runs are compared within a group only.
    ``rows``: dicts, or :class:`~idlewise.runcolumns.RunColumns`."""
    from .runcolumns import RunColumns

    if isinstance(rows, RunColumns):
        return list(zip(*(map(str, rows.get(k)) for k in GROUP_KEYS)))
    return [tuple(str(r.get(k)) for k in GROUP_KEYS) for r in rows]


class Results:
    """The runs of a simulation or sweep, with conversions to the results schema.

    Indexing and iteration give the engine's records (:meth:`raw_records` without the policy
    columns); tools take the schema through :meth:`to_arrow`, :meth:`to_pandas`,
    :meth:`to_polars`, :meth:`to_dicts` or the Arrow stream interface (``pl.DataFrame(results)``,
    ``duckdb.sql("FROM results")``). It is deliberately not a ``collections.abc.Sequence``:
    libraries that take a sequence of dicts before the Arrow interface would read the records
    rather than the schema."""

    def __init__(self, records, trace_name: str = "", trace_description: str = ""):
        from .runcolumns import RunColumns

        # Held as columns (the engine's run sets, a sweep's), or as dicts where made so; dicts are
        # built from the columns when first asked for (indexing, iteration), and are from then on
        # what the results hold, so that a change made to one stays.
        self._columns: RunColumns | None = records if isinstance(records, RunColumns) else None
        self._dicts: list[dict] | None = None if self._columns is not None else list(records)
        self.trace_name = trace_name
        #: The trace in one line (requests, reads, writes, span), where the run knows it.
        self.trace_description = trace_description
        #: The first and last arrival replayed, for a file replayed as read (``simulate_file``).
        self.first_time_s = self.last_time_s = None
        #: The command line that made these results (the CLI sets it), for a file's metadata.
        self.command: str | None = None
        #: A recording replayed as read: its span (start, end) on the trace's time line, and its
        #: one device's name; None otherwise.
        self.recording_s: tuple | None = None
        self.device_name: str | None = None

    @property
    def _records(self) -> list[dict]:
        if self._dicts is None:
            self._dicts = self._columns.records()
            self._columns = None
        return self._dicts

    def columns(self):
        """The runs as :class:`idlewise.runcolumns.RunColumns` (the records' keys as columns),
        without building a dict a run where they are held as columns."""
        from .runcolumns import RunColumns

        return self._columns if self._columns is not None else RunColumns.from_records(self._dicts)

    def records_at(self, index) -> list[dict]:
        """The records of the runs at ``index`` (run numbers), without building the others'."""
        if self._columns is not None:
            return self._columns.take(list(index)).records()
        return [self._dicts[i] for i in index]

    def __getitem__(self, i):
        return self._records[i]

    def __len__(self) -> int:
        return len(self._columns) if self._columns is not None else len(self._dicts)

    def __iter__(self):
        return iter(self._records)

    def __repr__(self) -> str:
        rows = ", ".join(f"{r['policy']}: {r['energy_j']:.4g} J" for r in self._records)
        return f"Results({rows})"

    def raw_records(self) -> list[dict]:
        """The engine's records as dicts, as the engine keys them (``policy`` canonical, ``spec``
        as asked, per-mode figures as nested dicts, per-request arrays where kept), with the
        policy's parameter columns (``family``, ``timeout_s``, ``knob``, ``param.<name>``).
        For tools, use :meth:`to_dicts` or :meth:`to_arrow`: their columns are the schema's."""
        from .policies import policy_columns

        out = []
        for r in self._records:
            d = {k: v for k, v in policy_columns(str(r.get("policy", ""))).items() if k not in r}
            d.update(r)
            out.append(d)
        return out

    def to_dicts(self, *, json_safe: bool = False) -> list[dict]:
        """The runs as plain dicts, one per run, keyed by the results schema's columns
        (``docs/results.md``): per-mode figures as dicts, null (None) where a column does not
        apply. ``json_safe`` is kept for compatibility: the rows are always JSON-ready."""
        from .schema import rows

        return rows(self.columns())

    def _wide(self) -> list[dict]:
        """Rows for the report's tables: per-mode dicts spread into ``energy_by_mode_j.<mode>``
        columns (the report reads them by mode), as :func:`idlewise.reporting.widen` does to a
        file's rows."""
        rows = []
        for r in self.raw_records():
            row = {}
            for k, v in r.items():
                if k in ARRAY_KEYS:
                    continue
                if isinstance(v, dict):
                    for sub, x in v.items():
                        row[f"{k}.{sub}"] = x
                else:
                    row[k] = v
            rows.append(row)
        return rows

    def metadata(self, command: str | None = None, partial_of: str | None = None) -> dict:
        """What a results file says of itself (``idlewise.version``, ``idlewise.schema``,
        ``idlewise.command``, ``idlewise.traces``, ``idlewise.devices``, ``idlewise.policies``)."""
        from .schema import provenance

        return provenance(self.columns(), command or self.command, partial_of)

    def to_arrow(self):
        """The runs as a :class:`pyarrow.Table` of the results schema (``docs/results.md``), its
        provenance in the schema's metadata.

        Returns
        -------
        pyarrow.Table
            One row per run; the same columns whatever the devices and policies.
        """
        from .schema import table

        return table(self.columns(), self.metadata())

    def __arrow_c_stream__(self, requested_schema=None):
        """The Arrow PyCapsule stream interface: ``pl.DataFrame(results)``, ``duckdb.sql("FROM
        results")`` and ``pa.table(results)`` take the runs without a copy through pandas."""
        return self.to_arrow().__arrow_c_stream__(requested_schema)

    def to_pandas(self):
        """The runs as a pandas DataFrame of the results schema, one row per run.

        The map columns (``energy_by_mode_j``, ``time_by_mode_s``, ``transitions``, ``params``)
        hold dicts (``df.energy_by_mode_j[0]["standby"]``), None where empty. For one row per
        mode, :meth:`modes` and :meth:`transitions`; for the file, :meth:`to_arrow` (a
        ``DataFrame.to_parquet`` writes the dicts as structs, not maps).

        Returns
        -------
        pandas.DataFrame
        """
        return self.to_arrow().to_pandas(maps_as_pydicts="strict")

    def to_polars(self):
        """The runs as a polars DataFrame of the results schema (map columns become lists of
        ``{key, value}`` structs, as polars holds an Arrow map).

        Returns
        -------
        polars.DataFrame
        """
        try:
            import polars as pl
        except ImportError:
            from .errors import IdlewiseError

            raise IdlewiseError("to_polars() needs polars: pip install polars") from None
        return pl.from_arrow(self.to_arrow())

    def modes(self):
        """Energy and time in each mode, one row per (run, mode): ``run``, ``mode``,
        ``energy_j``, ``time_s``; join on ``run`` with :meth:`to_arrow`'s rows.

        Returns
        -------
        pyarrow.Table
        """
        from .schema import long_tables

        return long_tables(self.columns())[0]

    def transitions(self):
        """Mode changes, one row per (run, transition): ``run``, ``from_mode``, ``to_mode``,
        ``count``.

        Returns
        -------
        pyarrow.Table
        """
        from .schema import long_tables

        return long_tables(self.columns())[1]

    def _runs(self, policy, key: str, asked: str) -> list[tuple[int, dict]]:
        """(run number, record) of each run that kept ``key``, of ``policy`` if given (as asked
        or the engine's name)."""
        def named(r):
            if policy is None:
                return True
            if isinstance(policy, str):
                return policy in (r["policy"], r.get("spec"))
            return r["policy"] in policy or r.get("spec") in policy
        runs = [(i, r) for i, r in enumerate(self._records) if key in r and named(r)]
        if not runs:
            have = [r.get("spec") or r["policy"] for r in self._records if key in r]
            if policy is not None and have:
                raise KeyError(f"no run of policy {policy!r} kept {asked}; these did: {', '.join(have)}")
            raise ValueError(f"these results kept no {asked}: simulate with {'per_request=True' if key == 'response_s' else 'timeline_s=(from, to)'}")
        return runs

    def per_request(self, policy: str | None = None):
        """Every request of each run (or of ``policy``'s) in trace order.

        Parameters
        ----------
        policy : str, optional
            One run's policy, as asked (``timeout:60s``) or as the engine names it.

        Returns
        -------
        pyarrow.Table
            ``run`` (the run's row in :meth:`to_arrow`), ``policy``, ``device``, ``stream``
            (null for a single-device trace), ``request`` (index in the trace), ``arrival_s`` (when it was
            issued), ``start_s`` (service began), ``finish_s`` (the requester has its data),
            ``response_s``, ``wait_s`` (start − arrival: queueing and power management) and
            ``mode_at_arrival`` (a mode, a transition ``standby→active``, or ``serving`` when it
            queued behind another request). Needs ``simulate(..., per_request=True)``.
        """
        import pyarrow as pa

        tables = [per_request_table(run, r.get("spec") or r["policy"], r.get("device"), r.get("stream"), 0, r["arrival_s"],
                                    r["start_s"], r["finish_s"], r["response_s"], r["at_arrival"], r["activity_labels"])
                  for run, r in self._runs(policy, "response_s", "per-request records")]
        return pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 else tables[0]

    def timeline(self, policy: str | None = None):
        """What the device did in the window given to ``simulate(..., timeline_s=(from, to))``,
        up to the end of the run, as back-to-back segments.

        Parameters
        ----------
        policy : str or collection of str, optional
            One run's policy, as asked or as the engine names it, or several.

        Returns
        -------
        pyarrow.Table
            ``run``, ``policy``, ``stream``, ``start_s``, ``end_s`` and ``activity`` (a mode, a
            transition ``standby→active``, or ``serving``).
        """
        import numpy as np
        import pyarrow as pa

        parts = []
        for run, r in self._runs(policy, "timeline", "timeline"):
            starts, ends, codes = (np.asarray(a) for a in r["timeline"])
            labels = list(r["activity_labels"])
            # A run that mirrors another's service (the oracle beside always-on) leaves its busy
            # periods out: each gap between one segment's end and the next one's start was service,
            # and goes in before the segment that follows it.
            gap = np.flatnonzero(starts[1:] > ends[:-1]) + 1
            order = np.argsort(np.concatenate([np.arange(len(starts)) * 2 + 1, gap * 2]), kind="stable")
            seg_start = np.concatenate([starts, ends[gap - 1]])[order]
            seg_end = np.concatenate([ends, starts[gap]])[order]
            seg_code = np.concatenate([codes.astype(np.int32), np.full(len(gap), len(labels), np.int32)])[order]
            n = len(seg_start)
            name, stream = r.get("spec") or r["policy"], r.get("stream")
            parts.append(pa.table({
                "run": pa.array(np.full(n, run, np.int64)),
                "policy": pa.array([name] * n, pa.string()) if n else pa.array([], pa.string()),
                "stream": pa.nulls(n, pa.int64()) if stream is None else pa.array(np.full(n, stream, np.int64)),
                "start_s": pa.array(seg_start.astype(np.float64)),
                "end_s": pa.array(seg_end.astype(np.float64)),
                "activity": pa.DictionaryArray.from_arrays(pa.array(seg_code), pa.array(labels + ["serving"])).cast(pa.string()),
            }))
        return pa.concat_tables(parts) if len(parts) > 1 else parts[0]


def per_request_table(run: int, policy: str, device, stream, first_request: int, arrival_s, start_s, finish_s, response_s,
                      at_arrival, activity_labels):
    """One run's per-request records as :meth:`Results.per_request` lays them out (also a
    file's, written as replayed): the one home of that layout."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(response_s)

    def constant(value, kind):
        return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([value], kind))
    return pa.table({
        "run": pa.array(np.full(n, run, np.int64)),
        "policy": constant(policy, pa.string()),
        "device": constant(device, pa.string()),
        "stream": pa.nulls(n, pa.int64()) if stream is None else pa.array(np.full(n, stream, np.int64)),
        "request": pa.array(np.arange(first_request, first_request + n, dtype=np.int64)),
        "arrival_s": arrival_s,
        "start_s": start_s,
        "finish_s": finish_s,
        "response_s": response_s,
        "wait_s": pc.subtract(pa.array(start_s), pa.array(arrival_s)),
        "mode_at_arrival": pa.DictionaryArray.from_arrays(pa.array(np.asarray(at_arrival, np.int32)),
                                                          pa.array(list(activity_labels), pa.string())),
    })


__all__ = ["Results", "KEYS", "ARRAY_KEYS", "per_request_table"]
