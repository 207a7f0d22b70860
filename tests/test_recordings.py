"""Recording a machine's I/O (issue 11): the diskstats reader on a real recording and on bad input,
`idlewise record`, and biosnoop output."""

import json
import re
import os

import numpy as np
import pytest

import idlewise
from idlewise import TraceError
from idlewise.cli import main
from idlewise.record import record, shell_loop
from idlewise.traces import detect_format, read_trace
from idlewise.traces.readers import read_biosnoop, read_diskstats

from conftest import TRACES

BUILD_VM = str(TRACES / "diskstats" / "build-vm.diskstats")


def line(t, name, reads=0, read_sectors=0, writes=0, write_sectors=0, discards=None, major=8, minor=0):
    fields = [reads, 0, read_sectors, 0, writes, 0, write_sectors, 0, 0, 0, 0]
    if discards is not None:
        fields += [discards[0], 0, discards[1], 0, 0, 0]
    return f"{t} {major:4d} {minor:7d} {name} " + " ".join(map(str, fields)) + "\n"


def write(tmp_path, text, name="sda.diskstats"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_recorded_file_against_its_raw_counters():
    # An independent sum over the file's own counters: every completed read, write and discard
    # between the first and last snapshot of vda is one request, carrying its sectors.
    rows = [ln.split() for ln in open(BUILD_VM) if ln.split()[3] == "vda"]
    first, last = rows[0], rows[-1]
    delta = [int(last[i]) - int(first[i]) for i in range(4, len(first))]
    reads, read_sectors, writes, write_sectors = delta[0], delta[2], delta[4], delta[6]
    discards, discard_sectors = delta[11], delta[13]
    trace = read_trace(BUILD_VM, stream="vda")
    assert len(trace) == reads + writes + discards
    assert int(trace.is_write.sum()) == writes + discards
    assert int(trace.size_bytes[trace.is_write == 0].sum()) == read_sectors * 512
    assert int(trace.size_bytes[trace.is_write == 1].sum()) == (write_sectors + discard_sectors) * 512
    assert trace.end_time_s == pytest.approx(float(last[0]) - float(first[0]), abs=1e-6)
    assert trace.time_s[0] > 0 and trace.time_s[-1] < trace.end_time_s
    assert trace.device_name == "vda" and trace.format == "diskstats"
    assert detect_format(BUILD_VM) == "diskstats"


def test_each_interval_spreads_its_requests_evenly_reads_first(tmp_path):
    path = write(tmp_path, line(100.0, "sda") + line(101.0, "sda", reads=3, read_sectors=10, writes=1, write_sectors=8)
                 + line(103.0, "sda", reads=3, read_sectors=10, writes=1, write_sectors=8)
                 + line(104.0, "sda", reads=3, read_sectors=10, writes=2, write_sectors=9, discards=(1, 7)))
    trace = read_diskstats(path)
    assert trace.time_s.tolist() == pytest.approx([1 / 8, 3 / 8, 5 / 8, 7 / 8, 3 + 1 / 4, 3 + 3 / 4])
    assert trace.is_write.tolist() == [0, 0, 0, 1, 1, 1]
    # 10 sectors over 3 reads: 4, 3, 3; the last interval's write and discard share 1 + 7 sectors.
    assert trace.size_bytes.tolist() == [2048, 1536, 1536, 4096, 2048, 2048]
    assert trace.end_time_s == 4.0 and trace.idle_tail_s == pytest.approx(0.25)
    # The line an error names is the snapshot that closes the interval.
    assert trace.lines.tolist() == [2, 2, 2, 2, 4, 4]


def test_an_idle_tail_is_replayed(tmp_path):
    # One read, then an hour of nothing: the replay runs to the recording's end.
    path = write(tmp_path, line(0.0, "sda") + line(1.0, "sda", reads=1, read_sectors=8) + line(3601.0, "sda", reads=1, read_sectors=8))
    trace = read_diskstats(path)
    always_on = idlewise.simulate(trace, "ibm-microdrive-340mb", ["always-on"], progress=False)[0]
    assert always_on["makespan_s"] == pytest.approx(3601.0 - 0.5, rel=1e-3)


def test_several_devices_are_named_streams(tmp_path):
    text = "".join(line(t, "sda", reads=t, read_sectors=8 * t) + line(t, "sdb", writes=2 * t, write_sectors=8 * t, minor=16)
                   for t in range(4))
    trace = read_diskstats(write(tmp_path, text))
    assert trace.streams() == [2048, 2064] and trace.stream_names == {2048: "sda", 2064: "sdb"}
    sdb = trace.select_stream("sdb")
    assert len(sdb) == 6 and sdb.is_write.all() and sdb.name.endswith("#sdb") and sdb.device_name == "sdb"
    assert len(read_trace(write(tmp_path, text), stream="sda")) == 3
    assert len(read_trace(write(tmp_path, text), stream=2064)) == 6
    with pytest.raises(TraceError, match="no device named 'sdc'"):
        trace.select_stream("sdc")


@pytest.mark.parametrize("text, needle", [
    (line(5, "sda") + line(4, "sda"), "line 2: time 4.0 of sda is not after the previous snapshot's 5.0 (line 1)"),
    (line(5, "sda") + line(5, "sda"), "is not after the previous snapshot's"),
    (line(0, "sda") + line(0, "sdb") + line(1, "sdb") + line(2, "sda") + line(2, "sdb"),
     "line 3: the snapshot at 1.0 has no line for sda (was the disk detached?)"),
    (line(0, "sda") + "1 8 0 sda 1 2 3\n", "line 2: 7 fields"),
    (line(0, "sda") + line(1, "sda").replace(" 0 0 0 0 0 0 0", " 0 0 x 0 0 0 0", 1), "line 2, field 'counter"),
    ("abc" + line(0, "sda")[1:], "line 1, field 'time'"),
    ("inf" + line(0, "sda")[1:], "line 1, field 'time': expected the Unix time in seconds, got 'inf'"),
    (line(0, "sda") + line(1, "sda", reads=1).replace(" 1 ", " \uff11 ", 1), "line 2: not ASCII text"),
    (line(0, "sda"), "a single snapshot"),
    (line(0, "sda", reads=3) + line(1, "sda", reads=3), "no read or write completed on sda in the 1 s recorded"),
    ("", "the recording is empty"),
])
def test_bad_recordings_get_clear_errors(tmp_path, text, needle):
    with pytest.raises(TraceError) as e:
        read_diskstats(write(tmp_path, text))
    assert needle in str(e.value) and "sda.diskstats" in str(e.value)


def test_a_missing_disk_names_those_recorded():
    with pytest.raises(TraceError, match="no device 'sdb' in the recording; devices recorded: vda, zram0"):
        read_trace(BUILD_VM, stream="sdb")


def test_record_on_a_schedule(tmp_path):
    source = tmp_path / "diskstats"
    source.write_text("   8       0 sda 1 0 8 0 0 0 0 0 0 0 0\n   8      16 sdb 0 0 0 0 0 0 0 0 0 0 0\n")
    now = [1000.0]
    out = tmp_path / "sda.diskstats"
    n = record(str(out), disks=["sda"], interval_s=2.0, duration_s=6.0, source=str(source),
               clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
    assert n == 4
    lines = out.read_text().splitlines()
    assert [ln.split()[0] for ln in lines] == ["1000.000000", "1002.000000", "1004.000000", "1006.000000"]
    assert all(ln.split()[3] == "sda" for ln in lines)
    with pytest.raises(idlewise.IdlewiseError, match="no disk sdc; disks present: sda, sdb"):
        record(str(out), disks=["sdc"], source=str(source))


def test_record_without_disk_keeps_the_physical_disks(tmp_path):
    """Without --disk a recording holds the machine's disks, not its loop, zram or device-mapper
    devices nor its partitions (sysfs: a whole disk with a device of its own)."""
    source = tmp_path / "diskstats"
    names = ["loop0", "loop1", "sda", "sda1", "zram0", "dm-0", "nvme0n1", "nvme0n1p1"]
    source.write_text("".join(f"   8 {i} {name} 1 0 8 0 0 0 0 0 0 0 0\n" for i, name in enumerate(names)))
    sys_block = tmp_path / "sys" / "block"
    for name in ("sda", "nvme0n1"):
        (sys_block / name / "device").mkdir(parents=True)
    for name in ("loop0", "loop1", "zram0", "dm-0"):
        (sys_block / name).mkdir(parents=True)
    told = []
    out = tmp_path / "all.diskstats"
    assert record(str(out), source=str(source), interval_s=1.0, duration_s=0.0, sys_block=str(sys_block),
                  chosen=told.append, clock=lambda: 5.0, sleep=lambda s: None) == 1
    assert told == [["nvme0n1", "sda"]]
    assert sorted(line.split()[3] for line in out.read_text().splitlines()) == ["nvme0n1", "sda"]
    only_virtual = tmp_path / "virtual"
    only_virtual.write_text("   7 0 loop0 1 0 8 0 0 0 0 0 0 0 0\n")
    with pytest.raises(idlewise.IdlewiseError, match="no physical disk among loop0 .*--disk NAME"):
        record(str(tmp_path / "v.diskstats"), source=str(only_virtual), sys_block=str(sys_block), duration_s=0.0)


@pytest.mark.skipif(not os.path.exists("/proc/diskstats"), reason="records the machine's own /proc/diskstats: Linux only")
def test_record_this_machine_and_read_it_back(tmp_path, capsys):
    out = tmp_path / "host.diskstats"
    assert main(["record", "--interval", "0.05s", "--duration", "0.2s", "--out", str(out)]) == 0
    assert "5 snapshots" in capsys.readouterr().err  # at 0, 0.05, 0.1, 0.15 and 0.2 s
    from idlewise.record import physical_disks

    devices = physical_disks({ln.split()[2] for ln in open("/proc/diskstats")})
    lines = out.read_text().splitlines()
    times = sorted({float(ln.split()[0]) for ln in lines})
    assert len(times) == 5 and len(lines) == 5 * len(devices)  # every physical disk in every snapshot
    assert 0.15 < times[-1] - times[0] < 1.0
    assert detect_format(str(out)) == "diskstats"
    # Whatever I/O the machine did in those 0.2 s: every completed read, write and discard
    # between the first and last snapshot is one request, as the raw counters say.
    first = {ln.split()[3]: ln.split() for ln in lines[:len(devices)]}
    last = {ln.split()[3]: ln.split() for ln in lines[-len(devices):]}
    done = sum(int(last[d][i]) - int(first[d][i]) for d in devices
               for i in ((4, 8, 15) if len(last[d]) > 15 else (4, 8)))
    if done:
        trace = read_diskstats(str(out))
        assert len(trace) == done
        assert trace.end_time_s == pytest.approx(times[-1] - times[0], abs=1e-6)
    else:
        with pytest.raises(TraceError, match="the disk was idle throughout"):
            read_diskstats(str(out))


def test_the_documented_shell_loop():
    assert shell_loop("sdb", 2) == ("while :; do t=$(date +%s.%N); awk -v t=\"$t\" '$3==\"sdb\" {print t, $0}' "
                                    "/proc/diskstats; sleep 2; done > sdb.diskstats")


# --- biosnoop ---------------------------------------------------------------------------------

BIOSNOOP = """\
Tracing block device I/O... Hit Ctrl-C to end.
TIME(s)     COMM           PID     DISK      T SECTOR     BYTES  LAT(ms)
0.000004    supervise      1950    xvda1     W 13092560   4096      0.74
0.000178    Web Content    1951    xvda1     R 13092432   8192      0.10
0.001469    jbd2/xvda1-8   1956    xvda1     FWS 18446744073709551615 0   1.24
2.500000    kworker/u4:2   77      nvme0n1   RA 2048      65536     1.00
Possibly lost 3 samples
"""


def test_biosnoop_places_requests_at_their_arrival(tmp_path):
    path = write(tmp_path, BIOSNOOP, "io.txt")
    assert detect_format(path) == "biosnoop"
    trace = read_biosnoop(path)
    # Arrival = completion - latency; sorted by arrival, times from the earliest.
    arrivals = np.array([0.000004 - 0.00074, 0.000178 - 0.0001, 2.5 - 0.001])
    assert trace.time_s.tolist() == pytest.approx((arrivals - arrivals.min()).tolist(), abs=1e-12)
    assert trace.size_bytes.tolist() == [4096, 8192, 65536]
    assert trace.offset_bytes.tolist() == [13092560 * 512, 13092432 * 512, 2048 * 512]
    assert trace.is_write.tolist() == [1, 0, 0]
    assert trace.skipped == {"biosnoop messages": 2, "flush-only requests (no data)": 1}
    assert trace.stream_names == {0: "xvda1", 1: "nvme0n1"}
    assert len(trace.select_stream("nvme0n1")) == 1


def test_biosnoop_queued_column_and_csv(tmp_path):
    text = "TIME(s),COMM,PID,DISK,T,SECTOR,BYTES,QUE(ms),LAT(ms)\n1.0,dd,10,sda,R,0,4096,2.0,3.0\n0.5,dd,10,sda,W,8,4096,0.0,0.5\n"
    trace = read_biosnoop(write(tmp_path, text, "io.csv"))
    assert trace.time_s.tolist() == pytest.approx([0.0, 0.995 - 0.4995])
    assert trace.is_write.tolist() == [1, 0] and trace.records_moved == 2 and trace.stream is None


@pytest.mark.parametrize("text, needle", [
    ("TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\n0.1 dd 10 sda R 0 4096\n", "line 2: 7 fields"),
    ("TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\n0.1 dd 10 sda X 0 4096 1.0\n", "line 2, field 'T'"),
    ("TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\n0.1 dd 10 sda R -5 4096 1.0\n", "line 2, field 'SECTOR'"),
    ("TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\nnan dd 10 sda R 0 4096 1.0\n", "line 2, field 'TIME(s)'"),
    ("TIME(ms) DISK COMM PID LAT(ms)\n", "biosnoop header"),
    ("TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\n0.1 dd 10 sda R 0 \uff14096 1.0\n", "line 2, field 'BYTES'"),
    ("TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\n0.1 dd 10 sda R 0 4096 1_0\n", "line 2, field 'LAT(ms)'"),
    ("0.1 dd 10 sda R 0 4096 1.0\n", "line 1: expected biosnoop's header"),
])
def test_bad_biosnoop_output(tmp_path, text, needle):
    with pytest.raises(TraceError) as e:
        read_biosnoop(write(tmp_path, text, "io.txt"))
    assert needle in str(e.value) and "io.txt" in str(e.value)


def test_advice_from_a_short_recording_says_it_is_short_and_extrapolated(capsys):
    # 419 s of a build VM: the read report counts snapshots and the requests they give, and the
    # advice says the year is that recording repeated, in text and in JSON.
    assert main(["advise", BUILD_VM, "--stream", "vda", "--device", "hitachi-travelstar-5k320"]) == 0
    captured = capsys.readouterr()
    assert "read 836 counter snapshots as diskstats, giving 45,558 requests" in captured.err
    assert "45,558 requests recorded over 419.4 s; extrapolated to a year" in captured.out  # first snapshot to last
    assert "the recording covers 419.4 s; every yearly figure repeats it for a year. Record at least a day" in captured.out
    assert main(["advise", BUILD_VM, "--stream", "vda", "--device", "hitachi-travelstar-5k320", "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert advice["recorded_s"] == pytest.approx(419.4, abs=0.05)
    assert any(w.startswith("the recording covers 419.4 s") for w in advice["warnings"])


def test_a_recording_kept_across_a_reboot_replays_the_reset_interval_as_idle_and_counts_it(tmp_path):
    # Before the reboot: 2 reads in the first second. After it (the counters start again): 3 reads.
    text = (line(0, "sda", reads=5, read_sectors=40) + line(1, "sda", reads=7, read_sectors=56)
            + line(500, "sda", reads=1, read_sectors=8) + line(501, "sda", reads=4, read_sectors=32))
    trace = read_diskstats(write(tmp_path, text))
    assert list(trace.time_s) == [0.25, 0.75, 500 + 1 / 6, 500.5, 500 + 5 / 6]
    assert list(trace.size_bytes) == [4096] * 5
    assert trace.skipped == {"intervals across a counter reset (a reboot, a re-attached disk), replayed as idle": 1}
    assert "skipped 1 intervals across a counter reset" in trace.read_report()


def test_record_refuses_to_overwrite_and_appends_when_asked(tmp_path):
    source = tmp_path / "diskstats"
    source.write_text("   8       0 sda 1 0 8 0 0 0 0 0 0 0 0\n")
    out = tmp_path / "sda.diskstats"
    clock = iter(float(t) for t in range(100))
    assert record(str(out), source=str(source), interval_s=1.0, duration_s=1.0, clock=lambda: next(clock), sleep=lambda s: None) == 2
    with pytest.raises(idlewise.IdlewiseError, match="a recording is there already .* --append"):
        record(str(out), source=str(source), interval_s=1.0, duration_s=1.0)
    # The service restarted after a reboot: the counters start again, the file goes on.
    source.write_text("   8       0 sda 0 0 0 0 0 0 0 0 0 0 0\n")
    after = "   8       0 sda 2 0 16 0 0 0 0 0 0 0 0\n"  # two reads during the second second
    assert record(str(out), source=str(source), interval_s=1.0, duration_s=1.0, clock=lambda: next(clock),
                  sleep=lambda s: None, progress=lambda n, t: source.write_text(after), append=True) == 2
    assert len(out.read_text().splitlines()) == 4
    trace = read_diskstats(str(out))
    assert len(trace) == 2 and list(trace.skipped.values()) == [1]  # the interval across the reboot


@pytest.mark.parametrize("text, needle", [
    # Found by benchmarks/fuzz.py: a counter beyond 64 bits, and one that claims 10^16 requests
    # in a second (replaying it asked for petabytes), raised OverflowError and MemoryError.
    (line(0, "sda") + line(1, "sda", reads=10 ** 25), "line 2, field 'counter 1 of sda': expected a whole number of at most 9,223,372,036,854,775,807 (2^63 - 1: the columns are signed 64-bit), got 1" + "0" * 25),
    (line(0, "sda") + line(1, "sda", reads=2 ** 54), "line 2: sda completed 18,014,398,509,481,984 requests in 1 s, more than 1e+08 a second"),
])
def test_counters_no_disk_could_have_are_refused(tmp_path, text, needle):
    with pytest.raises(TraceError, match=re.escape(needle)):
        read_diskstats(write(tmp_path, text))
