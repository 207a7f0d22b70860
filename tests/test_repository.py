"""The repository stands alone: a fresh clone has nothing beside it (no workplace shared folder),
so nothing a user runs or reads may point outside the checkout."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A relative path that climbs a folder (checked below), or the workplace's shared folder by name.
CLIMB = re.compile(r"(?:\.\./)+[\w./-]*")
SHARED = re.compile(r"\bshared/(data|seeds|reference|holdout)")


def outside(path: Path, line: str) -> bool:
    """True when the line names a path that is not inside the checkout, resolved from its file."""
    if SHARED.search(line):
        return True
    for token in CLIMB.findall(line):
        target = (path.parent / token.rstrip(".")).resolve()
        if ROOT not in target.parents and target != ROOT or not target.exists():
            return True
    return False


def _files():
    for folder in ("tests", "docs", "benchmarks"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in {".py", ".md", ".rs", ".toml", ".sh", ".txt", ""}:
                yield path
    yield ROOT / "README.md"


def test_nothing_refers_outside_the_repository():
    offenders = []
    for path in _files():
        if path.name == "test_repository.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if outside(path, line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "paths outside the repository:\n" + "\n".join(offenders)


def test_the_check_catches_an_outside_path():
    here = ROOT / "docs" / "x.md"
    sibling = "../" + "shared/data/traces/x.srt"  # spelt in parts so repository greps stay quiet
    assert outside(here, f"idlewise simulate {sibling}")
    assert outside(here, "see shared/data/traces")
    assert outside(here, "idlewise simulate ../../elsewhere/x.srt")
    assert not outside(here, "see [the README](../README.md)")
    assert not outside(here, "idlewise simulate tests/data/web/nasa_19950801.tsv")


def test_bundled_traces_have_their_licences():
    data = ROOT / "tests" / "data"
    for trace, licence in [("disksim/ascii.trace", "disksim/COPYRIGHT.disksim"),
                           ("spc/financial1-prefix.ascii", "spc/LICENSE.ssdsim"),
                           ("web/nasa_19950801.tsv", "web/LICENSE.md")]:
        assert (data / trace).is_file() and (data / licence).is_file(), trace
