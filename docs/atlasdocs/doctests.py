"""A Griffe extension: the doctest examples of docstrings shown as code on the site.

The package's docstrings hold runnable examples (``>>>`` lines and their output, run by the test
suite), written for ``help()`` and doctest rather than for Markdown, where a line such as
``>>> [a.id for a in atlases()][:2]`` would read as a link. Each run of doctest lines (up to the
next blank line) is put in a fenced ``pycon`` block before mkdocstrings renders the docstring,
and Sphinx roles before a code span (``:func:`path```) are dropped. The source is unchanged.
``mkdocs.yml`` loads this file by its path (``extensions:`` of the Python handler).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

__all__ = ["DoctestBlocks", "fenced"]

_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:(?=`)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def fenced(text: str) -> str:
    r"""``text`` with each run of doctest lines in a fenced block, and Sphinx roles dropped.

    >>> fenced(">>> 1 + 1\n2\n\nSee :func:`path`.").splitlines()
    ['```pycon', '>>> 1 + 1', '2', '```', '', 'See `path`.']
    """
    out: list[str] = []
    inside_fence = in_example = False
    for line in text.splitlines():
        if _FENCE.match(line) and not in_example:
            inside_fence = not inside_fence
        elif not inside_fence and not in_example and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            in_example = True
        elif in_example and not line.strip():
            out.append(f"{indent}```")
            in_example = False
        out.append(line if inside_fence or in_example else _ROLE.sub("", line))
    if in_example:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fence the doctest examples of every docstring Griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **_: Any) -> None:
        """Rewrite the object's docstring, if it has one."""
        if obj.docstring is not None:
            obj.docstring.value = fenced(obj.docstring.value)
