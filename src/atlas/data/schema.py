"""The JSON Schema of the export, generated from the models, and the check of exports against it.

The JSON Schema is generated from :class:`~atlas.models.AtlasDocument` and committed as
``schema/atlas.schema.json``; a test regenerates it and fails on any difference. Exports are
validated against it with ``jsonschema``. (Exports are read as JSON by :mod:`atlas.data._json`;
the SHACL shapes of the Turtle, ``schema/shapes.ttl``, are run by :mod:`atlas.checks.shapes`.)

>>> json_schema()["$schema"]
'https://json-schema.org/draft/2020-12/schema'
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from atlas.data import _resources
from atlas.data._json import described_pointer, line_of_pointer, record_iri
from atlas.errors import Problem
from atlas.models import SCHEMA_URL, AtlasDocument

__all__ = [
    "DRAFT",
    "SCHEMA_NAME",
    "dumps_schema",
    "json_schema",
    "schema_problems",
    "write_schema",
]

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_NAME = "atlas.schema.json"

# --- JSON Schema ---------------------------------------------------------------------------


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the export, generated from the models."""
    # the JSON as written: the keys made from claims (description...) are in it, read-only
    generated = AtlasDocument.model_json_schema(by_alias=True, mode="serialization")
    for definition in generated.get("$defs", {}).values():
        _optional_when_null(definition)
    return {"$schema": DRAFT, "$id": SCHEMA_URL, **generated}


def _optional_when_null(definition: dict[str, Any]) -> None:
    """A key whose value may be null is left out of the export: it is not required."""
    properties = definition.get("properties", {})
    nullable = {
        key
        for key, value in properties.items()
        if any(option.get("type") == "null" for option in value.get("anyOf", ()))
    }
    if "required" in definition:
        definition["required"] = [k for k in definition["required"] if k not in nullable]


def dumps_schema() -> str:
    """The canonical text of the generated JSON Schema (sorted keys, final newline)."""
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schema(path: Path) -> Path:
    """Write the generated JSON Schema to ``path`` atomically."""
    from atlas.data._atomic import write_text_atomic  # noqa: PLC0415

    write_text_atomic(path, dumps_schema())
    return path


@functools.cache
def _validator() -> Any:
    import jsonschema  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    shipped = _resources.schema_dir() / SCHEMA_NAME
    try:
        schema = json.loads(shipped.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        schema = json_schema()  # reported as stale by the check; validate with the models
    cls = jsonschema.Draft202012Validator
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def schema_problems(
    data: Any,
    *,
    file: str,
    lines: Mapping[str, int] | Callable[[], Mapping[str, int]] | None = None,
    ignore: tuple[str, ...] = (),
) -> list[Problem]:
    """Validate parsed export data against the committed JSON Schema.

    Each problem names the JSON pointer of the bad value, the IRI of the record that holds it
    and, when ``lines`` maps pointers to line numbers, the line (``lines`` may be a function
    that returns the map: it is called on the first error only). Errors at or under a pointer
    in ``ignore`` (already reported more precisely) are left out.

    >>> schema_problems({"title": 3}, file="x.json")[0].message[:40]
    "/: '@context' is a required property"
    """
    validator = _validator()
    problems = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        parts = list(error.absolute_path)
        pointer = "/" + "/".join(str(p) for p in parts)
        if any(pointer == i or pointer.startswith(i + "/") for i in ignore):
            continue
        shown = described_pointer(data, parts)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
            extra = sorted(set(error.instance) - set(allowed))
            parts = parts + extra[:1]
        if callable(lines):
            lines = lines()  # the first error: now the lines are wanted
        line = line_of_pointer(lines, parts) if lines else None
        problems.append(
            Problem(
                "violation",
                f"{shown}: {_short(error.message)}",
                file=file,
                line=line,
                subject=record_iri(data, parts),
                hint=f"the export must match {SCHEMA_NAME} (JSON Schema of schema "
                f"{SCHEMA_URL.rsplit('/', 1)[-1]}); export it again with 'atlas export'",
                code=f"json-schema:{error.validator}",
            )
        )
    return problems


def _short(message: str, limit: int = 160) -> str:
    return message if len(message) <= limit else message[: limit - 3] + "..."


def main() -> int:
    """Regenerate ``schema/atlas.schema.json`` in a source checkout."""
    target = _resources.schema_dir() / SCHEMA_NAME
    if not isinstance(target, Path):
        print(f"not a source checkout: {target} is not a file on disk")  # noqa: T201
        return 1
    write_schema(target)
    print(f"wrote {target}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
