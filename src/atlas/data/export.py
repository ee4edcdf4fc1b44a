"""The versioned JSON (and JSON-LD) export: write it atomically, read it and check it.

The export is canonical: sorted keys, records in a stable order, two-space indentation and a
final newline, so that the diff of two releases shows only what changed. It is built from the
Turtle files, whose consistency is checked first, by :mod:`atlas.checks.build`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.data._atomic import write_text_atomic
from atlas.errors import DatasetError, Problem
from atlas.models import SCHEMA_VERSION, AtlasDocument

if TYPE_CHECKING:
    from collections.abc import Callable

    from atlas.models._witness import WitnessRecord

__all__ = [
    "dumps",
    "read",
    "shape_problems",
    "to_data",
    "with_witnesses",
    "write",
    "write_text_atomic",
]


def with_witnesses(
    document: AtlasDocument, records: tuple[WitnessRecord, ...] | None = None
) -> AtlasDocument:
    """The document with witness records added: ``records``, by default the shipped ones."""
    from atlas.data._dataset import shipped_records  # noqa: PLC0415 - pydantic, when needed

    records = shipped_records() if records is None else records
    counts = document.counts.model_copy(update={"witnesses": len(records)})
    return document.model_copy(update={"witnesses": records, "counts": counts})


def to_data(document: AtlasDocument) -> dict[str, Any]:
    """The document as plain JSON data (aliases as keys, absent values left out)."""
    return document.model_dump(mode="json", by_alias=True, exclude_none=True)


def dumps(document: AtlasDocument) -> str:
    """The canonical JSON text of a document.

    >>> from atlas.query.paths import load
    >>> dumps(load()) == dumps(AtlasDocument.model_validate_json(dumps(load())))
    True
    """
    return json.dumps(to_data(document), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write(document: AtlasDocument, path: Path) -> Path:
    """Write the canonical export of ``document`` to ``path`` atomically."""
    write_text_atomic(Path(path), dumps(document))
    return Path(path)


def read(
    path: Path,
    *,
    any_context: bool = False,
    consistency: Callable[[AtlasDocument], list[Problem]] | None = None,
    content: bytes | None = None,
) -> AtlasDocument:
    """Read and validate an export file (or ``content``, its bytes read already, named ``path``).

    The file is read strictly (UTF-8, JSON without NaN, bounded numbers and nesting: see
    :func:`atlas.data._json.load_json`), then checked against the models and for consistency as
    ``atlas export`` checks the Turtle: every id a record names is a record of the export, no
    id (no source URL) is held twice, and so on (:func:`atlas.data._integrity.export_problems`;
    ``consistency`` replaces its record rules: :func:`atlas.checks.build.read` passes every rule,
    the cycles of the paths included, which need the query layer).
    ``any_context`` accepts an inline ``@context`` other than this version's (an older
    release's terms; ``atlas diff`` compares records, not terms), and reads an export of the
    previous format (1.x) as this one (:mod:`atlas.data._upgrade`).

    Raises:
        DatasetError: naming the file, and the line (and JSON pointer) where it can.
    """
    from atlas.data import _json  # noqa: PLC0415 - jsonschema: on demand
    from atlas.data._files import UnsafeFileError, read_bytes  # noqa: PLC0415
    from atlas.data._integrity import export_problems  # noqa: PLC0415 - on demand

    name = str(path)
    try:
        raw = read_bytes(Path(path), _json.MAX_EXPORT_BYTES) if content is None else content
    except UnsafeFileError as error:
        problem = Problem("violation", f"refused: {error}", file=name, code="unsafe")
        raise DatasetError([problem], source=name) from None
    except OSError as error:
        raise DatasetError(
            [Problem("violation", f"cannot read: {error.strerror}", file=name, code="io")],
            source=name,
        ) from None
    text, data = _json.load_json(raw, name)
    if any_context and isinstance(data, dict):  # a comparison may span formats: read the old one
        from atlas.data._upgrade import from_format_1  # noqa: PLC0415

        upgraded = from_format_1(data)
        if upgraded is not data:
            data, text = upgraded, json.dumps(upgraded, indent=2, sort_keys=True)
    problems = [p for p in shape_problems(data, name) if not (any_context and p.code == "context")]
    if problems:
        raise DatasetError(problems, source=name)
    document = _validated(data, name)
    problems = export_problems(
        data,
        file=name,
        lines=lambda: _json.json_lines(text),
        document=document,
        consistency=consistency,
    )
    if problems:
        raise DatasetError(problems, source=name)
    return document


def _validated(data: Any, name: str) -> AtlasDocument:
    """The document of export data, or a DatasetError with each refusal of the models."""
    import pydantic  # noqa: PLC0415 - only needed for its error type

    try:
        return AtlasDocument.model_validate(data)
    except pydantic.ValidationError as error:
        raise DatasetError(
            [
                Problem(
                    "violation",
                    f"{_json_pointer(e['loc'], data)}: {e['msg']}",
                    file=name,
                    code=str(e["type"]),
                    hint="the export's format is described by schema/atlas.schema.json",
                )
                for e in error.errors()
            ],
            source=name,
        ) from None


def shape_problems(data: Any, name: str) -> list[Problem]:
    """What is wrong with the frame of export data: not an object, a foreign context or version."""
    from atlas.models._vocab import context  # noqa: PLC0415

    if not isinstance(data, dict):
        return [Problem("violation", "the export must be a JSON object", file=name, code="json")]
    problems = []
    ctx = data.get("@context")
    if isinstance(ctx, str | list):
        problems.append(
            Problem(
                "violation",
                f"@context must be inline, found a reference {ctx!r}",
                file=name,
                hint="exports carry their JSON-LD context inline; remote contexts are refused",
                code="remote-context",
            )
        )
    elif isinstance(ctx, dict) and ctx != context():
        problems.append(
            Problem(
                "violation",
                "@context differs from the context of this schema version",
                file=name,
                hint="export again with this version of the package",
                code="context",
            )
        )
    version = data.get("schemaVersion")
    major = SCHEMA_VERSION.split(".", 1)[0]
    if isinstance(version, str) and version.split(".", 1)[0] != major:
        problems.append(
            Problem(
                "violation",
                f"schemaVersion {version!r} is not supported; this package reads {major}.x",
                file=name,
                code="schema-version",
            )
        )
    return problems


def _json_pointer(loc: tuple[Any, ...], data: Any) -> str:
    parts = []
    node = data
    for part in loc:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            node = None
        if isinstance(node, dict) and "id" in node and isinstance(part, int):
            parts.append(f"{part}({node['id']})")
        else:
            parts.append(str(part))
    return "/" + "/".join(parts)
