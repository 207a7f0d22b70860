"""What a workload looks like before it is simulated: request mix, sizes, and the idle-gap
distribution, with the share of idle time a device's low-power modes could use.

With a device, idle gaps are the ones an always-on device sees (completion to next arrival, from
the engine's own FIFO replay); without one, they are the inter-arrival times. The key number is
the share of total idle time in gaps longer than each mode's break-even time: no policy can save
energy in shorter gaps, so it bounds what any policy could save.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _core
from ..devices import load_device
from ..errors import TraceRecordError
from .describe import counted
from .trace import Trace
from ..output import save_figure
from .inputs import trace_name

#: Log-spaced gap bins, 10 per decade from 1 ms to 10^4 s.
BIN_EDGES_S = np.logspace(-3, 4, 71)


def _outside_bins(gaps: np.ndarray) -> tuple:
    """Which gaps fall below the first bin and which above the last (np.histogram's last bin
    holds its upper edge): counted, with their idle time, beside the histogram."""
    return gaps < BIN_EDGES_S[0], gaps > BIN_EDGES_S[-1]


def idle_gaps_s(trace: Trace, device=None, fold_offsets: bool = False) -> np.ndarray:
    if device is None:
        gaps = np.diff(trace.time_s)
        return gaps[gaps > 0]
    device = load_device(device)
    try:
        return _core.idle_gaps(trace.time_s, trace.offset_bytes, trace.size_bytes, trace.is_write, device,
                               fold_offsets=fold_offsets)
    except TraceRecordError as e:
        raise trace.record_error(e) from None


#: Gaps kept for an exact median; beyond, the median comes from a histogram of 2^-11 relative
#: width (within 0.05 %), so that a trace of any length takes bounded memory.
EXACT_MEDIAN_GAPS = 1 << 24
#: The gap histogram's buckets: the float's exponent and top 11 mantissa bits (as the engine's
#: response histogram).
_MANTISSA_BITS = 11


def _percentile_of_counts(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """NumPy's linear percentile of the multiset ``values`` (sorted, distinct) × ``counts``,
    computed from the counts: the same number np.percentile gives the values laid out."""
    n = int(counts.sum())
    position = (n - 1) * q / 100.0
    lo, frac = int(np.floor(position)), position - np.floor(position)
    cumulative = np.cumsum(counts)
    a = float(values[np.searchsorted(cumulative, lo, side="right")])
    b = float(values[np.searchsorted(cumulative, min(lo + 1, n - 1), side="right")])
    # np.percentile's interpolation, term for term (it subtracts from b past the midpoint).
    return b - (b - a) * (1 - frac) if frac >= 0.5 else a + (b - a) * frac


class TraceStats:
    """:func:`trace_stats` of a single-device trace fed a part at a time in time order (a file
    as it is read), in memory that does not grow with the trace: sizes by their distinct values,
    gaps binned, the median exact for up to :data:`EXACT_MEDIAN_GAPS` gaps."""

    def __init__(self, name: str, device=None, fold_offsets: bool = False):
        self.name = name
        self.device = None if device is None else load_device(device)
        self.gap_stream = None if self.device is None else _core.IdleGapStream(self.device, fold_offsets=fold_offsets)
        self.requests = self.reads = self.bytes_read = self.bytes_written = self.size_sum = 0
        self.first_s = self.last_s = None
        self.sizes: dict = {}
        self.gap_count = self.below = self.above = 0
        self.idle_total = self.below_idle = self.above_idle = 0.0
        self.gap_max = 0.0
        self.bin_counts = np.zeros(len(BIN_EDGES_S) - 1, dtype=np.int64)
        self.bin_idle = np.zeros(len(BIN_EDGES_S) - 1)
        self.modes = [] if self.device is None else [[m["name"], m["break_even_s"], 0, 0.0] for m in self.device.modes[1:]]
        self.kept_gaps: list = []
        self.gap_buckets: dict | None = None

    def push(self, part: Optional[Trace]) -> None:
        if part is None or not len(part):
            return
        if self.device is None:
            times = part.time_s if self.last_s is None else np.concatenate([[self.last_s], part.time_s])
            gaps = np.diff(times)
            gaps = gaps[gaps > 0]
        else:
            try:
                gaps = self.gap_stream.feed(part.time_s, part.offset_bytes, part.size_bytes,
                                            np.ascontiguousarray(part.is_write, dtype=np.uint8))
            except TraceRecordError as e:
                raise part.record_error(e) from None
        self._sizes(part)
        self.first_s = float(part.time_s[0]) if self.first_s is None else self.first_s
        self.last_s = float(part.time_s[-1])
        self._gaps(gaps)

    def _sizes(self, part: Trace) -> None:
        sizes, writes = part.size_bytes, part.is_write != 0
        self.requests += len(part)
        self.reads += int(len(part) - np.count_nonzero(writes))
        self.bytes_read += int(sizes[~writes].sum())
        self.bytes_written += int(sizes[writes].sum())
        self.size_sum += int(sizes.sum())
        values, counts = np.unique(sizes, return_counts=True)
        for v, c in zip(values.tolist(), counts.tolist()):
            self.sizes[v] = self.sizes.get(v, 0) + c

    def _gaps(self, gaps: np.ndarray) -> None:
        if not len(gaps):
            return
        self.gap_count += len(gaps)
        self.idle_total += float(gaps.sum())
        self.gap_max = max(self.gap_max, float(gaps.max()))
        below, above = _outside_bins(gaps)
        self.below += int(below.sum())
        self.above += int(above.sum())
        self.below_idle += float(gaps[below].sum())
        self.above_idle += float(gaps[above].sum())
        self.bin_counts += np.histogram(gaps, bins=BIN_EDGES_S)[0]
        self.bin_idle += np.histogram(gaps, bins=BIN_EDGES_S, weights=gaps)[0]
        for m in self.modes:
            longer = gaps > m[1]
            m[2] += int(longer.sum())
            m[3] += float(gaps[longer].sum())
        if self.gap_buckets is None:
            self.kept_gaps.append(gaps)
            if self.gap_count > EXACT_MEDIAN_GAPS:
                self.gap_buckets = {}
                for kept in self.kept_gaps:
                    self._bucket(kept)
                self.kept_gaps = []
        else:
            self._bucket(gaps)

    def _bucket(self, gaps: np.ndarray) -> None:
        keys, counts = np.unique(gaps.view(np.uint64) >> np.uint64(52 - _MANTISSA_BITS), return_counts=True)
        for k, c in zip(keys.tolist(), counts.tolist()):
            self.gap_buckets[k] = self.gap_buckets.get(k, 0) + c

    def _median_gap(self) -> float:
        if not self.gap_count:
            return 0.0
        if self.gap_buckets is None:
            return float(np.median(np.concatenate(self.kept_gaps)))
        keys = sorted(self.gap_buckets)
        counts = np.array([self.gap_buckets[k] for k in keys])
        k = keys[int(np.searchsorted(np.cumsum(counts), (self.gap_count + 1) // 2))]
        return min(float(np.uint64((k + 1) << (52 - _MANTISSA_BITS)).view(np.float64)), self.gap_max)

    def result(self) -> dict:
        """The statistics, as :func:`trace_stats` gives them (JSON-ready)."""
        if self.gap_stream is not None:
            self._gaps(self.gap_stream.finish())
            self.gap_stream = None
        n = self.requests
        values = np.array(sorted(self.sizes), dtype=np.int64)
        counts = np.array([self.sizes[v] for v in values.tolist()], dtype=np.int64)

        def pct(q):
            return _percentile_of_counts(values, counts, q) if n else float("nan")
        stats = {
            "trace": self.name,
            "requests": n,
            "span_s": (self.last_s - self.first_s) if n else 0.0,
            "reads": self.reads,
            "writes": n - self.reads,
            "read_fraction": self.reads / n if n else 0.0,
            "bytes_read": self.bytes_read,
            "bytes_written": self.bytes_written,
            "size_bytes": {"min": int(values[0]) if n else 0, "p50": pct(50), "mean": self.size_sum / n if n else float("nan"),
                           "p90": pct(90), "p99": pct(99), "max": int(values[-1]) if n else 0},
            "gaps": {
                "definition": "completion to next arrival on an always-on device" if self.device is not None else "inter-arrival time",
                "count": self.gap_count,
                "idle_total_s": self.idle_total,
                "median_s": self._median_gap(),
                "mean_s": self.idle_total / self.gap_count if self.gap_count else 0.0,
                "max_s": self.gap_max,
                "below_1ms": self.below,
                "above_10000s": self.above,
                "below_1ms_idle_s": self.below_idle,
                "above_10000s_idle_s": self.above_idle,
                "histogram": [{"from_s": float(a), "to_s": float(b), "count": int(c), "idle_s": float(w)}
                              for a, b, c, w in zip(BIN_EDGES_S[:-1], BIN_EDGES_S[1:], self.bin_counts, self.bin_idle) if c],
            },
        }
        if self.device is not None:
            stats["device"] = self.device.name
            stats["modes"] = [{"mode": name, "break_even_s": be, "gaps_longer": longer,
                               "idle_share_longer": idle / self.idle_total if self.idle_total else 0.0}
                              for name, be, longer, idle in self.modes]
        return stats


def _grouped_percentiles(group: np.ndarray, values: np.ndarray, counts: np.ndarray, qs) -> dict:
    """:func:`_percentile_of_counts` of every group at once: ``group``, ``values`` and ``counts``
    sorted by (group, value), groups numbered 0..G-1 with no gaps. Returns {q: array of G}."""
    n_groups = int(group[-1]) + 1
    totals = np.bincount(group, weights=counts, minlength=n_groups).astype(np.int64)
    cumulative = np.cumsum(counts)
    before = np.concatenate([[0], np.cumsum(totals)[:-1]])  # the group's first rank
    out = {}
    for q in qs:
        position = (totals - 1) * q / 100.0
        lo = np.floor(position)
        frac = position - lo
        lo = lo.astype(np.int64)
        a = values[np.searchsorted(cumulative, before + lo, side="right")].astype(float)
        b = values[np.searchsorted(cumulative, before + np.minimum(lo + 1, totals - 1), side="right")].astype(float)
        out[q] = np.where(frac >= 0.5, b - (b - a) * (1 - frac), a + (b - a) * frac)
    return out


def _add(target: np.ndarray, index: np.ndarray, weights=None) -> None:
    """``target[index] += weights`` (1 each without), repeated indices added up, in time
    proportional to the batch rather than to ``target`` (a million devices' histograms)."""
    if not len(index):
        return
    if weights is not None and weights.dtype.kind in "iu":
        np.add.at(target, index, weights.astype(target.dtype))  # byte counts stay exact integers
        return
    touched, inverse = np.unique(index, return_inverse=True)
    sums = np.bincount(inverse, weights=weights)
    target[touched] += sums.astype(target.dtype) if target.dtype != sums.dtype else sums


class GroupedStats:
    """:class:`TraceStats` of every device of a multi-device file at once (inter-arrival gaps,
    no transform), fed whole batches with their ``stream`` column: group operations over columns
    rather than a Python object and a dozen NumPy calls per device and batch, so a trace of 100k
    devices takes seconds, not minutes. Each device's result equals :class:`TraceStats`'s (its
    sums to rounding: a file's parts are summed in another order); a device's median gap is exact
    while the file's gaps number at most :data:`EXACT_MEDIAN_GAPS`, then within 0.05 %."""

    _SCALARS = ("requests", "reads", "bytes_read", "bytes_written", "size_sum", "gap_count", "below", "above")

    def __init__(self, name: str):
        self.name = name
        self.index: dict = {}  # stream number (-1: a single-device file's) -> dense index
        self.n = 0
        self.ints = {k: np.zeros(0, np.int64) for k in self._SCALARS}
        self.first_s, self.last_s = np.zeros(0), np.zeros(0)
        self.idle_total, self.gap_max = np.zeros(0), np.zeros(0)
        self.below_idle, self.above_idle = np.zeros(0), np.zeros(0)
        self.bin_counts = np.zeros((0, len(BIN_EDGES_S) - 1), np.int64)
        self.bin_idle = np.zeros((0, len(BIN_EDGES_S) - 1))
        self.size_pairs = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))  # (index, size, count)
        self.kept_gaps: list = []  # (index, gaps) while exact
        self.gap_total = 0
        self.gap_buckets = None  # (index, key, count) once past EXACT_MEDIAN_GAPS

    def _grow(self, n: int) -> None:
        """Room for ``n`` devices: arrays grow by doubling, so many batches of new devices cost
        a few copies, not one each."""
        if n <= self.n:
            return
        if n <= len(self.first_s):
            self.n = n
            return
        extra = max(n, 2 * len(self.first_s)) - len(self.first_s)
        for k in self._SCALARS:
            self.ints[k] = np.concatenate([self.ints[k], np.zeros(extra, np.int64)])
        self.first_s = np.concatenate([self.first_s, np.full(extra, np.nan)])
        self.last_s = np.concatenate([self.last_s, np.full(extra, np.nan)])
        self.idle_total = np.concatenate([self.idle_total, np.zeros(extra)])
        self.gap_max = np.concatenate([self.gap_max, np.zeros(extra)])
        self.below_idle = np.concatenate([self.below_idle, np.zeros(extra)])
        self.above_idle = np.concatenate([self.above_idle, np.zeros(extra)])
        self.bin_counts = np.concatenate([self.bin_counts, np.zeros((extra, self.bin_counts.shape[1]), np.int64)])
        self.bin_idle = np.concatenate([self.bin_idle, np.zeros((extra, self.bin_idle.shape[1]))])
        self.n = n

    @staticmethod
    def _merge(pairs, index, key, count):
        """(index, key) counts added up, sorted by (index, key)."""
        i = np.concatenate([pairs[0], index])
        k = np.concatenate([pairs[1], key])
        c = np.concatenate([pairs[2], count])
        order = np.lexsort((k, i))
        i, k, c = i[order], k[order], c[order]
        first = np.concatenate([[True], (i[1:] != i[:-1]) | (k[1:] != k[:-1])]) if len(i) else np.zeros(0, bool)
        starts = np.flatnonzero(first)
        return i[starts], k[starts], np.add.reduceat(c, starts) if len(starts) else c[:0]

    def push(self, batch: Trace) -> None:
        if not len(batch):
            return
        streams = batch.stream if batch.stream is not None else np.full(len(batch), -1, np.int64)
        unique, inverse = np.unique(streams, return_inverse=True)
        dense = np.fromiter((self.index.setdefault(s, len(self.index)) for s in unique.tolist()), np.int64, len(unique))
        self._grow(len(self.index))
        idx = dense[inverse]
        sizes, writes = batch.size_bytes, batch.is_write != 0
        ints = self.ints
        _add(ints["requests"], idx)
        _add(ints["reads"], idx[~writes])
        _add(ints["bytes_read"], idx[~writes], sizes[~writes])
        _add(ints["bytes_written"], idx[writes], sizes[writes])
        _add(ints["size_sum"], idx, sizes)
        self.size_pairs = self._merge(self.size_pairs, idx, sizes.astype(np.int64), np.ones(len(idx), np.int64))
        # Each device's records in time order (the read checked it), its gaps within the batch
        # and the one from its last record of earlier batches.
        order = np.argsort(idx, kind="stable")
        i, t = idx[order], batch.time_s[order]
        starts = np.concatenate([[True], i[1:] != i[:-1]])
        previous = np.concatenate([[np.nan], t[:-1]])
        previous[starts] = self.last_s[i[starts]]
        gaps = t - previous
        keep = gaps > 0  # NaN (a device's first record) is not kept
        gi, gaps = i[keep], gaps[keep]
        head = np.flatnonzero(starts)
        fresh = np.isnan(self.first_s[i[head]])
        self.first_s[i[head][fresh]] = t[head][fresh]
        ends = np.concatenate([head[1:] - 1, [len(t) - 1]])
        self.last_s[i[ends]] = t[ends]
        if not len(gaps):
            return
        _add(ints["gap_count"], gi)
        _add(self.idle_total, gi, gaps)
        np.maximum.at(self.gap_max, gi, gaps)
        below, above = _outside_bins(gaps)
        _add(ints["below"], gi[below])
        _add(ints["above"], gi[above])
        _add(self.below_idle, gi[below], gaps[below])
        _add(self.above_idle, gi[above], gaps[above])
        # np.histogram's bins: [a, b) each, the last [a, b]; gaps outside are left out.
        bins = np.searchsorted(BIN_EDGES_S, gaps, side="right") - 1
        bins[gaps == BIN_EDGES_S[-1]] = len(BIN_EDGES_S) - 2
        inside = (bins >= 0) & (bins < len(BIN_EDGES_S) - 1)
        flat = gi[inside] * (len(BIN_EDGES_S) - 1) + bins[inside]
        _add(self.bin_counts.reshape(-1), flat)
        _add(self.bin_idle.reshape(-1), flat, gaps[inside])
        self.gap_total += len(gaps)
        if self.gap_buckets is None:
            self.kept_gaps.append((gi, gaps))
            if self.gap_total > EXACT_MEDIAN_GAPS:
                self.gap_buckets = (np.zeros(0, np.int64),) * 3
                for kept in self.kept_gaps:
                    self._bucket(*kept)
                self.kept_gaps = []
        else:
            self._bucket(gi, gaps)

    def _bucket(self, gi, gaps) -> None:
        keys = (gaps.view(np.uint64) >> np.uint64(52 - _MANTISSA_BITS)).astype(np.int64)
        self.gap_buckets = self._merge(self.gap_buckets, gi, keys, np.ones(len(gi), np.int64))

    def _medians(self) -> np.ndarray:
        medians = np.zeros(self.n)
        counts = self.ints["gap_count"][:self.n]
        if self.gap_buckets is None:
            if not self.kept_gaps:
                return medians
            gi = np.concatenate([k[0] for k in self.kept_gaps])
            gaps = np.concatenate([k[1] for k in self.kept_gaps])
            order = np.lexsort((gaps, gi))
            gi, gaps = gi[order], gaps[order]
            start = np.concatenate([[0], np.cumsum(np.bincount(gi, minlength=self.n))[:-1]])
            has = counts > 0
            c, s0 = counts[has], start[has]
            # np.median: the middle one, or the mean of the middle two.
            lo, hi = gaps[s0 + (c - 1) // 2], gaps[s0 + c // 2]
            medians[has] = np.where(c % 2 == 1, lo, (lo + hi) / 2)
            return medians
        gi, keys, bucket_counts = self.gap_buckets
        cumulative = np.cumsum(bucket_counts)
        start = np.concatenate([[0], np.cumsum(np.bincount(gi, weights=bucket_counts, minlength=self.n).astype(np.int64))[:-1]])
        has = counts > 0
        at = np.searchsorted(cumulative, start[has] + (counts[has] + 1) // 2)  # as TraceStats._median_gap
        top = ((keys[at] + 1) << (52 - _MANTISSA_BITS)).astype(np.uint64).view(np.float64)
        medians[has] = np.minimum(top, self.gap_max[:self.n][has])
        return medians

    def results(self) -> list[dict]:
        """Every device's statistics, as :meth:`TraceStats.result` gives them, with ``stream``,
        in device order."""
        if not self.n:
            return []
        pi, pv, pc = self.size_pairs
        pct = _grouped_percentiles(pi, pv, pc, (50, 90, 99))
        starts = np.concatenate([[True], pi[1:] != pi[:-1]])
        first_of = np.flatnonzero(starts)
        last_of = np.concatenate([first_of[1:] - 1, [len(pi) - 1]])
        smallest, largest = pv[first_of], pv[last_of]
        medians = self._medians().tolist()
        ints = {k: v.tolist() for k, v in self.ints.items()}
        pct = {q: v.tolist() for q, v in pct.items()}
        smallest, largest = smallest.tolist(), largest.tolist()
        span = (self.last_s[:self.n] - self.first_s[:self.n]).tolist()
        idle_total, gap_max = self.idle_total.tolist(), self.gap_max.tolist()
        below_idle, above_idle = self.below_idle.tolist(), self.above_idle.tolist()
        # Every device's nonzero histogram bins at once, split by device.
        rows, bins = np.nonzero(self.bin_counts[:self.n])
        counts, idles = self.bin_counts[rows, bins].tolist(), self.bin_idle[rows, bins].tolist()
        edges = BIN_EDGES_S.tolist()
        cuts = np.searchsorted(rows, np.arange(self.n + 1)).tolist()
        bins = bins.tolist()
        out = []
        for stream in sorted(self.index):
            j = self.index[stream]
            histogram = [{"from_s": edges[b], "to_s": edges[b + 1], "count": c, "idle_s": w}
                         for b, c, w in zip(bins[cuts[j]:cuts[j + 1]], counts[cuts[j]:cuts[j + 1]], idles[cuts[j]:cuts[j + 1]])]
            n = ints["requests"][j]
            reads, count, idle = ints["reads"][j], ints["gap_count"][j], idle_total[j]
            out.append({
                "trace": self.name if stream < 0 else f"{self.name}#{stream}",
                "requests": n,
                "span_s": span[j],
                "reads": reads,
                "writes": n - reads,
                "read_fraction": reads / n,
                "bytes_read": ints["bytes_read"][j],
                "bytes_written": ints["bytes_written"][j],
                "size_bytes": {"min": smallest[j], "p50": pct[50][j], "mean": ints["size_sum"][j] / n,
                               "p90": pct[90][j], "p99": pct[99][j], "max": largest[j]},
                "gaps": {
                    "definition": "inter-arrival time",
                    "count": count,
                    "idle_total_s": idle,
                    "median_s": medians[j],
                    "mean_s": idle / count if count else 0.0,
                    "max_s": gap_max[j],
                    "below_1ms": ints["below"][j],
                    "above_10000s": ints["above"][j],
                    "below_1ms_idle_s": below_idle[j],
                    "above_10000s_idle_s": above_idle[j],
                    "histogram": histogram,
                },
                "stream": None if stream < 0 else stream,
            })
        return out


def trace_stats(trace: Trace, device=None) -> dict:
    """Statistics of one single-device trace as a dict (JSON-ready)."""
    stats = TraceStats(trace.name, device)
    stats.push(trace)
    return stats.result()


def file_stats(path, device=None, *, format: str = "auto", transform: str | None = None, columns=None,
               write_flag=None, stream=None) -> tuple[list[dict], str]:
    """:func:`trace_stats` of every device of a trace file, read as it goes (transformed as it
    is read), in memory that does not grow with the file; and the read report. Each device's
    statistics carry its ``stream`` (None for a single-device file), named as a whole read names
    them."""
    import os

    from .streaming import FileRead, file_format, transformed_parts
    from .transforms import split_selection

    path = os.fspath(path)
    format, mapping = file_format(path, format, columns, write_flag)
    keep, transform = split_selection(transform, stream, f"{path}: ")  # a chain's stream:K is the device read
    read = FileRead(path, format, keep=keep, mapping=mapping, write_flag=write_flag)
    if device is None and transform is None:
        # Inter-arrival gaps: every device at once, over whole batches (100k devices in seconds).
        grouped = GroupedStats(trace_name(path))
        for batch in read.batches():
            grouped.push(batch)
        _found_kept(path, keep, read)
        return grouped.results(), read.report()
    devices: dict = {}
    for stream, part in transformed_parts(read, transform):
        if stream not in devices:
            name = trace_name(path) + (f"#{stream}" if stream is not None else "") + (f" [{transform}]" if transform else "")
            devices[stream] = TraceStats(name, device)
        if part is not None:
            devices[stream].push(part)
    _found_kept(path, keep, read)
    out = [{**devices[stream].result(), "stream": stream} for stream in sorted(devices, key=lambda s: -1 if s is None else s)]
    return out, read.report()


def _found_kept(path: str, keep, read) -> None:
    if keep is not None and not read.records:
        from ..errors import IdlewiseError

        raise IdlewiseError(f"{path}: no records of device {keep} found in {read.records_read:,} records read")


def draw_gap_histogram(ax, stats: dict) -> None:
    """One trace's idle-gap histogram on ``ax`` (log scale, count and cumulative share of idle
    time), each mode's break-even time marked, as seed 004 Figure 4a."""
    gaps = stats["gaps"]
    hist = gaps["histogram"]
    left = [h["from_s"] for h in hist]
    width = [h["to_s"] - h["from_s"] for h in hist]
    ax.bar(left, [h["count"] for h in hist], width=width, align="edge", color="#4c72b0", edgecolor="white", label="gaps")
    # Gaps past the last bin (a week's nights) drawn as one hatched bar to the longest: the
    # cumulative share of idle time then reaches all of it.
    ends, idle = [h["to_s"] for h in hist], [h["idle_s"] for h in hist]
    if gaps.get("above_10000s"):
        ax.bar(BIN_EDGES_S[-1], gaps["above_10000s"], width=max(gaps["max_s"], BIN_EDGES_S[-1] * 1.26) - BIN_EDGES_S[-1],
               align="edge", color="#4c72b0", edgecolor="white", hatch="//", alpha=0.6)
        ends.append(max(gaps["max_s"], BIN_EDGES_S[-1] * 1.26))
        idle.append(gaps["above_10000s_idle_s"])
    ax.set_xscale("log")
    below = f" ({counted(gaps['below_1ms'], 'gap')} under 1 ms not drawn)" if gaps.get("below_1ms") else ""
    ax.set_xlabel("idle gap length" + below)
    ax.set_ylabel("number of gaps")
    share = ax.twinx()
    total = gaps["idle_total_s"] or 1.0
    share.step(ends, (gaps.get("below_1ms_idle_s", 0.0) + np.cumsum(idle)) / total, where="pre",
               color="#dd8452", label="cumulative share of idle time")
    share.set_ylim(0, 1.02)
    share.set_ylabel("share of idle time")
    for m in stats.get("modes", []):
        if np.isfinite(m["break_even_s"]):
            ax.axvline(m["break_even_s"], color="#55a868", linestyle="--")
            ax.text(m["break_even_s"], ax.get_ylim()[1] * (0.95 - 0.17 * stats["modes"].index(m)), f" {m['mode']} break-even\n {m['idle_share_longer']:.0%} of idle time beyond",
                    fontsize=7, va="top", color="#2d6a3e",
                    bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none", "pad": 1})
    from ..plotting import unit_axis

    unit_axis(ax.xaxis, "s")
    ax.set_title(f"{stats['trace']}: {stats['gaps']['count']:,} idle gaps ({stats['gaps']['definition']})"
                 + (f", {stats['device']}" if "device" in stats else ""), fontsize=9)


#: Panels an idle-gap figure draws at most: the busiest devices of a multi-device trace (22
#: panels took 4 s to draw and were not read); ``--stream K`` plots any one.
PLOT_PANELS_MAX = 6


def plot_gap_histogram(stats_list: list[dict], path: str) -> int:
    """Idle-gap histograms, one panel per stream (:func:`draw_gap_histogram`), the busiest
    :data:`PLOT_PANELS_MAX` of them, to an image file. Returns how many panels it drew."""
    from ..plotting import lay_out, subplots

    shown = sorted(stats_list, key=lambda st: -st["requests"])[:PLOT_PANELS_MAX]
    shown = [st for st in stats_list if any(st is s for s in shown)]  # in the trace's order
    fig, axes = subplots(len(shown), 1, figsize=(8, 3.2 * len(shown)), squeeze=False)
    for ax, stats in zip(axes[:, 0], shown):
        draw_gap_histogram(ax, stats)
    lay_out(fig, len(shown))
    save_figure(fig, path, dpi=120, bbox_inches="tight")
    return len(shown)


__all__ = ["BIN_EDGES_S", "draw_gap_histogram", "idle_gaps_s", "plot_gap_histogram", "trace_stats"]
