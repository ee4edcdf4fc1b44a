"""The versioned JSON (and JSON-LD) export: build it from Turtle, write it atomically, read it.

The export is canonical: sorted keys, records in a stable order, two-space indentation and a
final newline, so that the diff of two releases shows only what changed.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from atlas.errors import DatasetError, Problem
from atlas.models import AtlasDocument

__all__ = ["build", "dumps", "read", "with_witnesses", "write"]


def build(files: Any = None) -> AtlasDocument:
    """Read the Turtle files (default: the shipped ones) and check their consistency.

    Raises:
        DatasetError: every violation found, at once.
    """
    from atlas import turtle, verify  # noqa: PLC0415 - rdflib is only needed to build

    document = turtle.read_turtle(files)
    problems = [p for p in verify.consistency_problems(document) if p.severity == "violation"]
    if problems:
        raise DatasetError(problems, source="Turtle dataset")
    # the shipped dataset carries its witness records
    return with_witnesses(document) if files is None else document


def with_witnesses(document: AtlasDocument) -> AtlasDocument:
    """The document with the shipped witness records (``dataset/witness/*.json``) added."""
    from atlas._witness import shipped_records  # noqa: PLC0415

    records = shipped_records()
    counts = document.counts.model_copy(update={"witnesses": len(records)})
    return document.model_copy(update={"witnesses": records, "counts": counts})


def to_data(document: AtlasDocument) -> dict[str, Any]:
    """The document as plain JSON data (aliases as keys, absent values left out)."""
    return document.model_dump(mode="json", by_alias=True, exclude_none=True)


def dumps(document: AtlasDocument) -> str:
    """The canonical JSON text of a document.

    >>> from atlas.query import load
    >>> dumps(load()) == dumps(AtlasDocument.model_validate_json(dumps(load())))
    True
    """
    return json.dumps(to_data(document), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private (0600): keep the mode of the file replaced, else 0644
        Path(tmp).chmod(stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write(document: AtlasDocument, path: Path) -> Path:
    """Write the canonical export of ``document`` to ``path`` atomically."""
    write_text_atomic(Path(path), dumps(document))
    return Path(path)


def read(path: Path) -> AtlasDocument:
    """Read and validate an export file.

    Raises:
        DatasetError: naming the file, and the line for malformed JSON.
    """
    import pydantic  # noqa: PLC0415 - only needed for its error type

    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise DatasetError(
            [Problem("violation", f"cannot read: {error.strerror}", file=name, code="io")],
            source=name,
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise DatasetError(
            [
                Problem(
                    "violation",
                    f"not valid JSON: {error.msg} (column {error.colno})",
                    file=name,
                    line=error.lineno,
                    hint="the file may be truncated; export it again",
                    code="json",
                )
            ],
            source=name,
        ) from None
    problems = _shape_problems(data, name)
    if problems:
        raise DatasetError(problems, source=name)
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


def _shape_problems(data: Any, name: str) -> list[Problem]:
    from atlas._vocab import context  # noqa: PLC0415

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
    if isinstance(version, str) and not version.startswith("1."):
        problems.append(
            Problem(
                "violation",
                f"schemaVersion {version!r} is not supported; this package reads 1.x",
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
