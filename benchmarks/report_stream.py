"""``idlewise report`` of a Parquet trace larger than it needs to be in memory: by default the
file is read pass by pass (statistics and window, the runs, the window's arrivals); with
``--sort`` it is read whole. Writes RECORDS synthetic requests (default 20M; the benchmarks'
bursts and Pareto gaps) to a temporary Parquet file and reports wall time and peak resident
memory (GNU time's %M) of the whole command, ``timeout:2s`` and ``stpm:knob=50`` on the IBM
Microdrive beside always-on and the oracle.

    python benchmarks/report_stream.py [RECORDS]
"""

import os

from _synthetic import synthetic_parquet, timed
from startup import idlewise_script


def main() -> None:
    with synthetic_parquet() as (folder, path):
        pages = {}
        for extra in ([], ["--sort"]):
            out = os.path.join(folder, f"report{len(extra)}.html")
            seconds, mib = timed([idlewise_script(), "report", path, "--device", "ibm-microdrive-340mb", "--policy", "timeout:2s",
                                  "--policy", "stpm:knob=50", "--out", out, *extra])
            pages[len(extra)] = open(out, "rb").read()
            print(f"{'read whole (--sort)' if extra else 'as read (default)':>19}: {seconds:.2f} s, peak RSS {mib:,.0f} MiB")
        print("the two reports are byte for byte the same" if pages[0] == pages[1] else "THE TWO REPORTS DIFFER")

if __name__ == "__main__":
    main()
