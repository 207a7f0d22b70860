"""A hybrid disk over a long Parquet trace: ``idlewise hybrid`` replays it as it is read, by
default, every configuration and the plain disk fed each record batch. Writes RECORDS synthetic
requests (default 20M; bursts and Pareto gaps, as the other benchmarks; offsets within the
E7K100's 100 GB) to a temporary Parquet file, then runs the whole command line on seed 003's
hybrid disk with its two flush times (each, full), by default and read whole (``--sort``), and
reports wall time and peak resident memory (GNU time's %M); the two runs' rows are checked equal.

    python benchmarks/hybrid_stream.py [RECORDS]
"""

import json
import subprocess

from _synthetic import synthetic_parquet, timed
from startup import idlewise_script


def main() -> None:
    with synthetic_parquet(sectors=190_000_000) as (_, path):  # offsets within 97 GB
        command = [idlewise_script(), "hybrid", path, "--hybrid", "seed003-e7k100-ultra-ii", "--flush-when", "each",
                   "--flush-when", "full", "--json"]
        rows = []
        for extra in ([], ["--sort"]):
            seconds, mib = timed([*command, *extra])
            print(f"{'read whole (--sort)' if extra else 'default (as read)':>20}: {seconds:.2f} s, peak RSS {mib:,.0f} MiB")
            rows.append(json.loads(subprocess.run([*command, *extra], check=True, capture_output=True, text=True).stdout))
        assert rows[0] == rows[1], "the streamed rows differ from the whole read's"
        print("rows equal")


if __name__ == "__main__":
    main()
