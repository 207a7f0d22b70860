"""Runs held as columns: each field of a run's record one array of numbers, list or single value
for every run, as the engine hands a run set over (``crates/idlewise-py/src/columns.rs``). A sweep
of 100,000 runs is a few dozen arrays here; a run's dict is built only when asked
(:meth:`RunColumns.records`), key for key and value for value the dict the engine's record was.
The engine's numbers are bytes read through ``memoryview`` (a text trace's replay and its dicts
need no NumPy, a tenth of a second of start-up); NumPy is loaded where runs are taken, joined or
made an Arrow table.

The layout the engine gives, ``[(key, kind, payload)]``, one home of each kind's reading:
``F``/``I`` numbers every run has, ``S`` text (the distinct labels and a code a run), ``F?`` numbers with a null mask (None in a
record), ``F-`` numbers with a mask of runs that lack the key, ``O-`` objects (a run's arrays)
or None where a run lacks the key, ``MF``/``MI`` a map by name (a matrix of runs × names; a
count below zero is an entry the run does not have)."""

from __future__ import annotations

import abc

class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self):
        return "ABSENT"  # pickled by name: one marker in every process (a sweep's workers)


#: A run that has no such key (its record leaves the key out).
ABSENT = _Absent()


class Column(abc.ABC):
    """One field over the runs. ``values()`` gives each run's Python value (``ABSENT`` where the
    run has no such key); ``take(index)`` the runs at ``index``, in that order."""

    @abc.abstractmethod
    def values(self) -> list:
        """Each run's value."""

    @abc.abstractmethod
    def take(self, index) -> "Column":
        """The runs at ``index`` (run numbers), in that order."""

    def floats(self):
        """The values as a float64 NumPy array, NaN where null or absent (a number column's fast
        path)."""
        import numpy as np

        return np.array([np.nan if v is None or v is ABSENT else v for v in self.values()], dtype=np.float64)


class Numbers(Column):
    """Numbers every run has (a NumPy array or a ``memoryview`` of the engine's bytes);
    ``missing`` (a bool per run, same kinds) marks None (``absent=False``) or a run without the
    key (``absent=True``)."""

    def __init__(self, array, missing=None, absent: bool = False):
        self.array, self.missing, self.absent = array, missing, absent

    def values(self) -> list:
        out = self.array.tolist()
        if self.missing is not None:
            marker = ABSENT if self.absent else None
            for i, gone in enumerate(self.missing.tolist()):
                if gone:
                    out[i] = marker
        return out

    def __reduce__(self):
        # As NumPy arrays: a memoryview does not pickle (a sweep's runs come back from workers).
        import numpy as np

        return Numbers, (self.numpy(), None if self.missing is None else np.asarray(self.missing), self.absent)

    def numpy(self):
        """The numbers as a NumPy array (the engine's bytes read in place)."""
        import numpy as np

        return np.asarray(self.array)

    def take(self, index):
        import numpy as np

        return Numbers(self.numpy()[index], None if self.missing is None else np.asarray(self.missing)[index], self.absent)

    def floats(self):
        import numpy as np

        out = self.numpy().astype(np.float64)
        if self.missing is not None:
            out[np.asarray(self.missing)] = np.nan
        return out


class Objects(Column):
    """Any values, one per run (``ABSENT`` allowed)."""

    def __init__(self, items: list):
        self.items = items

    def values(self) -> list:
        return list(self.items)

    def take(self, index):
        return Objects([self.items[i] for i in index])


class Coded(Column):
    """Values drawn from a few (``choices``), one code a run: a column of labels, or of what is
    read off each label once (a policy's family, timeout, parameters)."""

    def __init__(self, choices: list, codes: list):
        self.choices, self.codes = choices, codes

    @classmethod
    def of(cls, values: list, read=lambda v: v) -> "Coded":
        """``read(value)`` of each value, read once a distinct value."""
        at: dict = {}
        codes = [at.setdefault(v, len(at)) for v in values]
        return cls([read(v) for v in at], codes)

    def values(self) -> list:
        choices = self.choices
        return [choices[c] for c in self.codes]

    def take(self, index):
        codes = self.codes
        return Coded(self.choices, [codes[i] for i in index])


class Same(Column):
    """One value for every run."""

    def __init__(self, value, n: int):
        self.value, self.n = value, n

    def values(self) -> list:
        return [self.value] * self.n

    def take(self, index):
        return Same(self.value, len(index))

    def floats(self):
        import numpy as np

        value = self.value
        return np.full(self.n, np.nan if value is None or value is ABSENT else value, dtype=np.float64)


class Maps(Column):
    """A dict by name for every run, from a matrix of runs × names (a NumPy array, or a
    ``memoryview`` cast to that shape); with ``counts``, entries below zero are left out of a
    run's dict (it took no such transition)."""

    def __init__(self, names: list, matrix, counts: bool = False):
        self.names, self.matrix, self.counts = list(names), matrix, counts

    def values(self) -> list:
        names = self.names
        rows = self.matrix.tolist()
        if not self.counts:
            return [dict(zip(names, row)) for row in rows]
        return [{name: c for name, c in zip(names, row) if c >= 0} for row in rows]

    def __reduce__(self):
        return Maps, (self.names, self.numpy(), self.counts)  # a memoryview does not pickle

    def numpy(self):
        import numpy as np

        matrix = np.asarray(self.matrix)
        return matrix if matrix.ndim == 2 else matrix.reshape(-1, len(self.names))

    def take(self, index):
        return Maps(self.names, self.numpy()[index], self.counts)


def _numbers(payload, code: str):
    """The engine's bytes as numbers (``d`` float64, ``q`` int64, ``?`` bool)."""
    return memoryview(payload).cast(code)


def _matrix(payload, code: str, n: int, names: list):
    """The engine's bytes of a matrix of ``n`` runs × ``names``, row by row."""
    if not n or not names:
        return _EmptyRows(n)
    return memoryview(payload).cast(code, shape=[n, len(names)])


class _EmptyRows:
    """A matrix of ``n`` runs and no columns (a device that took no transition)."""

    def __init__(self, n: int):
        self.n = n

    def tolist(self) -> list:
        return [[] for _ in range(self.n)]

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        return np.zeros((self.n, 0), dtype=dtype or np.int64)


def _engine_column(kind: str, payload, n: int) -> Column:
    if kind in ("F", "I"):
        return Numbers(_numbers(payload, "d" if kind == "F" else "q"))
    if kind == "S":
        distinct, codes = payload
        return Same(distinct[0], n) if len(distinct) == 1 else Coded(distinct, _numbers(codes, "I").tolist())
    if kind in ("F?", "F-"):
        values, missing = payload
        return Numbers(_numbers(values, "d"), _numbers(missing, "?") if any(missing) else None, absent=kind == "F-")
    if kind == "O-":
        return Objects([ABSENT if v is None else v for v in payload])
    if kind in ("MF", "MI"):
        names, matrix = payload
        return Maps(names, _matrix(matrix, "d" if kind == "MF" else "q", n, names), counts=kind == "MI")
    raise ValueError(f"the engine gave a column of unknown kind {kind!r}")


class RunColumns:
    """Run records as columns, in the order of a record's keys (a key set on every run after
    goes last, as ``dict.update`` puts it)."""

    def __init__(self, n: int, columns: dict | None = None):
        self.n = n
        self.columns: dict[str, Column] = dict(columns or {})

    @classmethod
    def from_engine(cls, layout: list) -> "RunColumns":
        """The engine's run set (``_core.evaluate``, ``evaluate_file``, ``StreamedRuns.finish``)."""
        n = next((len(payload[1]) // 4 for key, _, payload in layout if key == "device"), 0)  # its codes, 4 bytes a run
        return cls(n, {key: _engine_column(kind, payload, n) for key, kind, payload in layout})

    @classmethod
    def from_records(cls, records: list) -> "RunColumns":
        """Records as dicts (a hybrid or system run, a file's rows), each key a column."""
        keys = list(dict.fromkeys(k for r in records for k in r))
        return cls(len(records), {k: Objects([r[k] if k in r else ABSENT for r in records]) for k in keys})

    @classmethod
    def concat(cls, parts: list) -> "RunColumns":
        """Runs of several sets one after another; a key some lack is absent from their runs."""
        parts = [p for p in parts if p.n]
        if len(parts) == 1:
            return parts[0]
        keys = list(dict.fromkeys(k for p in parts for k in p.columns))
        out = {}
        for key in keys:
            pieces = [p.columns.get(key, Same(ABSENT, p.n)) for p in parts]
            out[key] = _joined(pieces)
        return cls(sum(p.n for p in parts), out)

    def __len__(self) -> int:
        return self.n

    def __contains__(self, key) -> bool:
        return key in self.columns

    def set(self, key: str, value) -> None:
        """``value`` for every run (a Column, a NumPy array or list of one value a run, or one
        value for all)."""
        if isinstance(value, Column):
            column = value
        elif type(value).__name__ == "ndarray":
            column = Numbers(value)
        elif isinstance(value, list):
            column = Objects(value)
        else:
            column = Same(value, self.n)
        self.columns[key] = column

    def get(self, key: str) -> list:
        """Each run's value of ``key``, None where a run lacks it (``record.get(key)``)."""
        column = self.columns.get(key)
        if column is None:
            return [None] * self.n
        return [None if v is ABSENT else v for v in column.values()]

    def floats(self, key: str):
        """A number column as a float64 NumPy array, NaN where null or absent."""
        import numpy as np

        column = self.columns.get(key)
        return np.full(self.n, np.nan) if column is None else column.floats()

    def take(self, index) -> "RunColumns":
        """The runs at ``index`` (run numbers), in that order."""
        import numpy as np

        index = np.asarray(index, dtype=np.int64)
        return RunColumns(len(index), {k: c.take(index) for k, c in self.columns.items()})

    def records(self) -> list[dict]:
        """The runs as dicts, keys in the columns' order, a run's absent keys left out."""
        keys = list(self.columns)
        values = [self.columns[k].values() for k in keys]
        out = []
        for row in zip(*values) if keys else ([()] * self.n):
            out.append({k: v for k, v in zip(keys, row) if v is not ABSENT})
        return out


def _joined(pieces: list) -> Column:
    """Columns of consecutive run sets as one."""
    import numpy as np

    if all(isinstance(p, Same) for p in pieces) and all(p.value == pieces[0].value and type(p.value) is type(pieces[0].value)
                                                         for p in pieces):
        return Same(pieces[0].value, sum(p.n for p in pieces))
    if all(isinstance(p, Numbers) for p in pieces) and len({(p.numpy().dtype, p.absent) for p in pieces}) == 1:
        missing = None
        if any(p.missing is not None for p in pieces):
            missing = np.concatenate([np.zeros(len(p.numpy()), bool) if p.missing is None else np.asarray(p.missing) for p in pieces])
        return Numbers(np.concatenate([p.numpy() for p in pieces]), missing, pieces[0].absent)
    if all(isinstance(p, Maps) for p in pieces) and len({(tuple(p.names), p.counts) for p in pieces}) == 1:
        return Maps(pieces[0].names, np.concatenate([p.numpy() for p in pieces]), pieces[0].counts)
    # Maps named otherwise (two devices' modes or transitions): each run's own dict, in its order.
    return Objects([v for p in pieces for v in p.values()])


__all__ = ["ABSENT", "RunColumns"]
