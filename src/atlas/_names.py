"""How a dimension value given by a user is matched: the one folding rule (standard library only).

Shared by :func:`atlas.path`, the SPARQL bindings, the path table and (in JavaScript) the site.
"""

from __future__ import annotations

__all__ = ["fold"]


def fold(text: str) -> str:
    """The form in which dimension values are compared: case and spacing ignored.

    >>> fold("  NVIDIA   gpu ")
    'nvidia gpu'
    """
    return " ".join(text.split()).casefold()
