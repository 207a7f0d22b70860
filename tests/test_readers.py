"""Every reader on small files with known contents, format recognition, Parquet round trip, and
the bad inputs issue 3 lists (each with a clear error or warning)."""

import warnings

import numpy as np
import pytest

import idlewise
from conftest import SRT, SPC_ASCII, DISKSIM
from idlewise import TraceError
from idlewise.traces import TraceWarning, detect_format, read_trace, write_parquet

SAMPLES = {
    "disksim": ("0.000000\t1\t100\t8\t1\n12.5\t0\t200\t16\t0\n30.25\t1\t300\t8\t1\n",
                [0.0, 0.0125, 0.03025], [100 * 512, 200 * 512, 300 * 512], [4096, 8192, 4096], [0, 1, 0], [1, 0, 1]),
    "spc": ("0,20941264,8192,W,0.551706\n1,20939840,4096,r,0.554041\n0,20939848,4096,R,0.556\n",
            [0.551706, 0.554041, 0.556], [20941264 * 512, 20939840 * 512, 20939848 * 512], [8192, 4096, 4096], [1, 0, 0], [0, 1, 0]),
    "spc-ascii": ("0 0 303567 7 0\n26214000 1 55590 6 1\n259601203125 8 146550 1 0\n",
                  [0.0, 0.026214, 259.601203125], [303567 * 512, 55590 * 512, 146550 * 512], [3584, 3072, 512], [1, 0, 1], [0, 1, 8]),
    "msr": ("128166372003061629,hm,0,Write,7014912,4096,26\n128166372013061629,hm,1,Read,4096,512,10\n128166372013061630,hm,0,Read,0,1024,10\n",
            [0.0, 1.0, 1.0000001], [7014912, 4096, 0], [4096, 512, 1024], [1, 0, 0], [0, 1, 0]),
    "alibaba": ("7,R,4096,8192,1000000\n7,W,0,4096,1500000\n9,R,512,512,2000000\n",
                [0.0, 0.5, 1.0], [4096, 0, 512], [8192, 4096, 512], [0, 1, 0], [7, 7, 9]),
    "tencent": ("1538323200,100,8,0,1234\n1538323201,200,16,1,1234\n1538323205,50,1,0,99\n",
                [0.0, 1.0, 5.0], [51200, 102400, 25600], [4096, 8192, 512], [0, 1, 0], [1234, 1234, 99]),
    "blkparse": ("  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]\n"
                 "  8,0    3        2     0.000010000   697  G   W 223490 + 8 [kjournald]\n"
                 "  8,0    3        3     0.000020000   697  D   W 223490 + 8 [kjournald]\n"
                 "  8,16   0        4     0.500000000   812  Q   R 1000 + 16 [cat]\n"
                 "  8,0    1        5     0.700000000   812  Q  FWS 0 + 0 [sync]\n"
                 "  8,0    3        6     0.900000000   697  C   W 223490 + 8 [0]\n"
                 "CPU0 (8,0):\n Reads Queued:           0,        0KiB\n",
                 [0.0, 0.5], [223490 * 512, 1000 * 512], [4096, 8192], [1, 0], [8 * 256, 8 * 256 + 16]),
    "fiu": ("89966527181059 4121 syslogd 904994888 8 W 6 0 531de8ebfe9e14f5ef4a65bcd0bc1b8b\n"
            "89966777181059 4121 syslogd 904994896 16 R 6 0 0123456789abcdef0123456789abcdef\n"
            "89967527181059 2150 nfsd 88 8 W 8 16 fedcba9876543210fedcba9876543210\n",
            [0.0, 0.25, 1.0], [904994888 * 512, 904994896 * 512, 88 * 512], [4096, 8192, 4096], [1, 0, 1], [1536, 1536, 2064]),
    "csv": ("time_s,offset_bytes,size_bytes,op\n0.0,0,4096,R\n1.5,4096,512,W\n2.0,8192,1024,R\n",
            [0.0, 1.5, 2.0], [0, 4096, 8192], [4096, 512, 1024], [0, 1, 0], None),
}


@pytest.mark.parametrize("fmt", SAMPLES)
def test_each_reader_exactly(tmp_path, fmt):
    body, times, offsets, sizes, writes, streams = SAMPLES[fmt]
    path = tmp_path / f"sample.{fmt}"
    path.write_text(body)
    assert detect_format(path) == fmt
    t = read_trace(path)
    assert t.format == fmt
    np.testing.assert_allclose(t.time_s, times, rtol=0, atol=1e-9)
    assert list(t.offset_bytes) == offsets
    assert list(t.size_bytes) == sizes
    assert list(t.is_write) == writes
    assert (t.stream is None and streams is None) or list(t.stream) == streams


def test_blkparse_reports_what_it_skipped(tmp_path):
    path = tmp_path / "b.txt"
    path.write_text(SAMPLES["blkparse"][0])
    t = read_trace(path)
    assert t.skipped == {"events of other actions": 2, "events without data (flushes, barriers)": 1,
                         "summary lines": 2, "D events (arrivals are taken from Q events)": 1}
    assert t.records_read == 8
    assert "skipped" in t.read_report()


def test_real_bundled_traces_match_their_readme():
    srt = read_trace(SRT)
    assert (len(srt), int(len(srt) - srt.is_write.sum()), int((srt.stream == 0).sum())) == (44519, 13040, 42252)
    disksim = read_trace(DISKSIM)
    assert (len(disksim), int(len(disksim) - disksim.is_write.sum()), len(disksim.streams())) == (100000, 79634, 14)
    spc = read_trace(SPC_ASCII)
    assert (len(spc), int(len(spc) - spc.is_write.sum())) == (10000, 4077)
    assert spc.span_s == pytest.approx(259.6, abs=0.1)


def test_parquet_round_trip_is_identical(tmp_path):
    t = read_trace(DISKSIM)
    out = tmp_path / "t.parquet"
    write_parquet(t, out)
    back = read_trace(out)
    for column in ("time_s", "offset_bytes", "size_bytes", "is_write", "stream"):
        a, b = getattr(t, column), getattr(back, column)
        assert a.dtype == b.dtype and np.array_equal(a, b), column


def test_parquet_missing_column(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = tmp_path / "m.parquet"
    pq.write_table(pa.table({"time_s": [0.0], "size_bytes": [1]}), path)
    with pytest.raises(TraceError, match="missing column\\(s\\) offset_bytes, is_write"):
        read_trace(path)


def test_truncated_text_line_names_the_line(tmp_path):
    path = tmp_path / "cut.trace"
    path.write_text(SAMPLES["disksim"][0] + "40.0\t1\t77")
    with pytest.raises(TraceError, match="line 4: expected 5 fields"):
        read_trace(path, format="disksim")


def test_binary_given_as_text_and_empty(tmp_path):
    path = tmp_path / "bin.csv"
    path.write_bytes(bytes(range(256)))
    with pytest.raises(TraceError, match="binary"):
        read_trace(path)
    with pytest.raises(TraceError, match="binary"):
        read_trace(path, format="msr")
    empty = tmp_path / "e.csv"
    empty.write_text("")
    with pytest.raises(TraceError, match="empty"):
        read_trace(empty)


def test_columns_in_the_wrong_order_are_refused(tmp_path):
    # MSR fields with Type and DiskNumber swapped: recognised as nothing, and forced MSR names the field.
    path = tmp_path / "swap.csv"
    path.write_text("128166372003061629,hm,Write,0,7014912,4096,26\n")
    with pytest.raises(TraceError, match="pass --format"):
        read_trace(path)
    with pytest.raises(TraceError, match="line 1, field 'disk': expected a disk number, got 'Write'"):
        read_trace(path, format="msr")


def test_ambiguous_whitespace_integers_are_refused(tmp_path):
    path = tmp_path / "a.trace"
    path.write_text("0 0 10 8 1\n5 0 20 8 0\n")
    with pytest.raises(TraceError, match="--format disksim or --format spc-ascii"):
        read_trace(path)
    assert len(read_trace(path, format="disksim")) == 2


def test_one_request_trace_simulates(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("time_s,offset_bytes,size_bytes,op\n3.0,0,4096,R\n")
    r = idlewise.simulate(read_trace(path), "hitachi-microdrive-1gb", ["breakeven"])[0]
    assert r["requests"] == 1 and r["wakeups"] == 0


def test_warnings_for_zero_sizes_and_implausible_spans(tmp_path):
    with pytest.warns(TraceWarning, match="size 0"):
        idlewise.Trace.from_arrays([0.0, 1.0], [0, 10])
    # Microseconds read as seconds-scale nanoseconds: 100 requests within 1e-6 s.
    with pytest.warns(TraceWarning, match="time unit"):
        idlewise.Trace.from_arrays(np.arange(100) * 1e-8, np.full(100, 512))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        idlewise.Trace.from_arrays(np.arange(100) * 1.0, np.full(100, 512))


def test_stream_selection(tmp_path):
    t = read_trace(SRT, stream=1)
    assert len(t) == 2267 and t.stream is None
    with pytest.raises(TraceError, match="streams present: 0, 1"):
        read_trace(SRT, stream=7)
