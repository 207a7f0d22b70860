"""The ``idlewise`` command line: the parser and ``main`` here, one module per command family
beside it (``simulate``, ``sweep``, ``report``, ``advise``, ``devices``, ``trace``, ``hybrid``,
``experiments``), what they all print with in ``_common`` and the options they share in
``_options``. A new command gets its module and a ``cmd_*`` function the parser points at.

Human output is a table (rich); ``--json`` prints machine-readable results. Errors print one
line naming the file, line or field and exit with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import threading
import warnings

# NumPy's OpenBLAS starts a thread per core at import, and each spins for a while before it
# sleeps: on 2 cores that took 0.2-0.3 s of CPU from the replay and the parser of every command,
# none of which does linear algebra worth threads. A user's own setting is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .. import __version__, _core
from ..errors import IdlewiseError
from ..output import check_destination
from ..traces.formats import FORMATS
from ._common import DEMO_DEVICE, DEMO_POLICIES, _fmt_time, results_table  # noqa: F401 - re-exported for scripts and tests
from ..arguments import THREADS_MAX, VOLUME_PARTS_MAX
from ..output import FIGURE_SUFFIXES
from ._help import HelpFormatter, listed, parser_class
from ._options import _count, _seed, _watts, _seconds, _response_option, _stream_key, _stream_option, _wide_option, _trace_options


class _Command:
    """A command's function, imported when the command runs: ``idlewise simulate`` does not load
    what ``report``, ``manage`` or the experiments need (NumPy came with them, 0.1 s of every
    command's start-up)."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, args):
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{self.module}"), self.name)(args)


cmd_record, cmd_advise = _Command("advise", "cmd_record"), _Command("advise", "cmd_advise")
cmd_manage_hint, cmd_manage_replay = _Command("manage", "cmd_manage_hint"), _Command("manage", "cmd_manage_replay")
cmd_manage_run, cmd_manage_status = _Command("manage", "cmd_manage_run"), _Command("manage", "cmd_manage_status")
cmd_manage_spin_down, cmd_manage_unit = _Command("manage", "cmd_manage_spin_down"), _Command("manage", "cmd_manage_unit")
cmd_devices, cmd_policies = _Command("devices", "cmd_devices"), _Command("devices", "cmd_policies")
cmd_cache, cmd_experiment = _Command("experiments", "cmd_cache"), _Command("experiments", "cmd_experiment")
cmd_hybrid, cmd_report, cmd_sweep = _Command("hybrid", "cmd_hybrid"), _Command("report", "cmd_report"), _Command("sweep", "cmd_sweep")
cmd_demo, cmd_simulate = _Command("simulate", "cmd_demo"), _Command("simulate", "cmd_simulate")
cmd_trace_convert, cmd_trace_stats = _Command("trace", "cmd_trace_convert"), _Command("trace", "cmd_trace_stats")
cmd_trace_formats, cmd_workload = _Command("trace", "cmd_trace_formats"), _Command("trace", "cmd_workload")


class _Unbuilt:
    """The parser of a command other than the one that runs: argparse lists the command (its name
    and help) but its arguments are not built, and whatever is asked of this is ignored."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: self


class _Commands:
    """The commands' ``add_subparsers`` action, building the arguments of ``running`` alone (every
    command's when ``None``): building all of them took ~10 ms, a tenth of a small command's
    start-up."""

    def __init__(self, action, running: str | None):
        self.action, self.running = action, running

    def add_parser(self, name: str, **kwargs):
        parser = self.action.add_parser(name, **kwargs)
        return parser if self.running in (None, name) else _Unbuilt()


def _lists(parser):
    """What a command that needs a subcommand does when given none: it lists them (its help, on
    stderr) and exits 2, as a missing argument does."""

    def list_subcommands(args) -> int:
        sys.stderr.write(parser.format_help())
        return 2

    # Named, so that two builds of the parser parse to equal namespaces (tests/test_fuzz_options.py).
    list_subcommands.name = f"list the subcommands of {parser.prog}"
    return list_subcommands


def build_parser(running: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``running``, only that command's arguments are built (the
    others are listed by name and help)."""
    parser = argparse.ArgumentParser(prog="idlewise", description="Replay I/O traces against power-managed devices and policies.",
                                     formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"idlewise {__version__}")
    sub = _Commands(parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class(),
                                          title="commands (idlewise COMMAND --help for each)"), running)
    parser.set_defaults(func=_lists(parser))

    demo = sub.add_parser("demo", help="replay the bundled hplajw week on a catalog laptop disk under several policies")
    demo.add_argument("--device", default=DEMO_DEVICE, help=f"catalog name or TOML path (default {DEMO_DEVICE})")
    demo.add_argument("--policy", action="append", help="policy spec (repeatable; default: a representative set)")
    demo.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power for system energy")
    demo.add_argument("--json", action="store_true", help="print results as JSON")
    _wide_option(demo)
    demo.set_defaults(func=cmd_demo)

    sim = sub.add_parser("simulate", help="replay a trace on a device under one or more policies")
    sim.add_argument("trace", help="trace file in any format idlewise reads (idlewise trace formats), compressed or not; "
                                   "- for standard input")
    sim.add_argument("--device", action="append", required=True, help="catalog name or TOML path (repeatable: each device is simulated)")
    sim.add_argument("--policy", action="append", required=True, help="policy spec, e.g. timeout:2s or a range timeout:0s..10s/2s (repeatable)")
    sim.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power added to system energy")
    sim.add_argument("--initial-mode", default=None, metavar="MODE", help="mode the device is in at the first request (default: ready)")
    sim.add_argument("--replay", choices=("open", "closed", "sync"), default="open",
                     help="open: requests at their trace times; closed: each issued its trace gap after the previous completes; "
                          "sync: each at its trace time or when the previous completes, whichever is later (seed 001)")
    sim.add_argument("--fold-offsets", action="store_true",
                     help="fold offsets onto a device with a fixed capacity (MEMS: block mod (capacity - size); a disk whose file gives its cylinders: offset mod capacity for the seek)")
    _response_option(sim)
    sim.add_argument("--tail", type=_seconds, default=0.0, metavar="DURATION",
                     help="the run goes on this long after the last request completes, the device idling under its policy")
    sim.add_argument("--transition-seed", type=int, metavar="N",
                     help="draw wake-up times that vary (time_std_s in the device) from seed N; default: their means")
    sim.add_argument("--service", choices=("model", "observed"), default="model",
                     help="how long a request keeps the device busy: the device model's time, or the time a diskstats "
                          "recording observed (the interval's busy time; as idlewise manage decides)")
    _trace_options(sim)
    sim.add_argument("--transform", metavar="T", help="workload transform, e.g. compress-reorder:64ops (chain with +)")
    sim.add_argument("--json", action="store_true", help="print a JSON list, one object per policy")
    sim.add_argument("--references", dest="references", action=argparse.BooleanOptionalAction, default=None,
                     help="replay always-on and the oracle beside the policies (and a MEMS device's theoretical minima) "
                          "for the vs always-on and vs oracle columns. Default: yes, except on a MEMS sled, whose "
                          "references are two more event-by-event replays of the sled (one policy: three replays "
                          "instead of one). --no-references: the policies alone, one replay each, those columns empty")
    sim.add_argument("--per-request", metavar="FILE.parquet",
                     help="also write every request of every run to Parquet: policy, device, request, arrival_s, start_s, "
                          "finish_s, response_s, wait_s, mode_at_arrival")
    _wide_option(sim)
    sim.add_argument("--chunks", action="store_true",
                     help="accepted for older scripts and ignored: a trace is replayed as it is read whenever it can be "
                          "(in time order, no --sort, --transform or --per-request), at memory bounded whatever its length")
    sim.set_defaults(func=cmd_simulate)

    rp = sub.add_parser("report", help="write one self-contained HTML report: the trace's idle gaps, a sortable results "
                                        "table, energy by mode, the energy-response trade-off, wake-ups, a mode timeline")
    rp.add_argument("trace", nargs="?", help="trace file (leave out with --from)")
    rp.add_argument("--device", action="append", help="catalog name or TOML path (repeatable)")
    rp.add_argument("--policy", action="append", help="policy spec or range, e.g. timeout:1s..60s/5s (repeatable; "
                                                       "default: a representative set); always-on and the oracle are added")
    rp.add_argument("--from", dest="from_rows", metavar="RUNS.parquet",
                    help="make the report of a sweep's rows (idlewise sweep --out RUNS.parquet or .csv) instead")
    rp.add_argument("--window", metavar="FROM..TO", help="mode timeline window, times from the first request, e.g. 2h..150min "
                                                         "(default: the half hour where policies differ most)")
    rp.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power added to system energy")
    rp.add_argument("--initial-mode", default=None, metavar="MODE", help="mode the device is in at the first request")
    rp.add_argument("--transform", metavar="T", help="workload transform, e.g. compress:64ops")
    _trace_options(rp)
    rp.add_argument("--title", help="the report's title (default: names the trace)")
    rp.add_argument("--out", required=True, metavar="REPORT.html", help="where to write the report")
    rp.set_defaults(func=cmd_report)

    hy = sub.add_parser("hybrid", help="replay a trace on a hybrid disk with a flash NVCache (seed 003): when and how to flush")
    hy.add_argument("trace", help="trace file")
    hy.add_argument("--hybrid", metavar="NAME|FILE", help="a hybrid description naming its parts and sizes "
                    "(bundled: seed003-e7k100-ultra-ii); the options below override it")
    hy.add_argument("--disk", help="the rotating media: catalog name or TOML path")
    hy.add_argument("--flash", help="the NVCache: catalog name or TOML path")
    hy.add_argument("--nvcache", action="append", metavar="SIZE", help="NVCache size, e.g. 64MiB, 1GB or inf "
                    "(repeatable; default 64MiB)")
    hy.add_argument("--dram", action="append", metavar="SIZE", help="DRAM buffer for flushing, e.g. 16MiB, 100KB "
                    "(repeatable; default 16MiB)")
    hy.add_argument("--flush-when", action="append", choices=("each", "full"),
                    help="flush after each spin-up, or only when full (repeatable; default full)")
    hy.add_argument("--flush-algorithm", action="append", type=int, choices=(1, 2, 3, 4),
                    help="1 one request at a time, 2 DRAM chunks, 3 double-buffered, 4 double-buffered sorted and merged "
                         "(repeatable; default 4)")
    hy.add_argument("--final-flush", action="store_true",
                    help="flush what the NVCache holds after the last request and charge it (default: report it as unflushed)")
    hy.add_argument("--policy", help="the disk's spin-down policy (default experts, as seed 003)")
    hy.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power (policies that weigh delay)")
    hy.add_argument("--initial-mode", default=None, metavar="MODE", help="the disk's mode at the first request (default: ready)")
    hy.add_argument("--replay", choices=("open", "closed", "sync"), default="open",
                    help="open: requests at their trace times; closed: each its trace gap after the previous completes; "
                         "sync: the later of the two (seed 001)")
    _response_option(hy)
    hy.add_argument("--tail", type=_seconds, default=0.0, metavar="DURATION", help="run on this long after the last request")
    hy.add_argument("--transition-seed", type=int, metavar="N", help="draw varying wake-up times from seed N")
    _trace_options(hy)
    hy.add_argument("--transform", metavar="T", help="workload transform, e.g. compress-reorder:64ops")
    hy.add_argument("--json", action="store_true", help="print a JSON list, one object per (NVCache, DRAM, when, algorithm)")
    hy.set_defaults(func=cmd_hybrid)

    tr = sub.add_parser("trace", help="convert traces and look at workloads")
    trsub = tr.add_subparsers(dest="trace_command", metavar="SUBCOMMAND", title="what to do")
    tr.set_defaults(func=_lists(tr))
    conv = trsub.add_parser("convert", help="convert a trace to Parquet, the native format")
    conv.add_argument("input", help="the trace file (any format idlewise reads; - for standard input)")
    conv.add_argument("output", help="OUT.parquet")
    _trace_options(conv, stream=False)
    conv.set_defaults(func=cmd_trace_convert)
    st = trsub.add_parser("stats", help="request mix, sizes and the idle-gap distribution")
    st.add_argument("trace", help="the trace file (any format idlewise reads; - for standard input)")
    st.add_argument("--device", help="catalog name or TOML path: gaps as that device sees them, and its break-even shares")
    _trace_options(st)
    st.add_argument("--transform", metavar="T", help="workload transform first")
    st.add_argument("--plot", metavar="FILE", help="draw the idle-gap histogram (PNG, PDF or SVG)")
    st.add_argument("--json", action="store_true", help="print the statistics as JSON")
    st.set_defaults(func=cmd_trace_stats)
    fm = trsub.add_parser("formats", help="list the trace formats idlewise reads")
    fm.add_argument("--json", action="store_true",
                    help="every format's fields, recognition, time field, reading and memory, as JSON")
    fm.set_defaults(func=cmd_trace_formats)

    sw = sub.add_parser("sweep", help="run every trace x transform x device x policy, in parallel")
    sw.add_argument("traces", nargs="+", help="trace files (each device of a multi-device trace is its own disk)")
    sw.add_argument("--device", action="append", required=True, help="catalog name or TOML path (repeatable)")
    sw.add_argument("--policy", action="append", required=True, help="spec, with at most one range START..STOP/STEP, "
                    "e.g. timeout:0s..60s/2s or stpm:knob=0..100/10 (repeatable)")
    sw.add_argument("--transform", action="append", help="workload transform (repeatable; each is a separate set of runs; 'none' = as is)")
    sw.add_argument("--format", default="auto", choices=("auto",) + FORMATS, metavar="FORMAT",
                    help=f"the traces' format: {listed(('auto',) + FORMATS)} (default auto: recognised from the content)")
    _stream_option(sw)
    sw.add_argument("--chunks", action="store_true",
                    help="accepted for older scripts and ignored: each trace is replayed as it is read, every policy on the one "
                         "pass, wherever its format and the transform allow")
    sw.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power added to system energy")
    _response_option(sw)
    sw.add_argument("--jobs", type=_count(THREADS_MAX), help=f"threads on this machine, 1 to {THREADS_MAX:,} (default: all cores)")
    sw.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on an existing Dask cluster instead")
    sw.add_argument("--volume-parts", type=_count(VOLUME_PARTS_MAX), default=1, metavar="N",
                    help="split each streamed trace's devices (volumes) into N parts, each read from the whole file: on a "
                         "cluster the parts go to different workers; here they run in turn, each in 1/N of the memory "
                         f"(thousands of volumes under many policies), at most {VOLUME_PARTS_MAX:,}. Same rows either way")
    sw.add_argument("--out", metavar="FILE", help="write one row per run to FILE.parquet or FILE.csv")
    sw.add_argument("--plot", metavar="FILE", help="draw energy against mean response, normalised to always-on")
    sw.add_argument("--json", action="store_true", help="print a JSON list, one object per run")
    _wide_option(sw)
    sw.set_defaults(func=cmd_sweep)

    wl = sub.add_parser("workload", help="write an application trace: a mail session or a web stream (seed 000)")
    wl.add_argument("kind", choices=("mail", "web"), help="mail: a reader's session; web: one host's requests from a web server's log")
    wl.add_argument("--seed", type=_seed, default=0, help="random seed, 0 to 2^64 - 1 (sizes and think times for mail; the cached half for web)")
    wl.add_argument("--log", help="web: the NASA access log (TSV)")
    wl.add_argument("--all-cached", action="store_true", help="web: every object in the disk cache at the start")
    wl.add_argument("--out", required=True, help="CSV with columns time_s,object,size_bytes,op,cached")
    wl.set_defaults(func=cmd_workload)

    ca = sub.add_parser("cache", help="run an application trace on a disk and an 802.11 card with the energy-aware cache")
    ca.add_argument("workload", help="application trace CSV (time_s,object,size_bytes,op,cached)")
    ca.add_argument("--storage", default="hitachi-microdrive-1gb", help="catalog name or TOML path")
    ca.add_argument("--network", default="cisco-350", help="catalog name or TOML path")
    ca.add_argument("--cache", choices=("adaptive", "static"), default="adaptive",
                    help="adaptive: seed 000's energy-aware choice per read; static: cached data always from the disk")
    ca.add_argument("--knob", type=float, default=50.0, help="0 = energy ... 100 = performance (default 50)")
    ca.add_argument("--no-ghost-hints", action="store_true", help="the adaptive cache without ghost hints")
    ca.add_argument("--base-power", type=_watts, default=1.44, metavar="W", help="platform base power (default 1.44 W, the iPAQ)")
    ca.add_argument("--io-cpu-power", type=_watts, default=_core.SEED000_IO_CPU_POWER_W, metavar="W",
                    help=f"what the platform draws above its base power while a device serves (default "
                         f"{_core.SEED000_IO_CPU_POWER_W:g} W, fitted to seed 000's Figure 3)")
    ca.add_argument("--storage-policy", help="override (default: stpm at the knob; static: timeout:10s)")
    ca.add_argument("--network-policy", help="override (default: stpm at the knob; static: psm)")
    ca.add_argument("--json", action="store_true", help="print the run as JSON")
    ca.set_defaults(func=cmd_cache)

    ex = sub.add_parser("experiment", help="the seeds' experiments: static-vs-adaptive, static-baselines, knob, ghost-hints, ghost-hint-conditions (000), arm-power, purple-timeouts (001), "
                                           "swap-cost, swap-reshaping (002), nvcache-flushing (003), mems-timeout, mems-shutdown, mems-optimum (004)")
    ex.add_argument("name", metavar="EXPERIMENT", help="which: one of those listed above",
                    choices=("static-vs-adaptive", "static-baselines", "knob", "ghost-hints", "ghost-hint-conditions", "arm-power",
                             "purple-timeouts", "swap-cost", "swap-reshaping", "nvcache-flushing", "mems-timeout", "mems-shutdown",
                             "mems-optimum"))
    ex.add_argument("traces", nargs="*", metavar="TRACE", help="trace files (mems-timeout)")
    ex.add_argument("--device", help="catalog name or TOML path (mems-timeout, mems-shutdown; default ibm-mems-seed004)")
    ex.add_argument("--probe-power", choices=("per-tip", "all-tips"),
                    help="mems-timeout: charge the probes per tip a pass uses, or all of them whenever data move "
                         "(seed 004's 1 W); default: the device's")
    _trace_options(ex)
    ex.add_argument("--workload", action="append", help="application trace CSV (repeatable; seed 000's experiments)")
    ex.add_argument("--plot", metavar="FILE", help="draw the experiment's figure (PNG, PDF or SVG)")
    ex.add_argument("--json", action="store_true", help="print the experiment's rows as JSON")
    ex.set_defaults(func=cmd_experiment)

    dev = sub.add_parser("devices", help="list catalog devices, or show one")
    dev.add_argument("name", nargs="?", help="catalog name or TOML path; or 'validate' followed by a device file")
    dev.add_argument("file", nargs="?", help=argparse.SUPPRESS)
    dev.add_argument("--toml", action="store_true", help="print the device's file, to start a new device from it")
    dev.add_argument("--json", action="store_true", help="print the entries as JSON")
    dev.set_defaults(func=cmd_devices)

    rec = sub.add_parser("record", help="record /proc/diskstats snapshots of this machine's disks, for advise and simulate")
    rec.add_argument("--disk", action="append", metavar="NAME", help="a disk to record, e.g. sda (repeatable; default: every disk)")
    rec.add_argument("--interval", type=_seconds, default=1.0, metavar="DURATION", help="time between snapshots (default 1s)")
    rec.add_argument("--duration", type=_seconds, metavar="DURATION", help="how long to record (default: until Ctrl-C)")
    rec.add_argument("--out", required=True, metavar="FILE", help="the recording, e.g. sda.diskstats")
    rec.add_argument("--append", action="store_true",
                     help="add to an existing recording (a service restarted after a reboot); without it an existing file is refused")
    rec.set_defaults(func=cmd_record)

    adv = sub.add_parser("advise", help="recommend a spin-down timeout (or NVMe APST latency) for a recorded workload")
    adv.add_argument("trace", help="a diskstats recording (idlewise record) or any trace idlewise reads")
    adv.add_argument("--device", required=True,
                     help="catalog name or TOML path of the disk, or auto: this machine's disk identified from sysfs "
                          "(model, rotational; NVMe power states with nvme-cli) and matched to the catalog")
    _trace_options(adv)
    adv.add_argument("--disk", dest="stream", type=_stream_key, metavar="NAME", help="the same as --stream: sda")
    adv.add_argument("--max-wakeups-per-day", type=float, metavar="N", help="at most N spin-ups a day")
    adv.add_argument("--lifetime-years", type=float, default=5.0, metavar="Y",
                     help="the rated start/stop cycles must last Y years (default 5)")
    adv.add_argument("--max-delayed-per-hour", type=float, metavar="N", help="at most N requests an hour wait for a wake-up")
    adv.add_argument("--max-added-delay", type=_seconds, metavar="DURATION", help="at most this mean wait for a delayed request")
    adv.add_argument("--price-per-kwh", type=float, default=0.30, metavar="P", help="electricity price (default 0.30)")
    adv.add_argument("--currency", default="EUR", metavar="CODE", help="the price's currency, said with every sum (default EUR)")
    adv.add_argument("--plot", metavar="FILE", help="draw energy against wake-ups a day (PNG, PDF or SVG)")
    adv.add_argument("--json", action="store_true", help="print the advice as JSON (every setting tried, its figures and commands)")
    adv.set_defaults(func=cmd_advise)

    mg = sub.add_parser("manage", help="the power manager, live: run a policy on this machine's devices (dry run by default)")
    mgsub = mg.add_subparsers(dest="manage_command", metavar="SUBCOMMAND", title="what to do")
    mg.set_defaults(func=_lists(mg))
    # The socket's default is the manager's runtime directory's, taken when the command runs:
    # building the parser does not import the power manager.
    socket_default = "/run/idlewise/manage.sock as root, else $XDG_RUNTIME_DIR/idlewise/manage.sock"

    mr = mgsub.add_parser("run", help="watch disks and carry out policies' decisions (logs only, unless --apply)")
    mr.add_argument("disks", nargs="*", metavar="DISK",
                    help="disks: kernel names (sdb), /dev paths or /dev/disk/by-* links; none: those of the configuration")
    mr.add_argument("--config", metavar="FILE", help="TOML: [manager] settings and a [disks.\"NAME\"] table each "
                                                     "(default /etc/idlewise/manage.toml, when no DISK is named)")
    mr.add_argument("--policy", help="the disks' live policy: timeout:20min, hd-idle:10min, breakeven, randomized, "
                                     "predictive, stpm:knob=50, experts, epc, apst (not the oracle: it is offline)")
    mr.add_argument("--device", default="auto", help="catalog name or TOML path of the model, or auto (from sysfs)")
    mr.add_argument("--interval", type=_seconds, default=None, metavar="DURATION", help="time between polls (default 1s)")
    mr.add_argument("--check-interval", type=_seconds, default=None, metavar="DURATION",
                    help="time between reads of each drive's real state, which never wake it (default 5min; 0s: never)")
    mr.add_argument("--for", dest="duration", type=_seconds, metavar="DURATION", help="stop after this long (default: until SIGTERM)")
    mr.add_argument("--log", metavar="FILE", help="append every line, JSON, to FILE (also on stdout); SIGHUP reopens it")
    mr.add_argument("--textfile", metavar="FILE", help="write the state for node_exporter's textfile collector after each poll")
    mr.add_argument("--socket", help=f"where applications ask (default {socket_default})")
    mr.add_argument("--apply", action="store_true", help="run the commands (needs root); without it, a dry run")
    mr.add_argument("--force", action="store_true", help="act even on a virtual disk or one holding root or swap")
    mr.add_argument("--actuator", default="auto", choices=["auto", "ata", "scsi", "scsi-stop", "wifi", "nvme"],
                    help="how decisions are carried out (default: from the device: hdparm -y, sg_start --pc=3, iw, nvme)")
    mr.add_argument("--command-timeout", type=_seconds, default=None, metavar="DURATION",
                    help="a command that has not answered by then is killed (default 30s)")
    mr.add_argument("--base-power", type=_watts, default=0.0, metavar="W", help="platform base power for stpm (W)")
    mr.add_argument("--knob", type=float, default=50.0, help="weighs a ghost hint's time against its energy (0-100, default 50)")
    mr.set_defaults(func=cmd_manage_run)
    ms = mgsub.add_parser("status", help="each managed disk: mode, spin-ups, time since I/O, queue, energy so far")
    ms.add_argument("--socket", help=f"where the manager listens (default {socket_default})")
    ms.add_argument("--size", type=float, default=4096.0, metavar="BYTES", help="the access to price (default 4096)")
    ms.add_argument("--json", action="store_true", help="print the state as JSON")
    ms.add_argument("--prometheus", action="store_true", help="Prometheus' text exposition format")
    ms.set_defaults(func=cmd_manage_status)
    mh = mgsub.add_parser("hint", help="a ghost hint: an application would have used DISK had it been ready")
    mh.add_argument("disk", help="a managed disk (its kernel name or the name it was given)")
    mh.add_argument("--size", type=float, default=4096.0, metavar="BYTES", help="the access it would have made (default 4096)")
    mh.add_argument("--socket", help=f"where the manager listens (default {socket_default})")
    mh.add_argument("--json", action="store_true", help="print the manager's answer as JSON")
    mh.set_defaults(func=cmd_manage_hint)
    md = mgsub.add_parser("spin-down", help="spin DISK down now, once (a dry run unless --apply)")
    md.add_argument("disk", help="a kernel name (sdb), /dev path or /dev/disk/by-* link")
    md.add_argument("--apply", action="store_true", help="send the command (needs root)")
    md.add_argument("--force", action="store_true", help="act even on a virtual disk or one holding root or swap")
    md.add_argument("--device", default="auto", help="catalog name or TOML path of the model, or auto")
    md.add_argument("--actuator", default="auto", choices=["auto", "ata", "scsi", "scsi-stop", "nvme"],
                    help="how (default: from the device: hdparm -y, sg_start --pc=3, nvme)")
    md.set_defaults(func=cmd_manage_spin_down)
    mu = mgsub.add_parser("unit", help="print a hardened systemd service running the manager from a configuration")
    mu.add_argument("--config", default="/etc/idlewise/manage.toml", metavar="FILE", help="the configuration it runs")
    mu.set_defaults(func=cmd_manage_unit)
    mp = mgsub.add_parser("replay", help="the same loop over a diskstats recording, on a virtual clock")
    mp.add_argument("recording", help="a diskstats recording (idlewise record)")
    mp.add_argument("--policy", required=True, help="the live policy, as manage run takes it")
    mp.add_argument("--device", required=True, help="catalog name or TOML path of the model")
    mp.add_argument("--stream", "--disk", dest="stream", metavar="NAME", help="the disk of a recording of several")
    mp.add_argument("--log", metavar="FILE", help="write the decisions, one JSON line each (a file of its own, replaced)")
    mp.add_argument("--knob", type=float, default=50.0, help="weighs a ghost hint's time against its energy (0-100, default 50)")
    mp.add_argument("--quiet", action="store_true", help="no decisions on stdout")
    mp.set_defaults(func=cmd_manage_replay)

    pol = sub.add_parser("policies", help="list policies and their parameters")
    pol.add_argument("--json", action="store_true", help="print the families as JSON")
    pol.set_defaults(func=cmd_policies)
    return parser


def _terminate(signum, frame):
    """SIGTERM stops a command as Ctrl-C does: the engine is asked to stop and waited for."""
    stop = KeyboardInterrupt()
    stop.signal = signal.SIGTERM
    raise stop


def _print_warning(message, category, filename, lineno, file=None, line=None):
    """A warning on the terminal is one line of idlewise's, not Python's with a source line."""
    from ._common import say

    say(f"warning: {message}", file=file)


#: The longest error message shown: a message that quotes a file's line (a header of any length)
#: is cut there.
MESSAGE_CHARS_MAX = 2000


def printable(message: str) -> str:
    """A message fit for a terminal: control characters (an escape sequence in a trace's field)
    escaped, not acted on, and at most :data:`MESSAGE_CHARS_MAX` characters."""
    shown = "".join(c if c in "\n\t" or (c.isprintable() and c != "\x7f") else repr(c)[1:-1] for c in message[:MESSAGE_CHARS_MAX])
    return shown + (f"… ({len(message) - MESSAGE_CHARS_MAX:,} more characters)" if len(message) > MESSAGE_CHARS_MAX else "")


def _read_once(args) -> None:
    """Standard input (``-``) and pipes given as traces are copied once, as they arrive, before
    any command looks at them: a format is then recognised and the records read from the same
    bytes (see :mod:`idlewise.traces.inputs`)."""
    paths = [getattr(args, option, None) for option in ("trace", "input")] + list(getattr(args, "traces", None) or [])
    if not any(isinstance(p, str) for p in paths):
        return
    from ..traces.inputs import local_path

    for option in ("trace", "input"):
        if isinstance(getattr(args, option, None), str):
            setattr(args, option, local_path(getattr(args, option), fresh=True))
    if getattr(args, "traces", None):
        args.traces = [local_path(p, fresh=True) for p in args.traces]


def _check_extras(args) -> None:
    """Refuses a command line that needs an extra not installed, naming it, before any work."""
    from .._extras import need

    if args.command == "report":
        need("report", "idlewise report")
    if getattr(args, "plot", None):
        need("report", f"--plot {args.plot}")
    for option in ("out", "per_request", "output", "from_rows"):
        value = getattr(args, option, None)
        if isinstance(value, str) and value.endswith(".parquet"):
            need("parquet", f"--{option.replace('_', '-')} {value}")
    if getattr(args, "scheduler", None):
        need("dask", f"--scheduler {args.scheduler}")
    for value in [getattr(args, "trace", None), getattr(args, "input", None), *(getattr(args, "traces", None) or [])]:
        if isinstance(value, str) and (value.endswith(".parquet") or getattr(args, "format", None) == "parquet"):
            need("parquet", f"{value}: a Parquet trace")


def _said(error: Exception) -> str:
    """An error as a command says it: a file the system could not open or write as every
    reader names one (``x.csv: No such file or directory``), not Python's ``[Errno 2] ...``."""
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return str(error)


def main(argv: list[str] | None = None) -> int:
    """Runs one command line; SIGTERM and the warnings' printer are the command's while it runs,
    and as they were after (a program or test calling ``main`` keeps its own)."""
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = (signal.signal(signal.SIGTERM, _terminate) if on_main_thread else None, warnings.showwarning)
    warnings.showwarning = _print_warning
    try:
        return _run(argv)
    finally:
        if on_main_thread:
            signal.signal(signal.SIGTERM, previous[0])
        warnings.showwarning = previous[1]


def _run(argv: list[str] | None) -> int:
    words = sys.argv[1:] if argv is None else argv
    # The first word that is not an option names the command (idlewise's own options take no
    # value); an unknown word builds nothing more, and argparse names the commands it knows.
    running = next((word for word in words if not word.startswith("-")), None)
    args = build_parser(running).parse_args(argv)
    # What a results file records of the command that wrote it (its Parquet metadata).
    args.command_line = shlex.join(["idlewise", *words])
    try:
        _read_once(args)
        # Every file a command will write is checked before its work, which can take hours, and
        # so is every optional part it needs.
        _check_extras(args)
        for option, suffixes in (("out", ()), ("plot", FIGURE_SUFFIXES), ("per_request", (".parquet",)),
                                 ("output", (".parquet",))):  # (trace convert's)
            if getattr(args, option, None) is not None:
                check_destination(getattr(args, option), suffixes)
        if isinstance(getattr(args, "transform", None), str) and hasattr(args, "stream"):
            # A chain's stream:K picks the device the file is read for, as --stream K (the other
            # transforms work on each device apart); sweep's transforms are each their own runs.
            from ..traces.transforms import split_selection

            args.stream, args.transform = split_selection(args.transform, args.stream, f"{getattr(args, 'trace', '')}: ")
        return args.func(args)
    except BrokenPipeError:
        # The reader (head, less) closed the pipe: stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (IdlewiseError, OSError) as e:
        from .._core import PolicyError

        if isinstance(e, PolicyError) and e.__cause__ is not None:
            # The one traceback a user wants: their policy's own, from where the engine called it.
            import traceback

            cause = e.__cause__
            print("".join(traceback.format_exception(type(cause), cause, cause.__traceback__)).rstrip(), file=sys.stderr)
        from ._common import say

        say(f"error: {printable(_said(e))}")
        return 2
    except KeyboardInterrupt as e:
        # One line, what was finished, and the usual code: 130 for Ctrl-C, 143 for SIGTERM.
        detail = getattr(e, "detail", None)
        from ._common import say

        say("interrupted" + (f": {detail}" if detail else ""))
        return 143 if getattr(e, "signal", None) == signal.SIGTERM else 130


__all__ = ["DEMO_POLICIES", "build_parser", "main", "results_table"]
