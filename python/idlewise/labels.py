"""Labels that tell inputs apart: two traces or two devices given to one call are always two
groups of rows, even when their own names agree (``a/t.csv`` and ``b/t.csv``; a device file
edited from ``idlewise devices NAME --toml`` that kept the catalog name)."""

from __future__ import annotations

import os
from typing import Optional, Sequence


def distinct_labels(names: Sequence[str], paths: Sequence[Optional[str]]) -> list[str]:
    """Each input's label: its ``name`` where no other input shares it; else, for an input read
    from a file, the shortest tail of its path that no other file's shares (``a/t.csv``); and
    where labels still agree (the same file twice, names with no file) they are numbered in
    order (``t.csv``, ``t.csv (2)``)."""
    labels = list(names)
    for name in set(names):
        group = [i for i, n in enumerate(names) if n == name]
        if len(group) < 2:
            continue
        full = {i: os.path.abspath(paths[i]) for i in group if paths[i] is not None}
        for i, path in full.items():
            labels[i] = _distinct_tail(path, [p for p in full.values() if p != path], name)
    count: dict = {}
    for i, label in enumerate(labels):
        count[label] = count.get(label, 0) + 1
        if count[label] > 1:
            labels[i] = f"{label} ({count[label]})"
    return labels


def _distinct_tail(path: str, others: list, name: str) -> str:
    """The shortest tail of ``path`` (at least its file name) that ends none of ``others``; the
    ``name`` when the file's name is not it (a device named inside its file) is kept in front."""
    parts = path.split(os.sep)
    for k in range(1, len(parts) + 1):
        tail = os.sep.join(parts[-k:])
        if not any(o == tail or o.endswith(os.sep + tail) for o in others):
            break
    else:
        tail = path
    return tail if os.path.basename(path) == name else f"{name} ({tail})"
