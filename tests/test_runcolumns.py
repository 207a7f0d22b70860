"""Runs held as columns (``idlewise.runcolumns``): the engine's run sets read as columns give the
records the dicts were, and the schema's table made from the columns (numbers, maps and labels
a column at a time) equals the table made from those records value by value, over generated
traces, every device kind and volumes. ``tests/test_rows_unchanged.py`` holds the records against
those the engine gave as dicts before."""

import pickle

import numpy as np
import pytest

import idlewise
from idlewise.runcolumns import ABSENT, Coded, Numbers, RunColumns
from idlewise.schema import rows, table


def _trace(seed: int, n: int, streams: int = 0):
    rng = np.random.default_rng(seed)
    gaps = np.where(rng.random(n) < rng.uniform(0.02, 0.3), rng.pareto(1.1, n) * rng.uniform(0.5, 30), rng.uniform(1e-4, 0.05, n))
    kwargs = {"stream": rng.integers(0, streams, n)} if streams else {}
    return idlewise.Trace.from_arrays(np.cumsum(gaps), rng.integers(1, 256, n) * 512,
                                      offset_bytes=rng.integers(0, 1 << 20, n) * 512, is_write=rng.random(n) < 0.4, **kwargs)


def specs_run(specs):
    return [one for spec in specs for one in idlewise.policies.expand_spec(spec)]


SPECS = ["timeout:0s", "timeout:2s..20s/6s", "stpm:knob=70", "randomized:seed=3", "breakeven", "predictive", "oracle"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("device", ["hitachi-travelstar-5k320", "ibm-microdrive-340mb", "cisco-350", "cmu-mems-g1"])
def test_the_table_made_a_column_at_a_time_equals_the_one_made_from_the_records(seed, device, tmp_path):
    pytest.importorskip("pyarrow")
    streams = 0 if seed % 2 else 5
    trace = _trace(seed, 400 + 300 * seed, streams)
    specs = [s for s in SPECS if not (device == "cisco-350" and s.startswith("randomized"))]
    sweep = idlewise.sweep([trace], [device], specs, transforms=["none", "compress:16ops"], jobs=1, progress=False)
    columns = sweep.columns()
    assert isinstance(columns, RunColumns) and len(columns) == len(sweep)
    records = columns.records()
    fast, slow = table(columns), table(records)
    assert fast.schema == slow.schema
    for name in fast.column_names:
        assert fast.column(name).equals(slow.column(name)), name
    assert rows(columns) == rows(records)
    # And a file replayed as read (its volumes' runs one set of columns).
    path = tmp_path / "t.alibaba"  # device,op,offset,size,time_us
    with open(path, "w") as f:
        for i in range(len(trace)):
            f.write(f"{trace.stream[i] if streams else 0},{'W' if trace.is_write[i] else 'R'},{trace.offset_bytes[i]},"
                    f"{trace.size_bytes[i]},{round(trace.time_s[i] * 1e6)}\n")
    read = idlewise.simulate_file(path, device, specs, format="alibaba", progress=False)
    assert len(read) == len(specs_run(specs)) * (len(set(trace.stream.tolist())) if streams else 1)
    assert table(read.columns()).equals(table(read.columns().records()))


def test_runs_taken_joined_and_pickled_keep_their_records():
    trace = _trace(9, 600, 3)
    results = idlewise.sweep([trace], ["hitachi-microdrive-1gb", "cmu-mems-g2"], ["timeout:1s", "oracle"], jobs=1, progress=False)
    runs = results.columns()
    records = runs.records()
    # Two devices: their mode maps differ, and MEMS runs have theoretical minima the disk's lack.
    assert any("theoretical_min_energy_j" in r for r in records) and any("theoretical_min_energy_j" not in r for r in records)
    back = pickle.loads(pickle.dumps(runs))
    assert back.records() == records
    index = [5, 0, 3, 3]
    assert runs.take(index).records() == [records[i] for i in index]
    halves = RunColumns.concat([runs.take(range(0, 4)), runs.take(range(4, len(runs)))])
    assert halves.records() == records
    assert results.records_at([2, 1]) == [records[2], records[1]]


def test_a_column_reads_back_what_was_set():
    runs = RunColumns(3)
    runs.set("a", 1.5)
    runs.set("b", [1, ABSENT, None])
    runs.set("c", Numbers(np.array([1.0, 2.0, 3.0]), np.array([False, True, False])))
    runs.set("d", Numbers(np.array([1, 2, 3]), np.array([True, False, False]), absent=True))
    runs.set("e", Coded.of(["x", "y", "x"], str.upper))
    assert runs.records() == [{"a": 1.5, "b": 1, "c": 1.0, "e": "X"}, {"a": 1.5, "c": None, "d": 2, "e": "Y"},
                              {"a": 1.5, "b": None, "c": 3.0, "d": 3, "e": "X"}]
    assert runs.get("b") == [1, None, None] and runs.get("missing") == [None] * 3
    assert np.isnan(runs.floats("c")[1]) and runs.floats("c")[2] == 3.0
    # A key set again keeps its place, as dict.update keeps it.
    runs.set("a", 2)
    assert list(runs.records()[0]) == ["a", "b", "c", "e"]


def test_joined_maps_named_otherwise_keep_each_run_s_own_order():
    """Two run sets whose maps name other keys (two devices' modes) joined: each run's dict keeps
    its own keys in its own order (a union of the names reordered a run's transitions)."""
    from idlewise.runcolumns import Maps

    a, b = RunColumns(1), RunColumns(1)
    a.set("transitions", Maps(["x->y", "y->x"], np.array([[2, 1]]), counts=True))
    b.set("transitions", Maps(["x->z", "y->x", "x->y"], np.array([[1, -1, 3]]), counts=True))
    joined = RunColumns.concat([a, b]).records()
    assert [list(r["transitions"].items()) for r in joined] == [[("x->y", 2), ("y->x", 1)], [("x->z", 1), ("x->y", 3)]]


@pytest.mark.parametrize("device", ["hitachi-travelstar-5k320", "cmu-mems-g1"])
@pytest.mark.parametrize("per_group", [1, 7, 64])
def test_a_file_written_row_group_by_row_group_is_the_whole_table(device, per_group, tmp_path, monkeypatch):
    """`write_parquet` makes and writes a row group's table at a time (a million runs' table
    was held whole); the file read back is the table made whole, its run numbers and metadata
    too, however the runs fall into groups."""
    pq = pytest.importorskip("pyarrow.parquet")
    from idlewise import schema

    monkeypatch.setattr(schema, "RUNS_PER_ROW_GROUP", per_group)
    sweep = idlewise.sweep([_trace(5, 900, streams=9)], [device], SPECS, transforms=["none", "compress:16ops"], jobs=1, progress=False)
    columns, metadata = sweep.columns(), sweep.metadata()
    assert len(columns) > per_group
    path, whole = tmp_path / "runs.parquet", tmp_path / "whole.parquet"
    schema.write_parquet(columns, path, metadata)
    pq.write_table(table(columns, metadata), whole)  # the table made whole, written as it was
    assert pq.ParquetFile(path).metadata.num_row_groups == -(-len(columns) // per_group)
    read, expected = pq.read_table(path), pq.read_table(whole)
    assert read.schema.equals(expected.schema, check_metadata=True)
    assert read.equals(expected)
    assert read.column("run").to_pylist() == list(range(len(columns)))
