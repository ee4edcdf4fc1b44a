"""Execution paths and lookups, served from an index of the shipped JSON export (no rdflib).

The public functions of the query layer: :func:`path`, :func:`get`, :func:`stage`,
:func:`values`... The index (:class:`~atlas.query._index.Index`) is built once, on first use,
from ``dataset/atlas.json``; :func:`path` reads its words with the selection resolver
(:mod:`atlas.query._selection`, over :func:`vocabulary`), then answers from plain dictionaries
and memoises each distinct call. Stages are found by id, label or alias, steps by id, both
case-insensitively.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from atlas.data import _resources
from atlas.errors import (
    AmbiguousIdError,
    ArgumentTypeError,
    DatasetError,
    Problem,
    UnknownIdError,
)
from atlas.models import (
    Atlas,
    AtlasDocument,
    Citation,
    ConceptScheme,
    ExecutionPath,
    Source,
    Stage,
    Step,
    Technology,
)
from atlas.models._names import fold, optional_text, text
from atlas.query import _pathtable, _retired, _selection
from atlas.query._atlasindex import value_keys
from atlas.query._index import Index

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
    "values",
    "vocabulary",
]

# what the parameters take, as the errors of a wrong argument say
_VALUE = "a str (a dimension value or words, e.g. 'eager' or 'eager on CPU')"
_ATLAS = "a str (an atlas id or label, e.g. 'pytorch')"
_OPTIONAL_ATLAS = "a str (an atlas id or label, e.g. 'pytorch') or None"
_MAX_CALLS = 1024  # distinct path() calls remembered by their raw arguments


@functools.cache
def index() -> Index:
    """The index of the shipped export, built on first use."""
    return Index(load())


@functools.cache
def vocabulary() -> _selection.Vocabulary:
    """What the words of :func:`path` are matched against, from the index of the export."""
    return _selection.Vocabulary.from_data(_pathtable.vocabulary_data(index()))


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
    atlas: str | None = None,
    graph_breaks: bool = False,
    branches: Sequence[str] = (),
    **dimensions: str,
) -> ExecutionPath:
    """The execution path of an atlas under one value of each of its dimensions.

    Values are given as people say them: one per dimension in order (``"eager", "cpu"``), as a
    phrase (``"eager on CPU"``, ``"llama.cpp with CUDA, partial offload"``), as
    ``"dimension=value"`` words, or by dimension name (``mode="eager"``); as labels, aliases or
    ids, case-insensitively; fillers such as "on", "an" and "with" are ignored. The atlas is the
    one ``atlas`` names, else the one the words name (by its name, or by values only it has).
    A branch, off by default, adds the steps of a case the default path leaves out:
    ``graph_breaks=True`` (the same as ``branches=["graph breaks"]``) adds the code TorchDynamo
    cannot trace, which runs in normal Python between compiled graphs; it applies under
    torch.compile only.

    >>> print(path("torch.compile", "NVIDIA GPU"))
    torch.compile on an NVIDIA GPU: 12 stages, 12 steps
    >>> path("eager on CPU") == path(mode="eager", device="cpu") == path("eager", "cpu")
    True
    >>> path("llama.cpp with CUDA, partial offload").atlas
    'llamacpp'
    >>> path("compile", "gpu", graph_breaks=True).summary
    'torch.compile on an NVIDIA GPU with graph breaks: 13 stages, 14 steps'

    Raises:
        UnknownValueError: words no value is called, a dimension left out or given two values;
            the message lists the valid values (``SelectionError``: the readings, or atlases,
            that the words fit).
        UnknownIdError: an unknown atlas.
        ArgumentTypeError: a value, atlas or branch of the wrong type (a ``TypeError``).
        ArgumentValueError: text that is not valid Unicode (a ``ValueError``).
    """
    idx = index()
    named: tuple[str, ...] = ()
    if graph_breaks is not False or branches != ():
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
        optional_text(atlas, "atlas", _OPTIONAL_ATLAS)
        atlas_id, chosen = _selection.resolve(vocabulary(), values, dimensions, atlas)
        found = idx.path(*chosen, atlas=atlas_id, branches=named)
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
    """Every atlas of the dataset, in curated order.

    >>> [(a.id, a.label) for a in atlases()][:2]
    [('pytorch', 'PyTorch'), ('llamacpp', 'llama.cpp')]
    """
    return load().atlases


def values(atlas: str | None = None) -> dict[str, tuple[ConceptScheme, ...]]:
    """The dimensions whose values :func:`path` takes, by atlas id: of ``atlas``, or of all.

    Without ``atlas``, every atlas with dimensions. Each dimension is a concept scheme whose
    ``label`` is its name and whose ``values`` hold each value's label and aliases
    (``alt_labels``), in curated order.

    >>> [d.label for d in values("pytorch")["pytorch"]]
    ['mode', 'device']
    >>> [(v.label, v.alt_labels[:3]) for v in values("llama.cpp")["llamacpp"][1].values][1]
    ('hybrid', ('cpu+gpu', 'partial', 'partial offload'))

    Raises:
        UnknownIdError: an unknown atlas.
        ArgumentTypeError, ArgumentValueError: ``atlas`` is not a ``str`` or None, or not text.
    """
    chosen = optional_text(atlas, "atlas", _OPTIONAL_ATLAS)
    idx = index()
    found = atlases() if chosen is None else (idx.atlas(chosen),)
    return {
        a.id: tuple(idx.schemes[scheme] for scheme in a.dimensions)
        for a in found
        if a.dimensions or chosen is not None
    }


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
    """The stage with this id, label or alias (case-insensitive), e.g. ``stage("Dynamo")``.

    A retired id (``owl:deprecated``) gives the live stage that replaces it, following the
    replacements (a -> b -> c), with a ``DeprecationWarning`` (a ``RetiredIdWarning``) that
    names both ids; a name that a live stage has is never taken as a retired one's.

    >>> stage("Dynamo").id
    'torchdynamo'

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids (``AmbiguousIdError``: a label
            or alias of more than one stage, whose ids it lists).
        DatasetError: a retired stage whose replacements form a cycle or name no stage.
        ArgumentTypeError, ArgumentValueError: ``stage_id`` is not a ``str``, or not valid text.
    """
    name = text(stage_id, "stage_id", "a str (a stage id, e.g. 'cpu')")
    every = index().stages
    found = every.get(name)
    if found is None:
        found = every[_find("stage", name, _stage_names())]
    return _retired.live("stage", found, every)


def step(step_id: str) -> Step:
    """The step with this id (case-insensitive).

    A retired id gives the live step that replaces it, with a ``DeprecationWarning``, as
    :func:`stage` does.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
        DatasetError: a retired step whose replacements form a cycle or name no step.
        ArgumentTypeError, ArgumentValueError: ``step_id`` is not a ``str``, or not valid text.
    """
    name = text(step_id, "step_id", "a str (a step id)")
    every = index().steps
    found = every.get(name)
    if found is None:
        found = every[_find("step", name, _step_names())]
    return _retired.live("step", found, every)


@functools.cache
def _stage_names() -> dict[str, tuple[str, ...]]:
    """Every folded id, label and alias of a stage -> the ids of the stages it names.

    A retired stage's names count only where no live stage has them, so that a stage retired
    in favour of one with the same label leaves that label to its replacement.
    """
    live: dict[str, dict[str, None]] = {}
    retired: dict[str, dict[str, None]] = {}
    for found in index().stages.values():
        names = retired if found.deprecated else live
        for name in (found.id, found.label, *found.alt_labels):
            names.setdefault(fold(name), {})[found.id] = None
    return {key: tuple(ids) for key, ids in {**retired, **live}.items()}


@functools.cache
def _step_names() -> dict[str, tuple[str, ...]]:
    """Every folded step id -> the step's id."""
    return {fold(s): (s,) for s in index().steps}


def _find(what: str, name: str, names: dict[str, tuple[str, ...]]) -> str:
    """The one id that ``name`` (folded) names among ``names``; else a precise error."""
    ids = names.get(fold(name), ())
    if len(ids) == 1:
        return ids[0]
    if ids:
        raise AmbiguousIdError(what, name, list(ids))
    every = index().stages if what == "stage" else index().steps
    raise UnknownIdError(what, name, sorted(every))


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
