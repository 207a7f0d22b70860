"""The documents the catalog's values come from, named so a reader can find them.

Catalog entries cite by short keys ("Acquaviva et al. 2004 Table 2", "5K320 spec Table 14");
``references.toml`` gives each key its full reference: papers by authors, title, venue and year,
datasheets and manuals by maker, document, revision and date. ``idlewise devices NAME`` lists
the references its entry cites, and the tests hold every catalog text to citing only keys
this file knows.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterable

from ._compat import tomllib
from ._package import package_text


@dataclass(frozen=True)
class Reference:
    """One document: the ``key`` catalog texts cite it by (or any of its ``aliases``), and its
    full ``cite``."""

    key: str
    cite: str
    aliases: tuple[str, ...] = ()

    def named_in(self, text: str) -> bool:
        return any(name in text for name in (self.key, *self.aliases))


@functools.cache
def references() -> tuple[Reference, ...]:
    """Every reference the package knows, in the order of ``references.toml``."""
    raw = tomllib.loads(package_text("references.toml"))
    return tuple(Reference(r["key"], r["cite"], tuple(r.get("aliases", ()))) for r in raw["reference"])


def cited(texts: Iterable[str]) -> list[Reference]:
    """The references ``texts`` name, in the order they are first named."""
    found: dict[str, tuple[int, Reference]] = {}
    for position, text in enumerate(texts):
        for ref in references():
            if ref.key not in found and ref.named_in(text):
                found[ref.key] = (position, ref)
    return [ref for _, ref in sorted(found.values(), key=lambda pair: pair[0])]


def strings_of(value) -> list[str]:
    """Every string inside a parsed TOML value, depth first (the texts a device file cites in)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_of(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_of(v)]
    return []


__all__ = ["Reference", "cited", "references", "strings_of"]
