"""The versioned JSON (and JSON-LD) export: build it from Turtle, write it atomically, read it.

The export is canonical: sorted keys, records in a stable order, two-space indentation and a
final newline, so that the diff of two releases shows only what changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.data._atomic import write_text_atomic
from atlas.errors import DatasetError, Problem
from atlas.models import SCHEMA_VERSION, AtlasDocument

if TYPE_CHECKING:
    from atlas.models._witness import WitnessRecord

__all__ = [
    "build",
    "build_folder",
    "dumps",
    "read",
    "with_witnesses",
    "write",
    "write_folder",
    "write_text_atomic",
]


def build(files: Any = None) -> AtlasDocument:
    """Read the Turtle files (default: the shipped ones) and check their consistency.

    Raises:
        DatasetError: every violation found, at once.
    """
    from atlas.checks import verify  # noqa: PLC0415 - rdflib is only needed to build
    from atlas.data import turtle  # noqa: PLC0415 - rdflib is only needed to build

    document = turtle.read_turtle(files)
    problems = [p for p in verify.consistency_problems(document) if p.severity == "violation"]
    if problems:
        raise DatasetError(problems, source="Turtle dataset")
    # the shipped dataset carries its witness records
    return with_witnesses(document) if files is None else document


def build_folder(folder: Path) -> AtlasDocument:
    """Read the Turtle files of a dataset folder, check them, and add its witness records.

    The folder is a checkout's ``dataset/`` (or a copy): its ``*.ttl`` files and its
    ``witness/*.json`` records, each read inside the folder (see :mod:`atlas.data._dataset`).

    Raises:
        DatasetError: every violation found, at once; or a file that is refused.
    """
    from atlas.data import _dataset  # noqa: PLC0415

    document = build(_dataset.turtle_files(Path(folder)))
    return with_witnesses(document, _dataset.witness_records(Path(folder)))


def write_folder(document: AtlasDocument, folder: Path) -> tuple[Path, Path]:
    """Write the export and its table of printed paths beside the Turtle of ``folder``.

    Each file is written atomically: ``atlas.json``, then ``paths.json``, made from it.
    """
    from atlas.data import _dataset  # noqa: PLC0415
    from atlas.query import _pathtable  # noqa: PLC0415

    text = dumps(document)
    export, table = Path(folder) / _dataset.EXPORT_NAME, Path(folder) / _dataset.TABLE_NAME
    write_text_atomic(export, text)
    write_text_atomic(table, _pathtable.dumps(_pathtable.build(text)))
    return export, table


def with_witnesses(
    document: AtlasDocument, records: tuple[WitnessRecord, ...] | None = None
) -> AtlasDocument:
    """The document with witness records added: ``records``, by default the shipped ones."""
    from atlas._witness import shipped_records  # noqa: PLC0415

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


def read(path: Path, *, any_context: bool = False) -> AtlasDocument:
    """Read and validate an export file.

    The file is read strictly (UTF-8, JSON without NaN, bounded numbers and nesting: see
    :func:`atlas.data.schema.load_json`), then checked against the models and for consistency as
    ``atlas export`` checks the Turtle: every id a record names is a record of the export, no
    id (no source URL) is held twice, and so on (:func:`atlas.checks.verify.export_problems`).
    ``any_context`` accepts an inline ``@context`` other than this version's (an older
    release's terms; ``atlas diff`` compares records, not terms), and reads an export of the
    previous format (1.x) as this one (:mod:`atlas.data._upgrade`).

    Raises:
        DatasetError: naming the file, and the line (and JSON pointer) where it can.
    """
    import pydantic  # noqa: PLC0415 - only needed for its error type

    from atlas.checks import verify  # noqa: PLC0415 - jsonschema and the checks: on demand
    from atlas.data import schema  # noqa: PLC0415 - jsonschema and the checks: on demand
    from atlas.data._files import UnsafeFileError, read_bytes  # noqa: PLC0415

    name = str(path)
    try:
        raw = read_bytes(Path(path), schema.MAX_EXPORT_BYTES)
    except UnsafeFileError as error:
        problem = Problem("violation", f"refused: {error}", file=name, code="unsafe")
        raise DatasetError([problem], source=name) from None
    except OSError as error:
        raise DatasetError(
            [Problem("violation", f"cannot read: {error.strerror}", file=name, code="io")],
            source=name,
        ) from None
    text, data = schema.load_json(raw, name)
    if any_context and isinstance(data, dict):  # a comparison may span formats: read the old one
        from atlas.data._upgrade import from_format_1  # noqa: PLC0415

        upgraded = from_format_1(data)
        if upgraded is not data:
            data, text = upgraded, json.dumps(upgraded, indent=2, sort_keys=True)
    problems = [p for p in _shape_problems(data, name) if not (any_context and p.code == "context")]
    if problems:
        raise DatasetError(problems, source=name)
    try:
        document = AtlasDocument.model_validate(data)
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
    problems = verify.export_problems(
        data, file=name, lines=lambda: schema.json_lines(text), document=document
    )
    if problems:
        raise DatasetError(problems, source=name)
    return document


def _shape_problems(data: Any, name: str) -> list[Problem]:
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
