"""Seed 002 Table 1 from the catalog: the per-page swap cost of each device and protocol."""

import json

import numpy as np

import pytest

from idlewise import simulate
from idlewise.cli import main
from idlewise.experiments.seed002 import SEED_TABLE1, swap_cost, swap_reshaping
from idlewise.traces.synthetic import matrix_product

# Rows whose printed power is not their printed energy / time (the paper's own rounding or typo):
# HD write-back 4.061 mJ / 6.4 ms = 635 mW (printed 637), Cisco NBD write-back 10.319 / 14.0 =
# 737 mW (735), Compaq NBD read-only 5.626 / 8.0 = 703 mW (578). We keep time and energy exact.
INCONSISTENT_POWER = {("hd", "local", "write_back"), ("nic-cisco", "nbd", "write_back"), ("nic-compaq", "nbd", "read_only")}


def test_table_1_comes_out_of_the_catalog_exactly():
    rows = swap_cost()
    assert [(r["device"], r["protocol"]) for r in rows] == list(SEED_TABLE1)
    for r in rows:
        for kind, (ms, mj, mw) in zip(("read_only", "write_back"), SEED_TABLE1[(r["device"], r["protocol"])]):
            assert round(r[f"{kind}_time_s"] * 1e3, 1) == ms, (r["catalog"], kind)
            assert round(r[f"{kind}_energy_j"] * 1e3, 3) == mj, (r["catalog"], kind)
            implied = mj / ms * 1e3
            assert r[f"{kind}_power_w"] * 1e3 == pytest.approx(implied, abs=0.5)
            if (r["device"], r["protocol"], kind) not in INCONSISTENT_POWER:
                assert round(implied) == mw, (r["catalog"], kind)
    # Write-back about doubles a read-only swap; CF is more than 10x cheaper per page than the rest.
    for r in rows:
        assert 1.4 < r["write_back_time_s"] / r["read_only_time_s"] < 2.3
    cf = rows[0]["read_only_energy_j"]
    assert all(r["read_only_energy_j"] > 9 * cf for r in rows[1:])


def test_swap_cost_command_json(capsys):
    assert main(["experiment", "swap-cost", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 6
    for key in ("device", "protocol", "read_only_time_s", "read_only_energy_j", "write_back_time_s", "write_back_energy_j"):
        assert key in rows[0]
    assert {r["protocol"] for r in rows} == {"local", "nbd", "nfs"}
    assert main(["experiment", "swap-cost"]) == 0
    assert "Table 1" in capsys.readouterr().out


# --- Table 3: the matrix-product case study -------------------------------------------------


def test_the_case_study_generator_counts_the_seeds_pages():
    for reshaped in (False, True):
        w = matrix_product(reshaped)
        t = w.trace
        # 104 page requests, 13 faults of 8 pages; 96 pages of data; all reads of one page.
        assert len(t) == 104 and w.faults == 13 and w.pages_per_fault == 8 and w.data_pages == 96
        assert set(t.size_bytes) == {4096} and not t.is_write.any()
        assert len(set(t.offset_bytes)) == 104  # each slot once
        times, counts = np.unique(t.time_s, return_counts=True)
        assert (counts % 8 == 0).all()
        assert w.tail_s + t.time_s[-1] == pytest.approx(25.0)
    # Original: all of B (and the first pages of A and C) at the start: 6 faults; then a new
    # cluster of A and of C every 8 pages of A (32 rows, 6.25 s), the last C cluster alone.
    original = matrix_product(False).trace
    times, counts = np.unique(original.time_s, return_counts=True)
    assert times.tolist() == [0.0, 3.125, 9.375, 15.625, 21.875]
    assert counts.tolist() == [48, 16, 16, 16, 8]
    # Reshaped: one burst.
    assert set(matrix_product(True).trace.time_s) == {0.0}
    # An aligned start needs 12 clusters (96 pages): the seed's 104 is an unaligned one.
    assert len(matrix_product(first_slot=0).trace) == 96


def test_the_hd_without_dpm_is_table_3_exactly():
    # 104 read-only swaps of 3.0 ms / 1.911 mJ and 25 s of computation at 0.6 W wait power:
    # 25.312 s and 15.199 J, as the seed's row computed from its characterisation.
    w = matrix_product(False)
    r = simulate(w.trace, "ibm-microdrive-340mb", "always-on", replay="closed", tail_s=w.tail_s)[0]
    assert r["execution_time_s"] == pytest.approx(25.312, abs=5e-4)
    assert r["energy_j"] == pytest.approx(15.199, abs=5e-4)


def test_a_fault_during_a_wake_up_stretches_execution_by_the_wake_up():
    # Sleep after 2 s: the original program faults 4 times after its first burst, each finding
    # the disk asleep (gaps of 3.1 s or more); each wake-up (4.5 s at its mean) is added to the run.
    w = matrix_product(False)
    on = simulate(w.trace, "ibm-microdrive-340mb", "always-on", replay="closed", tail_s=w.tail_s)[0]
    sleep = simulate(w.trace, "ibm-microdrive-340mb", "timeout:2s", replay="closed", tail_s=w.tail_s)[0]
    assert sleep["wakeups"] == 4
    assert sleep["execution_time_s"] - on["execution_time_s"] == pytest.approx(4 * 4.5)


@pytest.fixture(scope="module")
def table3():
    return {(r["device"], r["dpm"]): r for r in swap_reshaping(draws=50)}


def test_table_3_directions(table3):
    none, sleep = table3[("hd", "none")], table3[("hd", "sleep")]
    # HD DPM is counterproductive without reshaping, in time and energy; reshaping makes it pay.
    assert sleep["energy_j_original"] > none["energy_j_original"]
    assert sleep["exec_time_s_original"] > none["exec_time_s_original"]
    assert sleep["energy_j_reshaped"] < 0.5 * none["energy_j_reshaped"]
    # Reshaping lowers energy in every DPM row, and never lengthens a run.
    for (device, dpm), r in table3.items():
        if dpm != "none":
            assert r["energy_j_reshaped"] < r["energy_j_original"], (device, dpm)
            assert r["exec_time_s_reshaped"] <= r["exec_time_s_original"] + 1e-9, (device, dpm)
    # MAC-level doze saves 80 % of Compaq's swapping energy (the seed: > 80 %); off saves more.
    # Cisco's doze saves only 45-50 % (the seed: > 50 %): its Fast PSP hold (fitted to the seed's
    # doze energy, 7.30 J) keeps the card in CAM after every burst, and our no-DPM row is 12 % below
    # the seed's. A prediction that does not reproduce, pinned.
    base = table3[("nic-compaq", "none")]["energy_j_original"]
    assert table3[("nic-compaq", "doze")]["energy_j_original"] < 0.2 * base
    cisco_saving = 1 - table3[("nic-cisco", "doze")]["energy_j_original"] / table3[("nic-cisco", "none")]["energy_j_original"]
    assert 0.45 < cisco_saving < 0.5
    for card in ("nic-cisco", "nic-compaq"):
        assert table3[(card, "off")]["energy_j_original"] < table3[(card, "doze")]["energy_j_original"]
    # Even without DPM, the HD costs more than either card; with DPM and reshaping, network
    # swapping is about ten times cheaper than the local HD, for a few per cent more time.
    assert none["energy_j_original"] > max(table3[(c, "none")]["energy_j_original"] for c in ("nic-cisco", "nic-compaq"))
    best = min(table3[(c, "off")]["energy_j_reshaped"] for c in ("nic-cisco", "nic-compaq"))
    assert none["energy_j_original"] / best > 10
    assert table3[("nic-compaq", "off")]["exec_time_s_reshaped"] / none["exec_time_s_original"] < 1.05


def test_cisco_fast_psp_fitted_on_the_original_row_predicts_the_reshaped_one(table3):
    """The card's switch to CAM under traffic (Fast PSP): its hold is fitted to Table 3's Cisco
    doze original energy (a regression guard); the reshaped row is a prediction: one burst, one
    hold, where the original program's clusters each paid one."""
    doze = table3[("nic-cisco", "doze")]
    assert doze["energy_j_original"] == pytest.approx(7.303, rel=0.01)  # fitted
    assert doze["energy_j_reshaped"] == pytest.approx(4.21, rel=0.02)  # predicted (seed 4.692)
    assert doze["energy_ratio"] == pytest.approx(0.577, abs=0.01)  # predicted (seed 0.64; 0.99 without the switch)
    # The OS's switch-off is not the firmware's: the off rows are unchanged by it.
    off = table3[("nic-cisco", "off")]
    assert off["energy_j_original"] == pytest.approx(1.547, rel=1e-3) and off["energy_j_reshaped"] == pytest.approx(0.670, rel=1e-3)


def test_the_random_wake_up_spreads_the_hd_row(table3):
    sleep = table3[("hd", "sleep")]
    # 4 wake-ups of s.d. 1.98 s: the run's s.d. is about 2 x 1.98 = 3.96 s (50 draws: within 30 %).
    assert sleep["exec_time_s_original_std"] == pytest.approx(2 * 1.98, rel=0.3)
    assert sleep["draws"] == 50 and table3[("cf", "none")]["draws"] == 1
    assert table3[("cf", "none")]["exec_time_s_original_std"] == 0.0


def test_swap_reshaping_command_json(capsys, tmp_path):
    assert main(["experiment", "swap-reshaping", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["device"], r["dpm"]) for r in rows][:4] == [("ram", "none"), ("cf", "none"), ("hd", "none"), ("hd", "sleep")]
    for key in ("device", "dpm", "exec_time_s_original", "exec_time_s_reshaped", "energy_j_original", "energy_j_reshaped"):
        assert all(key in r for r in rows)
    assert rows[0]["energy_j_original"] is None
    plot = tmp_path / "t3.png"
    assert main(["experiment", "swap-reshaping", "--plot", str(plot)]) == 0
    assert "Table 3" in capsys.readouterr().out and plot.stat().st_size > 10_000
