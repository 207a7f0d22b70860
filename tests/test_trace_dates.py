"""Times given as dates or durations (Arrow timestamps and durations in a Parquet trace, NumPy,
pandas and polars time columns): read as the seconds from the earliest (a streamed file's
first), exactly, with the origin kept as the trace's wall-clock start; the rows equal those of
the same times given as seconds."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import idlewise
from idlewise import TraceError
from idlewise.traces.readers import parquet
from idlewise.traces.times import seconds_of

DISK = "hitachi-travelstar-5k320"
POLICIES = ["timeout:10s", "timeout:2min", "oracle"]


def _columns(n: int, rng) -> dict:
    return {"offset_bytes": rng.integers(0, 1 << 20, n) * 4096, "size_bytes": rng.integers(1, 64, n) * 512,
            "is_write": rng.random(n) < 0.3}


def _dates(n: int, rng, unit: str) -> np.ndarray:
    start = np.datetime64("2024-03-01T08:00:00", "ns")
    gaps_ns = (rng.exponential(40, n) * 1e9).astype(np.int64) + 1  # ns apart, some sub-second
    return (start + np.cumsum(gaps_ns).astype("timedelta64[ns]")).astype(f"datetime64[{unit}]")


def _rows(path, **kw):
    return idlewise.simulate(idlewise.read_trace(path, **kw), DISK, POLICIES, progress=False).to_dicts()


def _replays(path):
    """The rows of a file read whole, and replayed as it is read (simulate_file)."""
    return _rows(path), idlewise.simulate_file(path, DISK, POLICIES, progress=False).to_dicts()


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_a_parquet_trace_of_timestamps_replays_as_its_seconds_from_the_first(tmp_path, monkeypatch, unit):
    rng = np.random.default_rng(hash(unit) % 1000)
    n = 3_000
    dates = _dates(n, rng, unit)
    columns = _columns(n, rng)
    # The seconds as a user would compute them, exactly: integer ticks from the first, scaled.
    ticks, tick_s = dates.view(np.int64), {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[unit]
    seconds = (ticks - ticks[0]).astype(np.float64) * tick_s
    dated, plain = tmp_path / "dated.parquet", tmp_path / "plain.parquet"
    pq.write_table(pa.table({"time_s": pa.array(dates, pa.timestamp(unit, tz="UTC")), **columns}), dated, row_group_size=700)
    pq.write_table(pa.table({"time_s": seconds, **columns}), plain)
    monkeypatch.setattr(parquet, "BATCH_RECORDS", 500)  # a streamed read's origin holds across batches
    trace = idlewise.read_trace(dated)
    np.testing.assert_array_equal(trace.time_s, seconds)
    assert trace.start_unix_s == int(ticks[0]) * tick_s
    whole, streamed = _replays(dated)
    want, _ = _replays(plain)
    for got in (whole, streamed):
        for g, w in zip(got, want):
            for key in ("energy_j", "wakeups", "mean_response_s", "p99_response_s", "delayed_requests", "makespan_s"):
                assert g[key] == w[key], (unit, key)


def test_durations_are_seconds_as_given_and_dates_keep_the_wall_clock(tmp_path, capsys):
    from idlewise.cli import main

    path = tmp_path / "d.parquet"
    table = {"offset_bytes": [0, 4096, 8192], "size_bytes": [4096] * 3, "is_write": [False, True, False]}
    pq.write_table(pa.table({"time_s": pa.array([2_000, 2_500, 92_000], pa.duration("ms")), **table}), path)
    trace = idlewise.read_trace(path)
    assert trace.time_s.tolist() == [2.0, 2.5, 92.0] and trace.start_unix_s is None
    # 2024-03-01 23:59:59 UTC, then half a second and an hour and a half later.
    pq.write_table(pa.table({"time_s": pa.array([1_709_337_599_000, 1_709_337_599_500, 1_709_342_999_000],
                                                pa.timestamp("ms")), **table}), path)
    trace = idlewise.read_trace(path)
    assert trace.time_s.tolist() == [0.0, 0.5, 5_400.0] and trace.start_unix_s == 1_709_337_599.0
    assert main(["advise", str(path), "--device", DISK, "--json"]) == 0
    import json

    activity = json.loads(capsys.readouterr().out)["activity"]
    assert activity["clock"] == "UTC" and activity["start_unix_s"] == 1_709_337_599.0
    assert activity["hours_of_day"][23] > 0 and activity["hours_of_day"][1] > 0  # 23:59 and 01:29 UTC


def test_numpy_pandas_and_polars_time_columns_are_read_as_dates():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    frame = pd.DataFrame({"t": pd.to_datetime(["2024-01-01T10:00:00", "2024-01-01T10:00:30.25", "2024-01-01T11:00:00"], format="ISO8601"),
                          "size": [4096] * 3})
    for times in (frame["t"], frame["t"].to_numpy(), pl.from_pandas(frame)["t"], frame["t"].to_numpy().astype("datetime64[s]")):
        trace = idlewise.Trace.from_arrays(times, frame["size"])
        expected = [0.0, 30.0, 3600.0] if np.asarray(times).dtype == "datetime64[s]" else [0.0, 30.25, 3600.0]
        assert trace.time_s.tolist() == expected and trace.start_unix_s == 1_704_103_200.0, type(times)
    # With a time zone (pandas holds such dates as objects in NumPy): the same instants, in UTC.
    zoned = pd.Series(pd.to_datetime(["2024-01-01T12:00:00+02:00", "2024-01-01T12:00:30.25+02:00"], format="ISO8601"))
    for times in (zoned, pl.from_pandas(zoned), pd.DatetimeIndex(zoned)):
        trace = idlewise.Trace.from_arrays(times, [1, 1])
        assert trace.time_s.tolist() == [0.0, 30.25] and trace.start_unix_s == 1_704_103_200.0, type(times)
    # Out of order, sorted: times from the earliest.
    trace = idlewise.Trace.from_arrays(frame["t"][::-1].to_numpy(), [1] * 3, sort=True)
    assert trace.time_s.tolist() == [0.0, 30.25, 3600.0]
    trace = idlewise.Trace.from_arrays(np.array([5, 1, 7], "timedelta64[s]")[[1, 0, 2]], [1] * 3)
    assert trace.time_s.tolist() == [1.0, 5.0, 7.0] and trace.start_unix_s is None


def test_a_missing_or_unusable_date_is_named(tmp_path, monkeypatch):
    path = tmp_path / "nat.parquet"
    n = 1_200
    dates = pa.array([1_709_337_599_000 + i * 1_000 if i != 1_100 else None for i in range(n)], pa.timestamp("ms"))
    pq.write_table(pa.table({"time_s": dates, "offset_bytes": [0] * n, "size_bytes": [512] * n, "is_write": [False] * n}), path)
    with pytest.raises(TraceError, match=r"nat.parquet: record 1100, field 'time_s': a missing time"):
        idlewise.read_trace(path)
    monkeypatch.setattr(parquet, "BATCH_RECORDS", 500)  # counted across batches when streamed
    with pytest.raises(TraceError, match=r"nat.parquet: record 1100, field 'time_s': a missing time"):
        idlewise.simulate_file(path, DISK, ["timeout:1s"], progress=False)
    with pytest.raises(TraceError, match="in ps ticks"):
        seconds_of(np.array([1, 2], "datetime64[ps]"), where="x: ")
    # Dates three centuries apart: the engine's range of times (2^33 s) refuses them, named.
    far = np.array(["1900-01-01", "2200-01-01"], "datetime64[s]")
    with pytest.raises(TraceError, match="record 1, field 'time_s'.*272 years"):
        idlewise.simulate(idlewise.Trace.from_arrays(far, [512, 512]), DISK, ["timeout:1s"], progress=False)


def test_a_file_of_devices_in_order_each_streams_from_the_file_s_earliest_date(tmp_path, monkeypatch):
    # Device 1's records, an hour earlier, follow device 0's: streamed, times start at the
    # file's earliest date (read first), as the file read whole and sorted.
    rng = np.random.default_rng(3)
    start = np.datetime64("2024-03-01T08:00:00", "ns")
    steps = [np.cumsum((rng.exponential(30, 500) * 1e9).astype(np.int64)).astype("timedelta64[ns]") for _ in range(2)]
    times = np.concatenate([start + steps[0], start - np.timedelta64(3600, "s") + steps[1]])
    path = tmp_path / "two.parquet"
    pq.write_table(pa.table({"time_s": pa.array(times, pa.timestamp("ns")), **_columns(1000, rng),
                             "stream": np.repeat([0, 1], 500)}), path, row_group_size=300)
    monkeypatch.setattr(parquet, "BATCH_RECORDS", 250)
    whole = idlewise.simulate(idlewise.read_trace(path, sort=True), DISK, POLICIES, progress=False).to_dicts()
    streamed = idlewise.simulate_file(path, DISK, POLICIES, progress=False).to_dicts()
    assert [(r["stream"], r["policy"]) for r in whole] == [(r["stream"], r["policy"]) for r in streamed]
    for w, s in zip(whole, streamed):
        for key in ("first_arrival_s", "energy_j", "wakeups", "mean_response_s", "makespan_s"):
            assert w[key] == s[key], key
    assert min(r["first_arrival_s"] for r in streamed) == 0.0
