"""Results of a simulation: one record per policy, as dicts, a pandas DataFrame or an Arrow table."""

from __future__ import annotations

import math
from collections.abc import Sequence

#: Keys every result has, in the order tables and JSON show them first.
KEYS = (
    "policy", "device", "requests", "makespan_s", "energy_j", "system_energy_j", "energy_by_mode_j",
    "time_by_mode_s", "transitions", "wakeups", "mean_response_s", "p50_response_s", "p95_response_s",
    "p99_response_s", "max_response_s", "delayed_requests", "normalized_energy", "normalized_mean_response",
    "energy_vs_oracle",
)


#: Keys that hold per-request arrays or a timeline: kept out of tables and JSON, read through
#: :meth:`Results.per_request` and :meth:`Results.timeline`.
ARRAY_KEYS = frozenset({"arrival_s", "start_s", "finish_s", "response_s", "at_arrival", "activity_labels", "timeline"})


def json_ready(value):
    """Non-finite numbers become None (JSON has no NaN), through dicts and lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_ready(v) for v in value]
    return value


class Results(Sequence):
    """An immutable list of per-policy result dicts, with conversions."""

    def __init__(self, records: list[dict], trace_name: str = "", trace_description: str = ""):
        self._records = records
        self.trace_name = trace_name
        #: The trace in one line (requests, reads, writes, span), where the run knows it.
        self.trace_description = trace_description
        #: The first and last arrival replayed, for a file replayed as read (``simulate_file``).
        self.first_time_s = self.last_time_s = None

    def __getitem__(self, i):
        return self._records[i]

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        rows = ", ".join(f"{r['policy']}: {r['energy_j']:.4g} J" for r in self._records)
        return f"Results({rows})"

    def to_dicts(self, *, json_safe: bool = False) -> list[dict]:
        """Plain dicts, with the policy's parameters (``family``, ``timeout_s``, ``knob``, ...) as
        in :meth:`to_pandas`; with ``json_safe`` non-finite numbers become None and arrays are
        dropped."""
        from .policies import policy_columns

        out = []
        for r in self._records:
            d = {k: v for k, v in policy_columns(str(r.get("policy", ""))).items() if k not in r}
            d.update((k, v) for k, v in r.items() if not (json_safe and k in ARRAY_KEYS))
            out.append(json_ready(d) if json_safe else dict(d))
        return out

    def _flat(self) -> list[dict]:
        from .policies import policy_columns

        rows = []
        for r in self._records:
            row = {k: v for k, v in policy_columns(str(r.get("policy", ""))).items() if k not in r}
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

    def to_pandas(self):
        """A DataFrame, one row per policy; per-mode dicts become ``energy_by_mode_j.<mode>`` columns,
        and the policy's parameters columns of their own: ``family``, ``timeout_s``, ``knob`` and
        ``param.<name>`` (numbers where they are numbers)."""
        import pandas as pd

        return pd.DataFrame(self._flat())

    def _runs(self, policy, key: str, asked: str):
        runs = [r for r in self._records if key in r and (policy is None or r["policy"] == policy)]
        if not runs:
            have = [r["policy"] for r in self._records if key in r]
            if policy is not None and have:
                raise KeyError(f"no run of policy {policy!r} kept {asked}; these did: {', '.join(have)}")
            raise ValueError(f"these results kept no {asked}: simulate with {'per_request=True' if key == 'response_s' else 'timeline_s=(from, to)'}")
        return runs

    def per_request(self, policy: str | None = None):
        """Every request of each run (or of ``policy``'s) as a pyarrow Table, in trace order:
        ``policy``, ``request`` (index in the trace), ``arrival_s`` (when it was issued),
        ``start_s`` (service began), ``finish_s`` (the requester has its data),
        ``response_s``, ``wait_s`` (start − arrival: queueing and power management) and
        ``mode_at_arrival`` (a mode, a transition ``standby→active``, or ``serving`` when it
        queued behind another request). Needs ``simulate(..., per_request=True)``."""
        import numpy as np
        import pyarrow as pa

        tables = []
        for r in self._runs(policy, "response_s", "per-request records"):
            n = len(r["response_s"])
            labels = pa.array(r["activity_labels"], pa.string())
            # A run of one device of a multi-device trace says which.
            stream = {} if "stream" not in r else {"stream": pa.array(np.full(n, r["stream"], np.int64))}
            tables.append(pa.table({
                "policy": pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([r["policy"]])),
                **stream,
                "request": pa.array(np.arange(n, dtype=np.int64)),
                "arrival_s": r["arrival_s"],
                "start_s": r["start_s"],
                "finish_s": r["finish_s"],
                "response_s": r["response_s"],
                "wait_s": r["start_s"] - r["arrival_s"],
                "mode_at_arrival": pa.DictionaryArray.from_arrays(pa.array(r["at_arrival"].astype(np.int32)), labels),
            }))
        return pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 else tables[0]

    def timeline(self, policy: str | None = None):
        """What the device did in the window given to ``simulate(..., timeline_s=(from, to))``,
        as a pandas DataFrame of back-to-back segments: ``policy``, ``start_s``, ``end_s`` and
        ``activity`` (a mode, a transition ``standby→active``, or ``serving``), up to the end
        of the run."""
        import pandas as pd

        frames = []
        for r in self._runs(policy, "timeline", "timeline"):
            starts, ends, codes = r["timeline"]
            labels = r["activity_labels"]
            rows = []
            for start, end, code in zip(starts.tolist(), ends.tolist(), codes.tolist()):
                # A run that mirrors another's service (the oracle beside always-on) leaves its
                # busy periods out: they are service.
                if rows and start > rows[-1][2]:
                    rows.append((r["policy"], rows[-1][2], start, "serving"))
                rows.append((r["policy"], start, end, labels[code]))
            frame = pd.DataFrame(rows, columns=["policy", "start_s", "end_s", "activity"])
            if "stream" in r:
                frame.insert(1, "stream", r["stream"])
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def to_arrow(self):
        """A pyarrow Table with the same flat columns as :meth:`to_pandas`."""
        import pyarrow as pa

        rows = self._flat()
        names = list(dict.fromkeys(k for row in rows for k in row))  # every row's columns, not the first's
        return pa.Table.from_pylist([{k: row.get(k) for k in names} for row in rows])


__all__ = ["Results", "KEYS", "ARRAY_KEYS", "json_ready"]
