"""Hand-computed scenarios: one per policy family, exact energies and response times."""

import math

import numpy as np
import pytest

import idlewise
from conftest import trace_of

# Microdrive (seed 000 Figures 1-2): P = 0.76 / 0.34 / 0.08 W for performance idle / low-power
# idle / standby; PI->LPI 0.16 s 0.15 J, LPI->PI 0.30 s 0.31 J, PI->SB 0.32 s 0.30 J,
# SB->PI 0.82 s 0.90 J, LPI->SB (assumed) 0.32 s 0.30 J.
P0, P_LPI, P_SB = 0.76, 0.34, 0.08


def two_requests(device, policy, gap_s, **kw):
    """Two 4 KiB reads; the idle gap between the first completion and the second arrival is gap_s."""
    service_s, service_j = device.service_cost(4096, False)
    r = idlewise.simulate(trace_of([0.0, service_s + gap_s]), device, policy, **kw)[0]
    return r, service_s, service_j


def test_cascade_timeout(microdrive):
    r, s, sj = two_requests(microdrive, "timeout:low-power-idle=0.5s,standby=5s", 10.0)
    # ready 0.5 s; PI->LPI 0.16 s; LPI until 5 s (4.34 s); LPI->SB 0.32 s; SB until 10 s (4.68 s); wake 0.82 s.
    expected = P0 * 0.5 + 0.15 + P_LPI * 4.34 + 0.30 + P_SB * 4.68 + 0.90 + 2 * sj
    assert r["energy_j"] == pytest.approx(expected)
    assert r["time_by_mode_s"] == pytest.approx({"performance-idle": 0.5, "low-power-idle": 4.34, "standby": 4.68})
    assert r["transitions"] == {"performance-idle->low-power-idle": 1, "low-power-idle->standby": 1, "standby->performance-idle": 1}
    assert r["max_response_s"] == pytest.approx(0.82 + s)
    assert r["wakeups"] == 1 and r["delayed_requests"] == 1
    assert r["policy"] == "timeout:low-power-idle=500ms,standby=5s"


def test_breakeven_uses_lower_envelope_thresholds(microdrive):
    gamma_lpi = 0.15 + 0.31 - P_LPI * 0.46
    gamma_sb = 0.30 + 0.90 - P_SB * 1.14
    t_lpi = gamma_lpi / (P0 - P_LPI)                  # 0.7229 s
    t_sb = (gamma_sb - gamma_lpi) / (P_LPI - P_SB)    # 3.0969 s
    r, s, sj = two_requests(microdrive, "breakeven", 10.0)
    expected = (P0 * t_lpi + 0.15 + P_LPI * (t_sb - t_lpi - 0.16) + 0.30 + P_SB * (10.0 - t_sb - 0.32) + 0.90 + 2 * sj)
    assert r["energy_j"] == pytest.approx(expected)
    assert r["time_by_mode_s"]["performance-idle"] == pytest.approx(t_lpi)


def test_stpm_equations_2_and_3(microdrive):
    # Knob 50, base 1.44 W: C_E(LPI) = 0.15 - 0.76*0.16 + 0.31 + 1.44*0.30 = 0.7704 J,
    # T_be = (0.30*50 + 0.7704*50) / (0.42*50) = 2.5486 s; standby: C_E = 2.1376 J, T_be = 4.3494 s.
    t_lpi = (0.30 * 50 + 0.7704 * 50) / (0.42 * 50)
    t_sb = (0.82 * 50 + 2.1376 * 50) / (0.68 * 50)
    r, s, sj = two_requests(microdrive, "stpm:knob=50", 10.0, base_power_w=1.44)
    assert r["policy"] == "stpm:knob=50,base=1.44W"
    assert r["time_by_mode_s"]["performance-idle"] == pytest.approx(t_lpi)
    assert r["time_by_mode_s"]["low-power-idle"] == pytest.approx(t_sb - t_lpi - 0.16)
    assert r["time_by_mode_s"]["standby"] == pytest.approx(10.0 - t_sb - 0.32)
    # Knob 100 is no power management; knob 0 ignores delay (equation 1 plus the base-power term).
    r100, _, _ = two_requests(microdrive, "stpm:knob=100", 10.0, base_power_w=1.44)
    assert r100["wakeups"] == 0
    r0, _, _ = two_requests(microdrive, "stpm:knob=0", 10.0, base_power_w=1.44)
    assert r0["time_by_mode_s"]["performance-idle"] == pytest.approx(0.7704 / 0.42)


def test_stpm_is_more_conservative_with_higher_base_power(microdrive):
    low, _, _ = two_requests(microdrive, "stpm:knob=50,base=0.5W", 10.0)
    high, _, _ = two_requests(microdrive, "stpm:knob=50,base=15W", 10.0)
    assert high["time_by_mode_s"]["performance-idle"] > low["time_by_mode_s"]["performance-idle"]


def test_oracle_picks_best_mode_and_prewakes(microdrive):
    r, s, sj = two_requests(microdrive, "oracle", 10.0)
    # Standby: 0.30 + 0.90 + 0.08*(10 - 1.14) = 1.9088 J beats LPI 0.46 + 0.34*9.54 and ready 7.6 J.
    assert r["energy_j"] == pytest.approx(0.30 + 0.90 + P_SB * (10 - 1.14) + 2 * sj)
    assert r["mean_response_s"] == pytest.approx(s)
    assert r["delayed_requests"] == 0
    short, _, _ = two_requests(microdrive, "oracle", 0.4)   # LPI round trip 0.46 s does not fit
    assert short["wakeups"] == 0


def test_predictive_shuts_down_at_once_and_prewakes(microdrive):
    service_s, sj = microdrive.service_cost(4096, False)
    be_sb = next(m["break_even_s"] for m in microdrive.modes if m["name"] == "standby")
    times = np.cumsum([0.0] + [service_s + 20.0] * 4)
    # a = 1: the prediction is the last observed gap. Gap 1 (prediction 0): watchdog to standby at
    # its break-even; the arrival wakes it and waits 0.82 s, which shortens gap 2 to 19.18 s.
    # Gap 2 (prediction 20 s): standby at once, pre-wake planned for 19.18 s = too late, woken on
    # arrival (delayed again); gap 3 is 19.18 s and predicted exactly: ready at the arrival.
    # Gap 4 is 20 s, predicted 19.18 s: ready 0.82 s early, idles in performance idle.
    exact = idlewise.simulate(trace_of(times), microdrive, "predictive:a=1")[0]
    assert exact["time_by_mode_s"]["performance-idle"] == pytest.approx(be_sb + 0.82)
    standby = (20 - be_sb - 0.32) + (19.18 - 0.32) + (19.18 - 0.32 - 0.82) + (19.18 - 0.82 - 0.32)
    assert exact["time_by_mode_s"]["standby"] == pytest.approx(standby)
    assert (exact["wakeups"], exact["delayed_requests"]) == (4, 2)
    # a = 0.5: predictions 10, 15, 17.5 s fall short; after each pre-wake the watchdog sends the
    # drive back to standby one break-even time later, and the arrival wakes it again.
    short = idlewise.simulate(trace_of(times), microdrive, "predictive")[0]
    assert short["time_by_mode_s"]["performance-idle"] == pytest.approx(4 * be_sb)
    assert (short["wakeups"], short["delayed_requests"]) == (7, 4)


def test_experts_first_gap_uses_the_uniform_average_of_the_grid(microdrive):
    # Uniform initial weights: tau = B/25 * sum(1.15^-i, i = 0..24), B = standby break-even.
    be_sb = next(m["break_even_s"] for m in microdrive.modes if m["name"] == "standby")
    tau = be_sb / 25 * sum(1.15 ** -i for i in range(25))
    r, s, sj = two_requests(microdrive, "experts", 10.0)
    assert r["time_by_mode_s"]["performance-idle"] == pytest.approx(tau)
    assert r["time_by_mode_s"]["standby"] == pytest.approx(10.0 - tau - 0.32)
    assert r["max_response_s"] == pytest.approx(0.82 + s)


def test_experts_moves_towards_immediate_spin_down_on_long_gaps(microdrive):
    service_s, _ = microdrive.service_cost(4096, False)
    times = np.cumsum([0.0] + [service_s + 60.0] * 300)
    r = idlewise.simulate(trace_of(times), microdrive, ["experts", "breakeven"])
    experts, breakeven = r
    assert experts["energy_j"] < breakeven["energy_j"]
    assert experts["energy_vs_oracle"] < 1.05


def test_randomized_is_deterministic_and_seed_matters(microdrive):
    times = np.cumsum(np.random.default_rng(1).exponential(3.0, 300))
    t = trace_of(times)
    a = idlewise.simulate(t, microdrive, ["randomized:seed=1", "randomized:seed=1", "randomized:seed=2"])
    assert a[0]["energy_j"] == a[1]["energy_j"] != a[2]["energy_j"]


def test_always_on_has_no_wakeups_and_least_response(microdrive):
    times = np.cumsum(np.random.default_rng(2).exponential(2.0, 500))
    r = idlewise.simulate(trace_of(times), microdrive, ["always-on", "timeout:1s", "breakeven", "experts"])
    assert r[0]["wakeups"] == 0 and r[0]["normalized_energy"] == 1.0
    assert all(x["mean_response_s"] >= r[0]["mean_response_s"] for x in r)
    assert all(x["normalized_mean_response"] >= 1.0 for x in r)
    assert math.isclose(r[0]["normalized_mean_response"], 1.0)


def test_closed_loop_replay_stretches_execution_by_the_wake_ups(microdrive, tmp_path, capsys):
    """Seed 002/000 replay: each request is issued its trace gap after the previous completes."""
    import json
    from idlewise.cli import main
    service_s, _ = microdrive.service_cost(4096, False)
    times = [0.0, 30.0, 60.0]
    on, sleepy = idlewise.simulate(trace_of(times), microdrive, ["always-on", "timeout:standby=2s"], replay="closed")
    # Two gaps of 30 s of thinking; under the timeout each request meets a drive in standby and
    # waits for its 0.82 s spin-up, so the run is 2 x 0.82 s longer.
    assert on["execution_time_s"] == pytest.approx(60.0 + 3 * service_s)
    assert sleepy["execution_time_s"] == pytest.approx(on["execution_time_s"] + 2 * 0.82)
    open_run = idlewise.simulate(trace_of(times), microdrive, "timeout:standby=2s")[0]
    assert open_run["execution_time_s"] == pytest.approx(60.0 + 0.82 + service_s)
    with pytest.raises(idlewise.IdlewiseError, match="'open', 'closed' or 'sync'"):
        idlewise.simulate(trace_of(times), microdrive, "always-on", replay="sideways")
    path = tmp_path / "t.csv"
    path.write_text("time_s,offset_bytes,size_bytes,op\n0,0,4096,R\n30,0,4096,R\n60,0,4096,R\n")
    assert main(["simulate", str(path), "--device", "hitachi-microdrive-1gb", "--policy", "timeout:standby=2s",
                 "--replay", "closed", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["execution_time_s"] == pytest.approx(sleepy["execution_time_s"])


def test_absurd_durations_get_short_labels_that_read_back():
    trace = idlewise.Trace.from_arrays([0.0, 10.0], [4096, 4096])
    specs = ["timeout:1e300s", "timeout:1e12s", "timeout:0.000001s", "hd-idle:1e-9s", "timeout:330min"]
    labels = [r["policy"] for r in idlewise.simulate(trace, "hitachi-travelstar-5k320", specs, progress=False)]
    assert labels == ["timeout:1e300s", "timeout:1e12s", "timeout:1us", "hd-idle:1ns", "timeout:330min"]
    # Each label is a spec that gives the same run.
    again = idlewise.simulate(trace, "hitachi-travelstar-5k320", labels, progress=False)
    assert [r["policy"] for r in again] == labels
