"""Exceptions raised by idlewise. All are ``ValueError`` subclasses carrying a message that names
the file, line or field at fault."""

from ._core import IdlewiseError, TraceRecordError


class TraceError(IdlewiseError):
    """A trace file or trace columns are invalid; the message names the file and line (or record)."""


def shown(value) -> str:
    """A value as an error message shows it: a NumPy scalar as the Python value it holds
    (``2.0``, ``'X'``), not ``np.float64(2.0)`` (NumPy 2's repr)."""
    item = getattr(value, "item", None)
    return repr(item() if type(value).__module__ == "numpy" and callable(item) else value)


__all__ = ["IdlewiseError", "TraceError", "TraceRecordError"]
