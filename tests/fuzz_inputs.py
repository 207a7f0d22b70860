"""Inputs for fuzzing the trace readers: valid lines of each format, mutated the ways real files
go wrong (odd digits, huge numbers, separators, truncation, binary bytes). Shared by the suite's
property tests (test_fuzz_readers.py) and the long run (benchmarks/fuzz.py)."""

from __future__ import annotations

import random

SEEDS = {
    "csv": "time_s,offset_bytes,size_bytes,op\n0.0,0,4096,R\n0.5,8192,512,W\n1.25,16384,65536,r\n",
    "disksim": "0.000000 0 1234 8 1\n12.500 1 88 16 0\n13.75 0 100 8 1\n",
    "spc": "0,20941264,8192,W,0.551706\n1,20939840,8192,r,0.554041,extra\n0,5,512,R,0.6\n",
    "spc-ascii": "1000000 2 1234 8 1\n2000000 2 1242 8 0 7\n3000000 1 10 16 1\n",
    "msr": "128166372003061629,hm,0,Write,7014912,4096,26\n128166372016382155,hm,1,Read,1024,512,30\n",
    "blkparse": "  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]\n"
                "  8,0    3        2     0.000100000   697  D   W 223490 + 8 [kjournald]\n"
                "  8,16   1        3     0.500000000   700  Q   R 100 + 16 [cat]\nCPU3 (8,0):\n Reads Queued: 0, 0KiB\n",
    "alibaba": "1,R,4096,8192,1577808000000000\n2,W,0,512,1577808000000100\n",
    "tencent": "1538323200,101,8,0,1\n1538323201,5,16,1,2\n",
    "diskstats": "1700000000.000 8 0 sda 100 0 800 5 50 0 400 7 0 10 12\n1700000001.000 8 0 sda 103 0 824 6 52 0 416 9 0 12 15\n"
                 "1700000002.000 8 0 sda 103 0 824 6 60 0 480 9 0 14 17\n",
    "biosnoop": "TIME(s)     COMM           PID     DISK      T SECTOR     BYTES  LAT(ms)\n"
                "0.000004    supervise      1950    xvda1     W 13092560   4096      0.74\n"
                "0.000178    cat            1951    xvda1     R 13092432   8192      0.10\n"
                "2.500000    dd             77      xvda1     R 2048       65536     1.00\n",
    "fiu": "89966527181059 4121 syslogd 904994888 8 W 6 0 531de8ebfe9e14f5ef4a65bcd0bc1b8b\n"
           "89966777181059 4121 syslogd 904994896 16 R 6 0 0123456789abcdef0123456789abcdef\n",
}

#: A CSV with its own header, read through MAPPED_COLUMNS (and the write flag where its op
#: column holds 0/1 flags): a column not read, a quoted field holding the delimiter.
MAPPED_SEED = "host,ts,rw,lba,len\nh,0,Read,0,8\nh,1500.5,W,16,1\n\"a,b\",2500,write,32,4\n"
MAPPED_COLUMNS = "time_ms=ts,op=rw,offset_sectors=lba,size_kib=len"

ODD = ["0x10", "1_000", "１２", "١٢", "\u00a012", "-1", "+5", "1e3", "-inf", "nan", "1e400", "9" * 25, "9" * 3000,
       "18014398509481984", "-9223372036854775808", "9223372036854775807", "", " ", "\t", ",", ",,", "R", "W", "Read",
       "\ufeff", "\r", "0.", ".5", "1.2.3", "é", "\x00", "\x7f", "2", "256", "\"1\"", "CPU0 (8,0):", "Total (8,0):"]


def mutate(text: str, rng: random.Random) -> bytes:
    """One of many corruptions of a valid file, chosen at random."""
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(9)
        if not lines:
            lines = [""]
        i = rng.randrange(len(lines))
        if kind == 0:  # replace a field
            sep = "," if "," in lines[i] else " "
            parts = lines[i].rstrip("\n").split(sep)
            parts[rng.randrange(len(parts))] = rng.choice(ODD)
            lines[i] = sep.join(parts) + "\n"
        elif kind == 1:  # insert a junk line or a blank one
            lines.insert(i, rng.choice(["\n", "  \t\n", rng.choice(ODD) + "\n", "\ufeff\n"]))
        elif kind == 2:  # delete a line
            del lines[i]
        elif kind == 3:  # truncate inside a line
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        elif kind == 4:  # duplicate a line
            lines.insert(i, lines[i])
        elif kind == 5:  # change separators
            lines[i] = lines[i].replace(rng.choice([",", " "]), rng.choice(["\t", ",", "  ", ";", ""]))
        elif kind == 6:  # add trailing fields
            lines[i] = lines[i].rstrip("\n") + rng.choice([",x", " 1 2", ",", "\t"]) + "\n"
        elif kind == 7:  # CRLF
            lines[i] = lines[i].replace("\n", "\r\n")
        else:  # swap two lines (times out of order)
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
    data = "".join(lines).encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(64))) + data
    if rng.random() < 0.03:
        data = b"\xef\xbb\xbf" + data
    return data


# --- command lines ----------------------------------------------------------------------------

#: Commands the option fuzz leaves out: they run seeds' whole experiments or record this
#: machine for a duration.
SLOW_COMMANDS = {"experiment", "record", "demo"}

#: Values that once broke something, for any option.
OPTION_VALUES = ["", "0", "1", "-1", "2", "9" * 25, "-" + "9" * 25, "18446744073709551615", "nan", "inf", "-inf", "1e309",
                 "0.5", "1s", "2min", "-3s", "0..10s/1s", "timeout:2s", "timeout:0s..1s/0s", "stpm:knob=500", "oracle",
                 "always-on", "hitachi-microdrive-1gb", "cisco-350", "cmu-mems-g1", "no-such-device", "sda", "vda", "\x1b[2J",
                 "ä", "a,b", "compress:8ops", "stream:3", "stream:" + "9" * 25, "window:0s..1s", "x.bmp", "x.csv", "x.parquet",
                 "x.html", "/no/such/dir/x.parquet", "time_ms=ts,size_bytes=len", "tcp://127.0.0.1:1", "notaurl", "1..0",
                 "open", "closed"]


def isolated_machine(folder: str):
    """A context in which a drawn command line cannot touch this machine's devices: /proc, /sys
    and /dev are empty trees of ``folder`` (``manage run sda`` finds no disk), the process is
    not root (``--apply`` is refused before anything runs), and the manager's socket directory
    is ``folder``'s."""
    import contextlib
    import os
    from unittest import mock

    @contextlib.contextmanager
    def isolated():
        roots = {}
        for name in ("proc", "sys", "dev", "run"):
            roots[name] = os.path.join(folder, "machine", name)
            os.makedirs(roots[name], exist_ok=True)
        open(os.path.join(roots["proc"], "diskstats"), "w").close()
        env = {"IDLEWISE_PROCFS_ROOT": roots["proc"], "IDLEWISE_SYSFS_ROOT": roots["sys"], "IDLEWISE_DEV_ROOT": roots["dev"],
               "XDG_RUNTIME_DIR": roots["run"]}
        os.chmod(roots["run"], 0o700)
        with mock.patch.dict(os.environ, env), mock.patch("os.geteuid", lambda: 65534):
            yield
    return isolated()


def commands(parser) -> dict:
    """Every leaf subcommand's parser of ``parser``, by its words (``("trace", "stats")``), the
    slow ones left out."""
    import argparse

    def leaves(p) -> dict:
        found = {}
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    inner = leaves(sub)
                    found.update({(name, *w): q for w, q in inner.items()} if inner else {(name,): sub})
        return found

    return {words: p for words, p in leaves(parser).items() if words[0] not in SLOW_COMMANDS}


def command_line(choose, words, sub, trace: str) -> list:
    """An argument list for the subcommand ``sub``: each option kept or not, each value one of
    :data:`OPTION_VALUES` (or the option's own choices), the positionals mostly ``trace``.
    ``choose(options)`` picks one (hypothesis' draw, or ``random.Random.choice``)."""
    import argparse

    argv = list(words)
    for action in sub._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        positional = not action.option_strings
        if not positional and not choose([True, False]):
            continue
        if action.nargs == 0:
            argv.append(action.option_strings[0])
            continue
        choices = list(action.choices) if action.choices else OPTION_VALUES + [trace]
        count = 1 if action.nargs in (None, "?") else choose([1, 2, 3])
        values = [choose(choices) for _ in range(count)]
        if positional and choose([False, True, True, True]):
            values[0] = trace  # mostly a real trace, so the options after it are reached
        if not positional:
            argv.append(action.option_strings[0])
        argv += [str(v) for v in values]
    return argv
