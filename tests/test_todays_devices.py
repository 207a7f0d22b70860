"""Today's devices and the policies their systems run (issue 11): NVMe APST as Linux programs it,
hd-idle's polling, ATA EPC timers — hand-computed replays on catalog devices."""

import numpy as np
import pytest

import idlewise


def every_second(n=100):
    return idlewise.Trace.from_arrays(np.arange(n, dtype=float), np.full(n, 4096))


def energy(trace, device, policy):
    rows = idlewise.simulate(trace, device, [policy], progress=False).to_dicts()
    return rows[0]  # the policy asked for; always-on and the oracle follow


def test_apst_on_the_pm981_by_hand():
    # Requests every second. PM981 under Linux's defaults: PS4 (2 + 8 ms round trip, within the
    # 15 ms primary tolerance) after 100 ms idle; each request waits for PS4's 8 ms exit.
    s = 80e-6 + 4096 / 3.2e9                                    # service: overhead + transfer
    gap = lambda g: 0.1 * 0.5 + 0.001 + (g - 0.1 - 0.002) * 0.005 + 0.004
    want = 100 * s * 6.0 + gap(1 - s) + 98 * gap(1 - 0.008 - s)
    row = energy(every_second(), "samsung-pm981-1tb", "apst")
    assert row["energy_j"] == pytest.approx(want, rel=1e-12)
    assert row["wakeups"] == 99
    # The original heuristic: PS3 after (1410 + 19) // 20 = 71 ms, PS4 500 ms later (after
    # PS3's 0.21 ms entry).
    legacy = lambda g: (0.071 * 0.5 + 0.000105 + 0.5 * 0.07 + 0.00014
                        + (g - 0.071 - 0.00021 - 0.5 - 0.002) * 0.005 + 0.004)
    want = 100 * s * 6.0 + legacy(1 - s) + 98 * legacy(1 - 0.008 - s)
    assert energy(every_second(), "samsung-pm981-1tb", "apst:primary_timeout_ms=0")["energy_j"] == pytest.approx(want, rel=1e-12)
    # A 5 ms latency limit rules PS4 out (exit 8 ms): PS3 after 100 ms, 1.2 ms to wake.
    only_ps3 = lambda g: 0.1 * 0.5 + 0.000105 + (g - 0.1 - 0.00021) * 0.07 + 0.0006
    want = 100 * s * 6.0 + only_ps3(1 - s) + 98 * only_ps3(1 - 0.0012 - s)
    assert energy(every_second(), "samsung-pm981-1tb", "apst:ps_max_latency_us=5000")["energy_j"] == pytest.approx(want, rel=1e-12)
    # 0 turns APST off: always-on's energy.
    assert (energy(every_second(), "samsung-pm981-1tb", "apst:ps_max_latency_us=0")["energy_j"]
            == pytest.approx(energy(every_second(), "samsung-pm981-1tb", "always-on")["energy_j"], rel=1e-12))


def test_apst_on_the_950_pro_by_hand():
    # Requests every 2 s on the Samsung 950 PRO. Linux's defaults: PS3 (0.5 + 5 ms) after 100 ms
    # idle; PS4 would follow 2 s later, after the next request, so each request waits PS3's 5 ms exit.
    trace = idlewise.Trace.from_arrays(np.arange(100, dtype=float) * 2, np.full(100, 4096))
    s = 83e-6 + 4096 / 2.5e9
    gap = lambda g: 0.1 * 0.5 + 0.00025 + (g - 0.1 - 0.0005) * 0.07 + 0.0025
    want = 100 * s * 5.7 + gap(2 - s) + 98 * gap(2 - 0.005 - s)
    row = energy(trace, "samsung-950-pro-512gb", "apst")
    assert row["energy_j"] == pytest.approx(want, rel=1e-12)
    assert row["max_response_s"] == pytest.approx(0.005 + s, rel=1e-9)
    # As the driver's author ran it in 2017 (the 50 × latency heuristic, 25 ms limit): PS3 after
    # 275 ms, PS4 1200 ms later; each request waits PS4's 22 ms exit.
    legacy = lambda g: (0.275 * 0.5 + 0.00025 + 1.2 * 0.07 + 0.00014
                        + (g - 0.275 - 0.0005 - 1.2 - 0.002) * 0.005 + 0.011)
    want = 100 * s * 5.7 + legacy(2 - s) + 98 * legacy(2 - 0.022 - s)
    row = energy(trace, "samsung-950-pro-512gb", "apst:primary_timeout_ms=0,ps_max_latency_us=25000")
    assert row["energy_j"] == pytest.approx(want, rel=1e-12)
    assert row["max_response_s"] == pytest.approx(0.022 + s, rel=1e-9)


def test_hd_idle_spins_down_later_than_its_idle_time():
    # Requests at 0 s and 200 s on the two-state microdrive. hd-idle -i 60 polls every 6 s: the
    # 6 s poll sees the first request's I/O, and the disk stops at the first poll more than 60 s
    # later, 72 s. So hd-idle:60s is a timeout of 72 s less the first request's service time.
    trace = idlewise.Trace.from_arrays([0.0, 200.0], [4096, 4096])
    service_s = energy(trace, "ibm-microdrive-340mb", "always-on")["max_response_s"]
    hd_idle = energy(trace, "ibm-microdrive-340mb", "hd-idle:60s")
    same = energy(trace, "ibm-microdrive-340mb", f"timeout:{72 - service_s!r}s")
    for key in ("energy_j", "mean_response_s", "wakeups"):
        assert hd_idle[key] == pytest.approx(same[key], rel=1e-12), key
    assert hd_idle["energy_j"] > energy(trace, "ibm-microdrive-340mb", "timeout:60s")["energy_j"]
    # A 1 s polling interval brings it to 61 s after the poll at 1 s.
    fast = energy(trace, "ibm-microdrive-340mb", "hd-idle:60s,interval=1s")
    assert fast["energy_j"] == pytest.approx(energy(trace, "ibm-microdrive-340mb", f"timeout:{62 - service_s!r}s")["energy_j"], rel=1e-12)
