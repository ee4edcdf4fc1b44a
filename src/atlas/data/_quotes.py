"""When a quote is in a text: whitespace collapsed, and inline markup read as a page shows it.

The rule of the snapshots (``../shared/sources/README.md``, applied by ``quotecheck.py`` there):
a quote is found when, with every run of whitespace collapsed to one space, it is a substring of
the text, or when it is one once inline Markdown/reST markup is removed from both (backticks,
roles such as ``{ref}`` or ``:func:`` before a backtick, ``**`` emphasis, and link targets:
``[text](url)`` and ```text <url>`_`` read as ``text``). A quote itself should carry no such
markup: it reads as the rendered page reads (:func:`markup`).

>>> Haystack("Use `torch.compile` to **speed up** [models](https://x.org/m).").finds(
...     "Use torch.compile to speed up models.")
True
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from urllib.parse import urlsplit

__all__ = ["Haystack", "is_program_source", "markup", "normalise", "unmark"]

_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")  # [text](target) -> text
_MYST_ROLE = re.compile(r"\{[A-Za-z:_-]+\}(?=`)")  # {ref}`x`
_REST_ROLE = re.compile(r":[A-Za-z:_-]+:(?=`)")  # :func:`x`
_REST_LINK = re.compile(r"`([^`\n]*?)\s*<[^>`\n]*>`_*")  # `text <target>`_ -> text

#: File name endings of program source: its text is shown as written, never rendered, so a
#: backtick or ``**`` in a quote of it is not markup.
PROGRAM_SUFFIXES = frozenset(
    {".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".m", ".mm", ".py", ".rs", ".go", ".js"}
)


def normalise(text: str) -> str:
    r"""Collapse every run of whitespace to one space and strip the ends.

    >>> normalise("  a\n  b\tc ")
    'a b c'
    """
    return re.sub(r"\s+", " ", text).strip()


def unmark(text: str) -> str:
    """``text`` as a rendered page shows it: inline Markdown/reST markup removed.

    >>> unmark("the :func:`torch.compile` API, see `the docs <https://x.org>`_ or [FX](fx.md)")
    'the torch.compile API, see the docs or FX'
    >>> unmark("**Note** that ``x`` is {ref}`here`")
    'Note that x is here'
    """
    text = _LINK.sub(r"\1", text)
    text = _MYST_ROLE.sub("", text)
    text = _REST_ROLE.sub("", text)
    text = _REST_LINK.sub(r"\1", text)
    return text.replace("`", "").replace("**", "")


def markup(quote: str) -> str | None:
    """What inline markup ``quote`` carries (its kinds, named), or None when it reads as a page.

    >>> markup("Dynamo hooks into the frame evaluation API in CPython")
    >>> markup("calls :func:`torch.compile` on [the model](m.md)")
    'backticks, a role, link syntax'
    """
    plain = normalise(quote)
    if normalise(unmark(plain)) == plain:
        return None
    kinds = []
    if _MYST_ROLE.search(plain) or _REST_ROLE.search(plain):
        kinds.append("a role")
    if _LINK.search(plain) or _REST_LINK.search(plain):
        kinds.append("link syntax")
    if "**" in plain:
        kinds.append("** emphasis")
    if "`" in plain:
        kinds.insert(0, "backticks")
    return ", ".join(kinds) or "inline markup"


def is_program_source(url: str) -> bool:
    """Whether ``url`` names a program source file (``.py``, ``.cpp``...), shown as written.

    >>> is_program_source("https://raw.githubusercontent.com/o/r/abc/torch/_dynamo/x.py")
    True
    >>> is_program_source("https://docs.pytorch.org/docs/main/torch.compiler.html")
    False
    """
    return PurePosixPath(urlsplit(url).path).suffix.lower() in PROGRAM_SUFFIXES


class Haystack:
    """A text to look quotes up in, read once: as it is, and with its inline markup removed."""

    def __init__(self, text: str) -> None:
        self.text = normalise(text)
        self.plain = normalise(unmark(self.text))

    def finds(self, quote: str) -> bool:
        """Whether ``quote`` is in the text, as it is or with markup removed on both sides."""
        exact = normalise(quote)
        return bool(exact) and (exact in self.text or normalise(unmark(exact)) in self.plain)
