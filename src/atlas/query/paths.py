"""Execution paths and lookups, served from an index of the shipped JSON export (no rdflib).

The public functions of the query layer: :func:`path`, :func:`get`, :func:`stage`... The index
(:class:`~atlas.query._index.Index`) is built once, on first use, from ``dataset/atlas.json``;
:func:`path` then answers from plain dictionaries and memoises each distinct call.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from atlas.data import _resources
from atlas.errors import (
    ArgumentTypeError,
    DatasetError,
    Problem,
    UnknownIdError,
)
from atlas.models import (
    Atlas,
    AtlasDocument,
    Citation,
    ExecutionPath,
    Source,
    Stage,
    Step,
    Technology,
)
from atlas.models._names import fold, optional_text, text
from atlas.query._atlasindex import value_keys
from atlas.query._index import DEFAULT_ATLAS, Index

__all__ = [
    "Index",
    "atlases",
    "citation",
    "fold",
    "get",
    "index",
    "load",
    "path",
    "source",
    "stage",
    "stages",
    "step",
    "steps",
    "technology",
    "value_keys",
]

# what the parameters take, as the errors of a wrong argument say
_VALUE = "a str (a dimension value, e.g. 'eager' or 'cpu')"
_ATLAS = "a str (an atlas id or label, e.g. 'pytorch')"
_OPTIONAL_ATLAS = "a str (an atlas id or label, e.g. 'pytorch') or None"
_MAX_CALLS = 1024  # distinct path() calls remembered by their raw arguments


@functools.cache
def index() -> Index:
    """The index of the shipped export, built on first use."""
    return Index(load())


@functools.cache
def load() -> AtlasDocument:
    """The whole shipped dataset, read once from the committed JSON export.

    Raises:
        DatasetError: when the shipped export is missing or invalid.
    """
    import pydantic  # noqa: PLC0415 - only needed for its error type

    file = _resources.export_file()
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise DatasetError(
            [
                Problem(
                    "violation",
                    "the JSON export is missing",
                    file=f"dataset/{file.name}",
                    hint="run 'atlas export' to generate it",
                )
            ],
            source="shipped export",
        ) from None
    try:
        return AtlasDocument.model_validate_json(data)
    except pydantic.ValidationError as error:
        problems = [
            Problem(
                "violation",
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}",
                file=f"dataset/{file.name}",
                code=str(e["type"]),
            )
            for e in error.errors()
        ]
        raise DatasetError(problems, source="shipped export") from None


def path(
    *values: str,
    atlas: str = DEFAULT_ATLAS,
    graph_breaks: bool = False,
    branches: Sequence[str] = (),
    **dimensions: str,
) -> ExecutionPath:
    """The execution path of an atlas under one value of each of its dimensions.

    Values are given in the atlas's dimension order or by dimension name, as labels, aliases or
    ids, case-insensitively. A branch, off by default, adds the steps of a case the default
    path leaves out: ``graph_breaks=True`` (the same as ``branches=["graph breaks"]``) adds the
    code TorchDynamo cannot trace, which runs in normal Python between compiled graphs; it
    applies under torch.compile only.

    >>> print(path("torch.compile", "NVIDIA GPU"))
    torch.compile on an NVIDIA GPU: 12 stages, 12 steps
    >>> path(mode="eager", device="cpu").summary
    'eager mode on a CPU: 5 stages, 4 steps'
    >>> path("compile", "gpu", graph_breaks=True).summary
    'torch.compile on an NVIDIA GPU with graph breaks: 13 stages, 14 steps'

    Raises:
        UnknownValueError: a value no dimension knows; the message lists the valid ones.
        UnknownIdError: an unknown atlas.
        ArgumentTypeError: a value or atlas that is not a ``str`` (a ``TypeError``).
        ArgumentValueError: text that is not valid Unicode (a ``ValueError``).
    """
    idx = index()
    named: tuple[str, ...] = ()
    if graph_breaks or branches:
        named = _branch_names(graph_breaks, branches)
    key = (atlas, values, named, *dimensions.items()) if dimensions or named else (atlas, values)
    try:
        found = idx._calls.get(key)  # noqa: SLF001 - the module's own memo on its index
    except TypeError:  # an unhashable argument: never a str, so refused just below
        found = None
    if found is None:  # arguments are checked once, before they are first remembered
        for number, value in enumerate(values, 1):
            text(value, f"value {number}", _VALUE)
        for name, value in dimensions.items():
            text(value, name, _VALUE)
        text(atlas, "atlas", _ATLAS)
        found = idx.path(*values, atlas=atlas, branches=named, **dict[str, Any](dimensions))
        if len(idx._calls) < _MAX_CALLS:  # noqa: SLF001 - bounded: values come from users
            idx._calls[key] = found  # noqa: SLF001
    return found


def _branch_names(graph_breaks: object, branches: object) -> tuple[str, ...]:
    """The branches :func:`path` is asked for, checked: ``graph_breaks`` is "graph breaks"."""
    if not isinstance(graph_breaks, bool):
        raise ArgumentTypeError("graph_breaks", graph_breaks, "a bool (True or False)")
    if isinstance(branches, str) or not isinstance(branches, Sequence):
        raise ArgumentTypeError("branches", branches, "a list of branch names")
    names = [text(value, "branch", _VALUE) for value in branches]
    return (*names, *(["graph breaks"] if graph_breaks else []))


def atlases() -> tuple[Atlas, ...]:
    """Every atlas of the dataset, in curated order."""
    return load().atlases


def get(name: str) -> Atlas:
    """The atlas with this id or label, e.g. ``get("pytorch")``.

    Raises:
        UnknownIdError: a ``LookupError`` naming the atlases.
        ArgumentTypeError, ArgumentValueError: ``name`` is not a ``str``, or not valid text.
    """
    return index().atlas(text(name, "name", _ATLAS))


def stages(atlas: str | None = None) -> tuple[Stage, ...]:
    """Every stage, or those of one atlas.

    Raises:
        UnknownIdError: an unknown atlas.
        ArgumentTypeError, ArgumentValueError: ``atlas`` is not a ``str`` or None, or not text.
    """
    chosen = optional_text(atlas, "atlas", _OPTIONAL_ATLAS)
    found = None if chosen is None else index().atlas(chosen).id
    return tuple(s for s in load().stages if found is None or found in s.atlases)


def steps(atlas: str | None = None) -> tuple[Step, ...]:
    """Every step, or those of one atlas, in curated order.

    Raises:
        UnknownIdError: an unknown atlas.
        ArgumentTypeError, ArgumentValueError: ``atlas`` is not a ``str`` or None, or not text.
    """
    chosen = optional_text(atlas, "atlas", _OPTIONAL_ATLAS)
    found = None if chosen is None else index().atlas(chosen).id
    return tuple(s for s in load().steps if found is None or s.atlas == found)


def stage(stage_id: str) -> Stage:
    """The stage with this id, e.g. ``stage("torchdynamo")``.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
        ArgumentTypeError, ArgumentValueError: ``stage_id`` is not a ``str``, or not valid text.
    """
    return index().stage(text(stage_id, "stage_id", "a str (a stage id, e.g. 'cpu')"))


def step(step_id: str) -> Step:
    """The step with this id.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
        ArgumentTypeError, ArgumentValueError: ``step_id`` is not a ``str``, or not valid text.
    """
    return index().step(text(step_id, "step_id", "a str (a step id)"))


def technology(technology_id: str) -> Technology:
    """The technology with this id.

    Raises:
        UnknownIdError: a ``LookupError`` naming the technologies.
        ArgumentTypeError, ArgumentValueError: ``technology_id`` is not a ``str``, or not text.
    """
    text(technology_id, "technology_id", "a str (a technology id, e.g. 'python')")
    try:
        return index().technologies[technology_id]
    except KeyError:
        raise UnknownIdError("technology", technology_id, sorted(index().technologies)) from None


def citation(citation_id: str) -> Citation:
    """The citation with this id.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
        ArgumentTypeError, ArgumentValueError: ``citation_id`` is not a ``str``, or not text.
    """
    text(citation_id, "citation_id", "a str (a citation id)")
    try:
        return index().citations[citation_id]
    except KeyError:
        raise UnknownIdError("citation", citation_id, sorted(index().citations)) from None


def source(url_or_id: str) -> Source:
    """The source with this URL or short id.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
        ArgumentTypeError, ArgumentValueError: ``url_or_id`` is not a ``str``, or not text.
    """
    text(url_or_id, "url_or_id", "a str (a source's URL or id)")
    idx = index()
    found = idx.sources.get(url_or_id) or next(
        (s for s in idx.sources.values() if s.id == url_or_id), None
    )
    if found is None:
        raise UnknownIdError("source", url_or_id, sorted(s.id for s in idx.sources.values()))
    return found
