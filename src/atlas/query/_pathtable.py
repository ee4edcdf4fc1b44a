"""The printed execution paths, precomputed, so that ``atlas path`` answers without pydantic.

Importing pydantic and building the models costs far more than answering a path, so a one-shot
``atlas path compile gpu`` reads a table instead: ``atlas export`` writes ``dataset/paths.json``
beside the export. It holds the vocabulary the selection resolver reads
(:class:`atlas.query._selection.Vocabulary`: every atlas's id and label, and per atlas with
dimensions their names, the folded texts that name each value,
:func:`atlas.query.paths.value_keys`, and each value's label), and for every combination of
values the text that ``atlas path`` prints, made by :func:`render` from the same
:class:`~atlas.query._index.Index` that :func:`atlas.path` uses. So the table adds no rule of its
own: it is a cache of the API's answers, and a test compares it with the API for every
combination.

:func:`lookup` reads the table with the standard library alone. It answers only when the table
was made from the very export shipped beside it (same size and CRC-32) and the words name one
selection (read by :func:`atlas.query._selection.resolve`, as :func:`atlas.path` reads them); in
every other case (an unknown value, a stale or missing table) it answers ``None`` and the caller
goes the full way, through the models, which also gives the precise errors.
"""

from __future__ import annotations

import json
import zlib

from atlas.query import _selection

TYPE_CHECKING = False  # spares importing typing on the fast path
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from atlas.models import ExecutionPath
    from atlas.query._index import Index

__all__ = [
    "build",
    "dumps",
    "expand",
    "lookup",
    "lookup_json",
    "offsets",
    "render",
    "vocabulary",
    "vocabulary_data",
]

# Bumped whenever the table's layout changes so that an older reader would misread it; another
# number is never read. (Keys added since: 'label', 'names', 'values' and 'json' of each atlas,
# which an older reader ignores and whose absence makes this one decline.)
FORMAT = 2


def _compose(summary: str, blocks: Sequence[str], ends: str) -> str:
    """The printed path: its summary, each numbered step, and where Python ends."""
    return "\n\n".join((summary, *blocks, ends)) + "\n"


def _ends(result: ExecutionPath) -> str:
    """Where Python ends: the steps, then what the chosen values say about it, in our words."""
    steps = "; ".join(f"step {j.number} ({j.label})" for j in result.python_ends)
    text = f"Where Python ends: {steps or 'nowhere in this path'}"
    explained = [
        " ".join(f"{c.text}{' [unsupported]' * bool(c.unsupported)}" for c in value.claims)
        for value in result.selection
        if value.claims
    ]
    return "\n".join([text, *explained])


def render(result: ExecutionPath) -> str:
    """The text ``atlas path`` prints for ``result``."""
    return _compose(result.summary, [str(j) for j in result.steps], _ends(result))


def vocabulary_data(index: Index) -> dict[str, Any]:
    """What :class:`~atlas.query._selection.Vocabulary` reads, as plain data, from ``index``."""
    folded: dict[str, str] = {}  # as Index.atlas: an exact id, else the first id or label folded
    atlases: dict[str, Any] = {}
    for atlas in index.document.atlases:
        for key in (atlas.id, atlas.label.casefold()):
            folded.setdefault(key, atlas.id)
        if not atlas.dimensions:
            continue
        schemes = [index._dimension(scheme) for scheme in atlas.dimensions]  # noqa: SLF001
        atlases[atlas.id] = {
            "label": atlas.label,
            "names": [d.scheme.label for d in schemes],
            "dimensions": [{key: c.id for key, c in d.lookup.items()} for d in schemes],
            "values": [[[c.id, c.label] for c in d.scheme.values] for d in schemes],
        }
    return {"ids": [a.id for a in index.document.atlases], "folded": folded, "atlases": atlases}


_REF = "$ref"  # a key no record of the export has
_DECODER = json.JSONDecoder()
_RECORD_KEYS = ("stages", "steps", "citations", "sources", "technologies", "relations")


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _records(export: dict[str, Any]) -> dict[str, list[Any]]:
    """Each record of the export (canonical JSON) -> where it is in the export."""
    refs: dict[str, list[Any]] = {}
    for key in _RECORD_KEYS:
        for number, record in enumerate(export.get(key, [])):
            refs.setdefault(_canonical(record), [key, number])
    return refs


def _skeleton(value: Any, refs: Mapping[str, list[Any]], ids: frozenset[str]) -> Any:
    """``value`` with each record of the export in it replaced by ``{"$ref": where}``.

    Every record has an ``id`` (one of ``ids``): only a dict with such an id is written out in
    canonical JSON and looked up, the others are walked into.
    """
    if isinstance(value, dict):
        if value.get("id") in ids:
            where = refs.get(_canonical(value))
            if where is not None:
                return {_REF: where}
        return {key: _skeleton(item, refs, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_skeleton(item, refs, ids) for item in value]
    return value


def expand(value: Any, export: Mapping[str, Any]) -> Any:
    """A skeleton made by :func:`build` with every ``{"$ref": where}`` put back from ``export``.

    >>> expand({"a": [{"$ref": ["stages", 0]}]}, {"stages": [{"id": "x"}]})
    {'a': [{'id': 'x'}]}
    """
    if isinstance(value, dict):
        if len(value) == 1 and _REF in value:
            key, number = value[_REF]
            return export[key][number]
        return {key: expand(item, export) for key, item in value.items()}
    if isinstance(value, list):
        return [expand(item, export) for item in value]
    return value


def build(export_text: str) -> dict[str, Any]:
    """The table for the export ``export_text`` (canonical JSON, as ``atlas export`` writes it).

    Per path: the text ``atlas path`` prints, and the JSON ``atlas path --json`` prints as a
    skeleton whose records of the export are references into it (:func:`expand`).
    """
    from atlas.models import AtlasDocument  # noqa: PLC0415 - only the writer needs the models
    from atlas.query._index import Index  # noqa: PLC0415

    index = Index(AtlasDocument.model_validate_json(export_text))
    data = export_text.encode("utf-8")
    export = json.loads(export_text)
    refs = _records(export)
    ids = frozenset(r["id"] for key in _RECORD_KEYS for r in export.get(key, []) if "id" in r)
    table = vocabulary_data(index)
    for atlas_id, found in table["atlases"].items():
        blocks: dict[str, int] = {}
        paths: dict[str, Any] = {}
        shapes: dict[str, Any] = {}
        for result in index.all_paths(atlas_id):
            numbered = [blocks.setdefault(str(j), len(blocks)) for j in result.steps]
            key = " ".join(c.id for c in result.selection)
            paths[key] = [result.summary, numbered, _ends(result)]
            dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            shapes[key] = _skeleton(dumped, refs, ids)
        found.update(blocks=list(blocks), paths=paths, json=shapes)
    where = {"bytes": len(data), "crc32": zlib.crc32(data)}
    return {"format": FORMAT, "export": where, "offsets": offsets(export_text), **table}


def offsets(text: str) -> dict[str, list[int]]:
    """Where each record of an export starts in its ``text`` (a character offset), per key.

    So that ``atlas path --json`` decodes only the records its path names, not the whole export.

    >>> offsets('{"a": 1, "stages": [{"id": "x"}, {"id": "y"}]}')
    {'stages': [20, 33]}
    """
    found: dict[str, list[int]] = {}
    i = _past(text, 0, "{")
    while text[i] != "}":
        key, i = _DECODER.raw_decode(text, i)
        i = _past(text, i, ":")
        if key in _RECORD_KEYS:
            starts = found[key] = []
            i = _past(text, i, "[")
            while text[i] != "]":
                starts.append(i)
                i = _past(text, _DECODER.raw_decode(text, i)[1], ",", optional=True)
            i += 1
        else:
            i = _DECODER.raw_decode(text, i)[1]
        i = _past(text, i, ",", optional=True)
    return found


def _past(text: str, i: int, mark: str, *, optional: bool = False) -> int:
    """The first non-blank position after ``mark`` (met at ``i`` after blanks; else an error)."""
    while text[i] in " \t\n\r":
        i += 1
    if text[i] == mark:
        i += 1
    elif not optional:
        raise ValueError(f"expected {mark!r} at character {i}")
    while text[i] in " \t\n\r":
        i += 1
    return i


class _Decoded:
    """The records under one key of an export's ``text``, each decoded when asked for by number."""

    __slots__ = ("starts", "text")

    def __init__(self, text: str, starts: Sequence[int]) -> None:
        self.text, self.starts = text, starts

    def __getitem__(self, number: int) -> Any:
        record = _DECODER.raw_decode(self.text, self.starts[number])[0]
        if not isinstance(record, dict):  # not where a record starts: not this table's export
            raise TypeError(f"no record at offset {self.starts[number]}")
        return record


def dumps(table: dict[str, Any]) -> str:
    """The table as the text ``atlas export`` writes (stable, so that it diffs well)."""
    return json.dumps(table, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def _read(export: bytes, table: bytes) -> dict[str, Any] | None:
    """The table in ``table`` when it was made from ``export`` in this format, else ``None``."""
    try:
        data = json.loads(table)
        if data.get("format") != FORMAT or data.get("export") != {
            "bytes": len(export),
            "crc32": zlib.crc32(export),
        }:
            return None
    except (ValueError, AttributeError):
        return None
    return data  # type: ignore[no-any-return]  # a dict: it has .get


def vocabulary(export: bytes, table: bytes) -> _selection.Vocabulary | None:
    """The vocabulary in the table ``table`` made from ``export``, or ``None`` (stale, unread)."""
    data = _read(export, table)
    try:
        return None if data is None else _selection.Vocabulary.from_data(data)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def lookup(
    values: Sequence[str],
    atlas: str | None,
    export: bytes,
    table: bytes,
    named: Mapping[str, str] | None = None,
) -> str | None:
    """The printed path for ``values`` (and ``named`` values) of ``atlas``, or ``None``.

    ``export`` and ``table`` are the bytes of the shipped export and of the table made from it.
    The words are read as :func:`atlas.path` reads them (:func:`atlas.query._selection.resolve`);
    ``None`` when they name no one path, and for a table made from another export, or one this
    version cannot read.
    """
    found = _found(values, atlas, export, table, named)
    if found is None:
        return None
    _, paths, key = found
    try:
        summary, numbered, ends = paths["paths"][key]
        blocks = paths["blocks"]
        return _compose(summary, [blocks[i] for i in numbered], ends)
    except (ValueError, KeyError, TypeError, IndexError):
        return None  # not a table this version wrote: the full way


def lookup_json(
    values: Sequence[str],
    atlas: str | None,
    export: bytes,
    table: bytes,
    named: Mapping[str, str] | None = None,
) -> Any:
    """The JSON data ``atlas path --json`` prints for the words, or ``None`` (as :func:`lookup`)."""
    found = _found(values, atlas, export, table, named)
    if found is None:
        return None
    data, paths, key = found
    try:
        text = export.decode("utf-8")
        starts = data.get("offsets")  # none in a table of an older version: the whole export
        records = (
            json.loads(text)
            if starts is None
            else {key: _Decoded(text, where) for key, where in starts.items()}
        )
        return expand(paths["json"][key], records)
    except (ValueError, KeyError, TypeError, IndexError):
        return None  # not a table this version wrote: the full way


def _found(
    values: Sequence[str],
    atlas: str | None,
    export: bytes,
    table: bytes,
    named: Mapping[str, str] | None,
) -> tuple[dict[str, Any], dict[str, Any], str] | None:
    """The table, its entry of the atlas the words name, and the key of their selection."""
    data = _read(export, table)
    try:
        if data is None:
            return None
        words = _selection.Vocabulary.from_data(data)
        atlas_id, chosen = _selection.resolve(words, values, named, atlas)
        return data, data["atlases"][atlas_id], " ".join(chosen)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, LookupError):
        return None  # not a table this version wrote, or words it cannot read: the full way
