"""biosnoop output streamed (issue 62): biosnoop lists a request when it completes, so a file is
put in arrival order as it is read, holding only the requests still in flight. Every row, the
read report and the requests themselves are, bit for bit, those of the same file read whole and
sorted, over generated outputs of many shapes: one disk and several, long and short latencies,
the queued column, CSV, completions a little out of order (events of several CPUs), flushes,
biosnoop's own messages, ties in arrival time."""

import re

import numpy as np
import pytest

import idlewise
from idlewise import TraceError
from idlewise.cli import main
from idlewise.traces.readers import read_biosnoop
from idlewise.traces.readers.biosnoop import BiosnoopBatches

from test_recordings_streamed import same_rows


def generated(path, rng, *, disks=("sda",), requests=600, queued=False, csv=False, longest_ms=50.0, slow_every=0,
              cpu_jitter_s=0.0, ties=False):
    """biosnoop output of ``requests`` requests on ``disks``: arrivals in bursts and gaps, each
    completing after a latency up to ``longest_ms`` (a multi-second one every ``slow_every``),
    listed in completion order give or take ``cpu_jitter_s``."""
    arrivals = np.cumsum(np.where(rng.random(requests) < 0.05, rng.exponential(20.0, requests),
                                  rng.exponential(0.004, requests)))
    if ties:
        arrivals = np.round(arrivals, 2)  # many requests issued in the same hundredth of a second
    latency_ms = rng.uniform(0.05, longest_ms, requests)
    if slow_every:
        latency_ms[::slow_every] = rng.uniform(1000, 9000, len(latency_ms[::slow_every]))  # a wake-up, a retry
    queue_ms = rng.uniform(0, 3, requests) if queued else np.zeros(requests)
    completed = arrivals + (latency_ms + queue_ms) / 1000.0
    listed = np.argsort(completed + rng.uniform(0, cpu_jitter_s, requests), kind="stable")
    header = ["TIME(s)", "COMM", "PID", "DISK", "T", "SECTOR", "BYTES", *(["QUE(ms)"] if queued else []), "LAT(ms)"]
    sep = "," if csv else " "
    lines = [] if csv else ["Tracing block device I/O... Hit Ctrl-C to end."]
    lines.append(sep.join(header))
    for i in listed:
        comm = "kworker/u4:2" if csv or rng.random() < 0.7 else "Web Content"
        flags = rng.choice(["R", "W", "RA", "WS", "D"])
        fields = [f"{completed[i]:.9f}", comm, str(int(rng.integers(1, 5000))), str(rng.choice(disks)), flags,
                  str(int(rng.integers(0, 1 << 29))), str(int(rng.integers(1, 256)) * 512),
                  *([f"{queue_ms[i]:.3f}"] if queued else []), f"{latency_ms[i]:.3f}"]
        lines.append(sep.join(fields))
        if rng.random() < 0.02:
            lines.append(sep.join([f"{completed[i]:.9f}", "jbd2/sda1-8", "400", str(disks[0]), "FWS",
                                   "18446744073709551615", "0", *(["0.0"] if queued else []), "0.5"]))
        if not csv and rng.random() < 0.005:
            lines.append("Possibly lost 3 samples")
    path.write_text("\n".join(lines) + "\n")
    return path


SHAPES = [
    (1, {}),
    (2, {"disks": ("sda", "nvme0n1", "sdb")}),
    (3, {"queued": True, "csv": True}),
    (4, {"slow_every": 97, "disks": ("sda", "sdb")}),
    (5, {"cpu_jitter_s": 0.002, "longest_ms": 5.0}),
    (6, {"ties": True, "disks": ("sda", "sdb")}),
    (7, {"requests": 3000, "slow_every": 500, "cpu_jitter_s": 0.001, "queued": True}),
]
POLICIES = ["timeout:2s", "timeout:30s", "breakeven", "stpm:knob=50", "experts", "oracle"]
DEVICE = "hitachi-travelstar-5k320"


@pytest.mark.parametrize("seed, shape", SHAPES)
def test_streamed_requests_are_the_whole_read_s_bit_for_bit(tmp_path, seed, shape):
    path = generated(tmp_path / "io.txt", np.random.default_rng(seed), **shape)
    trace = read_biosnoop(path)
    batches = BiosnoopBatches(path, batch_records=37)  # batches cut anywhere
    t, o, s, w, v, service, lines = (np.concatenate(c) if c[0] is not None else None for c in zip(*batches))
    assert service is None
    assert lines.tolist() == trace.lines.tolist()  # each request's own line, out of order as arrivals are
    assert t.tobytes() == trace.time_s.tobytes()
    assert o.tolist() == trace.offset_bytes.tolist() and s.tolist() == trace.size_bytes.tolist()
    assert w.astype(bool).tolist() == trace.is_write.astype(bool).tolist()
    assert v.tolist() == (trace.stream.tolist() if trace.stream is not None else [0] * len(trace))
    assert batches.records_moved == trace.records_moved > 0
    assert batches.records_read == trace.records_read and batches.skipped == trace.skipped
    assert batches.names == trace.stream_names


@pytest.mark.parametrize("seed, shape", SHAPES)
def test_a_streamed_biosnoop_file_gives_the_whole_read_s_rows_and_report(tmp_path, seed, shape):
    path = generated(tmp_path / "io.txt", np.random.default_rng(seed), **shape)
    trace = idlewise.read_trace(path)
    whole = idlewise.simulate(trace, DEVICE, POLICIES, progress=False)
    streamed = idlewise.simulate_file(path, DEVICE, POLICIES, progress=False)
    same_rows(whole.to_dicts(), streamed.to_dicts())
    assert trace.read_report() == streamed.to_dicts()[0]["read_report"]
    disks = shape.get("disks", ())
    for picked in (disks[1:2] or ()) + (("0",) if len(disks) > 1 else ()):
        trace = idlewise.read_trace(path, stream=picked)
        one = idlewise.simulate(trace, DEVICE, POLICIES, progress=False).to_dicts()
        by_name = idlewise.simulate_file(path, DEVICE, POLICIES, stream=picked, progress=False)
        # A device picked keeps its number and name in a streamed row, as the command line's
        # whole read says them (a whole trace's one device has neither).
        number, = trace.stream_names
        assert {(r["stream"], r["stream_name"]) for r in by_name} == {(number, trace.stream_names[number])}
        same_rows([{**r, "stream": number} for r in one], by_name.to_dicts())
        assert trace.name == by_name.trace_name
        assert trace.read_report() == by_name.to_dicts()[0]["read_report"]


def test_memory_holds_only_the_requests_in_flight(tmp_path):
    # 20,000 requests of at most 50 ms, ~250 a second: the heap holds the few issued within
    # twice the longest latency of the latest completion, not the file.
    path = generated(tmp_path / "io.txt", np.random.default_rng(8), requests=20_000)
    batches = BiosnoopBatches(path)
    assert sum(len(b[0]) for b in batches) == 20_000
    assert 0 < batches.most_held < 200


def test_the_command_line_streams_biosnoop_and_names_the_disk(tmp_path, capsys):
    path = generated(tmp_path / "io.txt", np.random.default_rng(9), disks=("sda", "sdb"))
    assert main(["simulate", str(path), "--device", DEVICE, "--policy", "timeout:5s", "--stream", "sdb", "--json"]) == 0
    out = capsys.readouterr()
    rows = __import__("json").loads(out.out)
    assert {(r["trace"], r["stream"], r["stream_name"]) for r in rows} == {("io.txt", 1, "sdb")}
    assert "records of other devices (kept device 1)" in rows[0]["read_report"]


def test_a_disk_the_file_does_not_hold_is_refused_naming_those_it_does(tmp_path):
    path = generated(tmp_path / "io.txt", np.random.default_rng(10), disks=("sda", "sdb"))
    with pytest.raises(TraceError, match=r"io.txt: no records for stream sdz; streams present: 0 \(sda\), 1 \(sdb\)"):
        idlewise.simulate_file(path, DEVICE, ["timeout:5s"], stream="sdz", progress=False)


@pytest.mark.parametrize("disks", [("sda",), ("sda", "sdb")])
def test_an_error_names_the_line_a_whole_read_names(tmp_path, disks):
    # Sectors beyond a 100 GB disk: the first request (in arrival order) past its end is named
    # by its line in the file, streamed as read whole, though the lines come out of order.
    path = generated(tmp_path / "io.txt", np.random.default_rng(11), disks=disks, slow_every=50)
    errors = []
    for run in (lambda: idlewise.simulate(idlewise.read_trace(path), "hitachi-travelstar-e7k100", ["timeout:2s"], progress=False),
                lambda: idlewise.simulate_file(path, "hitachi-travelstar-e7k100", ["timeout:2s"], progress=False)):
        with pytest.raises(idlewise.IdlewiseError) as e:
            run()
        errors.append(str(e.value))
    whole, streamed = errors
    assert "line " in whole and "beyond device" in whole
    if len(disks) == 1:
        assert streamed == whole
    else:  # a multi-device trace read whole is replayed device by device; each names its line
        assert re.search(r"line \d+, field 'offset_bytes'", streamed) and "record" not in streamed
