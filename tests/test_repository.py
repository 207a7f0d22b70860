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


def _version(text: str) -> tuple:
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def test_the_declared_rust_version_builds_every_dependency():
    # rust-version is the oldest toolchain that builds the package: no locked dependency of the
    # library or the bindings may need a newer one (clippy's incompatible_msrv checks our own
    # code against it: `cargo clippy -p idlewise-core -p idlewise-py`).
    import json
    import shutil
    import subprocess
    import tomllib

    if shutil.which("cargo") is None:
        import pytest

        pytest.skip("no cargo: the suite runs against an installed wheel")
    root = Path(__file__).resolve().parent.parent
    declared = tomllib.loads((root / "Cargo.toml").read_text())["workspace"]["package"]["rust-version"]
    for crate in ("idlewise-core", "idlewise-py", "idlewise-benchmarks"):
        manifest = tomllib.loads((root / ("benchmarks" if crate.endswith("benchmarks") else f"crates/{crate}") / "Cargo.toml").read_text())
        assert manifest["package"].get("rust-version") == {"workspace": True}, crate
    tree = subprocess.run(["cargo", "tree", "-p", "idlewise-py", "-e", "normal,build", "--prefix", "none", "--offline"],
                          cwd=root, capture_output=True, text=True, check=True).stdout
    used = {tuple(line.split()[:2]) for line in tree.splitlines() if line.strip()}
    metadata = json.loads(subprocess.run(["cargo", "metadata", "--format-version", "1", "--offline"], cwd=root,
                                         capture_output=True, text=True, check=True).stdout)
    needs = {(p["name"], p["rust_version"]) for p in metadata["packages"]
             if (p["name"], "v" + p["version"]) in used and p.get("rust_version")}
    assert needs, "no dependency read"
    newest = max(needs, key=lambda n: _version(n[1]))
    assert _version(newest[1]) <= _version(declared), f"{newest[0]} needs Rust {newest[1]}; rust-version says {declared}"
