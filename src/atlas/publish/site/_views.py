"""The views of an atlas: one per combination of its dimension values, and views grouped by path.

A :class:`View` is one execution path of an atlas under one choice of its dimension values (and
of a branch, when the atlas has branches); :func:`groups` puts the views whose paths take the
same steps together, so that one list of steps serves them all. :class:`SiteError` is the error
of the whole site package.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.errors import AtlasError

if TYPE_CHECKING:
    from atlas.models import Concept, ExecutionPath, JourneyStep, Stage

__all__ = [
    "BRANCH_KEY",
    "NONE",
    "PathGroup",
    "SiteError",
    "View",
    "css_token",
    "groups",
    "journey",
]


class SiteError(AtlasError, RuntimeError):
    """The site cannot be built: no tool or extra, data it cannot show, a folder it must keep."""


#: The URL key of the branch choice (``#mode=...&device=...&branch=graph-breaks``), and its
#: value for the default path.
BRANCH_KEY = "branch"
NONE = "none"


def css_token(name: str) -> str:
    """A string safe to use as a CSS class or an HTML id: other characters are spelled out.

    >>> css_token("c++"), css_token("torch.compile")
    ('c_2b_2b', 'torch_2ecompile')
    """
    return re.sub(r"[^a-z0-9-]", lambda m: f"_{ord(m.group()):x}", name.lower())


@dataclass(frozen=True)
class View:
    """One combination of an atlas's dimension values and its execution path."""

    slug: str
    path: ExecutionPath
    keys: tuple[str, ...]  # the dimension names, as used in the URL fragment
    branch_key: str | None = None  # the key of the branch choice, when the atlas has branches

    @property
    def file(self) -> str:
        """The static page of this combination."""
        return f"{self.slug}.html"

    @property
    def sentence(self) -> str:
        """'Showing torch.compile on an NVIDIA GPU: 12 stages, 12 steps.'."""
        return f"Showing {self.path.summary}."

    @property
    def title(self) -> str:
        """The summary without its counts, e.g. 'torch.compile on an NVIDIA GPU'."""
        return self.path.summary.rsplit(":", 1)[0]

    @property
    def values(self) -> dict[str, str]:
        """Dimension name -> value name, e.g. ``{'mode': 'eager', 'device': 'cpu'}``.

        With branches, their choice too: ``'branch': 'graph-breaks'``, or ``'none'``.
        """
        values = {k: c.name for k, c in zip(self.keys, self.path.selection, strict=True)}
        if self.branch_key is not None:
            values[self.branch_key] = self.path.branches[0].name if self.path.branches else NONE
        return values

    @property
    def fragment(self) -> str:
        """The URL fragment that selects this view, e.g. ``mode=eager&device=cpu``."""
        return urllib.parse.urlencode(self.values)


@dataclass(frozen=True)
class PathGroup:
    """Views whose paths take the same steps: one list of steps serves them all."""

    views: tuple[View, ...]

    @property
    def slugs(self) -> str:
        """The slugs of the views, space-separated (the ``data-views`` attribute)."""
        return " ".join(v.slug for v in self.views)

    @property
    def steps(self) -> tuple[JourneyStep, ...]:
        """The numbered steps of the path."""
        return self.views[0].path.steps

    @property
    def stages(self) -> tuple[Stage, ...]:
        """The stages of the path, in journey order."""
        return self.views[0].path.stages

    @property
    def python_stages(self) -> tuple[Stage, ...]:
        """The stages of the path that the Python interpreter runs."""
        return tuple(s for s in self.stages if s.executes_in_python)

    @property
    def python_ends(self) -> tuple[JourneyStep, ...]:
        """The steps where the model's own operations stop running as individual Python calls."""
        return self.views[0].path.python_ends

    @property
    def explained(self) -> tuple[Concept, ...]:
        """The chosen values that explain where Python ends under them (the modes), in order."""
        return tuple(c for c in self.views[0].path.selection if c.claims)


def journey(views: Sequence[View]) -> list[JourneyStep]:
    """Every step of these views once: the first view's in journey order, then the others'."""
    found: dict[str, JourneyStep] = {}
    for view in views:
        for item in view.path.steps:
            found.setdefault(item.id, item)
    return list(found.values())


def groups(views: Sequence[View]) -> list[PathGroup]:
    """The views grouped by the steps of their paths, in the order of their first view."""
    found: dict[tuple[str, ...], list[View]] = {}
    for view in views:
        found.setdefault(tuple(j.id for j in view.path.steps), []).append(view)
    return [PathGroup(tuple(members)) for members in found.values()]
