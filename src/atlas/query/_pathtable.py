"""The printed execution paths, precomputed, so that ``atlas path`` answers without pydantic.

Importing pydantic and building the models costs far more than answering a path, so a one-shot
``atlas path compile gpu`` reads a table instead: ``atlas export`` writes ``dataset/paths.json``
beside the export. For every atlas with dimensions it holds the folded texts that name each
dimension value (:func:`atlas.query.paths.value_keys`), and for every combination of values the
text that ``atlas path`` prints, made by :func:`render` from the same
:class:`~atlas.query._index.Index` that :func:`atlas.path` uses. So the table adds no rule of its
own: it is a cache of the API's answers, and a test compares it with the API for every
combination.

:func:`lookup` reads the table with the standard library alone. It answers only when the table
was made from the very export shipped beside it (same size and CRC-32) and every value names a
known value of the atlas; in every other case (an unknown value, a stale or missing table) it
answers ``None`` and the caller goes the full way, through the models, which also gives the
precise errors.
"""

from __future__ import annotations

import json
import zlib

from atlas.models._names import fold

TYPE_CHECKING = False  # spares importing typing on the fast path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from atlas.models import ExecutionPath

__all__ = ["build", "dumps", "lookup", "render"]

FORMAT = 2  # bumped whenever the table's layout changes; another number is never read


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


def build(export_text: str) -> dict[str, Any]:
    """The table for the export ``export_text`` (canonical JSON, as ``atlas export`` writes it)."""
    from atlas.models import AtlasDocument  # noqa: PLC0415 - only the writer needs the models
    from atlas.query._index import Index  # noqa: PLC0415

    index = Index(AtlasDocument.model_validate_json(export_text))
    data = export_text.encode("utf-8")
    folded: dict[str, str] = {}  # as Index.atlas: an exact id, else the first id or label folded
    atlases: dict[str, Any] = {}
    for atlas in index.document.atlases:
        for key in (atlas.id, atlas.label.casefold()):
            folded.setdefault(key, atlas.id)
        if not atlas.dimensions:
            continue
        dimensions = [
            {key: concept.id for key, concept in index._dimension(scheme).lookup.items()}  # noqa: SLF001
            for scheme in atlas.dimensions
        ]
        blocks: dict[str, int] = {}
        paths: dict[str, Any] = {}
        for result in index.all_paths(atlas.id):
            numbered = [blocks.setdefault(str(j), len(blocks)) for j in result.steps]
            key = " ".join(c.id for c in result.selection)
            paths[key] = [result.summary, numbered, _ends(result)]
        atlases[atlas.id] = {"dimensions": dimensions, "blocks": list(blocks), "paths": paths}
    return {
        "format": FORMAT,
        "export": {"bytes": len(data), "crc32": zlib.crc32(data)},
        "ids": [a.id for a in index.document.atlases],
        "folded": folded,
        "atlases": atlases,
    }


def dumps(table: dict[str, Any]) -> str:
    """The table as the text ``atlas export`` writes (stable, so that it diffs well)."""
    return json.dumps(table, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def lookup(values: Sequence[str], atlas: str, export: bytes, table: bytes) -> str | None:
    """The printed path for ``values`` of ``atlas``, or ``None`` when the table cannot answer.

    ``export`` and ``table`` are the bytes of the shipped export and of the table made from it.
    Values are matched as :func:`atlas.path` matches them (one per dimension, in order, folded);
    ``None`` also for a table made from another export, or one this version cannot read.
    """
    try:
        data = json.loads(table)
        if data.get("format") != FORMAT or data.get("export") != {
            "bytes": len(export),
            "crc32": zlib.crc32(export),
        }:
            return None
        name = atlas if atlas in data["ids"] else data["folded"].get(atlas.casefold())
        found = data["atlases"].get(name)
        if found is None or len(values) != len(found["dimensions"]):
            return None
        chosen = []
        for value, keys in zip(values, found["dimensions"], strict=True):
            concept = keys.get(fold(value))
            if concept is None:
                return None
            chosen.append(concept)
        summary, numbered, ends = found["paths"][" ".join(chosen)]
        blocks = found["blocks"]
        return _compose(summary, [blocks[i] for i in numbered], ends)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None  # not a table this version wrote: the full way will answer
