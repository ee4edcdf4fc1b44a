"""The CLI reference, made from the ``atlas`` command's own argument parser.

Every command and sub-command gets a section with its one-line summary and the help that
``atlas COMMAND --help`` prints (usage, arguments, options, defaults), at a fixed width so that
the page does not depend on the terminal that built it. Nothing is written by hand: a new
option shows up at the next build.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator

from atlas.cli import _parse
from atlasdocs.markdown import code, escape, slug, table

__all__ = ["WIDTH", "commands", "reference"]

#: The width the help is wrapped at (argparse reads it from ``COLUMNS``).
WIDTH = 100


def commands(
    parser: argparse.ArgumentParser | None = None,
    words: tuple[str, ...] = ("atlas",),
    summary: str | None = None,
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """Each command as (its words, its parser, its summary), the program first, depth first."""
    parser = parser or _parse.parser()
    yield words, parser, summary or parser.description or ""
    # argparse has no public walk of its sub-commands
    for action in parser._actions:  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            helps = {c.dest: c.help for c in action._choices_actions}  # noqa: SLF001
            for name, sub in action.choices.items():
                yield from commands(sub, (*words, name), helps.get(name))


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    """Argparse wraps its help at ``COLUMNS``: set it while the help is made."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def reference() -> str:
    """The reference of every command: an index, then each command's help."""
    with _columns(WIDTH):
        found = [(words, parser.format_help(), summary) for words, parser, summary in commands()]
    index = table(
        ["command", "what it does"],
        (
            [f"[{code(' '.join(words))}](#{slug(' '.join(words))})", escape(summary)]
            for words, _, summary in found[1:]
        ),
    )
    parts = [index]
    for words, text, summary in found:
        name = " ".join(words)
        parts.append(f"## {name}\n\n{escape(summary)}\n\n```text\n{text.rstrip()}\n```")
    return "\n\n".join(parts) + "\n"
