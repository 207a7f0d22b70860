"""tools/check-docs: every committed run under docs/, every generated block and docs/claims.md
are what the code gives today (issue 44), and the checker itself notices a changed number."""

import importlib.machinery
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _checker():
    loader = importlib.machinery.SourceFileLoader("check_docs", str(ROOT / "tools" / "check-docs"))
    spec = importlib.util.spec_from_loader("check_docs", loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_docs"] = module  # its dataclasses look their module up
    loader.exec_module(module)
    return module


def test_the_docs_are_what_the_code_gives():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "check-docs")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_changed_number_is_a_difference():
    check = _checker()
    assert check.differences("a.json", '[{"energy_j": 1.0, "p": "x"}]', '[{"energy_j": 1.0, "p": "x"}]') == []
    assert check.differences("a.json", '[{"energy_j": 1.0}]', '[{"energy_j": 1.000000000001}]') == []
    assert check.differences("a.json", '[{"energy_j": 1.0}]', '[{"energy_j": 1.001}]') == ["[0].energy_j: 1.0, now 1.001"]
    assert check.differences("a.json", '[{"energy_j": 1.0}]', '[{"energy_j": 1.0, "new": 2}]') == ["[0].new: new"]
    assert check.differences("a.csv", "a,b\n1,x\n", "a,b\n1.0,x\n") == []
    assert check.differences("a.csv", "a,b\n1,x\n", "a,b\n2,x\n") == ["line 2, field 1 (a): '1', now '2'"]


def test_a_stale_block_is_found_and_rewritten():
    check = _checker()
    page = "text\n<!-- check-docs: t -->\nold\n<!-- /check-docs -->\nmore\n"
    new, changed = check.with_blocks(page, {"t": "new"}, "page.md")
    assert changed == ["t"] and new == "text\n<!-- check-docs: t -->\nnew\n<!-- /check-docs -->\nmore\n"
    assert check.with_blocks(new, {"t": "new"}, "page.md") == (new, [])


def test_every_verdict_is_one_of_three_and_every_claim_has_a_command():
    sys.path.insert(0, str(ROOT / "tools"))
    import claims

    text = (ROOT / "docs" / "claims.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| claim ")]
    assert len(rows) >= 30
    for row in rows:
        assert any(f"**{v}**" in row for v in claims.VERDICTS), row
        assert row.rstrip().endswith("` |"), row
