"""The long fuzz run (issue 30): over a million generated inputs across every way a user hands
idlewise something — each trace reader (text formats mutated line by line, Parquet and HP SRT with
corrupted bytes), device TOML files, policy specs, and the Python entry points given arbitrary
arrays and options — run in worker processes so that a panic, an abort or a hang is seen as such.

    python benchmarks/fuzz.py [--scale 1.0] [--jobs 2] [--only reader:csv,device,...]

What must hold, for every input:

- it is accepted or refused with an IdlewiseError; any other exception (a traceback, a Rust
  panic surfacing as PanicException) is a failure, a worker that dies (abort, segfault) is a
  failure, and no batch finishing for ``--timeout`` seconds is a hang (the input is named);
- an accepted trace accounts for every line: ``records_read`` equals the file's non-blank lines
  (a CSV's header aside), and ``records_read == kept + sum(skipped)``. So every accepted mutated
  input is either read as the original was (counted as "same") or differs in records the read
  report counts ("changed, accounted"); a line neither kept nor counted is a failure;
- an accepted device or policy gives finite, non-negative energies and responses on a small trace.

Prints one line per target and a total; exits 1 on any failure. Figures in the README.
"""

from __future__ import annotations

import argparse
import concurrent.futures as futures
import os
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fuzz_inputs import MAPPED_COLUMNS, MAPPED_SEED, ODD, SEEDS, mutate  # noqa: E402
from idlewise.traces.trace import REQUESTS_DERIVED  # noqa: E402

# Inputs per target at --scale 1: 1,090,000 in all.
TARGETS = {**{f"reader:{fmt}": 80_000 for fmt in SEEDS}, "reader:mapped": 80_000, "reader:parquet": 40_000, "reader:srt": 40_000,
           "device": 120_000, "policy": 150_000, "arrays": 20_000, "options": 20_000}
BATCH = 2_000
DEVICES = ["hitachi-travelstar-5k320", "hitachi-microdrive-1gb", "cmu-mems-g2", "cisco-350", "samsung-950-pro-512gb",
           "seagate-constellation-es1-500gb", "sandisk-ultra-ii-cf"]
TOML_ODD = ["-1", "0", "1e400", "inf", "nan", "-inf", "\"x\"", "[]", "true", "{}", "1e-320", "9" * 30, "\"\"", "[[modes]]",
            "'ready'", "\"standby\"", "0x10", "1_000", "+5", "18446744073709551616"]


def _line_count(data: bytes, fmt: str) -> int:
    """Non-blank lines as the engine's readers count them: split at \\n, a line of ASCII
    whitespace alone (space, tab, \\r, form feed: Rust's is_ascii_whitespace) is blank, as is a
    leading byte-order mark; a CSV's header line is not a record."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    count = sum(1 for line in data.split(b"\n") if line.strip(b" \t\r\x0c"))
    return count - (1 if fmt == "csv" else 0)


def _same(a, b) -> bool:
    import numpy as np
    return len(a) == len(b) and all(np.array_equal(getattr(a, c), getattr(b, c))
                                    for c in ("time_s", "offset_bytes", "size_bytes", "is_write"))


def _small_trace():
    import idlewise
    return idlewise.Trace.from_arrays([0.0, 0.004, 1.5, 9.0, 9.001, 40.0], [4096, 512, 65536, 0, 8192, 4096],
                                      op=["R", "W", "R", "W", "R", "W"], offset_bytes=[0, 4096, 10 ** 7, 0, 5 * 10 ** 8, 1 << 20])


def _check_rows(results) -> str | None:
    import math
    for row in results.to_dicts():
        for key in ("energy_j", "mean_response_s"):
            value = row.get(key)
            if value is None or not math.isfinite(value) or value < 0:
                return f"{row['policy']}: {key} = {value}"
    return None


def _scratch() -> str:
    return "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


class Fuzz:
    """One worker's state: a scratch file, the original readings to compare against."""

    def __init__(self):
        import idlewise
        self.idlewise = idlewise
        folder = "/dev/shm" if os.path.isdir("/dev/shm") else None
        handle, self.path = tempfile.mkstemp(dir=folder)
        os.close(handle)
        self.originals = {}
        self.trace = _small_trace()
        self.last_input = b""

    def original(self, fmt):
        if fmt not in self.originals:
            self.write(SEEDS[fmt].encode())
            self.originals[fmt] = self.idlewise.read_trace(self.path, format=fmt)
        return self.originals[fmt]

    def write(self, data: bytes):
        self.last_input = data
        with open(self.path, "wb") as f:
            f.write(data)

    def reader(self, fmt, rng):
        data = mutate(SEEDS[fmt], rng)
        self.write(data)
        outcomes = []
        for format in (fmt, "auto"):
            try:
                trace = self.idlewise.read_trace(self.path, format=format)
            except self.idlewise.IdlewiseError:
                outcomes.append("refused")
                continue
            lines = _line_count(data, fmt if format == fmt else trace.format)
            kept_and_skipped = len(trace) + sum(trace.skipped.values())
            # biosnoop's column header is a line but not a record; diskstats' lines are counter
            # snapshots, each giving any number of requests (not one kept or skipped each).
            if format == fmt and fmt != "biosnoop" and trace.records_read != lines:
                return "failure", f"{format}: {lines} non-blank lines, records_read {trace.records_read}", data
            if trace.format not in REQUESTS_DERIVED and trace.records_read != kept_and_skipped:
                return "failure", f"{format}: records_read {trace.records_read} != kept {len(trace)} + skipped {trace.skipped}", data
            outcomes.append("same" if _same(trace, self.original(fmt)) else "changed, accounted")
        return outcomes[0], None, data

    def mapped(self, rng):
        """A mutated CSV with its own header, read through a column mapping (0/1 flags saying
        which is a write, or not): every record after the header kept, or a refusal."""
        data = mutate(MAPPED_SEED, rng)
        self.write(data)
        try:
            trace = self.idlewise.read_trace(self.path, columns=MAPPED_COLUMNS, write_flag=rng.choice([None, 0, 1]))
        except self.idlewise.IdlewiseError:
            return "refused", None, data
        lines = _line_count(data, "csv")
        if not trace.records_read == len(trace) == lines or trace.skipped:
            return "failure", f"mapped: {lines} records after the header, read {trace.records_read}, kept {len(trace)}", data
        if "mapped" not in self.originals:
            self.originals["mapped"] = self.idlewise.read_trace(self._written(MAPPED_SEED), columns=MAPPED_COLUMNS)
            self.write(data)
        return ("same" if _same(trace, self.originals["mapped"]) else "changed, accounted"), None, data

    def _written(self, text: str) -> str:
        self.write(text.encode())
        return self.path

    def binary(self, fmt, rng):
        if fmt not in self.originals:
            if fmt == "parquet":
                self.idlewise.traces.write_parquet(self.trace, self.path)
                self.originals[fmt] = Path(self.path).read_bytes()
            else:
                srt = (ROOT / "python" / "idlewise" / "data" / "hplajw" / "ajw.1week.srt").read_bytes()
                self.originals[fmt] = srt[:2988]  # the header and 50 whole records
        data = bytearray(self.originals[fmt])
        for _ in range(rng.randint(1, 6)):
            kind = rng.randrange(3) if data else 2
            if kind == 0:  # overwrite a byte
                data[rng.randrange(len(data))] = rng.randrange(256)
            elif kind == 1:  # truncate
                del data[rng.randrange(len(data)):]
            else:  # insert junk
                at = rng.randrange(len(data) + 1)
                data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
        self.write(bytes(data))
        try:
            trace = self.idlewise.read_trace(self.path, format=fmt)
        except self.idlewise.IdlewiseError:
            return "refused", None, bytes(data[:200])
        if trace.records_read != len(trace) + sum(trace.skipped.values()):
            return "failure", f"records_read {trace.records_read} != kept + skipped", bytes(data[:200])
        return "accepted", None, b""

    def device(self, rng):
        name = rng.choice(DEVICES)
        text = (ROOT / "python" / "idlewise" / "catalog" / f"{name}.toml").read_text()
        lines = text.splitlines()
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(lines))
            kind = rng.randrange(4)
            if kind == 0 and "=" in lines[i]:
                key = lines[i].split("=", 1)[0]
                lines[i] = f"{key}= {rng.choice(TOML_ODD + ODD[:12])}"
            elif kind == 1:
                del lines[i]
            elif kind == 2:
                lines.insert(i, lines[rng.randrange(len(lines))])
            else:
                lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        data = "\n".join(lines)
        self.write(data.encode("utf-8", "surrogatepass"))
        device_path = self.path + ".toml"
        os.replace(self.path, device_path)
        try:
            try:
                device = self.idlewise.load_device(device_path)
            except self.idlewise.IdlewiseError:
                return "refused", None, data[:300].encode("utf-8", "replace")
            try:
                results = self.idlewise.simulate(self.trace, device, ["always-on", "timeout:1s", "breakeven", "oracle"],
                                                 progress=False, fold_offsets=True)
            except self.idlewise.IdlewiseError:
                return "refused at replay", None, b""
            problem = _check_rows(results)
            return ("failure" if problem else "accepted"), problem, data[:300].encode("utf-8", "replace")
        finally:
            os.replace(device_path, self.path)

    def policy(self, rng, examples):
        spec = rng.choice(examples)
        for _ in range(rng.randint(1, 3)):
            kind = rng.randrange(5)
            at = rng.randrange(len(spec) + 1)
            if kind == 0:
                spec = spec[:at] + rng.choice(ODD + ["s", "ms", "=", ":", ",", "..", "/", "+", "knob=", "seed=", "1e9"]) + spec[at:]
            elif kind == 1:
                spec = spec[:at] + spec[at + rng.randrange(1, 4):]
            elif kind == 2:
                spec = spec + rng.choice([",", ",x=1", ",knob=101", ",seed=-1", ":", "s", ",n=0", ",eta=nan", ",spacing=1"])
            elif kind == 3:
                spec = rng.choice(examples).split(":")[0] + ":" + rng.choice(ODD)
            else:
                spec = spec.replace(rng.choice("0123456789"), rng.choice(["", "0", "-", "9" * 20, "."]))
        device = rng.choice(DEVICES)
        self.last_input = f"{device} {spec}".encode("utf-8", "replace")
        try:
            results = self.idlewise.simulate(self.trace, device, [spec], progress=False, fold_offsets=True)
        except self.idlewise.IdlewiseError:
            return "refused", None, spec.encode("utf-8", "replace")
        problem = _check_rows(results)
        return ("failure" if problem else "accepted"), problem, f"{device} {spec}".encode("utf-8", "replace")

    def options(self, rng):
        """A command line drawn from the parser itself (tests/fuzz_inputs.command_line), run in
        this process on a ten-request trace: it works (0) or refuses in a line (2)."""
        import contextlib
        import io

        from fuzz_inputs import command_line, commands, isolated_machine
        from idlewise.cli import build_parser, main

        if not hasattr(self, "commands"):
            self.commands = commands(build_parser())
            self.folder = tempfile.mkdtemp(dir=_scratch())
            self.csv = os.path.join(self.folder, "t.csv")
            with open(self.csv, "w") as f:
                f.write("time_s,offset_bytes,size_bytes,op\n" + "".join(f"{i * 1.5},{4096 * i},4096,{'RW'[i % 2]}\n" for i in range(10)))
        words = rng.choice(sorted(self.commands))
        argv = command_line(rng.choice, words, self.commands[words], self.csv)
        self.last_input = repr(argv).encode()
        err, cwd = io.StringIO(), os.getcwd()
        os.chdir(self.folder)
        try:
            with isolated_machine(self.folder), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                try:
                    code = main(argv)
                except SystemExit as stop:
                    code = stop.code
        finally:
            os.chdir(cwd)
        problem = None if code in (0, 2) and "Traceback" not in err.getvalue() else f"exit {code}: {err.getvalue()[-200:]}"
        return ("failure" if problem else ("accepted" if code == 0 else "refused")), problem, self.last_input

    def arrays(self, rng):
        import numpy as np
        n = rng.choice([0, 1, 2, 5, 50])
        pool = [0.0, -1.0, 1.0, 0.5, 1e-12, 1e300, float("inf"), float("-inf"), float("nan"), 2 ** 63, -(2 ** 63), 4096]

        def column(kind):
            # Mostly well-formed columns, so that what is accepted reaches the engine's options.
            choice = rng.choice([0, 1, 1, 1, 2, 2, 3, 4]) if kind in ("time", "size") else rng.randrange(5)
            if kind == "time" and choice == 2:
                choice = 1
            if choice == 0:
                return np.array([rng.choice(pool) for _ in range(n)])
            if choice == 1:
                return np.sort(np.array([rng.uniform(-10, 1e4) for _ in range(n)]))
            if choice == 2:
                return np.array([rng.randrange(0, 1 << 20) * 512 for _ in range(n)], dtype=rng.choice(["int64", "int32", "uint64", "float64"]))
            if choice == 3:
                return [rng.choice(["R", "W", "x", 1, None]) for _ in range(n + rng.choice([0, 0, 1]))]
            return np.zeros((n, rng.choice([1, 2])))[:, 0] if rng.random() < 0.8 else np.zeros((n, 2))
        self.last_input = b""
        args = dict(op=column("op") if rng.random() < 0.5 else None, offset_bytes=column("offset") if rng.random() < 0.5 else None)
        options = {}
        for key, values in (("base_power_w", [0.0, -1.0, float("nan"), 1e9, 1.44]), ("replay", ["open", "closed", "sync", "x"]),
                            ("tail_s", [0.0, -1.0, float("inf"), 5.0]), ("initial_mode", [None, "standby", "nope", 3]),
                            ("threads", [None, 1, 0, -1, 2]), ("per_request", [False, True]),
                            ("transition_seed", [None, 0, -1, 2 ** 70])):
            if rng.random() < 0.3:
                options[key] = rng.choice(values)
        policies = [rng.choice(["always-on", "timeout:1s", "oracle", "stpm:knob=50", "randomized:seed=3", "experts"])
                    for _ in range(rng.randint(1, 3))]
        self.last_input = repr((args, options, policies)).encode()[:300]
        try:
            trace = self.idlewise.Trace.from_arrays(column("time"), column("size"), **args)
            results = self.idlewise.simulate(trace, rng.choice(DEVICES), policies, progress=False, fold_offsets=True, **options)
        except self.idlewise.IdlewiseError:
            return "refused", None, b""
        problem = _check_rows(results)
        return ("failure" if problem else "accepted"), problem, repr(options).encode()


_FUZZ = None


def run_batch(job):
    """Runs one batch of a target in this worker; returns (target, count, outcomes, failures)."""
    global _FUZZ
    target, seed, count = job
    warnings.simplefilter("ignore")
    if _FUZZ is None:
        _FUZZ = Fuzz()
    fuzz, rng = _FUZZ, random.Random(f"{target}:{seed}")
    examples = None
    if target == "policy":
        examples = [f["example"] for f in fuzz.idlewise.policy_families()] + [
            "timeout:low-power-idle=0.5s,standby=5s", "hd-idle:60s,interval=5s,phase=1s", "stpm:knob=0..100/25",
            "timeout:0s..10s/2s", "randomized:seed=7,lambda=2", "experts:n=25,spacing=1.15,eta=4", "breakeven+timeout:1s"]
    outcomes, failures = {}, []
    where = os.path.join(_scratch(), f"idlewise-fuzz-{os.getpid()}.at")
    for i in range(count):
        # Which input this worker is on, for the parent to name should it hang: a batch is
        # replayed from its target and seed, so the index finds the input again.
        with open(where, "w") as f:
            f.write(f"{target} seed {seed} input {i}")
        try:
            if target.startswith("reader:"):
                fmt = target.split(":", 1)[1]
                if fmt in ("parquet", "srt"):
                    outcome, problem, data = fuzz.binary(fmt, rng)
                else:
                    outcome, problem, data = fuzz.mapped(rng) if fmt == "mapped" else fuzz.reader(fmt, rng)
            elif target == "device":
                outcome, problem, data = fuzz.device(rng)
            elif target == "policy":
                outcome, problem, data = fuzz.policy(rng, examples)
            elif target == "options":
                outcome, problem, data = fuzz.options(rng)
            else:
                outcome, problem, data = fuzz.arrays(rng)
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # noqa: BLE001 - a traceback or a Rust panic is the finding
            outcome, problem, data = "failure", repr(e)[:300], fuzz.last_input
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if problem:
            failures.append((problem, data[:300]))
    return target, count, outcomes, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every target's number of inputs")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default="", help="comma-separated targets (default: all)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds without any batch finishing before the run counts as hung (a batch takes ~1 s)")
    args = parser.parse_args()
    chosen = [t for t in TARGETS if not args.only or t in args.only.split(",")]
    jobs = []
    for target in chosen:
        total = max(1, int(TARGETS[target] * args.scale))
        jobs += [(target, start, min(BATCH, total - start)) for start in range(0, total, BATCH)]
    began = time.perf_counter()
    totals = {t: [0, {}, []] for t in chosen}
    broken = []
    pool = futures.ProcessPoolExecutor(args.jobs)
    pending = {pool.submit(run_batch, job): job for job in jobs}
    waiting = set(pending)
    while waiting:
        # A batch of 2,000 inputs takes about a second: none finishing for --timeout is a hang.
        done, waiting = futures.wait(waiting, timeout=args.timeout, return_when=futures.FIRST_COMPLETED)
        if not done:
            break
        for future in done:
            job = pending[future]
            try:
                target, count, outcomes, failures = future.result()
            except futures.process.BrokenProcessPool:
                broken.append(f"{job}: a worker died (abort or crash)")
                waiting = set()
                break
            t = totals[target]
            t[0] += count
            for k, v in outcomes.items():
                t[1][k] = t[1].get(k, 0) + v
            t[2].extend(failures)
    stuck = [f for f in pending if not f.done()]
    if stuck:
        for process in list(pool._processes.values()):
            at = os.path.join(_scratch(), f"idlewise-fuzz-{process.pid}.at")
            if os.path.exists(at):
                broken.append(f"no answer (hang) at {open(at).read()}")
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    elapsed = time.perf_counter() - began
    inputs = sum(t[0] for t in totals.values())
    bad = len(broken)
    for target, (count, outcomes, failures) in totals.items():
        spread = ", ".join(f"{v:,} {k}" for k, v in sorted(outcomes.items()))
        print(f"{target:16s} {count:>9,} inputs: {spread}; {len(failures)} failures")
        for failure in failures[:5]:
            print("    ", failure)
        bad += len(failures)
    for line in broken:
        print("   ", line)
    print(f"total: {inputs:,} inputs in {elapsed:,.0f} s on {args.jobs} processes, {bad} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
