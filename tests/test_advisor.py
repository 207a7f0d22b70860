"""idlewise advise (issue 11): the hdparm -S encoding, the advice's arithmetic on a hand-computed
workload, the limits, the verdicts, NVMe APST advice, and the command line."""

import json
from pathlib import Path

import numpy as np
import pytest

import idlewise
from idlewise import IdlewiseError
from idlewise.advisor import Limits, advise, hd_idle_args, hdparm_standby_timeout_s, hdparm_standby_value
from idlewise.cli import main
from idlewise.results import json_ready

from conftest import TOY_DISK

YEAR_S = 365.25 * 86400


@pytest.fixture
def toy(tmp_path):
    path = tmp_path / "toy.toml"
    path.write_text(TOY_DISK)
    return idlewise.load_device(str(path))


def toy_trace():
    # Requests at 0, 1000 and 1100 s; the recording ends at 4000 s.
    return idlewise.Trace.from_arrays([0.0, 1000.0, 1100.0], [1, 1, 1], end_time_s=4000.0)


# --- hdparm -S --------------------------------------------------------------------------------

@pytest.mark.parametrize("value, seconds", [
    (0, None), (1, 5.0), (12, 60.0), (240, 1200.0), (241, 1800.0), (242, 3600.0), (251, 19800.0),
    (252, 1260.0), (253, None), (255, 1275.0),
])
def test_hdparm_decoding_every_branch(value, seconds):
    assert hdparm_standby_timeout_s(value) == seconds


@pytest.mark.parametrize("value", [254, 256, -1, 1.5])
def test_hdparm_values_without_a_timeout(value):
    with pytest.raises(IdlewiseError):
        hdparm_standby_timeout_s(value)


@pytest.mark.parametrize("asked, value, applied", [
    (1, 1, 5.0), (5, 1, 5.0), (5.001, 2, 10.0), (60, 12, 60.0), (61, 13, 65.0), (1200, 240, 1200.0),
    (1200.5, 252, 1260.0), (1260, 252, 1260.0), (1261, 255, 1275.0), (1276, 241, 1800.0), (1800.1, 242, 3600.0),
    (19800, 251, 19800.0),
])
def test_hdparm_encoding_rounds_up_to_the_next_settable_timeout(asked, value, applied):
    assert hdparm_standby_value(asked) == (value, applied)


def test_hdparm_encoding_inverts_decoding():
    for value in (*range(1, 253), 255):
        assert hdparm_standby_value(hdparm_standby_timeout_s(value)) == (value, hdparm_standby_timeout_s(value))


@pytest.mark.parametrize("asked", [0, -5, 19801, float("nan"), float("inf")])
def test_hdparm_encoding_refuses_what_it_cannot_set(asked):
    with pytest.raises(IdlewiseError):
        hdparm_standby_value(asked)


def test_hd_idle_arguments():
    assert hd_idle_args("sdb", 600) == "-i 0 -a sdb -i 600"
    assert hd_idle_args("sdb", 12.5) == "-i 0 -a sdb -i 13"


# --- the advice on a hand-computed workload ---------------------------------------------------

def test_advice_by_hand(toy):
    # timeout 60 s: [0,1010) 60 s ready 600 J + stop 10 J + 939 s standby 939 J + start 100 J
    # (the request at 1000 s waits 10 s); [1010,1110) 60 s ready + stop + 29 s standby + start
    # (the request at 1100 waits 10 s); the tail of 2,900 s: 600 + 10 + 2,839 J.
    e60 = (600 + 10 + 939 + 100) + (600 + 10 + 29 + 100) + (600 + 10 + 2839)
    # timeout 120 s: the 90 s gap stays ready (900 J) and its request does not wait.
    e120 = (1200 + 10 + 879 + 100) + 900 + (1200 + 10 + 2779)
    always_on = 10.0 * 4000
    advice = advise(toy_trace(), toy, limits=Limits(lifetime_years=0.1), disk="sdb", timeouts_s=(60, 120), progress=False)
    rows = {r["policy"]: r for r in advice["candidates"]}
    assert rows["timeout:1min"]["energy_j"] == pytest.approx(e60, rel=1e-9)
    assert rows["timeout:2min"]["energy_j"] == pytest.approx(e120, rel=1e-9)
    assert advice["recorded_s"] == 4000.0 and advice["replayed_s"] == pytest.approx(4000.0, rel=1e-9)
    # 4,000 s is shorter than a day: the only warning says the year is that hour repeated.
    assert advice["warnings"] == ["the recording covers 66.7 min; every yearly figure repeats it for a year. Record at "
                                  "least a day, a week to catch weekly jobs (`idlewise record`)"]
    per_year = YEAR_S / 4000
    assert advice["always_on_kwh_per_year"] == pytest.approx(always_on * per_year / 3.6e6, rel=1e-9)
    assert advice["policy"] == "timeout:1min"
    assert advice["recommended_timeout_s"] == 60.0 and advice["hdparm_S"] == 12
    assert advice["hd_idle_args"] == "-i 0 -a sdb -i 60"
    assert advice["commands"][0]["command"] == "hdparm -S 12 /dev/sdb"
    assert advice["kwh_saved_per_year"] == pytest.approx((always_on - e60) * per_year / 3.6e6, rel=1e-9)
    assert advice["money_saved_per_year"] == pytest.approx(0.30 * advice["kwh_saved_per_year"], rel=1e-12)
    assert advice["wakeups_per_day"] == pytest.approx(2 * 86400 / 4000, rel=1e-9)
    assert advice["delayed_requests_per_hour"] == pytest.approx(2 * 3600 / 4000, rel=1e-9)
    assert advice["mean_added_delay_s"] == pytest.approx(10.0, rel=1e-9)
    assert advice["cycle_budgets_per_day"] == {"start/stop": pytest.approx(3650 / (0.1 * 365.25), rel=1e-12)}
    # hd-idle at the same idle time polls every 6 s, so its disk stops later and saves less.
    assert advice["hd_idle"]["kwh_saved_per_year"] < advice["kwh_saved_per_year"]


def test_limits_pick_a_longer_timeout_or_none(toy):
    # 43.2 wake-ups a day at 60 s, 21.6 at 120 s.
    advice = advise(toy_trace(), toy, limits=Limits(lifetime_years=0.1, max_wakeups_per_day=30), timeouts_s=(60, 120),
                    progress=False)
    assert advice["recommended_timeout_s"] == 120.0 and advice["hdparm_S"] == 24
    assert advice["candidates"][0]["breaks"] == ["43.2 wake-ups a day > 30"]
    # The rated cycles over 5 years allow 2 wake-ups a day: neither timeout.
    advice = advise(toy_trace(), toy, timeouts_s=(60, 120), progress=False)
    assert not advice["advised"] and advice["recommended_timeout_s"] is None and advice["hdparm_S"] is None
    assert "every setting that saves energy breaks a limit" in advice["verdict"]
    # Not advised: the commands that keep the disk ready, naming it, in the JSON as in the text.
    assert advice["kwh_saved_per_year"] == 0.0 and advice["commands"][0]["command"] == "hdparm -S 0 /dev/DISK"
    # Delayed requests: 1.8 an hour at 60 s, 0.9 at 120 s.
    advice = advise(toy_trace(), toy, limits=Limits(lifetime_years=0.1, max_delayed_per_hour=1.0), timeouts_s=(60, 120),
                    progress=False)
    assert advice["recommended_timeout_s"] == 120.0
    # Added delay: 10 s each; a 5 s bound rules both out.
    advice = advise(toy_trace(), toy, limits=Limits(lifetime_years=0.1, max_added_delay_s=5.0), timeouts_s=(60, 120),
                    progress=False)
    assert not advice["advised"]


def test_the_load_unload_rating_counts_apart_from_start_stop(tmp_path):
    # The toy disk also rated for 1,000 head loads (out of standby): over 0.1 years that allows
    # 27.4 a day, so 60 s (43.2 a day) breaks it though its start/stops (budget 99.9) do not.
    path = tmp_path / "toy.toml"
    path.write_text(TOY_DISK + 'load_unload_cycles = 1000\nload_unload_modes = ["standby"]\n')
    advice = advise(toy_trace(), idlewise.load_device(str(path)), limits=Limits(lifetime_years=0.1), timeouts_s=(60, 120),
                    progress=False)
    assert advice["cycle_budgets_per_day"] == {"start/stop": pytest.approx(3650 / 36.525), "load/unload": pytest.approx(1000 / 36.525)}
    assert advice["candidates"][0]["breaks"] == ["43.2 load/unload cycles a day > 27.4 (1,000 rated over 0.1 years)"]
    assert advice["recommended_timeout_s"] == 120.0
    assert advice["load_unload_wakeups_per_day"] == pytest.approx(21.6) == advice["cycle_wakeups_per_day"]
    assert advice["years_to_rated_cycles"] == pytest.approx(1000 / 21.6 / 365.25, rel=1e-9)
    assert advice["rated_load_unload_cycles"] == 1000 and advice["rated_start_stop_cycles"] == 3650


def test_spinning_down_is_not_advised_when_it_saves_nothing_or_too_little(toy):
    busy = idlewise.Trace.from_arrays(np.arange(0.0, 600.0, 5.0), np.ones(120))
    advice = advise(busy, toy, timeouts_s=(60, 120), progress=False)
    assert not advice["advised"]
    assert "no setting tried uses less energy" in advice["verdict"]
    advice = advise(toy_trace(), toy, limits=Limits(lifetime_years=0.1, min_saving_fraction=0.9), timeouts_s=(60, 120),
                    progress=False)
    assert not advice["advised"] and "saves only" in advice["verdict"]
    # Requests all at one time hold no idle period: said so, not that every period is too short.
    for times in ([5.0], [5.0, 5.0, 5.0]):
        advice = advise(idlewise.Trace.from_arrays(times, np.ones(len(times))), toy, timeouts_s=(60,), progress=False)
        assert not advice["advised"] and "holds no idle period to weigh" in advice["verdict"], times
    # A recording idle after its one request has an idle period to weigh.
    advice = advise(idlewise.Trace.from_arrays([0.0], [1], end_time_s=4000.0), toy, timeouts_s=(60,), progress=False)
    assert "no idle period" not in advice["verdict"]


def test_advice_refuses_a_trace_of_several_devices(toy):
    trace = idlewise.Trace.from_arrays([0.0, 1.0], [1, 1], stream=[0, 1])
    with pytest.raises(IdlewiseError, match="holds 2 devices .*advise on one"):
        advise(trace, toy, progress=False)


def test_nvme_advice_names_the_latency_bound():
    # Requests every second on the PM981: PS4's 8 ms exit is the only delay under APST.
    trace = idlewise.Trace.from_arrays(np.arange(100, dtype=float), np.full(100, 4096))
    advice = advise(trace, "samsung-pm981-1tb", disk="nvme0n1", progress=False)
    tried = [r["ps_max_latency_us"] for r in advice["candidates"]]
    assert tried == [1410, 5500, 10000, 25000, 100000]  # PS3's and PS4's entry + exit, and Linux's values
    assert advice["ps_max_latency_us"] == 10000  # the smallest bound that allows PS4
    assert advice["commands"][0] == {"what": "on the kernel command line", "command": "nvme_core.default_ps_max_latency_us=10000"}
    assert "/sys/class/nvme/nvme0/power/pm_qos_latency_tolerance_us" in advice["commands"][1]["command"]
    assert advice["hdparm_S"] is None and advice["recommended_timeout_s"] is None
    # A 5 ms bound on the added delay keeps PS4 out: PS3 (1.2 ms exit) only.
    advice = advise(trace, "samsung-pm981-1tb", limits=Limits(max_added_delay_s=0.005), progress=False)
    assert advice["ps_max_latency_us"] == 1410
    assert advice["mean_added_delay_s"] == pytest.approx(0.0012, rel=1e-6)


def test_the_advice_plot_names_a_candidate_by_its_timeout_or_latency_bound():
    from idlewise.advisor import _short_label

    assert [_short_label({"policy": f"apst:ps_max_latency_us={b}"}) for b in (1410, 100000)] == ["1410 µs", "100000 µs"]
    assert _short_label({"policy": "timeout:300s", "timeout_s": 300.0}) == "5 min"
    assert _short_label({"policy": "timeout:90s", "timeout_s": 90.0}) == "90 s"
    assert _short_label({"policy": "epc:idle_b=2min,standby_z=10min"}) == "epc:idle_b=2min,standby_z=10min"


def test_sata_ssd_advice_names_the_devslp_idle_timeout():
    # Requests every second on a SATA SSD: any DEVSLP timeout under the gap saves, the shortest
    # most (10 ms), and each request waits the 79 ms resume.
    trace = idlewise.Trace.from_arrays(np.arange(100, dtype=float), np.full(100, 4096))
    advice = advise(trace, "wd-blue-3d-nand-500gb", disk="sda", progress=False)
    assert [r["devslp_idle_timeout_ms"] for r in advice["candidates"]][:3] == [10, 20, 50]
    assert advice["devslp_idle_timeout_ms"] == 10 and advice["recommended_timeout_s"] == 0.01
    assert advice["commands"][0]["command"] == "libahci.devslp_idle_timeout=10" and "kernel command line" in advice["commands"][0]["what"]
    assert any("link_power_management_policy" in c["command"] for c in advice["commands"])
    assert advice["hdparm_S"] is None and advice["hd_idle_args"] is None and advice["ps_max_latency_us"] is None
    assert advice["mean_added_delay_s"] == pytest.approx(0.079, rel=1e-6)
    # A 50 ms bound on the added delay rules DEVSLP out altogether.
    advice = advise(trace, "wd-blue-3d-nand-500gb", limits=Limits(max_added_delay_s=0.05), progress=False)
    assert not advice["advised"] and advice["commands"] == []
    # A flash card is neither an NVMe nor a DEVSLP drive: nothing these tools set.
    with pytest.raises(IdlewiseError, match="no low-power mode to advise on"):
        advise(trace, "sandisk-ultra-ii-cf", progress=False)


def test_advise_command_line_json(tmp_path, capsys):
    from conftest import SRT

    plot = tmp_path / "advice.png"
    assert main(["advise", SRT, "--stream", "0", "--device", "seagate-constellation-es1-500gb",
                 "--max-wakeups-per-day", "50", "--json", "--plot", str(plot)]) == 0
    advice = json.loads(capsys.readouterr().out)
    for key in ("device", "recommended_timeout_s", "hdparm_S", "hd_idle_args", "energy_j_saved_per_year",
                "kwh_saved_per_year", "money_saved_per_year", "wakeups_per_day", "years_to_rated_cycles",
                "delayed_requests_per_hour", "mean_added_delay_s", "candidates"):
        assert key in advice, key
    assert advice["wakeups_per_day"] <= 50
    assert hdparm_standby_timeout_s(advice["hdparm_S"]) == advice["recommended_timeout_s"]
    assert plot.stat().st_size > 10_000
    # Every candidate that meets the limits saves no more than the one recommended.
    chosen = advice["kwh_saved_per_year"]
    assert all(r["kwh_saved_per_year"] <= chosen + 1e-9 for r in advice["candidates"]
               if r["meets_limits"] and r["policy"] != "epc")


def test_advise_command_line_text_says_when_not_to_spin_down(capsys):
    from conftest import TRACES

    path = str(TRACES / "diskstats" / "build-vm.diskstats")
    assert main(["advise", path, "--disk", "vda", "--device", "seagate-constellation-es1-500gb"]) == 0
    out = capsys.readouterr().out
    # vda is a virtio disk: the figures are a Constellation's, but no command reaches a drive
    # through the emulation, so none is given (not even hdparm -S 0 /dev/vda).
    assert "spinning down is not advised" in out and "hdparm -S" not in out
    assert "is a paravirtual disk (virtio or Xen)" in " ".join(out.split()) and "No command: the disk is an emulation" in out
    # zram0, the recording's other device, did no I/O: vda is the only disk to advise on.
    assert main(["advise", path, "--device", "seagate-constellation-es1-500gb", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["trace"] == "build-vm.diskstats#vda"


# --- a recording replayed as it is read ---------------------------------------------------------

HPLAJW = Path(idlewise.__file__).parent / "data" / "hplajw" / "ajw.1week.srt"
FINANCIAL = Path(__file__).parent / "data" / "spc" / "financial1-prefix.ascii"


def _without(advice: dict, *keys) -> dict:
    return {k: v for k, v in advice.items() if k not in keys}


@pytest.mark.parametrize("source, stream", [(HPLAJW, 0), (HPLAJW, 1), (FINANCIAL, 0), (FINANCIAL, 5)])
def test_a_path_is_advised_as_read_with_the_figures_of_a_whole_read(source, stream):
    """Issue 28: a file is replayed as it is read, every setting and hd-idle in one pass; the advice
    is the one the trace read whole gives, figure for figure."""
    streamed = advise(str(source), "hitachi-travelstar-5k320", disk="sda", progress=False, stream=stream)
    read = advise(idlewise.read_trace(source, stream=stream), "hitachi-travelstar-5k320", disk="sda", progress=False)
    assert _without(streamed, "trace", "read_report") == _without(read, "trace", "read_report")
    assert streamed["read_report"] == read["read_report"]
    if streamed["advised"]:
        assert streamed["hd_idle"]["policy"] == f"hd-idle:{streamed['recommended_timeout_s']:g}s"


def test_a_path_of_several_devices_asks_for_one():
    with pytest.raises(IdlewiseError, match=r"advice is for one device; this trace has 2 \(0, 1\).*--stream K"):
        advise(str(HPLAJW), "hitachi-travelstar-5k320", progress=False)


def test_a_path_that_is_not_one_is_refused_clearly():
    with pytest.raises(IdlewiseError, match="advise\\(\\) needs a Trace or a trace file's path, got int"):
        advise(3, "hitachi-travelstar-5k320", progress=False)


def test_the_command_line_advises_a_streamed_file_as_python_does(capsys):
    from idlewise.cli import main

    assert main(["advise", str(HPLAJW), "--stream", "1", "--device", "hitachi-travelstar-5k320", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    python = json_ready(advise(idlewise.read_trace(HPLAJW, stream=1), "hitachi-travelstar-5k320", progress=False))
    assert _without(printed, "trace") == _without(python, "trace")


def test_disk_names_the_device_of_a_trace_that_does_not_name_it(tmp_path, capsys):
    # --disk sdb on a one-device DiskSim trace: the commands name /dev/sdb (it was refused as a
    # device selector that only diskstats and biosnoop files have).
    from conftest import DISKSIM

    one = tmp_path / "one.trace"
    one.write_text("".join(line for line in open(DISKSIM) if line.split()[1] == "0"))
    assert main(["advise", str(one), "--disk", "sdb", "--device", "hitachi-travelstar-5k320", "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert all("sdb" in c["command"] or "sdb" in c["what"] for c in advice["commands"]) and advice["commands"]
    assert main(["advise", str(one), "--disk", "sdb", "--device", "hitachi-travelstar-5k320"]) == 0
    assert advice["commands"][0]["command"] in capsys.readouterr().out
