"""Help pages that fit the terminal: argparse's layout, with names never split at a hyphen
(``hitachi-travelstar-5k320``, ``/run/idlewise/manage.sock``) and long choices named by a word
(``FORMAT``, ``COMMAND``) with the list in the help text, wrapped like any other."""

from __future__ import annotations

import argparse
import re
import textwrap


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, wrapping at spaces only."""

    def _split_lines(self, text: str, width: int) -> list:
        text = re.sub(r"\s+", " ", text).strip()
        return textwrap.wrap(text, max(width, 20), break_on_hyphens=False, break_long_words=False) or [""]

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        text = re.sub(r"\s+", " ", text).strip()
        return textwrap.fill(text, max(width, 20), initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False,
                             break_long_words=False)


def parser_class(**defaults):
    """The class a subparsers action makes its parsers with: idlewise's formatter."""

    class Parser(argparse.ArgumentParser):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("formatter_class", HelpFormatter)
            super().__init__(*args, **kwargs)

    return Parser


def listed(words) -> str:
    """Choices as the help text names them: 'a, b or c'."""
    words = list(words)
    return ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1]


__all__ = ["HelpFormatter", "listed", "parser_class"]
