"""The benchmarks' synthetic workload, one home: bursts of 1-16 requests 1-5 ms apart separated
by Pareto idle gaps (alpha 1.2, minimum 0.2 s), drawn from a NumPy generator."""

import contextlib

import numpy as np


def burst_times(n: int, rng: np.random.Generator) -> np.ndarray:
    """Arrival times (s) of ``n`` requests; the caller draws sizes and offsets from ``rng`` after."""
    bursts = rng.integers(1, 17, n)
    gap_after = np.zeros(n)
    ends = np.cumsum(bursts)
    ends = ends[ends < n]
    gap_after[ends] = 0.2 / rng.random(len(ends)) ** (1 / 1.2)
    return np.cumsum(rng.uniform(0.001, 0.005, n) + gap_after)


def write_parquet_trace(path: str, n: int, seed: int = 5, sectors: int = 1 << 30) -> None:
    """``n`` requests of the workload above as idlewise Parquet (row groups of 2^20): offsets
    anywhere in ``sectors`` 512-byte sectors (default 512 GiB), 1-63 sectors, 30 % writes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    pq.write_table(pa.table({"time_s": burst_times(n, rng), "offset_bytes": rng.integers(0, sectors, n) * 512,
                             "size_bytes": rng.integers(1, 64, n) * 512, "is_write": rng.random(n) < 0.3}),
                   path, row_group_size=1 << 20)


@contextlib.contextmanager
def synthetic_parquet(default_records: int = 20_000_000, **workload):
    """A temporary folder holding ``trace.parquet``: RECORDS requests (the command line's first
    argument, else ``default_records``) of :func:`write_parquet_trace` (``workload``: its seed
    or sectors), its size printed. Yields (folder, path)."""
    import os
    import sys
    import tempfile

    n = int(sys.argv[1]) if len(sys.argv) > 1 else default_records
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.parquet")
        write_parquet_trace(path, n, **workload)
        print(f"{n:,} records, {os.path.getsize(path) / 1e6:,.0f} MB of Parquet")
        yield folder, path


def timed(command: list) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of a command, by GNU time."""
    import subprocess

    done = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], check=True, capture_output=True, text=True)
    seconds, kib = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kib) / 1024
