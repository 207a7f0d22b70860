"""Exceptions raised by idlewise. All are ``ValueError`` subclasses carrying a message that names
the file, line or field at fault."""

from ._core import IdlewiseError, TraceRecordError


class TraceError(IdlewiseError):
    """A trace file or trace columns are invalid; the message names the file and line (or record)."""


__all__ = ["IdlewiseError", "TraceError", "TraceRecordError"]
