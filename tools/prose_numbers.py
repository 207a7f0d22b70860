"""Numbers in the seed pages' sentences, checked against the runs (`tools/check-docs`).

A seed page says what its runs give in tables that `check-docs` regenerates; a number in a
sentence is a copy that can go stale. So every number with a unit (`3.4 %`, `910 ms`, `2.72 J`),
every factor (`×4`, `×3–7`) and every count "N of M" in a sentence of a seed page must be one of:

- **generated**: inside an inline marker, ``<!-- n:KEY -->3.4 %<!-- /n -->``, whose text
  `check-docs` computes from the runs (`tools/claims.py`'s ``prose``) and rewrites with ``--write``;
- **checked**: printed, character for character, in one of the page's generated blocks or
  in its claims' rows (so a run that changes it changes the block, and the sentence fails);
- **an input**: a number taken from the seed, a datasheet or an assumption, declared in the
  page's own list (``INPUTS`` below), not a result of ours.

Anything else fails the check, naming the page, the line and the number: remove it, point to the
table, or generate it. Code, generated blocks, tables and headings are not sentences.
"""

from __future__ import annotations

import re

#: A number with a unit, or a count "N of M" (the sign as written: − or -).
NUMBER = re.compile(
    r"×\s?\d[\d,]*(?:\.\d+)?(?:[–-]\d[\d,]*(?:\.\d+)?)?"
    r"|(?<![\w.,/#§·])(?:[−+-]\s?)?\d[\d,]*(?:\.\d+)?"
    r"(?:\s?(?:%|×|µs|ms|s|min|h|J|mJ|W|mW|MB|MiB|GB|KB|KiB|kB|kb/s|Mb/s|MB/s|m/s²|µm|nm|mm²|kWh)(?![\w])"
    r"|\s+of\s+\d[\d,]*(?![\w.]))"
)
MARKER = re.compile(r"<!-- n:([\w.-]+) -->(.*?)<!-- /n -->", re.S)
BLOCK = re.compile(r"<!-- check-docs: [\w-]+ -->.*?<!-- /check-docs -->", re.S)
FENCE = re.compile(r"```.*?```", re.S)
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\([^)]*\)")


def sentences(text: str) -> list[tuple[int, str]]:
    """The page's prose lines (numbered from 1): no code, generated block, table, heading or
    marker text."""
    blanked = text
    for pattern in (FENCE, BLOCK, MARKER):
        blanked = pattern.sub(lambda m: "\n" * m.group(0).count("\n"), blanked)
    out = []
    for number, line in enumerate(blanked.splitlines(), 1):
        if line.lstrip().startswith(("|", "#", "<!--", "![")):
            continue
        line = LINK.sub("]", CODE.sub("", line))
        out.append((number, line))
    return out


def check(page: str, text: str, generated: str, inputs: set, prose: dict, write: bool) -> tuple[str, list[str], dict]:
    """The page with its markers' text computed (``prose``: KEY -> text), what fails, and the
    counts: markers, numbers checked against the generated text, inputs."""
    failures: list[str] = []
    counts = {"generated": 0, "checked": 0, "inputs": 0}

    def fill(m: re.Match) -> str:
        key, old = m.group(1), m.group(2)
        if key not in prose:
            failures.append(f"{page}: marker n:{key} is not computed by tools/claims.py's prose()")
            return m.group(0)
        counts["generated"] += 1
        if old != prose[key]:
            failures.append(f"{page}: n:{key} says {old!r}, the runs give {prose[key]!r}")
        return f"<!-- n:{key} -->{prose[key]}<!-- /n -->"

    new = MARKER.sub(fill, text)
    for line, prose_line in sentences(new):
        for m in NUMBER.finditer(prose_line):
            found = m.group(0).strip()
            if found in inputs:
                counts["inputs"] += 1
            elif found in generated:
                counts["checked"] += 1
            else:
                failures.append(f"{page}:{line}: '{found}' in a sentence is neither generated, nor in a generated table, "
                                "nor a declared input")
    return (new if write else text), failures, counts


__all__ = ["MARKER", "NUMBER", "check", "sentences"]
