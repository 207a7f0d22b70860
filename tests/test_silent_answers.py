"""Answers that were wrong without a word (issue 39): each test here failed on the code before
its fix. The class behind each (the oracle lowest with idle at both ends, conversions that keep
what a replay depends on, devices keyed uniquely, two inputs two rows, nothing lost from a pipe)
is tested over generated inputs where it can be."""

import json
import zlib

import numpy as np
import pytest

import idlewise
from idlewise.advisor import advise
from idlewise.cli import main
from idlewise.traces import read_trace

POLICIES = ["always-on", "timeout:0s", "timeout:2s", "timeout:30s", "breakeven", "stpm:knob=50", "hd-idle:10s", "oracle"]


def diskstats_line(t, name, reads=0, read_sectors=0, writes=0, write_sectors=0, major=252, minor=0):
    return f"{t} {major} {minor} {name} {reads} 0 {read_sectors} 0 {writes} 0 {write_sectors} 0 0 0 0\n"


def busy_then_idle(path, busy_s=100, idle_until_s=86_400, lead_s=0):
    """A recording of vda: `lead_s` idle, I/O every 10 s for `busy_s`, then idle until `idle_until_s`."""
    lines, reads, writes = [], 0, 0
    for t in range(0, busy_s + 1):
        if t % 10 == 0 and t:
            reads, writes = reads + 5, writes + 3
        lines.append(diskstats_line(1_700_000_000 + lead_s + t, "vda", reads, reads * 16, writes, writes * 16))
    if lead_s:
        lines.insert(0, diskstats_line(1_700_000_000, "vda"))
    lines.append(diskstats_line(1_700_000_000 + idle_until_s, "vda", reads, reads * 16, writes, writes * 16))
    path.write_text("".join(lines))
    return str(path)


@pytest.mark.parametrize("device", ["hitachi-travelstar-5k320", "wd-red-plus-4tb", "hitachi-microdrive-1gb"])
def test_the_oracle_spends_a_recordings_last_day_of_idle_at_its_cheapest(tmp_path, device):
    trace = read_trace(busy_then_idle(tmp_path / "day.diskstats"))
    assert trace.idle_tail_s > 86_000
    rows = idlewise.simulate(trace, device, POLICIES).to_pandas().set_index("policy")
    oracle = rows.loc["oracle", "energy_j"]
    # The oracle sleeps through the day: a sliver of always-on's energy, and no policy below it.
    assert oracle < 0.2 * rows.loc["always-on", "energy_j"]
    # The oracle is the least energy of the schedules that delay no request (docs/semantics.md:
    # a policy that makes requests wait for a wake-up may buy energy below it with that delay).
    for policy, row in rows.iterrows():
        if row["delayed_requests"] == 0:
            assert oracle <= row["energy_j"] * (1 + 1e-9), policy
            assert row["energy_vs_oracle"] >= 1 - 1e-9, policy


def test_the_advisor_never_says_the_optimum_saves_less_than_a_setting(tmp_path):
    path = busy_then_idle(tmp_path / "day.diskstats")
    advice = advise(path, "hitachi-travelstar-5k320", progress=False)
    best = max(row["kwh_saved_per_year"] for row in advice["candidates"])
    assert advice["oracle_kwh_saved_per_year"] >= best * (1 - 1e-9) > 10


def recording(path, devices, seed, lead_s=0, tail_s=3_600):
    """A diskstats recording of several devices over generated activity: `lead_s` idle, a few
    minutes of random I/O on each device, then `tail_s` idle."""
    rng = np.random.default_rng(seed)
    counters = {name: [0, 0, 0, 0] for name, _, _ in devices}
    lines = []
    times = sorted({0, *range(lead_s + 1, lead_s + 300, int(rng.integers(1, 5))), lead_s + 300 + tail_s})
    for i, t in enumerate(times):
        for name, major, minor in devices:
            if 0 < i < len(times) - 1 and rng.random() < 0.3:
                c = counters[name]
                reads, writes = int(rng.integers(0, 20)), int(rng.integers(0, 20))
                c[0] += reads; c[1] += reads * int(rng.integers(1, 64)); c[2] += writes; c[3] += writes * 8
            r, rs, w, ws = counters[name]
            lines.append(diskstats_line(1_600_000_000 + t, name, r, rs, w, ws, major=major, minor=minor))
    path.write_text("".join(lines))
    return str(path)


def run_rows(argv, capsys):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


KEEP = ("stream_name", "policy", "requests", "energy_j", "makespan_s", "mean_response_s", "wakeups")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("devices", [[("vda", 252, 0)], [("sda", 8, 0), ("loop256", 7, 256), ("dm-256", 253, 256)]])
def test_a_converted_recording_replays_as_the_recording(tmp_path, capsys, seed, devices):
    source = recording(tmp_path / "r.diskstats", devices, seed, lead_s=int(seed) * 500, tail_s=[0, 60, 3_600, 86_400][seed])
    converted = str(tmp_path / "r.parquet")
    assert main(["trace", "convert", source, converted]) == 0
    capsys.readouterr()
    policies = ["--policy", "always-on", "--policy", "timeout:5s", "--policy", "oracle"]
    for name, _, _ in devices:
        pick = ["--stream", name] if len(devices) > 1 or seed % 2 else []
        direct = run_rows(["simulate", source, "--device", "hitachi-travelstar-5k320", *policies, *pick], capsys)
        after = run_rows(["simulate", converted, "--device", "hitachi-travelstar-5k320", *policies, *pick], capsys)
        assert [{k: r.get(k) for k in KEEP} for r in after] == [{k: r.get(k) for k in KEEP} for r in direct]
    whole = run_rows(["simulate", source, "--device", "hitachi-travelstar-5k320", *policies], capsys)
    assert {r.get("stream_name") for r in whole} >= ({n for n, _, _ in devices} if len(devices) > 1 else set())
    assert [{k: r.get(k) for k in KEEP} for r in run_rows(["simulate", converted, "--device", "hitachi-travelstar-5k320", *policies], capsys)] \
        == [{k: r.get(k) for k in KEEP} for r in whole]


# Every reader that keys devices by a Linux major,minor pair, writing one record of the device.
def _blkparse(t, major, minor):
    return f"{major},{minor} 0 1 {t:.9f} 100 Q R 2048 + 8 [p]\n"


def _fiu(t, major, minor):
    return f"{int(t * 1e9) + 1_000_000_000} 100 p 2048 8 R {major} {minor} 0123456789abcdef0123456789abcdef\n"


def _diskstats_devices(pairs):
    lines = []
    for t in (0, 1, 2):
        for k, (major, minor) in enumerate(pairs):
            n = t * (k + 1)
            lines.append(diskstats_line(1_000 + t, f"d{k}", n, n * 8, 0, 0, major=major, minor=minor))
    return "".join(lines)


PAIRS = st_pairs = [(8, 0), (8, 256), (9, 0), (7, 256), (253, 256), (252, 0), (259, 1), (259, 65_536), (4_095, 1_048_575),
                    (4_096, 0), (0, 4_096)]


@pytest.mark.parametrize("format", ["blkparse", "fiu", "diskstats"])
def test_every_reader_keys_distinct_devices_apart(tmp_path, format):
    # Pairs that major*256 + minor would merge (8,256 and 9,0; 7,256 and 8,0; ...) stay apart,
    # and a device below minor 256 keeps the number blkparse users know (major*256 + minor).
    path = tmp_path / f"t.{format}"
    if format == "diskstats":
        path.write_text(_diskstats_devices(PAIRS))
    else:
        write = _blkparse if format == "blkparse" else _fiu
        path.write_text("".join(write(0.001 * i, major, minor) for i, (major, minor) in enumerate(PAIRS)))
    trace = read_trace(str(path), format=format)
    assert len(trace.streams()) == len(PAIRS)
    numbers = set(trace.streams())
    assert {8 * 256, 9 * 256, 252 * 256, 259 * 256 + 1} <= numbers
    if format == "diskstats":
        assert sorted(trace.stream_names.values()) == sorted(f"d{k}" for k in range(len(PAIRS)))


@pytest.mark.parametrize("format, line", [("blkparse", "-8,0 0 1 0.1 100 Q R 2048 + 8 [p]\n"),
                                          ("fiu", "1000 100 p 2048 8 R 8 -1 0123\n"),
                                          ("fiu", "1000 100 p 2048 8 R 2147483648 0 0123\n")])
def test_a_device_number_out_of_linuxs_range_is_refused(tmp_path, format, line):
    path = tmp_path / f"t.{format}"
    path.write_text(line)
    with pytest.raises(idlewise.IdlewiseError, match=r"line 1\b"):
        read_trace(str(path), format=format)


def test_an_msr_file_of_two_hosts_is_refused_not_merged(tmp_path):
    rows = ["128166372003061629,hm,0,Read,0,4096,100\n", "128166372013061629,prn,0,Write,4096,4096,100\n"]
    path = tmp_path / "two-hosts.csv"
    path.write_text("".join(rows))
    with pytest.raises(idlewise.IdlewiseError, match=r"line 2.*host 'prn' after host 'hm'"):
        read_trace(str(path), format="msr")
    # Large enough to be parsed in parallel chunks: the second host is still found, streamed too.
    big = tmp_path / "big.csv"
    with open(big, "w") as f:
        for i in range(300_000):
            f.write(f"{128166372003061629 + i * 10_000},hm,{i % 3},Read,{i * 4096},4096,100\n")
        f.write(f"{128166372003061629 + 300_000 * 10_000},prn,0,Read,0,4096,100\n")
    with pytest.raises(idlewise.IdlewiseError, match=r"line 300001.*host 'prn'"):
        read_trace(str(big), format="msr")
    with pytest.raises(idlewise.IdlewiseError, match=r"line 300001.*host 'prn'"):
        idlewise.simulate_file(str(big), "hitachi-microdrive-1gb", ["always-on"], progress=False)


def test_two_traces_of_one_name_are_two_groups_of_rows(tmp_path, capsys):
    for folder, gap in (("a", 1.0), ("b", 30.0)):
        (tmp_path / folder).mkdir()
        times = np.arange(20) * gap
        (tmp_path / folder / "t.csv").write_text("time_s,offset_bytes,size_bytes,op\n" + "".join(f"{t},0,4096,R\n" for t in times))
    a, b = str(tmp_path / "a" / "t.csv"), str(tmp_path / "b" / "t.csv")
    rows = idlewise.sweep([a, b], ["hitachi-microdrive-1gb"], ["timeout:2s"], progress=False).to_dicts()
    assert sorted(r["trace"] for r in rows) == ["a/t.csv", "b/t.csv"]
    assert len({r["energy_j"] for r in rows}) == 2
    rows = idlewise.sweep([a, a], ["hitachi-microdrive-1gb"], ["timeout:2s"], progress=False, chunks=False).to_dicts()
    assert [r["trace"] for r in rows] == ["t.csv", "t.csv (2)"]
    assert main(["sweep", a, b, "--device", "hitachi-microdrive-1gb", "--policy", "timeout:2s"]) == 0
    out = capsys.readouterr().out
    assert "a/t.csv" in out and "b/t.csv" in out


def test_a_device_file_that_kept_its_catalog_name_is_its_own_row(tmp_path, capsys):
    assert main(["devices", "hitachi-microdrive-1gb", "--toml"]) == 0
    text = capsys.readouterr().out.replace("power_w = 0.6", "power_w = 0.9", 1)
    edited = tmp_path / "my-disk.toml"
    edited.write_text(text)
    trace = tmp_path / "t.csv"
    trace.write_text("time_s,offset_bytes,size_bytes,op\n" + "".join(f"{t},0,4096,R\n" for t in range(0, 100, 7)))
    rows = idlewise.sweep([str(trace)], ["hitachi-microdrive-1gb", str(edited)], ["timeout:2s"], progress=False).to_dicts()
    assert [r["device"] for r in rows] == ["hitachi-microdrive-1gb", "hitachi-microdrive-1gb (my-disk.toml)"]


def test_a_report_of_an_interrupted_sweeps_rows_says_it_is_partial(tmp_path):
    from idlewise.reporting import report_from_rows
    from idlewise.sweeps import write_rows

    trace = tmp_path / "t.csv"
    trace.write_text("time_s,offset_bytes,size_bytes,op\n" + "".join(f"{t},0,4096,R\n" for t in range(0, 100, 7)))
    results = idlewise.sweep([str(trace)], ["hitachi-microdrive-1gb"], ["timeout:1s", "timeout:2s"], progress=False)
    write_rows(results, str(tmp_path / "runs.partial.parquet"), partial_of="2 of 600 runs")
    write_rows(results, str(tmp_path / "runs.parquet"))
    partial = report_from_rows(tmp_path / "runs.partial.parquet", tmp_path / "p.html").read_text()
    whole = report_from_rows(tmp_path / "runs.parquet", tmp_path / "w.html").read_text()
    assert "PARTIAL" in partial and "2 of 600 runs" in partial and "(partial)" in partial
    assert "PARTIAL" not in whole


def test_the_cache_refuses_a_disk_as_its_network_card():
    from idlewise.system import mail_workload, run_cache

    trace = mail_workload()
    with pytest.raises(idlewise.IdlewiseError, match="not a network card"):
        run_cache(trace, network="hitachi-microdrive-1gb")
    with pytest.raises(idlewise.IdlewiseError, match="is a network card"):
        run_cache(trace, storage="cisco-350")
    assert run_cache(trace)["network"] == "cisco-350"


def test_an_interrupted_sweep_says_at_least_before_every_trace_is_read():
    from idlewise.sweeps import SweepInterrupted

    assert SweepInterrupted([{}] * 296, 1184, exact=False).of_planned == "296 of at least 1,184 runs"
    assert SweepInterrupted([{}] * 296, 5328).of_planned == "296 of 5,328 runs"


@pytest.mark.parametrize("device", ["cmu-mems-g2", "ibm-mems-seed004", "hitachi-microdrive-1gb", "cisco-350",
                                    "samsung-pm981-1tb", "wd-red-plus-4tb", "hitachi-travelstar-5k320"])
def test_the_oracle_is_lowest_on_generated_traces_with_a_tail_on_every_kind_of_device(device):
    # Gaps over six decades, three sizes, reads and writes, and a tail from none to hours: the
    # oracle bounds every run that delays no request (MEMS sleds, network cards, NVMe too).
    rng = np.random.default_rng(zlib.crc32(device.encode()))
    for _ in range(6):
        k = int(rng.integers(5, 300))
        gaps = rng.choice([1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100], k) * rng.uniform(0, 2, k)
        trace = idlewise.Trace.from_arrays(np.cumsum(gaps), rng.choice([512, 4096, 65536], k),
                                           offset_bytes=rng.integers(0, 1000, k) * 4096, is_write=rng.random(k) < 0.3)
        tail = float(rng.choice([0.0, 0.005, 0.5, 30.0, 5000.0]))
        rows = idlewise.simulate(trace, device, ["always-on", "timeout:0s", "timeout:10ms", "timeout:1s", "breakeven", "oracle"],
                                 tail_s=tail).to_dicts()
        oracle = next(r for r in rows if r["policy"] == "oracle")["energy_j"]
        for r in rows:
            if r["delayed_requests"] == 0:
                assert oracle <= r["energy_j"] * (1 + 1e-9) + 1e-9, (tail, r["policy"], oracle, r["energy_j"])


def test_a_recordings_idle_before_its_first_request_is_simulated(tmp_path):
    """Issue 39: a diskstats recording that began idle had its lead dropped: the run began at the
    first request, so a day idle before one burst counted nothing of that day (always-on 0.5 J
    for a recording of 24 h). The run now begins at the recording's start."""
    lines = []
    for k in range(0, 86_400 + 1, 600):
        done = 5 if k >= 80_000 else 0
        lines.append(f"{1_700_000_000 + k} 8 0 sda {done} 0 {done * 8} 0 0 0 0 0 0 0 0\n")
    path = tmp_path / "day.diskstats"
    path.write_text("".join(lines))
    trace = idlewise.read_trace(path)
    # The 5 requests are spread over their 10-minute interval, the first 1 min into it.
    assert trace.idle_lead_s == pytest.approx(79_800 + 60)
    rows = {r["policy"]: r for r in idlewise.simulate(trace, "hitachi-travelstar-5k320", ["always-on", "timeout:60s", "oracle"],
                                                       progress=False).raw_records()}
    ready_w = idlewise.load_device("hitachi-travelstar-5k320").modes[0]["power_w"]
    # Always-on: the whole day at least, at the ready mode's power.
    assert rows["always-on"]["makespan_s"] >= 86_400 and rows["always-on"]["energy_j"] >= 86_400 * ready_w
    # The lead is an idle period like any other: a timeout spins down in it, the oracle plans it.
    # (each of the 5 requests, 2 min apart, finds the disk down: the first after the day's lead)
    assert rows["timeout:1min"]["wakeups"] == 5 and rows["timeout:1min"]["energy_j"] < 0.2 * rows["always-on"]["energy_j"]
    assert rows["oracle"]["energy_j"] <= rows["timeout:1min"]["energy_j"]


def test_a_hybrid_disk_runs_a_recordings_idle_at_both_ends_as_simulate_does(tmp_path):
    """The hybrid engine took neither a recording's lead nor its tail: its plain disk now equals
    simulate's run of the same disk and policy on the recording."""
    lines = [f"{1_700_000_000 + k} 8 0 sda {(k >= 3_000) * 4} 0 {(k >= 3_000) * 32} 0 {(k >= 3_000) * 2} 0 {(k >= 3_000) * 16} "
             "0 0 0 0\n" for k in range(0, 7_201, 60)]
    path = tmp_path / "two-hours.diskstats"
    path.write_text("".join(lines))
    trace = idlewise.read_trace(path)
    assert trace.idle_lead_s > 2_900 and trace.idle_tail_s > 4_000
    plain = idlewise.simulate(trace, "hitachi-travelstar-e7k100", ["experts"], progress=False).raw_records()[0]
    hybrid = idlewise.hybrid(trace, "hitachi-travelstar-e7k100", "sandisk-ultra-ii-cf", policy="experts")[0]
    assert hybrid["plain_disk_energy_j"] == pytest.approx(plain["energy_j"], rel=1e-9)
    assert hybrid["plain_disk_spinups"] == plain["wakeups"]
    # The whole recording (its last completion may differ: the NVCache spares a spin-up).
    assert hybrid["makespan_s"] >= 7_200
