"""The Python API: arrays in, dicts and DataFrames out."""

import numpy as np
import pytest

import idlewise


def test_simulate_from_numpy_to_dataframe():
    rng = np.random.default_rng(0)
    times = np.cumsum(rng.exponential(5.0, 1000))
    trace = idlewise.Trace.from_arrays(times, rng.integers(512, 65536, 1000), op=rng.choice(["R", "W"], 1000))
    results = idlewise.simulate(trace, "hitachi-microdrive-1gb", ["always-on", "timeout:2s", "oracle"], base_power_w=1.44)
    df = results.to_pandas()
    assert list(df["policy"]) == ["always-on", "timeout:2s", "oracle"]
    assert "standby" in df.loc[0, "energy_by_mode_j"]  # a map column (docs/results.md)
    assert df.loc[0, "normalized_energy"] == 1.0
    table = results.to_arrow()
    assert table.num_rows == 3
    d = results.to_dicts()[1]
    assert d["energy_j"] == pytest.approx(sum(d["energy_by_mode_j"].values()) + d["transition_energy_j"] + d["service_energy_j"])


def test_per_request_response_times_on_request():
    trace = idlewise.Trace.from_arrays([0.0, 10.0, 10.001], [4096] * 3)
    r = idlewise.simulate(trace, "hitachi-microdrive-1gb", "timeout:1s", keep_response_times=True)[0]
    assert len(r["response_s"]) == 3
    assert r["response_s"].max() == pytest.approx(r["max_response_s"])
    assert r["response_s"].mean() == pytest.approx(r["mean_response_s"])
    assert "response_s" not in idlewise.simulate(trace, "hitachi-microdrive-1gb", "timeout:1s")[0]


def test_years_to_rated_cycles():
    day = 86400.0
    times = np.cumsum(np.tile([30.0, 90.0], 720))   # gaps of 30 s and 90 s alternating for a day
    trace = idlewise.Trace.from_arrays(times, np.full(len(times), 4096))
    # A cascade: wake-ups from low-power idle do not consume the microdrive's rated cycles (only
    # standby's do, per its catalog entry), so the two rates differ.
    r = idlewise.simulate(trace, "hitachi-microdrive-1gb", "timeout:low-power-idle=1s,standby=50s")[0]
    assert r["wakeups_per_day"] == pytest.approx(r["wakeups"] * day / r["makespan_s"])
    cycle_per_day = r["cycle_wakeups"] * day / r["makespan_s"]
    assert r["cycle_wakeups_per_day"] == pytest.approx(cycle_per_day)
    assert 0 < r["cycle_wakeups"] < r["wakeups"]
    assert r["years_to_rated_cycles"] == pytest.approx(300000 / cycle_per_day / 365.25)
