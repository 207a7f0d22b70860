"""Reproduction of seed 000's published numbers from catalog values alone."""

import numpy as np
import pytest

import idlewise
from pathlib import Path

from conftest import trace_of

DOCS = Path(__file__).resolve().parent.parent / "docs" / "seed000"


def figure3_read(from_disk: bool, size_bytes: float, mode: str) -> dict:
    """One read in Figure 3's set-up, the one convention of docs/seed000.md: the device asked
    starts in ``mode``, the other rests in its low-power mode (card in PSM, disk in standby)."""
    from idlewise.system import AppTrace, run_cache

    trace = AppTrace(np.array([0.0]), np.array(["page"]), np.array([float(size_bytes)]), np.array([False]),
                     np.array([from_disk]), name="figure3")
    disk_mode, card_mode = (mode, "psm") if from_disk else ("standby", mode)
    return run_cache(trace, cache="static", storage_policy="always-on", network_policy="always-on",
                     storage_initial_mode=disk_mode, network_initial_mode=card_mode)


def test_32kb_read_from_standby_is_the_spin_up_then_the_read(microdrive):
    # Seed 000 section 2.2: "Reading a 32 KB file from the microdrive takes 820 ms and 2.3 Joules
    # if the drive is in standby mode". The model spins up (Figure 2: 0.82 s, 0.9 J) and then
    # reads the file (metadata blocks, then data); the seed's figure is the spin-up's own time.
    # Predicted, and 11 % / 18 % over: pinned, so that a change shows.
    r = figure3_read(True, 32 * 1024, "standby")
    spun = figure3_read(True, 32 * 1024, "performance-idle")
    assert r["mean_response_s"] == pytest.approx(0.820 + spun["mean_response_s"])
    assert r["mean_response_s"] == pytest.approx(0.91, abs=0.005)
    assert r["energy_j"] == pytest.approx(2.72, abs=0.02)
    # Fitted (a regression guard): the CPU's draw during I/O gives the spinning read its 0.32 J.
    assert spun["energy_j"] == pytest.approx(0.32, abs=0.005)
    assert spun["io_cpu_energy_j"] == pytest.approx(0.78 * spun["mean_response_s"])


def test_figure_1_2_values_in_catalog(microdrive):
    powers = {m["name"]: m["power_w"] for m in microdrive.modes}
    assert powers == {"performance-idle": 0.760, "low-power-idle": 0.340, "standby": 0.080}
    # Section 2.1: without power management the two devices draw 2.17 W together.
    cisco = {m["name"]: m["power_w"] for m in idlewise.load_device("cisco-350").modes}
    assert powers["performance-idle"] + cisco["cam"] == pytest.approx(2.17)
    assert microdrive.route("standby", "performance-idle") == pytest.approx((0.820, 0.900))
    assert microdrive.route("performance-idle", "low-power-idle") == pytest.approx((0.160, 0.150))


def test_figure_7_depends_on_the_static_baseline_the_seed_leaves_open():
    """The seed's static strategy uses the microdrive's own ABLE manager, whose timers it does not
    give. Across plausible readings the adaptive cache's response gain on web runs from -41 % to
    +78 %: the headline is a function of the baseline (issue 31). Energy falls against every
    baseline that spins the disk down."""
    from idlewise.experiments.seed000 import static_baselines

    rows = static_baselines([str(DOCS / "web.csv")])
    changes = {r["storage_policy"]: r for r in rows}
    assert len(rows) == 12
    assert changes["timeout:standby=2s"]["response_change"] == pytest.approx(-0.41, abs=0.02)
    assert changes["always-on"]["response_change"] == pytest.approx(0.78, abs=0.03)
    assert all(r["energy_change"] < 0 for r in rows)
    # The adaptive run is the same in every row.
    assert len({r["adaptive_energy_j"] for r in rows}) == 1


def test_ghost_hints_are_strictly_better_on_dense_bursts_and_never_on_sparse_ones():
    """Where hints give a point faster *and* cheaper than the same knob without them: bursts of
    cached reads on a sleeping disk, dense enough (<= 0.5 s apart) that the disk, once woken by the
    hints, serves the rest locally; with reads 2 s apart only when they are large (64 KB: a fetch
    keeps the card and the CPU busy longer than 2 s of spinning costs) and the knob high."""
    from idlewise.experiments.seed000 import ghost_hint_conditions

    rows = ghost_hint_conditions()
    dense = [r for r in rows if r["think_s"] <= 0.5 and r["reads"] >= 40 and r["knob"] >= 90]
    assert dense and all(r["dominates"] and r["hint_spin_ups"] >= 1 for r in dense)
    sparse = [r for r in rows if r["think_s"] == 2.0]
    assert not any(r["dominates"] for r in sparse if r["size_bytes"] <= 16384)
    assert {(r["size_bytes"], r["knob"]) for r in sparse if r["dominates"]} == {(65536, 90), (65536, 99)}
