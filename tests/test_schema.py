"""The results schema (docs/results.md): the same typed columns for every device and policy, so
sweeps stack in pandas, polars and DuckDB, with the user's spelling of a policy and the file's
provenance (issue 41). Each test failed on the code before, whose columns changed with the
devices run (59 against 56), held names SQL must quote and typed empty columns Null."""

import json
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import idlewise
from conftest import DISKSIM
from idlewise.cli import main
from idlewise.schema import HYBRID_COLUMNS, RUN_COLUMNS, SCHEMA_VERSION, arrow_schema, unknown_keys

DOCS = Path(__file__).resolve().parents[1] / "docs" / "results.md"

#: One device of each kind the catalog has, each with the policy families it runs.
KINDS = [
    ("hitachi-microdrive-1gb", ["timeout:60s", "stpm:knob=0", "breakeven", "randomized", "experts", "predictive", "hd-idle:60s"]),
    ("seagate-constellation-es1-500gb", ["epc", "epc:idle_b=off"]),
    ("samsung-pm981-1tb", ["apst", "apst:ps_max_latency_us=0"]),
    ("cisco-350", ["psm", "stpm:knob=50"]),
    ("cmu-mems-g2", ["timeout:100ms"]),
    ("hitachi-travelstar-5k320", ["timeout:2s"]),
]


@pytest.fixture(scope="module")
def trace():
    return idlewise.read_trace(DISKSIM, stream=0)


@pytest.fixture(scope="module")
def runs(trace):
    return {device: idlewise.simulate(trace, device, policies, progress=False) for device, policies in KINDS}


def test_every_kind_of_run_has_exactly_the_schemas_columns(runs, trace):
    hybrid = idlewise.hybrid(trace, "hitachi-travelstar-e7k100", "sandisk-ultra-ii-cf")
    swept = idlewise.sweep([DISKSIM], ["hitachi-microdrive-1gb"], ["timeout:2s"], progress=False)
    for results, columns in [*((r, RUN_COLUMNS) for r in runs.values()), (hybrid, HYBRID_COLUMNS), (swept, RUN_COLUMNS)]:
        assert unknown_keys(list(results)) == [], "a key the schema does not name"
        table = results.to_arrow()
        assert table.schema.remove_metadata() == arrow_schema(columns)
        assert not any(pa.types.is_null(f.type) for f in table.schema)


def test_sweeps_of_different_devices_and_families_stack_in_pandas_polars_and_duckdb(runs):
    frames = [r.to_pandas() for r in runs.values()]
    stacked = pd.concat(frames, ignore_index=True)
    assert list(stacked.columns) == [name for name, _, _ in RUN_COLUMNS]
    assert stacked["knob"].dtype == "float64" and stacked["timeout_s"].dtype == "float64"
    polars = pl.concat([r.to_polars() for r in runs.values()])
    assert polars.height == len(stacked) and polars.columns == list(stacked.columns)
    assert pl.DataFrame(runs["cisco-350"]).columns == polars.columns  # the Arrow stream interface
    tables = [r.to_arrow() for r in runs.values()]
    everything = pa.concat_tables(tables)  # no promotion needed: one schema
    for name, _, _ in RUN_COLUMNS:
        # Unquoted: a name SQL would need to quote fails to parse.
        duckdb.sql(f"SELECT {name} FROM everything").fetchall()
    got = duckdb.sql("SELECT energy_by_mode_j['standby'], params['knob'] FROM everything "
                     "WHERE device = 'hitachi-microdrive-1gb' AND policy = 'stpm:knob=0'").fetchall()
    expected = next(r for r in runs["hitachi-microdrive-1gb"] if r.get("spec") == "stpm:knob=0")
    assert got == [(expected["energy_by_mode_j"]["standby"], 0.0)]


def test_policy_is_spelled_as_asked_and_the_engines_name_beside_it(runs):
    rows = runs["hitachi-microdrive-1gb"].to_dicts()
    asked = {r["policy"]: r for r in rows}
    assert asked["timeout:60s"]["policy_canonical"] == "timeout:1min" and asked["timeout:60s"]["timeout_s"] == 60.0
    assert asked["stpm:knob=0"]["policy_canonical"] == "stpm:knob=0,base=0W" and asked["stpm:knob=0"]["knob"] == 0.0
    assert asked["hd-idle:60s"]["timeout_s"] == 60.0 and asked["experts"]["params"]["spacing"] == 1.15
    epc = {r["policy"]: r for r in runs["seagate-constellation-es1-500gb"].to_dicts()}
    # The timers left on, in seconds (the engine's name leaves the one turned off out).
    assert epc["epc:idle_b=off"]["params"] == {"idle_c": 600.0, "standby_z": 900.0}


def test_nulls_mean_the_same_in_every_format(runs, tmp_path):
    """'never' was inf in Parquet and null in JSON; a column empty in a run was typed Null."""
    results = runs["cisco-350"]  # no wear rating: years_to_rated_cycles does not apply
    for row in results.to_dicts():
        assert row["rated_start_stop_cycles"] is None and row["years_to_rated_cycles"] is None
        assert row["stream"] is None and row["theoretical_min_energy_j"] is None
    calm = runs["hitachi-microdrive-1gb"].to_arrow().filter(pa.compute.equal(pa.compute.field("policy"), "timeout:60s"))
    assert calm.column("wakeups").to_pylist() == [0] and calm.column("rated_load_unload_cycles").to_pylist() == [300000.0]
    assert calm.column("years_to_rated_cycles").to_pylist() == [None]  # no wake-up: never, not inf
    table = results.to_arrow()
    for column in ("rated_start_stop_cycles", "stream", "theoretical_min_energy_j"):
        assert table.schema.field(column).type in (pa.float64(), pa.int64())
    json.dumps(results.to_dicts(), allow_nan=False)


def test_a_sweep_file_carries_its_provenance_and_reports(tmp_path, capsys):
    out = tmp_path / "runs.parquet"
    argv = ["sweep", DISKSIM, "--stream", "0", "--device", "hitachi-microdrive-1gb", "--policy", "timeout:60s", "--out", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    metadata = {k.decode(): v.decode() for k, v in pq.read_schema(out).metadata.items() if k.startswith(b"idlewise.")}
    assert metadata["idlewise.version"] == idlewise._core.__version__
    assert metadata["idlewise.schema"] == f"runs/{SCHEMA_VERSION}"
    assert metadata["idlewise.command"].startswith("idlewise sweep ") and "timeout:60s" in metadata["idlewise.command"]
    assert json.loads(metadata["idlewise.devices"]) == ["hitachi-microdrive-1gb"]
    assert "timeout:60s" in json.loads(metadata["idlewise.policies"])
    rows = duckdb.sql(f"SELECT policy, policy_canonical FROM '{out}' WHERE policy = 'timeout:60s'").fetchall()
    assert rows == [("timeout:60s", "timeout:1min")]
    csv = tmp_path / "runs.csv"
    assert main(argv[:-1] + [str(csv)]) == 0
    frame = pd.read_csv(csv)
    assert list(frame.columns) == [name for name, _, _ in RUN_COLUMNS]
    assert json.loads(frame.loc[0, "energy_by_mode_j"]).keys() == {"performance-idle", "low-power-idle", "standby"}
    for source in (out, csv):
        assert main(["report", "--from", str(source), "--out", str(tmp_path / "r.html")]) == 0
        page = (tmp_path / "r.html").read_text()
        assert "Energy by mode" in page or "energy by mode" in page.lower()


def test_long_tables_join_the_runs_on_run(runs):
    results = runs["samsung-pm981-1tb"]
    rows, modes, transitions = results.to_arrow(), results.modes(), results.transitions()
    for i, record in enumerate(results):
        mine = modes.filter(pa.compute.equal(modes["run"], i))
        assert dict(zip(mine["mode"].to_pylist(), mine["energy_j"].to_pylist())) == record["energy_by_mode_j"]
        hops = transitions.filter(pa.compute.equal(transitions["run"], i))
        assert {f"{a}->{b}": n for a, b, n in zip(hops["from_mode"].to_pylist(), hops["to_mode"].to_pylist(),
                                                    hops["count"].to_pylist())} == {k: v for k, v in record["transitions"].items() if v}  # noqa: E501
        assert rows["run"][i].as_py() == i


def test_per_request_and_timeline_are_arrow_tables_with_the_run(trace):
    results = idlewise.simulate(trace, "hitachi-microdrive-1gb", ["timeout:60s"], per_request=True, timeline_s=(0.0, 100.0),
                                progress=False)
    per_request, timeline = results.per_request("timeout:60s"), results.timeline("timeout:60s")
    assert isinstance(per_request, pa.Table) and isinstance(timeline, pa.Table)
    run = next(i for i, r in enumerate(results) if r.get("spec") == "timeout:60s")
    assert set(per_request["run"].to_pylist()) == {run} == set(timeline["run"].to_pylist())
    assert set(per_request["policy"].to_pylist()) == {"timeout:60s"}


def test_every_column_is_documented():
    text = DOCS.read_text()
    for name, kind, meaning in HYBRID_COLUMNS:
        assert f"| `{name}` | {kind} | {meaning} |" in text, f"docs/results.md: column {name} is not documented as the schema says"


def _rows_before(records, columns):
    """The schema's rows as they were made before issue 63, record by record: the reference."""
    from idlewise.policies import policy_columns
    from idlewise.schema import _convert, _derived

    known = {name for name, _, _ in columns}
    out = []
    for i, record in enumerate(records):
        canonical = str(record.get("policy", ""))
        derived = policy_columns(canonical)
        values = {"run": i, "policy": record.get("spec") or canonical, "policy_canonical": canonical,
                  "family": record.get("family") or derived["family"],
                  "timeout_s": derived["timeout_s"], "knob": derived["knob"],
                  "params": {k.removeprefix("param."): v for k, v in derived.items() if k.startswith("param.")}}
        extra = {}
        for key, value in record.items():
            if _derived(key):
                continue
            (values if key in known else extra)[key] = value
        out.append({**{name: _convert(kind, values.get(name)) for name, kind, _ in columns}, **extra})
    return out


def _table_by_rows(records, metadata=None):
    """The runs' table as it was built before issue 63, row by row: the reference the columnar
    build must equal, bit for bit."""
    from idlewise.schema import columns_of

    columns = columns_of(records)
    schema = arrow_schema(columns)
    data = _rows_before(records, columns)
    extra = unknown_keys(records)
    if extra:
        inferred = pa.Table.from_pylist([{k: row.get(k) for k in extra} for row in data]).schema
        schema = pa.schema(list(schema) + list(inferred))
    if metadata:
        schema = schema.with_metadata({k: str(v) for k, v in metadata.items()})
    return pa.Table.from_pylist(data, schema=schema)


def test_the_columnar_table_equals_the_rows_it_replaced(runs, trace):
    from idlewise.schema import columns_of, rows, table

    hybrid = idlewise.hybrid(trace, "hitachi-travelstar-e7k100", "sandisk-ultra-ii-cf")
    swept = idlewise.sweep([DISKSIM], ["hitachi-microdrive-1gb", "cmu-mems-g2"], ["timeout:0s..4s/2s", "stpm:knob=50", "oracle"],
                           transforms=["none", "compress:8ops"], progress=False)
    odd = [{**r, "extra_note": i, "energy_j": [float("nan"), float("inf"), None, 1][i % 4], "knob": "x"}
           for i, r in enumerate(runs["hitachi-microdrive-1gb"])]
    # Rows of the schema's own made into results again (Results(a.to_dicts())): their
    # policy_canonical and params are kept as they are.
    again = runs["hitachi-microdrive-1gb"].to_dicts() + runs["cisco-350"].to_dicts()
    for records in [*(list(r) for r in runs.values()), list(hybrid), list(swept), odd, again, []]:
        metadata = {"idlewise.version": "x"}
        got, want = table(records, metadata), _table_by_rows(records, metadata)
        assert got.schema.equals(want.schema, check_metadata=True) and got.equals(want)
        assert rows(records) == _rows_before(records, columns_of(records))  # to_dicts, CSV
