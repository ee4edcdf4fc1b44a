"""The export check of ``atlas check``: the JSON export, its table of paths and the JSON Schema.

The export must parse strictly, match the JSON Schema and the integrity rules, and equal a
fresh export of the Turtle files; the table of printed paths beside it must have been made from
it; the committed JSON Schema must equal the one generated from the models.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.checks._run import CouldNotRunError
from atlas.checks.consistency import consistency_problems
from atlas.checks.report import CheckResult
from atlas.data import _dataset, _resources
from atlas.data._files import MAX_TURTLE_BYTES, UnsafeFileError, inside, read_bytes
from atlas.data._integrity import export_problems
from atlas.errors import DatasetError, Problem
from atlas.query import _pathtable

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from atlas.models import AtlasDocument

__all__ = ["export_check", "folder_export_check", "path_table_problems", "schema_file_problems"]


def _models(data: Any) -> AtlasDocument | None:
    """The document of export data that matches the JSON Schema (None if the models refuse it)."""
    import pydantic  # noqa: PLC0415 - the models, on demand

    from atlas.models import AtlasDocument  # noqa: PLC0415 - the models, on demand

    try:
        return AtlasDocument.model_validate(data)
    except pydantic.ValidationError:
        return None


def _export_bytes(
    file: Path | Traversable, name: str, folder: Path | None = None
) -> bytes | CheckResult:
    """The bytes of the export, or the check's result when it is missing or refused."""
    from atlas.data import _json  # noqa: PLC0415 - jsonschema, on demand

    try:
        if folder is not None:  # a file of a dataset folder stays inside it
            inside(folder, file.name)
        if isinstance(file, Path):
            raw = read_bytes(file, _json.MAX_EXPORT_BYTES)
        else:
            raw = file.read_bytes()
    except FileNotFoundError:
        return CheckResult(
            "export",
            "ran",
            (
                Problem(
                    "violation",
                    "the JSON export is missing",
                    file=name,
                    hint="run 'atlas export'",
                    code="missing",
                ),
            ),
        )
    except UnsafeFileError as error:
        problem = Problem(
            "violation",
            f"the JSON export is refused: {error}",
            file=name,
            hint="the export is a regular file, as 'atlas export' writes it",
            code="unsafe",
        )
        return CheckResult("export", "ran", (problem,))
    except OSError as error:
        raise CouldNotRunError(f"cannot read {name!r}: {error}") from None
    return raw


def export_check(
    file: Path | Traversable,
    name: str,
    fresh: Callable[[], str] | None,
    folder: Path | None = None,
) -> CheckResult:
    """The export parses, matches the JSON Schema, and equals ``fresh()``, a fresh export.

    ``fresh`` is None when the Turtle files have violations: no fresh export to compare with.
    ``folder``: the dataset folder that holds ``file``, which must not lead out of it.
    An export equal to the fresh one is not validated again: it is the document that the models
    just validated, and the JSON Schema is generated from them (a check of its own).
    """
    from atlas.data import _json, schema  # noqa: PLC0415 - jsonschema, on demand

    raw = _export_bytes(file, name, folder)
    if isinstance(raw, CheckResult):
        return raw
    try:  # strictly: UTF-8, no NaN, bounded numbers and nesting, each refusal with its line
        text, data = _json.load_json(raw, name)
    except DatasetError as error:
        return CheckResult("export", "ran", error.problems)

    @functools.cache
    def lines() -> dict[str, int]:  # the line of each value: only wanted for a problem
        return _json.json_lines(text)

    problems = _frame_problems(data, name, lines)
    covered = tuple(_POINTERS[p.code] for p in problems if p.code in _POINTERS)
    now = fresh() if fresh is not None and not problems else None
    if text != now:  # a fresh export of the document just read and checked conforms already
        problems.extend(schema.schema_problems(data, file=name, lines=lines, ignore=covered))
        if not problems:  # well formed: then every id it names must be one of its records
            problems.extend(
                export_problems(
                    data,
                    file=name,
                    lines=lines,
                    document=_models(data),
                    consistency=consistency_problems,
                )
            )
    note = ""
    if fresh is None and not problems:
        note = "not compared with the Turtle files, which have violations"
    elif now is not None and not problems:
        problems.extend(_staleness(text, now, name))
    return CheckResult("export", "ran", tuple(problems), note)


#: The JSON pointer of the value that each problem of the export's frame is about.
_POINTERS = {
    "remote-context": "/@context",
    "context": "/@context",
    "schema-version": "/schemaVersion",
}


def _frame_problems(data: Any, name: str, lines: Callable[[], dict[str, int]]) -> list[Problem]:
    """The export's frame: a JSON object of this version's context, schema version and $schema."""
    from atlas.data import export  # noqa: PLC0415 - the models, on demand
    from atlas.models import SCHEMA_URL  # noqa: PLC0415 - the models, on demand

    problems = [
        replace(p, line=lines().get(_POINTERS.get(p.code, ""), p.line))
        for p in export.shape_problems(data, name)
    ]
    if isinstance(data, dict) and "$schema" in data and data["$schema"] != SCHEMA_URL:
        problems.append(
            Problem(
                "violation",
                f"$schema is {data['$schema']!r}, expected {SCHEMA_URL!r}",
                file=name,
                line=lines().get("/$schema"),
                hint="this package reads exports of its own schema version; export again",
                code="schema-url",
            )
        )
    return problems


def folder_export_check(
    file: Path, fresh: Callable[[], str] | None, folder: Path | None
) -> CheckResult:
    """The export check of a given file; for a dataset folder's own export, its table too.

    A witness record of the folder that cannot be read is a violation of the export check.
    """
    try:
        result = export_check(file, str(file), fresh, folder)
    except DatasetError as error:
        return CheckResult("export", "ran", error.problems)
    table = None if folder is None else Path(folder) / _dataset.TABLE_NAME
    if result.problems or fresh is None or table is None or not os.path.lexists(table):
        return result  # a folder's table is a cache: checked where there is one
    return replace(result, problems=tuple(_folder_table_problems(file, table, folder)))


def _folder_table_problems(export_file: Path, table: Path, folder: Path | None) -> list[Problem]:
    """The table of printed paths beside a folder's export was made from it."""
    try:
        if folder is not None:
            inside(folder, table.name)
        text = read_bytes(table, MAX_TURTLE_BYTES).decode("utf-8")
        export_text = read_bytes(export_file, MAX_TURTLE_BYTES).decode("utf-8")
    except (UnsafeFileError, UnicodeDecodeError) as error:
        reason = f"refused: {error}"
    except OSError as error:
        raise CouldNotRunError(f"cannot read {str(table)!r}: {error}") from None
    else:
        if text == _pathtable.dumps(_pathtable.build(export_text)):
            return []
        reason = "stale: not made from the export beside it"
    return [
        Problem(
            "violation",
            f"{reason} ('atlas path' would answer through the models, more slowly)",
            file=str(table),
            hint=f"run 'atlas export --dataset {folder}' and commit the result",
            code="stale" if reason.startswith("stale") else "unsafe",
        )
    ]


def _staleness(text: str, fresh: str, name: str) -> list[Problem]:
    """A violation naming the first line where an export differs from a fresh one."""
    if text == fresh:
        return []
    old_lines, new_lines = text.splitlines(), fresh.splitlines()
    pairs = enumerate(zip(old_lines, new_lines, strict=False), start=1)
    number = next((i for i, (a, b) in pairs if a != b), min(len(old_lines), len(new_lines)) + 1)
    shown = old_lines[number - 1].strip() if number <= len(old_lines) else "<end of file>"
    return [
        Problem(
            "violation",
            f"stale: differs from a fresh export of the Turtle files from line {number} "
            f"({shown[:60]!r})",
            file=name,
            line=number,
            hint="run 'atlas export' and commit the result",
            code="stale",
        )
    ]


def path_table_problems(export_file: Traversable) -> list[Problem]:
    """The table of printed paths shipped beside the export was made from it."""
    table = _resources.path_table_file()
    name = f"dataset/{table.name}"
    try:
        text: str | None = table.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    if text == _pathtable.dumps(_pathtable.build(export_file.read_text(encoding="utf-8"))):
        return []
    message = (
        "the table of printed paths is missing"
        if text is None
        else "stale: not made from the export beside it"
    )
    return [
        Problem(
            "violation",
            f"{message} ('atlas path' then answers through the models, more slowly)",
            file=name,
            hint="run 'atlas export' and commit the result",
            code="missing" if text is None else "stale",
        )
    ]


def schema_file_problems() -> list[Problem]:
    """The committed JSON Schema equals the one generated from the models."""
    from atlas.data import schema  # noqa: PLC0415 - jsonschema, on demand

    file = _resources.schema_dir() / schema.SCHEMA_NAME
    name = f"schema/{schema.SCHEMA_NAME}"
    try:
        committed = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [
            Problem(
                "violation",
                "the JSON Schema is missing",
                file=name,
                hint="regenerate it: python -m atlas.data.schema",
                code="missing",
            )
        ]
    if committed != schema.dumps_schema():
        return [
            Problem(
                "violation",
                "stale: differs from the schema generated from the models",
                file=name,
                hint="regenerate it: python -m atlas.data.schema",
                code="stale",
            )
        ]
    return []
