"""idlewise manage (issues 42, 61): the live power manager runs the replay's own device model and
policy, decides by the drive's own idleness (its busy time), and is a root daemon that harms
nothing. Its replay of a recording is ``simulate --service observed`` (same energy, the same
spin-downs and wake-ups at the same planned times, acted within one poll) over generated
recordings of every shape and every live policy family; it refuses what could harm; a failed
command leaves the model where the drive is and is retried; the drive's real state corrects a
stale model; applications get their two interfaces, from root and its own user only; signals
end it (or reopen its log) with the log complete; a dry run on this machine's own disk sees a
direct write. Nothing here acts on this machine: fake procfs, sysfs and /dev trees, and
recording command runners."""

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

import idlewise
from idlewise import IdlewiseError
from idlewise.manage import (Client, DiskSetting, Inline, Managed, Manager, Threaded, choose_actuator, open_log, prepare,
                             replay, run)
from idlewise.manage.loop import setup_command


@pytest.fixture
def tmp_path():
    """A short directory of the test's own: a Unix socket's path may be at most 107 bytes, and
    the sockets these tests make sit in it (pytest's directories under a deep TMPDIR ran past)."""
    path = Path(tempfile.mkdtemp(prefix="iw-", dir="/tmp" if os.path.isdir("/tmp") else None))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_socket_path_too_long_for_the_kernel_is_refused_by_name():
    from idlewise.manage.paths import MAX_SOCKET_PATH_BYTES, OwnSocket

    long_path = "/tmp/" + "d" * 120 + "/m.sock"
    with pytest.raises(IdlewiseError, match=f"at most {MAX_SOCKET_PATH_BYTES} bytes, this one has 132"):
        OwnSocket(long_path)


INTERVAL = 1.0


def recording(path: Path, per_interval: np.ndarray, *, interval=INTERVAL, write_share=0.3, name="sdb", busy_ms_per_io=3,
              in_flight=None) -> Path:
    """A diskstats recording of one disk whose k-th interval completes per_interval[k] I/Os, busy
    ``busy_ms_per_io`` each (at most the interval), with ``in_flight[k]`` I/Os in flight at the
    snapshot that ends it."""
    reads = np.round(per_interval * (1 - write_share)).astype(np.int64)
    writes = per_interval - reads
    busy = np.minimum(per_interval * busy_ms_per_io, int(interval * 1000))
    r, w, b = (np.concatenate([[0], np.cumsum(x)]) for x in (reads, writes, busy))
    flight = np.concatenate([[0], in_flight if in_flight is not None else np.zeros(len(per_interval), np.int64)])
    lines = [f"{1_700_000_000 + k * interval:.3f} 8 16 {name} {r[k]} 0 {r[k] * 8} 0 {w[k]} 0 {w[k] * 16} 0 {flight[k]} "
             f"{b[k]} 0\n" for k in range(len(r))]
    path.write_text("".join(lines))
    return path


def shapes(rng):
    """Recordings a machine makes: bursty, periodic, idle for days, very busy (in flight now and then)."""
    bursty = np.where(rng.random(3000) < 0.03, rng.integers(1, 200, 3000), 0)
    periodic = np.where(np.arange(2000) % 37 == 0, 5, 0)
    days = np.zeros(3 * 86400 // 600, np.int64)
    days[[0, 5, 200, 431]] = [3, 40, 1, 9]
    busy = rng.integers(50, 400, 600)
    return {"bursty": (bursty, 1.0, None), "periodic": (periodic, 1.0, None), "idle-for-days": (days, 600.0, None),
            "very-busy": (busy, 1.0, rng.integers(0, 3, 600))}


LIVE_POLICIES = [
    ("hitachi-microdrive-1gb", ["timeout:2s", "timeout:low-power-idle=1s,standby=20s", "hd-idle:30s", "breakeven",
                                "randomized:seed=4", "predictive", "stpm:knob=50", "experts"]),
    ("seagate-constellation-es1-500gb", ["epc", "timeout:10s"]),
    ("samsung-pm981-1tb", ["apst"]),
]


@pytest.mark.parametrize("shape", ["bursty", "periodic", "idle-for-days", "very-busy"])
def test_replay_is_the_simulation_with_observed_service_for_every_live_policy(tmp_path, shape):
    per_interval, interval, flight = shapes(np.random.default_rng(7))[shape]
    path = recording(tmp_path / f"{shape}.diskstats", per_interval, interval=interval, in_flight=flight)
    trace = idlewise.read_trace(path)
    for device, policies in LIVE_POLICIES:
        sim = idlewise.simulate(trace, device, policies, timeline_s=(0.0, 1e12), progress=False, service="observed")
        ready = idlewise.load_device(device).modes[0]["name"]
        for spec in policies:
            decisions, result = replay(str(path), spec, device)
            mine = next(r for r in sim.raw_records() if r.get("spec") == spec)
            assert result["energy_j"] == mine["energy_j"], (shape, device, spec)  # to the bit
            assert result["wakeups"] == mine["wakeups"], (shape, device, spec)
            timeline = sim.timeline(spec).to_pylist()
            hops = [(round(s["start_s"], 6), s["activity"]) for s in timeline if "→" in s["activity"]]
            planned = [(round(d["time_s"], 6), f"{d['from_mode']}→{d['to_mode']}") for d in decisions
                       if not d["reason"].startswith("I/O")]
            # A wake-up by I/O is logged at the arrival; the model's hop up begins then, or once a
            # transition under way has finished. Every other hop is the plan's, at its time.
            woken = [round(d["time_s"], 6) for d in decisions if d["reason"].startswith("I/O")]
            longest = max(t["time_s"] for t in idlewise.load_device(device).transitions)
            rest = list(hops)
            for at in woken:
                up = next(h for h in rest if h[1].endswith("→" + ready) and at - 1e-6 <= h[0] <= at + longest + 1e-6)
                rest.remove(up)
            assert [h[1] for h in planned] == [h[1] for h in rest], (shape, device, spec)
            assert all(abs(a[0] - b[0]) <= 2e-6 for a, b in zip(planned, rest)), (shape, device, spec)
            last_poll = len(per_interval) * interval
            for d in decisions:
                lag = d["acted_s"] - d["time_s"]
                # Acted at the first poll at or after it (or, past the last poll, at the run's end).
                assert -1e-9 <= lag <= interval + 1e-9 or d["acted_s"] > last_poll, d
                assert d["outcome"] in ("recorded", "by the drive", "overtaken", "model only: no host command for this mode",
                                        "by the drive: its own timers")
                assert d["wall"].endswith("Z") and d["wall"].startswith("2023-11-1"), d  # the recording's own clock
                if spec.partition(":")[0] in ("apst", "epc"):  # the drive's own timers: no command a change
                    assert d["command"] is None, d


def test_decisions_follow_the_drive_s_idleness_not_the_model_s_backlog(tmp_path):
    """A catalog disk slower than the real one: 300 MiB a second for ten seconds, which the
    drive served in 2 % of each second. Decided by the drive's busy time, the timeout's spin-down
    comes 5 s after the last interval; by the model's own service it would wait for a backlog of
    more than a minute."""
    path = tmp_path / "fast.diskstats"
    lines, sectors, busy = [], 0, 0
    for k in range(31):
        lines.append(f"{1_700_000_000 + k}.000 8 16 sdb {k * 10 if k <= 10 else 100} 0 {sectors} 0 0 0 0 0 0 {busy} 0\n")
        if k < 10:
            sectors, busy = sectors + 300 * 2048, busy + 20
    path.write_text("".join(lines))
    decisions, _ = replay(str(path), "timeout:5s", "hitachi-travelstar-5k320")
    down = [d for d in decisions if d["to_mode"] == "standby"]
    assert down and 10.0 < down[0]["time_s"] <= 10.0 + 5.0 + 1e-9, down
    modelled = idlewise.simulate(idlewise.read_trace(path), "hitachi-travelstar-5k320", ["timeout:5s"], progress=False)
    assert modelled.to_dicts()[0]["offered_load"] > 1, "the catalog model alone cannot keep up with this drive"


def test_a_drives_own_timers_are_set_up_once_not_commanded_each_change():
    assert setup_command("apst:ps_max_latency_us=25000", "nvme1n1") == [
        "sh", "-c", "echo 25000 > /sys/class/nvme/nvme1/power/pm_qos_latency_tolerance_us"]
    assert setup_command("timeout:2s", "nvme1n1") is None


def test_the_oracle_and_bad_options_are_refused(tmp_path):
    path = recording(tmp_path / "r.diskstats", np.array([1, 0, 0, 3]))
    with pytest.raises(IdlewiseError, match="offline"):
        replay(str(path), "oracle", "hitachi-microdrive-1gb")
    with pytest.raises(IdlewiseError, match="--interval must be at least 10 ms"):
        run(["sdb"], "timeout:1s", device="hitachi-microdrive-1gb", interval_s=0.001, use_socket=False)


def settings(*disks, policy="timeout:1s", device="auto", apply=False):
    return [DiskSetting(name=d, policy=policy, device=device, apply=apply, disk=d) for d in disks]


def test_apply_needs_root_and_never_acts_on_a_virtual_or_root_disk_unless_forced(tmp_path, monkeypatch):
    from test_identify import disk, system_tree

    proc = system_tree(tmp_path)
    monkeypatch.setenv("IDLEWISE_SYSFS_ROOT", str(tmp_path))
    monkeypatch.setenv("IDLEWISE_PROCFS_ROOT", str(proc))
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(IdlewiseError, match="needs root"):
        prepare(settings("sdb", apply=True))
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr("idlewise.identify._nvme_power", lambda controller: (None, []))
    managed, notes = prepare(settings("sda", "sdb", "nvme0n1", apply=True))
    acting = {m.disk: m.act for m in managed}
    assert acting == {"sda": False, "sdb": True, "nvme0n1": False}
    assert notes == [("sda", "/dev/sda holds the root file system: watched, not acted on (--force acts anyway)"),
                     ("nvme0n1", "/dev/nvme0n1 holds active swap (/dev/nvme0n1p1): watched, not acted on (--force acts anyway)")]
    managed, notes = prepare(settings("sda", apply=True), force=True)
    assert managed[0].act and not notes
    # A virtual disk with --device auto has no model; named, it is watched and never acted on.
    disk(tmp_path, "vdb", "", 1)
    with pytest.raises(IdlewiseError, match="paravirtual"):
        prepare(settings("vdb", apply=True))
    managed, notes = prepare(settings("vdb", device="hitachi-travelstar-5k320", apply=True))
    assert not managed[0].act and "paravirtual" in notes[0][1]


def _counters(reads, writes=0, busy_ms=None, in_flight=0):
    """A diskstats line's counters as the loop reads them (line_counters' tuple)."""
    busy = 2 * (reads + writes) if busy_ms is None else busy_ms
    return (reads, reads * 8, writes, writes * 8, 0, 0, busy, in_flight)


def _managed(device_name="hitachi-travelstar-5k320", policy="timeout:2s", actuator="ata", act=True):
    device = idlewise.load_device(device_name)
    return Managed("sdb", device, idlewise._core.LiveDisk(device, policy), choose_actuator("sdb", device, actuator),
                   act=act, actual_mode=device.modes[0]["name"], live_policy=policy, name="sdb")


def test_a_failed_spin_down_leaves_the_model_where_the_drive_is_and_is_retried_with_backoff():
    ran, outcomes = [], iter([("failed: exit 5: HDIO_DRIVE_CMD(standby) failed", ""), ("done", "")])

    def runner(argv):
        ran.append((now[0], argv))
        return next(outcomes)
    now = [0.0]
    m = _managed()
    log = []
    manager = Manager([m], log.append, executor=Inline(runner))
    ready = m.device.modes[0]["name"]
    for t, reads in [(0.0, 0), (1.0, 4)] + [(float(t), 4) for t in range(2, 20)]:
        now[0] = t
        manager.poll(t, {"sdb": _counters(reads)})
        if t == 5.0:
            # Failed at 3 s (idle from 0.877 s, down at 2.877 s, acted at the 3 s poll): the
            # model is ready, as the drive is, and books ready power, no transition.
            status = manager.status(5.0)[0]
            assert status["mode"] == ready and status["actual_mode"] == ready and status["failed_commands"] == 1
    assert [t for t, _ in ran] == [3.0, 14.0], ran  # tried again at the first poll after the backoff (10 s)
    failed = next(r for r in log if r.get("outcome", "").startswith("failed"))
    assert "the model stays in" in failed["outcome"] and "tried again in 10 s" in failed["outcome"]
    assert log[-1]["outcome"] == "done" and m.actual_mode == log[-1]["to_mode"]
    assert {"time_s", "acted_s", "done_s", "wall", "disk", "from_mode", "to_mode", "reason", "command", "outcome"} <= set(log[-1])
    # What the model booked: the drive never left ready until 14 s.
    result = m.live.finish(20.0)
    assert result["time_by_mode_s"][ready] > 12.0


def test_a_spin_down_is_held_while_io_is_in_flight():
    ran = []
    m = _managed()
    manager = Manager([m], [].append, executor=Inline(lambda argv: ran.append(argv) or ("done", "")))
    manager.poll(0.0, {"sdb": _counters(0)})
    manager.poll(1.0, {"sdb": _counters(4)})
    for t in (2.0, 3.0, 4.0):
        manager.poll(t, {"sdb": _counters(4, in_flight=1)})  # a long request, no completion yet
    assert ran == [] and manager.status(4.0)[0]["mode"] == m.device.modes[0]["name"]
    manager.poll(5.0, {"sdb": _counters(4)})
    assert ran == [["hdparm", "-y", "/dev/sdb"]]


def test_the_drive_s_real_state_corrects_a_stale_model():
    answers = {"hdparm -C /dev/sdb": " drive state is:  active/idle"}
    m = _managed(policy="timeout:2s")
    log = []
    manager = Manager([m], log.append, executor=Inline(lambda argv: ("done", answers.get(" ".join(argv), ""))),
                      check_interval_s=100.0)
    manager.poll(0.0, {"sdb": _counters(0)})
    manager.poll(1.0, {"sdb": _counters(4)})
    for t in (2.0, 3.0, 4.0, 5.0):
        manager.poll(t, {"sdb": _counters(4)})
    assert manager.status(5.0)[0]["mode"] == "standby"
    manager.probe_all(6.0, force=True)  # smartd woke it: the drive says active
    woken = [r for r in log if r.get("outcome") == "woken outside the manager"]
    assert woken and woken[0]["to_mode"] == m.device.modes[0]["name"] and manager.status(6.0)[0]["spin_ups"] == 1
    assert manager.status(6.5)[0]["mode"] == m.device.modes[0]["name"]
    # A drive that spun itself down (its own timer) while the model says ready.
    answers["hdparm -C /dev/sdb"] = " drive state is:  standby"
    m2 = _managed(policy="timeout:1h")
    manager = Manager([m2], log.append, executor=Inline(lambda argv: ("done", answers.get(" ".join(argv), ""))))
    manager.poll(0.0, {"sdb": _counters(0)})
    manager.poll(1.0, {"sdb": _counters(2)})
    manager.probe_all(30.0, force=True)
    assert log[-1]["outcome"] == "moved outside the manager" and manager.status(31.0)[0]["mode"] == "standby"
    # A probe that cannot tell says so once, and corrects nothing.
    manager = Manager([_managed()], log.append, executor=Inline(lambda argv: ("failed: hdparm is not installed", "")))
    manager.poll(0.0, {"sdb": _counters(0)})
    manager.probe_all(1.0, force=True)
    manager.probe_all(2.0, force=True)
    notes = [r for r in log if "cannot read the drive's state" in r.get("note", "")]
    assert len(notes) == 1 and "hdparm -C /dev/sdb" in notes[0]["note"]


@pytest.mark.parametrize("output, model, expected", [
    (" drive state is:  standby", "ready", "standby"),
    (" drive state is:  active/idle", "standby", "ready"),
    (" drive state is:  active/idle", "ready", None),
    (" drive state is:  unknown", "standby", None),
    ("", "ready", None),
])
def test_hdparm_states_are_read_as_the_model_s_modes(output, model, expected):
    device = idlewise.load_device("wd-red-plus-4tb")
    names = [m["name"] for m in device.modes]
    actuator = choose_actuator("sdb", device, "ata")
    translate = {"ready": names[0], "standby": "standby"}
    judged = actuator.judge(output, translate[model])
    assert judged == (None if expected is None else translate[expected])


def test_scsi_disks_get_a_power_condition_they_leave_on_access_and_a_plain_stop_only_by_name():
    device = idlewise.load_device("seagate-constellation-es1-500gb")
    stopped = [m["name"] for m in device.modes if m.get("stops_spindle")]
    scsi = choose_actuator("sdb", device, "scsi")
    assert scsi.command(device.modes[0]["name"], stopped[-1]) == ["sg_start", "--pc=3", "/dev/sdb"]
    assert scsi.wake() == ["sg_start", "--pc=1", "/dev/sdb"] and scsi.probe() == ["sg_requests", "/dev/sdb"]
    assert scsi.judge("Additional sense: Standby condition activated by command", device.modes[0]["name"]) == stopped[-1]
    stop = choose_actuator("sdb", device, "scsi-stop")
    assert stop.command(device.modes[0]["name"], stopped[-1]) == ["sg_start", "--stop", "/dev/sdb"]


def test_a_usb_bridge_is_named_as_such(tmp_path, monkeypatch):
    target = tmp_path / "devices" / "pci0000:00" / "usb2" / "2-1" / "host6" / "target6:0:0" / "6:0:0:0"
    target.mkdir(parents=True)
    (target / "vendor").write_text("WDC\n")
    (tmp_path / "block" / "sdc").mkdir(parents=True)
    (tmp_path / "block" / "sdc" / "device").symlink_to(target)
    monkeypatch.setenv("IDLEWISE_SYSFS_ROOT", str(tmp_path))
    actuator = choose_actuator("sdc", idlewise.load_device("wd-red-plus-4tb"))
    assert actuator.name == "ata" and actuator.via == "a USB bridge (SAT)"


def test_applications_ask_the_mode_and_the_cost_of_an_access_and_give_hints(tmp_path, monkeypatch, capsys):
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "diskstats").write_text("   8      16 sdb 10 0 80 0 0 0 0 0 0 20 0\n")
    monkeypatch.setenv("IDLEWISE_PROCFS_ROOT", str(proc))
    sock = str(tmp_path / "run" / "m.sock")
    (tmp_path / "run").mkdir(mode=0o700)
    log = tmp_path / "log.jsonl"
    done = {}
    thread = threading.Thread(target=lambda: done.setdefault("decisions", run(
        ["sdb"], "stpm:knob=50", device="hitachi-microdrive-1gb", interval_s=0.05, duration_s=5.0, log=str(log),
        socket_path=sock, check_interval_s=0.0)))
    thread.start()
    client = Client(sock)
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.02)
    assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
    time.sleep(3.5)  # idle: stpm takes the microdrive down
    status = client.status(65536)
    assert [s["disk"] for s in status] == ["sdb"]
    s = status[0]
    assert s["device"] == "hitachi-microdrive-1gb" and s["energy_j"] > 0 and s["in_mode_s"] >= 0
    assert s["mode"] != "performance-idle" and s["access"]["time_s"] > 0.3  # a wake-up first
    assert s["spin_ups"] == 0 and s["in_flight"] == 0 and s["since_io_s"] is None
    # Hints add up until their benefit pays for a wake-up (seed 000 §4.4): the second one does.
    hinted = client.hint("sdb", 1 << 20) + client.hint("sdb", 1 << 20)
    assert [d["to_mode"] for d in hinted] == ["performance-idle"], hinted
    assert client.status()[0]["mode"] == "performance-idle"
    with pytest.raises(IdlewiseError, match="not managed"):
        client.hint("sdz")
    from idlewise.cli import main

    assert main(["manage", "status", "--socket", sock, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["mode"] == "performance-idle"
    assert main(["manage", "status", "--socket", sock, "--prometheus"]) == 0
    text = capsys.readouterr().out
    assert 'idlewise_disk_mode{disk="sdb",device="hitachi-microdrive-1gb",mode="performance-idle"} 1' in text
    assert "# TYPE idlewise_disk_spin_ups_total counter" in text
    assert main(["manage", "hint", "sdb", "--socket", sock]) == 0
    assert "the policy kept its mode" in capsys.readouterr().out  # already ready
    thread.join()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[-1]["stop"] is True and lines[0]["policies"] == {"sdb": "stpm:knob=50"}
    assert any("ghost hint" in line.get("reason", "") and line["outcome"] == "dry-run" for line in lines)
    assert all("wall" in line for line in lines)
    assert not os.path.exists(sock)


# --- what runs as root harms no path -------------------------------------------------------------

def _run_briefly(tmp_path, monkeypatch, **options):
    proc = tmp_path / "proc"
    proc.mkdir(exist_ok=True)
    (proc / "diskstats").write_text("   8      16 sdb 10 0 80 0 0 0 0 0 0 20 0\n")
    monkeypatch.setenv("IDLEWISE_PROCFS_ROOT", str(proc))
    return run(["sdb"], "timeout:1s", device="hitachi-microdrive-1gb", interval_s=0.05, duration_s=0.2, check_interval_s=0.0,
               **options)


def test_a_socket_path_naming_a_file_or_a_link_is_refused_and_left_as_it_was(tmp_path, monkeypatch):
    precious = tmp_path / "x.jsonl"
    precious.write_text("a log someone keeps\n")
    with pytest.raises(IdlewiseError, match="a file is there, not a socket: the manager never replaces"):
        _run_briefly(tmp_path, monkeypatch, socket_path=str(precious))
    assert precious.read_text() == "a log someone keeps\n"
    link = tmp_path / "s.sock"
    link.symlink_to(precious)
    with pytest.raises(IdlewiseError, match="a symbolic link is there"):
        _run_briefly(tmp_path, monkeypatch, socket_path=str(link))
    assert link.is_symlink() and precious.read_text() == "a log someone keeps\n"
    # A socket of another user is not this manager's; a stale one of ours is taken over.
    other = tmp_path / "other.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(other))
    os.chown(other, 65534, 65534) if os.geteuid() == 0 else pytest.skip("needs root to make another user's socket")
    with pytest.raises(IdlewiseError, match="a socket of user 65534 is there"):
        _run_briefly(tmp_path, monkeypatch, socket_path=str(other))
    assert other.exists()
    stale = tmp_path / "stale.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(stale))
    _run_briefly(tmp_path, monkeypatch, socket_path=str(stale))
    assert not stale.exists()


def test_the_log_never_follows_a_link_nor_writes_another_s_file(tmp_path, monkeypatch):
    target = tmp_path / "shadow"
    target.write_text("root:secret\n")
    link = tmp_path / "log.jsonl"
    link.symlink_to(target)
    with pytest.raises(IdlewiseError, match="a symbolic link: the log is never written through a link"):
        _run_briefly(tmp_path, monkeypatch, log=str(link), use_socket=False)
    hard = tmp_path / "hard.jsonl"
    os.link(target, hard)
    with pytest.raises(IdlewiseError, match="has 2 links"):
        _run_briefly(tmp_path, monkeypatch, log=str(hard), use_socket=False)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(IdlewiseError, match="not a regular file"):
        _run_briefly(tmp_path, monkeypatch, log=str(fifo), use_socket=False)
    assert target.read_text() == "root:secret\n"
    # manage replay --log truncates only a file of its own, never a link's target.
    from idlewise.cli import main

    path = recording(tmp_path / "r.diskstats", np.array([1, 0, 0, 3]))
    assert main(["manage", "replay", str(path), "--policy", "timeout:1s", "--device", "hitachi-microdrive-1gb",
                 "--log", str(link), "--quiet"]) == 2
    assert target.read_text() == "root:secret\n"
    mine = tmp_path / "mine.jsonl"
    mine.write_text("old\n")
    assert main(["manage", "replay", str(path), "--policy", "timeout:1s", "--device", "hitachi-microdrive-1gb",
                 "--log", str(mine), "--quiet"]) == 0
    assert "old" not in mine.read_text() and json.loads(mine.read_text().splitlines()[0])


def test_a_user_s_default_socket_lives_in_a_private_directory_no_one_else_made(tmp_path, monkeypatch):
    from idlewise.manage.paths import default_socket

    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.setattr(os, "geteuid", lambda: 4242)
    path = default_socket(create=True)
    folder = Path(path).parent
    assert folder == tmp_path / "idlewise-4242" and stat.S_IMODE(folder.stat().st_mode) == 0o700
    folder.rmdir()
    folder.symlink_to(tmp_path)  # planted by someone else
    with pytest.raises(IdlewiseError, match="not a directory"):
        default_socket(create=True)
    folder.unlink()
    folder.mkdir(mode=0o777)
    os.chmod(folder, 0o777)
    with pytest.raises(IdlewiseError, match="others may enter it"):
        default_socket(create=True)


def test_only_root_and_the_manager_s_user_are_answered_and_believed(tmp_path, monkeypatch):
    import idlewise.manage.server as server

    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "diskstats").write_text("   8      16 sdb 10 0 80 0 0 0 0 0 0 20 0\n")
    monkeypatch.setenv("IDLEWISE_PROCFS_ROOT", str(proc))
    sock = str(tmp_path / "m.sock")
    thread = threading.Thread(target=lambda: run(["sdb"], "timeout:1s", device="hitachi-microdrive-1gb", interval_s=0.05,
                                                 duration_s=2.0, socket_path=sock, check_interval_s=0.0))
    thread.start()
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.02)
    # The manager answers a peer it does not trust with a refusal, nothing else.
    monkeypatch.setattr(server, "trusted", lambda uid: False)
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(sock)  # refused at once, before it could send a request
        assert b"answers root and its own user only" in s.makefile("rb").readline()
    # A client believes no manager but root's or its own user's (here: none, by the same patch).
    with pytest.raises(IdlewiseError, match="not a manager to believe"):
        Client(sock).status()
    thread.join()


# --- faults survived --------------------------------------------------------------------------------

def test_a_hung_command_holds_neither_status_nor_a_stop(tmp_path, monkeypatch):
    proc = tmp_path / "proc"
    proc.mkdir()
    stats = proc / "diskstats"
    stats.write_text("   8      16 sdb 10 0 80 0 0 0 0 0 0 20 0\n")
    monkeypatch.setenv("IDLEWISE_PROCFS_ROOT", str(proc))
    sock = str(tmp_path / "m.sock")
    started = threading.Event()

    def hangs(argv):
        started.set()
        time.sleep(20)
        return "done", ""
    from idlewise.manage import loop

    real = loop.prepare
    monkeypatch.setattr(loop, "prepare", lambda s, **k: _acting(*real(s, **k)))
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("lines", run(
        ["sdb"], "timeout:0.2s", device="hitachi-microdrive-1gb", interval_s=0.05, duration_s=4.0, socket_path=sock,
        check_interval_s=0.0, executor=Threaded(run=hangs))))
    thread.start()
    assert started.wait(10), "the spin-down command was sent"
    t0 = time.monotonic()
    status = Client(sock, timeout_s=5).status()
    assert time.monotonic() - t0 < 1.0 and status[0]["command_pending"] is True
    thread.join(timeout=8)
    assert not thread.is_alive(), "the run ended on time, a command still hanging"
    assert result["lines"][-1].get("stop")


def _acting(managed, notes):
    """Every disk acted on (as --apply does as root), its commands still the test's runner's."""
    for m in managed:
        m.act = True
    return managed, notes


def test_malformed_lines_vanishing_and_returning_disks_are_logged_and_survived(tmp_path, monkeypatch):
    proc = tmp_path / "proc"
    proc.mkdir()
    stats = proc / "diskstats"
    good = "   8      16 sdb {} 0 80 0 0 0 0 0 0 20 0\n"
    stats.write_text(good.format(10))
    monkeypatch.setenv("IDLEWISE_PROCFS_ROOT", str(proc))
    lines = []

    def scenario():
        time.sleep(0.5)
        stats.write_text("   8      16 sdb ten 0 80 0 0 0 0 0 0 20 0\n")
        time.sleep(0.5)
        stats.write_text("")
        time.sleep(0.5)
        stats.write_text(good.format(30))
    helper = threading.Thread(target=scenario)
    helper.start()
    run(["sdb"], "timeout:10s", device="hitachi-microdrive-1gb", interval_s=0.05, duration_s=2.5, use_socket=False,
        check_interval_s=0.0, emit=lines.append)
    helper.join()
    notes = [line["note"] for line in lines if "note" in line]
    assert any("skipped a malformed line" in n and "'ten'" in n for n in notes), notes
    assert any("the disk is gone" in n for n in notes) and any("the disk is back" in n for n in notes), notes
    assert lines[-1].get("stop")


def test_a_suspend_is_not_idle_time_and_makes_the_states_read_again(tmp_path, monkeypatch):
    from idlewise.manage import loop

    gaps = iter([0.0, 0.0] + [3600.0] * 1000)
    monkeypatch.setattr(loop, "_boot_minus_monotonic", lambda: next(gaps))
    lines = []
    _run_briefly(tmp_path, monkeypatch, use_socket=False, emit=lines.append)
    assert any("suspended for 3,600.0 s: not counted as idle time" in line.get("note", "") for line in lines), lines


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_ctrl_c_end_a_run_with_the_log_complete(tmp_path, stop):
    child, log, sock = _child_manager(tmp_path)
    child.send_signal(stop)
    out, err = child.communicate(timeout=20)
    assert child.returncode == 0, err
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[-1].get("stop") and any(d.get("outcome") == "dry-run" for d in lines), lines
    assert "dry run" in err.decode()
    assert not sock.exists()


def _child_manager(tmp_path, *extra):
    proc = tmp_path / "proc"
    proc.mkdir(exist_ok=True)
    (proc / "diskstats").write_text("   8      16 sdb 10 0 80 0 0 0 0 0 0 20 0\n")
    log, sock = tmp_path / "log.jsonl", tmp_path / "s.sock"
    env = {**os.environ, "IDLEWISE_PROCFS_ROOT": str(proc), "PYTHONPATH": str(Path(idlewise.__file__).parents[1])}
    child = subprocess.Popen([sys.executable, "-m", "idlewise", "manage", "run", "sdb", "--policy", "timeout:0.2s",
                              "--device", "hitachi-microdrive-1gb", "--interval", "50ms", "--log", str(log),
                              "--socket", str(sock), "--check-interval", "0s", *extra], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Signalled once the run is under way: its socket is made just before it takes the signals
    # over, then a second of polls.
    deadline = time.monotonic() + 30
    while not sock.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    return child, log, sock


def _hup_then_stop(child) -> bytes:
    """SIGHUP, a second of the run going on, then SIGTERM: its standard output, once it ended well."""
    child.send_signal(signal.SIGHUP)
    time.sleep(1.0)
    assert child.poll() is None, "SIGHUP did not end the manager"
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=20)
    assert child.returncode == 0, err
    return out


def test_a_link_planted_at_the_log_mid_run_is_never_followed_and_the_run_goes_on(tmp_path):
    # The log renamed away and a link to another's file put in its place, then SIGHUP: the link
    # is refused (said once), its target untouched, the run goes on, and SIGHUP does not claim
    # the log was reopened (it was not).
    child, log, sock = _child_manager(tmp_path)
    target = tmp_path / "shadow"
    target.write_text("root:secret\n")
    log.rename(tmp_path / "log.jsonl.1")
    log.symlink_to(target)
    out = _hup_then_stop(child)
    notes = [json.loads(line).get("note", "") for line in out.decode().splitlines()]
    assert sum("a symbolic link: the log is never written through a link" in n for n in notes) == 1, notes
    assert "SIGHUP: the log could not be reopened" in notes and "SIGHUP: the log reopened" not in notes
    assert target.read_text() == "root:secret\n" and log.is_symlink() and not sock.exists()


def test_sighup_reopens_the_log_and_the_run_goes_on(tmp_path):
    child, log, sock = _child_manager(tmp_path)
    rotated = tmp_path / "log.jsonl.1"
    log.rename(rotated)
    _hup_then_stop(child)
    old = [json.loads(line) for line in rotated.read_text().splitlines()]
    new = [json.loads(line) for line in log.read_text().splitlines()]
    assert old[0].get("start") and any("SIGHUP: the log reopened" in line.get("note", "") for line in new)
    assert new[-1].get("stop") and not sock.exists()


# --- what hd-idle users rely on ----------------------------------------------------------------------

def test_a_configuration_names_disks_by_id_with_a_setting_each(tmp_path, monkeypatch):
    from idlewise.manage import read_config, resolve_disk

    dev = tmp_path / "dev"
    (dev / "disk" / "by-id").mkdir(parents=True)
    (dev / "sdc").touch()
    (dev / "sdc1").touch()
    (dev / "disk" / "by-id" / "ata-WDC_WD40EFZX_X").symlink_to(dev / "sdc")
    (dev / "disk" / "by-id" / "ata-WDC_WD40EFZX_X-part1").symlink_to(dev / "sdc1")
    sysfs = tmp_path / "sys"
    (sysfs / "devices" / "sdc" / "sdc1").mkdir(parents=True)
    (sysfs / "devices" / "sdc" / "sdc1" / "partition").write_text("1\n")
    (sysfs / "class" / "block").mkdir(parents=True)
    (sysfs / "class" / "block" / "sdc").symlink_to(sysfs / "devices" / "sdc")
    (sysfs / "class" / "block" / "sdc1").symlink_to(sysfs / "devices" / "sdc" / "sdc1")
    monkeypatch.setenv("IDLEWISE_DEV_ROOT", str(dev))
    monkeypatch.setenv("IDLEWISE_SYSFS_ROOT", str(sysfs))
    assert [resolve_disk(n) for n in ("sdc", "/dev/sdc", "/dev/disk/by-id/ata-WDC_WD40EFZX_X",
                                      "/dev/disk/by-id/ata-WDC_WD40EFZX_X-part1", "/dev/disk/by-id/gone")] == [
        "sdc", "sdc", "sdc", "sdc", None]
    config = tmp_path / "manage.toml"
    config.write_text('[manager]\ninterval = "2s"\ncheck_interval = "1min"\n[defaults]\npolicy = "timeout:20min"\n'
                      '[disks."/dev/disk/by-id/ata-WDC_WD40EFZX_X"]\ndevice = "wd-red-plus-4tb"\napply = true\n'
                      '[disks.sdd]\npolicy = "stpm:knob=50"\ndevice = "hitachi-travelstar-5k320"\nactuator = "scsi"\n')
    settings = read_config(str(config))
    assert (settings.interval_s, settings.check_interval_s) == (2.0, 60.0)
    assert [(s.name, s.policy, s.device, s.actuator, s.apply) for s in settings.disks] == [
        ("/dev/disk/by-id/ata-WDC_WD40EFZX_X", "timeout:20min", "wd-red-plus-4tb", "auto", True),
        ("sdd", "stpm:knob=50", "hitachi-travelstar-5k320", "scsi", False)]
    for bad, message in [('[disks.sdb]\npolicy = "timeout:1s"\nspeed = 3\n', r'\[disks."sdb"\]: unknown key\(s\) speed'),
                         ('[manager]\ninterval = "soon"\n[disks.sdb]\npolicy = "timeout:1s"\n', "interval: not a duration"),
                         ("[disks.sdb]\ndevice = 'x'\n", "no policy"), ("[manager]\n", "no \\[disks"),
                         ('[disks.sdb]\npolicy = "timeout:1s"\napply = "yes"\n', "apply: true or false")]:
        config.write_text(bad)
        with pytest.raises(IdlewiseError, match=message):
            read_config(str(config))


def test_a_run_from_a_configuration_manages_a_by_id_disk_and_waits_for_an_absent_one(tmp_path, monkeypatch):
    dev = tmp_path / "dev"
    (dev / "disk" / "by-id").mkdir(parents=True)
    (dev / "vda").touch()
    (dev / "disk" / "by-id" / "virtio-abc").symlink_to(dev / "vda")
    monkeypatch.setenv("IDLEWISE_DEV_ROOT", str(dev))
    monkeypatch.setenv("IDLEWISE_SYSFS_ROOT", str(tmp_path / "sys"))
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "diskstats").write_text(" 254 0 vda 10 0 80 0 0 0 0 0 0 20 0\n")
    monkeypatch.setenv("IDLEWISE_PROCFS_ROOT", str(proc))
    config = tmp_path / "manage.toml"
    config.write_text('[disks."/dev/disk/by-id/virtio-abc"]\npolicy = "timeout:0.2s"\ndevice = "hitachi-microdrive-1gb"\n'
                      '[disks."/dev/disk/by-id/usb-later"]\npolicy = "timeout:1min"\ndevice = "wd-red-plus-4tb"\n')
    lines = run(config=str(config), interval_s=0.05, duration_s=1.0, use_socket=False, check_interval_s=0.0)
    assert lines[-2 if "note" in lines[-1] else -1].get("stop") or any(line.get("stop") for line in lines)
    start = next(line for line in lines if "start" in line)
    assert start["disks"] == ["vda"] and start["names"] == {"vda": "/dev/disk/by-id/virtio-abc"}
    assert any("usb-later: not present: managed once it appears" in line.get("note", "") for line in lines)
    assert any(line.get("to_mode") == "standby" and line["outcome"] == "dry-run" for line in lines)


def test_spin_down_once_is_a_dry_run_unless_applied(tmp_path, monkeypatch, capsys):
    from idlewise.cli import main

    monkeypatch.setenv("IDLEWISE_SYSFS_ROOT", str(tmp_path / "sys"))
    monkeypatch.setenv("IDLEWISE_DEV_ROOT", str(tmp_path / "dev"))
    assert main(["manage", "spin-down", "sdb", "--device", "wd-red-plus-4tb"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["command"] == "hdparm -y /dev/sdb" and out["outcome"] == "dry-run" and out["wall"].endswith("Z")
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["manage", "spin-down", "sdb", "--device", "wd-red-plus-4tb", "--apply"]) == 2
    assert "needs root" in capsys.readouterr().err
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    from idlewise.manage import spin_down

    monkeypatch.setattr("idlewise.identify.system_roles", lambda disk, **k: [])
    sent = []
    done = spin_down("sdb", apply=True, device="wd-red-plus-4tb", run_command=lambda argv: sent.append(argv) or ("done", ""))
    assert sent == [["hdparm", "-y", "/dev/sdb"]] and done["outcome"] == "done"


def test_the_unit_is_hardened_and_systemd_accepts_it(tmp_path, capsys):
    from idlewise.cli import main

    config = tmp_path / "manage.toml"
    config.write_text('[disks.sdb]\npolicy = "timeout:20min"\ndevice = "wd-red-plus-4tb"\n')
    assert main(["manage", "unit", "--config", str(config)]) == 0
    text = capsys.readouterr().out
    for line in ("Type=notify", "WatchdogSec=30", "ExecReload=/bin/kill -HUP $MAINPID", "NoNewPrivileges=yes",
                 "ProtectSystem=strict", "CapabilityBoundingSet=CAP_SYS_RAWIO CAP_SYS_ADMIN", "RuntimeDirectory=idlewise"):
        assert line in text.splitlines(), line
    assert f"--config {config}" in text
    analyze = __import__("shutil").which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    unit = tmp_path / "idlewise-manage.service"
    unit.write_text(text)
    done = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True)
    problems = [line for line in (done.stderr + done.stdout).splitlines() if str(unit.name) in line or "idlewise" in line]
    assert done.returncode == 0 and not problems, done.stderr + done.stdout


def test_systemd_hears_ready_and_the_watchdog(tmp_path, monkeypatch):
    heard = tmp_path / "notify"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(heard))
    listener.settimeout(5)
    monkeypatch.setenv("NOTIFY_SOCKET", str(heard))
    monkeypatch.setenv("WATCHDOG_USEC", "200000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    _run_briefly(tmp_path, monkeypatch, use_socket=False)
    messages = []
    listener.settimeout(0.2)
    try:
        while True:
            messages.append(listener.recv(4096).decode())
    except socket.timeout:
        pass
    listener.close()
    assert messages[0].startswith("READY=1") and "WATCHDOG=1" in messages and messages[-1] == "STOPPING=1", messages


def test_the_textfile_is_prometheus_text_written_whole(tmp_path, monkeypatch):
    prom = tmp_path / "idlewise.prom"
    _run_briefly(tmp_path, monkeypatch, use_socket=False, textfile=str(prom))
    text = prom.read_text()
    assert text.endswith("\n") and "# HELP idlewise_disk_model_energy_joules" in text
    samples = [line for line in text.splitlines() if not line.startswith("#")]
    assert all(len(line.rsplit(" ", 1)) == 2 and float(line.rsplit(" ", 1)[1]) >= 0 for line in samples), samples
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".idlewise-")], "no temporary file left"


def test_a_log_that_cannot_be_written_mid_run_is_said_once_and_the_run_goes_on(tmp_path, monkeypatch):
    # A full disk under the log: its write raised through the poll, and again in the note that
    # said so, which ended the manager (found by hand on a full tmpfs: at the start it said only
    # "[Errno 28] No space left on device").
    import errno

    from idlewise.manage import loop, paths

    full = {"on": False}
    real_open = paths.open_log

    class Flaky:
        def __init__(self, f):
            self.f = f

        def write(self, text):
            if full["on"]:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.f.write(text)

        def close(self):
            self.f.close()

        def fileno(self):
            return self.f.fileno()

    monkeypatch.setattr(paths, "open_log", lambda path, **kw: Flaky(real_open(path, **kw)))
    said = []
    log = loop._Log(str(tmp_path / "m.jsonl"), said.append, keep=3)
    log({"time_s": 0.0, "start": 1})
    full["on"] = True
    for t in (1.0, 2.0, 3.0):
        log({"time_s": t})
    full["on"] = False
    log({"time_s": 9.0})
    notes = [r["note"] for r in said if "note" in r]
    assert len(notes) == 2 and "cannot be written (No space left on device)" in notes[0] and "written again" in notes[1], notes
    assert [json.loads(line)["time_s"] for line in (tmp_path / "m.jsonl").read_text().splitlines()] == [0.0, 9.0]
    assert [r["time_s"] for r in said if "note" not in r] == [0.0, 1.0, 2.0, 3.0, 9.0]  # standard output had every line
    assert [r["time_s"] for r in log.decisions] == [2.0, 3.0, 9.0]  # a run without an end keeps its last lines
    log.close()
    # At the start, the same is an error naming the log.
    full["on"] = True
    with pytest.raises(IdlewiseError, match="m2.jsonl: the log cannot be written: No space left on device"):
        loop._Log(str(tmp_path / "m2.jsonl"), None)({"time_s": 0.0})


def test_a_textfile_that_cannot_be_written_is_said_once_and_the_disk_is_managed_all_the_same(tmp_path, monkeypatch):
    # A link planted at the textfile's path: refused (its target untouched), and every poll
    # said "a poll failed and was skipped", one line a poll, though the disk was managed.
    target = tmp_path / "victim"
    target.write_text("precious\n")
    prom = tmp_path / "idlewise.prom"
    prom.symlink_to(target)
    log = tmp_path / "log.jsonl"
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "diskstats").write_text("   8      16 sdb 10 0 80 0 0 0 0 0 0 20 0\n")
    monkeypatch.setenv("IDLEWISE_PROCFS_ROOT", str(proc))
    decisions = run(["sdb"], "timeout:0.3s", device="hitachi-microdrive-1gb", interval_s=0.05, duration_s=0.8,
                    check_interval_s=0.0, use_socket=False, textfile=str(prom), log=str(log))
    assert [d["to_mode"] for d in decisions if "outcome" in d][:1] == ["standby"]  # managed: spun down (a dry run)
    notes = [json.loads(line).get("note", "") for line in log.read_text().splitlines()]
    assert sum("the textfile was not written" in n for n in notes) == 1, notes
    assert not [n for n in notes if "poll failed" in n], notes
    assert target.read_text() == "precious\n" and prom.is_symlink()


def test_an_interfaces_traffic_feeds_a_network_cards_model_and_its_power_save_is_commanded(tmp_path, monkeypatch):
    """An 802.11 interface: its byte counters in /proc/net/dev are the card's transfers; the
    policy's move into PSM is `iw dev IF set power_save on` (seed 000's CAM/PSM), logged in a
    dry run."""
    from idlewise.manage import NetCounters
    from idlewise.manage.loop import _interval

    t, size, write, service = next(_interval("wlan0", 10.0, 11.0, NetCounters(1_000, 50), NetCounters(6_000, 350)))
    assert t.tolist() == [10.25, 10.75] and size.tolist() == [5_000, 300] and write.tolist() == [False, True]
    assert service is None  # a card reports no busy time: its model serves the transfers
    assert len(next(_interval("wlan0", 10.0, 11.0, NetCounters(1_000, 50), NetCounters(1_000, 50)))[0]) == 0
    proc = tmp_path / "proc"
    (proc / "net").mkdir(parents=True)
    (proc / "diskstats").write_text("   8      16 sdb 10 0 80 0 0 0 0 0 0 0 0\n")
    (proc / "net" / "dev").write_text(
        "Inter-|   Receive                                                |  Transmit\n"
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
        "wlan0: 30777 199 0 0 0 0 0 0 3077 19 0 0 0 0 0 0\n")
    monkeypatch.setenv("IDLEWISE_PROCFS_ROOT", str(proc))
    decisions = run(["wlan0"], "timeout:0.3s", device="cisco-350", interval_s=0.05, duration_s=1.0, use_socket=False,
                    check_interval_s=0.0)
    moves = [d for d in decisions if "outcome" in d]
    assert moves and moves[0]["to_mode"] == "psm" and moves[0]["outcome"] == "dry-run"
    assert moves[0]["command"] == "iw dev wlan0 set power_save on"
    sysfs = tmp_path / "sys"
    (sysfs / "class" / "net" / "wlan0").mkdir(parents=True)
    monkeypatch.setenv("IDLEWISE_SYSFS_ROOT", str(sysfs))
    with pytest.raises(IdlewiseError, match="network interface: name its card's model with --device"):
        prepare(settings("wlan0"))


def _backing_disk(path: Path):
    """The /proc/diskstats name of the whole disk holding ``path``, or None (overlay, tmpfs)."""
    st = os.stat(path)
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    for line in Path("/proc/diskstats").read_text().splitlines():
        f = line.split()
        if int(f[0]) == major and int(f[1]) == minor:
            name = f[2]
            sys_block = Path("/sys/class/block") / name
            if (sys_block / "partition").exists():
                return sys_block.resolve().parent.name
            return name
    return None


@pytest.mark.skipif(not Path("/proc/diskstats").exists(), reason="Linux only")
def test_a_dry_run_on_this_machines_disk_sees_a_direct_write(tmp_path):
    """The live test: a dry run on the disk under tmp_path while the test writes to it with
    O_DIRECT: a would-be spin-down after the timeout, and the wake-up at the write."""
    disk = _backing_disk(tmp_path)
    if disk is None:
        pytest.skip("the test directory is on no block device (tmpfs or overlay)")
    log = tmp_path / "log.jsonl"
    env = {**os.environ, "PYTHONPATH": str(Path(idlewise.__file__).parents[1])}
    child = subprocess.Popen([sys.executable, "-m", "idlewise", "manage", "run", disk, "--policy", "timeout:0.3s",
                              "--device", "hitachi-travelstar-5k320", "--interval", "50ms", "--for", "6s", "--log", str(log),
                              "--socket", str(tmp_path / "s.sock"), "--check-interval", "0s"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(3.0)
    written = time.time()
    subprocess.run(["dd", "if=/dev/zero", f"of={tmp_path / 'direct'}", "bs=4096", "count=4", "oflag=direct", "status=none"],
                   check=True)
    _, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    start = next(line for line in lines if "start" in line)["start"]
    decisions = [d for d in lines if "outcome" in d and "acted_s" in d]
    downs = [d for d in decisions if d["outcome"] == "dry-run"]
    if not downs:
        pytest.skip(f"/dev/{disk} was never idle for 0.3 s in 3 s (other I/O on this machine)")
    assert all(d["command"] and d["to_mode"] == "standby" for d in downs)
    w = written - start
    before = [d for d in decisions if d["acted_s"] <= w]
    if before and before[-1]["to_mode"] == "standby":
        # Down when the write came: the write wakes it, logged at the next poll or so.
        assert any(d["outcome"] == "by the drive" and w - 0.1 <= d["acted_s"] <= w + 0.5 for d in decisions), (w, decisions)
    else:
        # Ready (other I/O woke it): the write restarts the idle clock, so no spin-down comes
        # sooner than the timeout after it.
        assert all(d["time_s"] >= w + 0.3 - 0.1 for d in downs if d["time_s"] > w - 0.05), (w, decisions)
    assert all(d["time_s"] <= d["acted_s"] <= d["time_s"] + 0.05 + 0.25 for d in downs)
