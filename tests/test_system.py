"""Seed 000's system from Python and the CLI: workloads, the cache command, experiments, bad input."""

import json

import numpy as np
import pytest

import idlewise
from conftest import NASA
from idlewise import IdlewiseError, TraceError
from idlewise.cli import main
from idlewise.system import AppTrace, mail_workload, read_app_trace, run_cache, web_workload, write_app_trace

CACHE_KEYS = {"mean_response_s", "energy_j", "storage_energy_j", "network_energy_j", "storage_reads", "network_reads",
              "ghost_hints", "spin_ups", "writes_pending_at_end", "energy_lower_bound_j"}


def test_mail_workload_is_a_deterministic_morning_of_mail():
    a, b = mail_workload(seed=3), mail_workload(seed=3)
    assert np.array_equal(a.size_bytes, b.size_bytes) and np.array_equal(a.time_s, b.time_s)
    reads = ~a.is_write
    assert reads.sum() == 41 and a.cached[reads].all() and a.is_write.sum() == 5
    assert a.time_s[-1] == pytest.approx(900.0)
    assert not np.array_equal(a.size_bytes, mail_workload(seed=4).size_bytes)


def test_web_workload_from_the_nasa_log():
    w = web_workload(NASA, seed=1)
    assert w.notes["host"] == "130.110.74.81" and w.notes["distinct_objects"] == 82
    objects = np.unique(w.object)
    cached = np.unique(w.object[w.cached])
    assert len(cached) == 41 and w.time_s[0] == 0.0 and w.time_s[-1] < 1200.0
    assert not w.is_write.any()
    other = web_workload(NASA, seed=2)
    assert set(np.unique(other.object[other.cached])) != set(cached)
    assert len(objects) == 82


def test_app_trace_round_trip(tmp_path):
    w = mail_workload(seed=1)
    write_app_trace(w, tmp_path / "m.csv")
    back = read_app_trace(tmp_path / "m.csv")
    assert np.array_equal(back.object, w.object) and np.allclose(back.time_s, w.time_s)
    assert np.array_equal(back.is_write, w.is_write) and np.array_equal(back.cached, w.cached)


def test_cache_cli_json_keys_and_defaults(tmp_path, capsys):
    path = str(tmp_path / "mail.csv")
    assert main(["workload", "mail", "--seed", "1", "--out", path]) == 0
    capsys.readouterr()
    assert main(["cache", path, "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert CACHE_KEYS <= set(r)
    assert (r["storage"], r["network"], r["knob"]) == ("hitachi-microdrive-1gb", "cisco-350", 50.0)
    assert r["storage_reads"] + r["network_reads"] + r["uploads"] == 46
    assert r["energy_lower_bound_j"] <= r["energy_j"]
    assert main(["cache", path, "--cache", "static", "--no-ghost-hints", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["network_reads"] == 0 and s["storage_reads"] == 41 and s["ghost_hints"] == 0


def test_adaptive_beats_static_on_both_workloads():
    for trace in (mail_workload(seed=1), web_workload(NASA, seed=1)):
        static = run_cache(trace, cache="static")
        adaptive = run_cache(trace, cache="adaptive", knob=50)
        assert adaptive["mean_response_s"] < static["mean_response_s"]
        assert adaptive["energy_j"] < static["energy_j"]


def test_knob_trades_energy_for_response_time():
    trace = web_workload(NASA, seed=1, cached_fraction=1.0)
    low, high = run_cache(trace, knob=0), run_cache(trace, knob=100)
    assert high["mean_response_s"] < low["mean_response_s"] and high["energy_j"] > low["energy_j"]


def test_experiment_cli_draws_plots(tmp_path, capsys):
    path = str(tmp_path / "mail.csv")
    write_app_trace(mail_workload(seed=2), path)
    for name in ("static-vs-adaptive", "knob", "ghost-hints"):
        plot = tmp_path / f"{name}.png"
        assert main(["experiment", name, "--workload", path, "--plot", str(plot), "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert rows and plot.stat().st_size > 10_000


@pytest.mark.parametrize("row, needle", [
    ("0,a,100,X,1", "line 2, field 'op': expected 'R' \\(read\\), 'W' \\(send\\), 'D'"),
    ("0,a,-5,R,1", "line 2, field 'size_bytes': expected a non-negative size, got -5.0$"),  # (not np.float64(-5.0))
    ("0,a,5,R,yes", "line 2, field 'cached'"),
])
def test_bad_application_traces(tmp_path, row, needle):
    path = tmp_path / "bad.csv"
    path.write_text("time_s,object,size_bytes,op,cached\n" + row + "\n")
    with pytest.raises(TraceError, match=needle):
        read_app_trace(path)


def test_an_application_trace_s_times_are_held_to_the_engine_s_range(tmp_path):
    # As a block trace's: at 1e18 s a double resolves 128 s, and the run was 1e18 s of energy.
    path = tmp_path / "far.csv"
    path.write_text("time_s,object,size_bytes,op,cached\n0,a,100,R,1\n1e18,a,5,R,0\n")
    with pytest.raises(TraceError, match=r"far.csv: line 3, field 'time_s': time 1e18 s lies beyond .*272 years"):
        run_cache(read_app_trace(path))
    # An engine's refusal names the record of a workload made in Python (it was a tuple's repr).
    with pytest.raises(TraceError, match=r"^workload: record 0, field '\w+': .*never cached or written"):
        run_cache(AppTrace(np.array([0.0]), np.array(["x"]), np.array([10.0]), np.array([False]), np.array([False])), network=None)


def test_delete_and_rename_are_deferred(tmp_path):
    path = tmp_path / "ops.csv"
    path.write_text("time_s,object,size_bytes,op,cached\n0,a,4096,R,1\n1,a,0,N,0\n2,a,0,D,0\n")
    r = run_cache(read_app_trace(path), storage_initial_mode="standby")
    assert r["requests"] == 3 and r["writes_queued"] == 2 and r["writes_pending_at_end"] == 2


def test_never_written_read_without_network_and_bad_knob():
    trace = AppTrace(np.array([0.0]), np.array(["x"]), np.array([10.0]), np.array([False]), np.array([False]))
    with pytest.raises(IdlewiseError, match="never cached or written"):
        run_cache(trace, network=None)
    with pytest.raises(IdlewiseError, match="knob"):
        run_cache(trace, knob=101)


def test_device_without_a_serving_mode_is_refused(tmp_path):
    path = tmp_path / "noserve.toml"
    path.write_text('name="x"\nkind="disk"\n[[modes]]\nname="a"\npower_w=1\n[service]\noverhead_s=0\n'
                    'read_bandwidth_bytes_per_s=1\nwrite_bandwidth_bytes_per_s=1\nactive_power_w=1\n')
    with pytest.raises(IdlewiseError, match="no ready mode"):
        run_cache(mail_workload(seed=1), storage=str(path))


def test_power_manager_api_for_a_python_application_model():
    from idlewise.system import System

    system = System(base_power_w=1.44)
    system.register_device("disk", "hitachi-microdrive-1gb", "stpm:knob=50", initial_mode="standby")
    system.register_device("wifi", "cisco-350", "psm")
    assert system.query_num_modes("disk") == 3
    assert system.query_mode_info("disk", 2) == {"name": "standby", "power_w": 0.08, "serves": False}
    assert system.query_transition_cost("disk", "standby", "performance-idle") == pytest.approx((0.82, 0.9))
    assert system.query_current_mode("disk", 0.0) == {"state": "mode", "mode": "standby"}
    # A model that reads 32 KB from whichever device is cheaper now: the network (the disk sleeps).
    disk_wake_s, _ = system.query_transition_cost("disk", "standby", "performance-idle")
    finish = system.request("wifi", 0.0, 32768) if disk_wake_s > 0.3 else system.request("disk", 0.0, 32768)
    # A TCP fetch over seed 000's link in CAM (the card starts in CAM): about 254 ms.
    assert finish == pytest.approx(idlewise.load_device("cisco-350").service_cost(32768, False)[0])
    assert 0.2 < finish < 0.3
    system.register_callback("disk", "performance-idle")
    ready = system.wake("disk", 1.0)
    assert ready == pytest.approx(1.82) and system.notify("disk", "performance-idle")
    assert system.query_current_mode("disk", 2.0)["mode"] == "performance-idle"
    disk = system.deregister_device("disk", 10.0)
    assert disk["wakeups"] == 1 and disk["makespan_s"] == pytest.approx(10.0)
    assert sum(disk["time_by_mode_s"].values()) + disk["transition_time_s"] == pytest.approx(10.0)
    with pytest.raises(IdlewiseError, match="no registered device named 'disk'"):
        system.query_num_modes("disk")
    with pytest.raises(IdlewiseError, match="already registered"):
        system.register_device("wifi", "cisco-350", "psm")
