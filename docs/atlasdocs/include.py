"""Text of the repository's own Markdown files, put into pages rather than copied into them.

A section is the text under a heading, up to the next heading of the same level or above
(headings inside fenced blocks, such as Turtle comments, do not count); the heading itself is
left out, the page names it. From a section, ``lang=`` keeps its fenced blocks of one language
and ``paragraph=`` the one paragraph that starts with the given text.
"""

from __future__ import annotations

import re
from pathlib import Path

from atlasdocs.markdown import slug

__all__ = ["ROOT", "IncludeError", "four_space_lists", "text"]

#: The repository's root: the files named are read from there.
ROOT = Path(__file__).resolve().parents[2]
_INCLUDABLE = ("README.md", "ARCHITECTURE.md", "dataset/README.md")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*$")
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*(\S*)")


class IncludeError(ValueError):
    """A file, section, language or paragraph that is not there."""


def text(name: str, *, lang: str | None = None, paragraph: str | None = None) -> str:
    """The part of ``name`` (``FILE`` or ``FILE#SECTION``) that the options select."""
    file, _, section = name.partition("#")
    if file not in _INCLUDABLE:
        raise IncludeError(f"cannot include {file!r}: only {', '.join(_INCLUDABLE)}")
    lines = (ROOT / file).read_text(encoding="utf-8").splitlines()
    part = _section(lines, section, file) if section else _without_title(lines)
    if lang is not None:
        part = _blocks(part, lang, name)
    if paragraph is not None:
        part = _paragraph(part, paragraph, name)
    return "\n".join(four_space_lists(part)).strip("\n") + "\n"


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line number, level, slug) of each heading outside fenced blocks."""
    found, fence = [], ""
    for number, line in enumerate(lines):
        opened = _FENCE.match(line)
        if opened and (not fence or opened.group(1).startswith(fence)):
            fence = "" if fence else opened.group(1)
            continue
        heading = _HEADING.match(line)
        if heading and not fence:
            found.append((number, len(heading.group(1)), slug(heading.group(2))))
    return found


def _without_title(lines: list[str]) -> list[str]:
    """The whole file but its first heading (the page has its own title)."""
    headings = _headings(lines)
    return lines[headings[0][0] + 1 :] if headings and headings[0][1] == 1 else lines


def _section(lines: list[str], section: str, file: str) -> list[str]:
    headings = _headings(lines)
    for index, (number, level, name) in enumerate(headings):
        if name == section:
            end = next((n for n, lv, _ in headings[index + 1 :] if lv <= level), len(lines))
            return lines[number + 1 : end]
    names = ", ".join(name for _, _, name in headings)
    raise IncludeError(f"{file} has no section {section!r}; its sections: {names}")


def _blocks(lines: list[str], lang: str, name: str) -> list[str]:
    kept: list[str] = []
    inside = False
    for line in lines:
        opened = _FENCE.match(line)
        if opened and not inside and opened.group(2) == lang:
            inside = True
            kept.append(line)
        elif inside:
            kept.append(line)
            if opened and not opened.group(2):
                inside = False
                kept.append("")
    if not kept:
        raise IncludeError(f"{name} has no fenced block of {lang!r}")
    return kept


def _paragraph(lines: list[str], start: str, name: str) -> list[str]:
    """The paragraph that starts with ``start``, and the fenced block it introduces (``...:``)."""
    for number, line in enumerate(lines):
        if line.startswith(start) and (number == 0 or not lines[number - 1].strip()):
            end = next((n for n in range(number, len(lines)) if not lines[n].strip()), len(lines))
            if lines[end - 1].rstrip().endswith(":"):
                end = _block_end(lines, end)
            return lines[number:end]
    raise IncludeError(f"{name} has no paragraph that starts with {start!r}")


def _block_end(lines: list[str], after: int) -> int:
    """The end of the fenced block that follows line ``after`` (past blank lines), or ``after``."""
    opening = next((n for n in range(after, len(lines)) if lines[n].strip()), None)
    if opening is None or not _FENCE.match(lines[opening]):
        return after
    fence = _FENCE.match(lines[opening]).group(1)  # type: ignore[union-attr]
    close = next((n for n in range(opening + 1, len(lines)) if lines[n].strip() == fence), None)
    return after if close is None else close + 1


_ITEM = re.compile(r"^(\s*)(\d+[.)]|[-*+])\s+")


def four_space_lists(lines: list[str]) -> list[str]:
    """List items' continuation lines indented by four spaces, as Python-Markdown needs.

    GitHub reads a list item's paragraphs and code blocks indented to its text (three spaces
    after ``1.``); Python-Markdown wants four, else it ends the list there, and a blank line
    before an item that follows such a paragraph.

    >>> four_space_lists(["1. **Check** it:", "", "   ```console", "   $ atlas check", "   ```"])
    ['1. **Check** it:', '', '    ```console', '    $ atlas check', '    ```']
    """
    out: list[str] = []
    width = 0  # the indentation of the current item's text, 0 outside a list
    for line in lines:
        item = _ITEM.match(line)
        indent = len(line) - len(line.lstrip())
        if item and not item.group(1):
            if width and out and out[-1].startswith(" "):  # Python-Markdown reads the item
                out.append("")  # as more of the paragraph above it, without a blank line
            width = len(item.group(0))
        elif line.strip() and indent < width:
            width = 0
        elif line.strip() and width and width < 4:  # noqa: PLR2004 - Python-Markdown's four
            out.append(" " * 4 + line[width:])
            continue
        out.append(line)
    return out
