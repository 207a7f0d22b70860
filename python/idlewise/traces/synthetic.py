"""Workload generators for the seeds' synthetic experiments, each a :class:`Trace` to replay.

- :func:`matrix_product` — seed 002 §5.3: the page faults of a 128×128 matrix product whose
  matrices were swapped out before the run, as the OS swaps them in 8 pages at a time; with
  ``reshaped=True``, the program first touches one entry per page of A, B and C
  (``access_one_per_page``), so every fault comes in one burst at the start. Replay it closed
  loop: each gap is computation between faults, and the program computes ``tail_s`` after its
  last fault.
- :func:`random_blocks` — seed 001 Figure 1(b): random block reads over a growing fraction of
  a disk, issued back to back (closed loop, no think time).

Every modelling choice is in the docstrings and in ``docs/seed002.md`` / ``docs/seed001.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import IdlewiseError
from .trace import Trace

PAGE_BYTES = 4096
DOUBLE_BYTES = 8


@dataclass(frozen=True)
class SwapWorkload:
    """A program's page faults: the trace of page reads, and what the program does around it."""

    #: One 4096-byte read per page swapped in; a fault's pages share its time. Replay closed loop.
    trace: Trace
    #: Computation after the last fault (the run goes on this long under the device's policy).
    tail_s: float
    #: The program's computation in all (the run's length on a device that costs no time).
    compute_s: float
    #: Pages the program's data occupy, and the faults (clusters) that brought them in.
    data_pages: int
    faults: int
    pages_per_fault: int


def matrix_product(reshaped: bool = False, *, n: int = 128, compute_s: float = 25.0, pages_per_fault: int = 8,
                   first_slot: int = 4) -> SwapWorkload:
    """Seed 002 Figure 3's ``compute_product(A, B, C)`` on three n×n matrices of doubles.

    Assumptions (the seed gives the counts, not the mechanism):

    - Matrices are stored by rows, one after another in swap (A, B, C), as the dummy matrix's
      initialisation pushed them out in allocation order, starting at swap slot ``first_slot``.
    - The OS swaps in the aligned cluster of ``pages_per_fault`` slots around a faulting one (Linux
      swap read-ahead, ``page-cluster`` = 3). The seed counts 104 pages requested for 96 pages of
      data: 13 clusters of 8, which is what an unaligned start (``first_slot`` not a multiple of
      8) gives; an aligned one gives 12. Slot 4 is the middle of a cluster.
    - The product is ``C[i][j] += A[i][k] * B[k][j]`` over i, j, k; its computation is spread
      evenly over the rows of C (``compute_s`` in all, 25 s in the seed). Row 0 reads column 0
      of B, which pulls in all of B; each new page of A and C is touched when its first row
      starts, every 512×128 products for n = 128 (the seed's spacing).
    - Pages are read-only swaps: nothing is written back during the product (seed 002 Table 3's
      HD row is exactly 104 read-only page swaps over 25 s, 25.312 s and 15.199 J).
    - ``access_one_per_page`` (reshaped) touches one entry per page of A, B and C in that order
      before the product, at no computing cost, so all faults come at once.
    """
    if n < 1 or compute_s <= 0 or pages_per_fault < 1 or first_slot < 0:
        raise IdlewiseError("matrix_product: n, compute_s and pages_per_fault must be positive and first_slot non-negative")
    matrix_bytes = n * n * DOUBLE_BYTES
    pages_per_matrix = -(-matrix_bytes // PAGE_BYTES)
    rows_per_page = max(1, PAGE_BYTES // (n * DOUBLE_BYTES))

    def slot(matrix: int, row: int) -> int:
        return first_slot + matrix * pages_per_matrix + (row * n * DOUBLE_BYTES) // PAGE_BYTES

    resident: set[int] = set()
    times: list[float] = []
    slots: list[int] = []
    faults = 0

    def touch(s: int, t: float) -> None:
        nonlocal faults
        if s in resident:
            return
        faults += 1
        cluster = s - s % pages_per_fault
        for c in range(cluster, cluster + pages_per_fault):
            resident.add(c)
            times.append(t)
            slots.append(c)

    a, b, c = 0, 1, 2
    if reshaped:
        for matrix in (a, b, c):
            for page in range(pages_per_matrix):
                touch(first_slot + matrix * pages_per_matrix + page, 0.0)
    row_s = compute_s / n
    for i in range(n):
        if i % rows_per_page:
            continue  # rows within a page already touched
        t = i * row_s
        touch(slot(a, i), t)
        if i == 0:
            for k in range(n):
                touch(slot(b, k), t)
        touch(slot(c, i), t)
    time_s = np.asarray(times, dtype=np.float64)
    trace = _page_reads(time_s, np.asarray(slots, dtype=np.int64) * PAGE_BYTES, PAGE_BYTES,
                        f"matrix product {n}x{n}" + (" (reshaped)" if reshaped else ""))
    return SwapWorkload(trace=trace, tail_s=compute_s - float(time_s[-1]), compute_s=compute_s,
                        data_pages=3 * pages_per_matrix, faults=faults, pages_per_fault=pages_per_fault)


def random_blocks(range_fraction: float, capacity_bytes: float, *, requests: int = 2000, request_bytes: int = 4096,
                  seed: int = 0) -> Trace:
    """Reads of ``request_bytes`` at offsets drawn uniformly over the first ``range_fraction`` of
    the disk (aligned to the request size), all at time 0: replayed closed loop they are issued
    back to back, as a benchmark that keeps the disk busy does. The mean arm movement between two
    uniform positions on a range is a third of it."""
    if not 0.0 <= range_fraction <= 1.0:
        raise IdlewiseError(f"random_blocks: range_fraction must be within 0..1, got {range_fraction}")
    if requests < 1 or request_bytes < 1 or capacity_bytes < request_bytes:
        raise IdlewiseError("random_blocks: requests and request_bytes must be positive and the disk larger than a request")
    slots = int(range_fraction * (capacity_bytes // request_bytes))
    rng = np.random.default_rng(seed)
    offsets = (rng.integers(0, slots, size=requests) if slots > 0 else np.zeros(requests, dtype=np.int64)) * request_bytes
    return _page_reads(np.zeros(requests), offsets.astype(np.int64), request_bytes,
                       f"random blocks over {range_fraction:.0%} of the disk")


def _page_reads(time_s: np.ndarray, offset_bytes: np.ndarray, size_bytes: int, name: str) -> Trace:
    """Reads of one size, built directly: bursts at one instant are what these workloads are, so
    the readers' warning about a trace spanning no time does not apply."""
    n = len(time_s)
    trace = Trace(time_s, offset_bytes, np.full(n, size_bytes, dtype=np.int64), np.zeros(n, dtype=np.uint8), name=name,
                  records_read=n, format="generated")
    trace.validate()
    return trace


__all__ = ["SwapWorkload", "matrix_product", "random_blocks"]
