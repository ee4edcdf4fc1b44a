"""The views of an atlas: one per combination of its dimension values, and views grouped by path.

A :class:`View` is one execution path of an atlas under one choice of its dimension values (and
of a branch, when the atlas has branches); :func:`groups` puts the views whose paths take the
same steps together, so that one list of steps serves them all; :func:`python_parts` puts them
together by the explanation of where Python ends (their mode's); :func:`default_view` is the
one a page opens on. :func:`tracker` checks the issue tracker's URL. :class:`SiteError` is the
error of the whole site package.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.errors import AtlasError
from atlas.models._names import curated

if TYPE_CHECKING:
    from atlas.models import Claim, Concept, ExecutionPath, JourneyStep, Stage

__all__ = [
    "BRANCH_KEY",
    "NONE",
    "PathGroup",
    "PythonPart",
    "SiteError",
    "View",
    "css_token",
    "default_view",
    "groups",
    "journey",
    "python_parts",
    "tracker",
]


class SiteError(AtlasError, RuntimeError):
    """The site cannot be built: no tool or extra, data it cannot show, a folder it must keep."""


#: The URL key of the branch choice (``#mode=...&device=...&branch=graph-breaks``), and its
#: value for the default path.
BRANCH_KEY = "branch"
NONE = "none"


_TRACKER = re.compile(r"https://[^\s/?#@]+(/[^\s?#]*)?")


def tracker(url: str | None) -> str | None:
    """The issue tracker's URL without a trailing slash, checked; its new issues are at ``/new``.

    >>> tracker("https://github.com/execution-atlas/execution-atlas/issues/")
    'https://github.com/execution-atlas/execution-atlas/issues'

    Raises:
        SiteError: ``url`` is not an https URL without a query or fragment.
    """
    if url is None:
        return None
    if not _TRACKER.fullmatch(url):
        raise SiteError(
            f"the issue tracker's URL {url!r} is not an https:// URL without '?' or '#',"
            " e.g. 'https://github.com/OWNER/REPO/issues'"
        )
    return url.rstrip("/")


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
    def has_python(self) -> bool:
        """Whether the Python interpreter runs a stage of the path."""
        return bool(self.python_stages)

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
        path = self.views[0].path
        return tuple(c for c in (*path.selection, *path.branches) if c.claims)


@dataclass(frozen=True)
class PythonPart:
    """The explanation of where Python ends that some views share (the one of their mode)."""

    values: tuple[Concept, ...]  # the chosen values whose claims explain it; may be empty
    groups: tuple[PathGroup, ...]  # the paths it explains, each with its own steps

    @property
    def slugs(self) -> str:
        """The slugs of its views, space-separated (the ``data-views`` attribute)."""
        return " ".join(g.slugs for g in self.groups)

    @property
    def claims(self) -> tuple[Claim, ...]:
        """The claims of its values, in order: the explanation."""
        return tuple(claim for value in self.values for claim in value.claims)

    @property
    def key(self) -> str:
        """A token naming the part in element ids, e.g. ``torch_2ecompile`` (``path``: none)."""
        return "-".join(css_token(c.name) for c in self.values) or "path"


def default_view(views: Sequence[View]) -> View:
    """The view a page opens on: the path with the most steps (then stages), the first on a tie.

    Without a branch, and among the page's own selections (the first two values of each
    dimension, in their curated order): the default path that goes furthest, e.g. torch.compile
    on an NVIDIA GPU for PyTorch (not a mode added later, such as reduce-overhead, whose path is
    longer), or an NVIDIA GPU with every layer offloaded for llama.cpp.
    """
    plain = [v for v in views if not v.path.branches] or list(views)
    if not plain:
        raise SiteError("an atlas page needs at least one view")
    firsts = [sorted(set(map(curated, v)))[:2] for v in zip(*_selections(plain), strict=True)]
    own = [
        v
        for v in plain
        if all(curated(c) in f for c, f in zip(v.path.selection, firsts, strict=True))
    ] or plain
    return max(own, key=lambda v: (len(v.path.steps), len(v.path.stages), -own.index(v)))


def _selections(views: Sequence[View]) -> list[tuple[Concept, ...]]:
    return [tuple(v.path.selection) for v in views]


def python_parts(views: Sequence[View]) -> list[PythonPart]:
    """The views whose paths run Python, grouped by the values that explain where it ends."""
    found: dict[tuple[str, ...], list[PathGroup]] = {}
    explained: dict[tuple[str, ...], tuple[Concept, ...]] = {}
    for group in groups(views):
        if not group.has_python:
            continue
        key = tuple(c.id for c in group.explained)
        explained.setdefault(key, group.explained)
        found.setdefault(key, []).append(group)
    return [PythonPart(explained[key], tuple(members)) for key, members in found.items()]


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
