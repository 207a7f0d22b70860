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

    def __init__(self, records: list[dict], trace_name: str = ""):
        self._records = records
        self.trace_name = trace_name

    def __getitem__(self, i):
        return self._records[i]

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        rows = ", ".join(f"{r['policy']}: {r['energy_j']:.4g} J" for r in self._records)
        return f"Results({rows})"

    def to_dicts(self, *, json_safe: bool = False) -> list[dict]:
        """Plain dicts; with ``json_safe`` non-finite numbers become None and arrays are dropped."""
        out = []
        for r in self._records:
            d = {k: v for k, v in r.items() if not (json_safe and k == "response_s")}
            out.append(json_ready(d) if json_safe else dict(d))
        return out

    def _flat(self) -> list[dict]:
        from .policies import policy_columns

        rows = []
        for r in self._records:
            row = {k: v for k, v in policy_columns(str(r.get("policy", ""))).items() if k not in r}
            for k, v in r.items():
                if k == "response_s":
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

    def to_arrow(self):
        """A pyarrow Table with the same flat columns as :meth:`to_pandas`."""
        import pyarrow as pa

        rows = self._flat()
        names = list(dict.fromkeys(k for row in rows for k in row))  # every row's columns, not the first's
        return pa.Table.from_pylist([{k: row.get(k) for k in names} for row in rows])


__all__ = ["Results", "KEYS", "json_ready"]
