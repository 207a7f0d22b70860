"""Every command the README and docs/ show runs as written (issue 12), in order, from a copy of
the repository's layout (so the commands that regenerate docs/ figures write into the copy).
Commands on files a reader supplies (their own trace, their own disk) are named below; any
other command that fails, or that names a file the repository does not have, fails this test."""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: Stand-ins for the reader's own files and machines: a command naming one is an example, not
#: something the repository can run. (Each is used in the docs; see the last test.)
READERS_OWN = {"sda.diskstats", "...", "tcp://SCHEDULER:8786", "[--max-wakeups-per-day", "sdb",
               "/etc/idlewise/manage.toml", "/dev/disk/by-id/ata-WDC_WD40EFZX-68AWUN0_WD-XXXX",
               "/etc/systemd/system/idlewise-manage.service"}
#: Commands that ask the reader's running manager: there is none here to answer.
LIVE = {"idlewise manage status"}


def shell_blocks(text: str):
    """The lines of each fenced shell block (bash, sh, console or unmarked), continuations joined."""
    block = None
    for line in text.splitlines():
        if line.startswith("```"):
            if block is None:
                block = (line[3:].strip(), [])
            else:
                if block[0] in ("bash", "sh", "console", ""):
                    yield "\n".join(block[1]).replace("\\\n", " ").splitlines()
                block = None
        elif block is not None:
            block[1].append(line)


def commands(path: Path):
    for lines in shell_blocks(path.read_text()):
        for line in lines:
            line = line.strip().removeprefix("$ ")
            if line.startswith("idlewise "):
                yield re.split(r"\s+#\s", line)[0].strip()


ALL = [(doc, cmd) for doc in DOCUMENTS for cmd in commands(doc)]


def runnable(cmd: str) -> bool:
    # The words of a redirect count: a command writing into the reader's /etc is never run here.
    return cmd not in LIVE and not any(word in READERS_OWN for word in shlex.split(cmd.replace(" > ", " ")))


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """The repository's files as the docs see them, docs/ copied so regenerated figures land there."""
    root = tmp_path_factory.mktemp("clone")
    for name in ("python", "tests", "crates", "benchmarks"):
        (root / name).symlink_to(ROOT / name)
    shutil.copytree(ROOT / "docs", root / "docs")
    shutil.copy(ROOT / "README.md", root / "README.md")
    return root


@pytest.mark.parametrize("document", sorted({doc for doc, cmd in ALL if runnable(cmd)}), ids=lambda p: p.name)
def test_every_command_of_a_document_runs_as_written(document, layout):
    for doc, cmd in ALL:
        if doc != document or not runnable(cmd):
            continue
        program = [sys.executable, "-m", "idlewise"] + shlex.split(cmd.split(" > ")[0])[1:]
        out = open(layout / cmd.split(" > ")[1].strip(), "w") if " > " in cmd else subprocess.PIPE
        done = subprocess.run(program, cwd=layout, stdout=out, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "COLUMNS": "100"}, timeout=600)
        assert done.returncode == 0, f"{document.name}: `{cmd}` failed:\n{done.stderr[-2000:]}"


def test_the_stand_ins_are_the_only_commands_left_out():
    left_out = [cmd for _, cmd in ALL if not runnable(cmd)]
    used = {word for cmd in left_out for word in shlex.split(cmd.replace(" > ", " ")) if word in READERS_OWN}
    assert used == READERS_OWN, f"stand-ins no document uses any more: {READERS_OWN - used}"
    assert LIVE <= {cmd for _, cmd in ALL}, "a live command no document shows any more"
    # Recording, advising and managing the reader's own disks (sda, sdb, by-id, its /etc), a
    # running manager and a cluster: 15 lines at most, and far more that run here.
    assert len(left_out) <= 15 and len(ALL) - len(left_out) >= 40, (len(left_out), len(ALL))
