"""A Parquet trace larger than it needs to be in memory: ``idlewise simulate`` replays it a record
batch at a time, by default. Writes RECORDS synthetic requests (default 20M; bursts and Pareto gaps,
as the other benchmarks) to a temporary Parquet file, then runs the whole command line on it,
``timeout:2s`` on the two-state IBM Microdrive next to always-on and the oracle, by default and
read whole (``--sort``), as it is and through ``--transform compress-reorder:64ops`` (applied as
the file is read by default), and reports wall time and peak resident memory (GNU time's %M).

    python benchmarks/parquet_stream.py [RECORDS]
"""

from _synthetic import synthetic_parquet, timed
from startup import idlewise_script


def main() -> None:
    with synthetic_parquet() as (_, path):
        transform = ["--transform", "compress-reorder:64ops"]
        for extra in ([], ["--sort"], transform, [*transform, "--sort"]):
            seconds, mib = timed([idlewise_script(), "simulate", path, "--device", "ibm-microdrive-340mb", "--policy", "timeout:2s",
                                  "--json", *extra])
            label = ("read whole (--sort)" if "--sort" in extra else "default") + (" + compress-reorder:64ops" if transform[0] in extra else "")
            print(f"{label:>44}: {seconds:.2f} s, peak RSS {mib:,.0f} MiB")

if __name__ == "__main__":
    main()
