"""A dataset folder of a checkout: its Turtle files and its witness records, read safely.

``atlas check DIR`` and ``atlas export --dataset DIR`` act on such a folder: its ``*.ttl`` files,
its witness records (``witness/*.json``), and the export written beside them (``atlas.json``
with ``paths.json``). Every file is read as :mod:`atlas.data._files` reads what data names: inside
the folder (no symbolic link out), regular, of bounded size. The shipped dataset's witness
records are read from the package (:func:`shipped_records`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from atlas.data._files import MAX_TURTLE_BYTES, UnsafeFileError, inside, read_bytes
from atlas.data._resources import dataset_dir
from atlas.errors import DatasetError, Problem

if TYPE_CHECKING:
    from atlas.data._graph import TurtleFile
    from atlas.models._witness import WitnessRecord

__all__ = [
    "EXPORT_NAME",
    "MAX_WITNESS_BYTES",
    "TABLE_NAME",
    "shipped_records",
    "turtle_files",
    "witness_records",
]

EXPORT_NAME = "atlas.json"
TABLE_NAME = "paths.json"
WITNESS_FOLDER = "witness"
#: The largest witness record read (the shipped ones are about 20 KB).
MAX_WITNESS_BYTES = 16 * 1024 * 1024


def _refused(name: str, reason: str, line: int | None = None) -> DatasetError:
    problem = Problem("violation", f"refused: {reason}", file=name, line=line, code="unsafe")
    return DatasetError([problem], source=name)


def _text(folder: Path, name: str, limit: int) -> str:
    """The UTF-8 text of the file ``name`` of ``folder``, refused as a DatasetError if unsafe."""
    shown = str(Path(folder) / name)
    try:
        data = read_bytes(inside(folder, name), limit)
    except UnsafeFileError as error:
        raise _refused(shown, str(error)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise _refused(shown, f"not UTF-8 text: {error.reason}", line) from None


def turtle_files(folder: Path) -> list[TurtleFile]:
    """The ``*.ttl`` files of ``folder``, read, by name.

    Raises:
        DatasetError: a file is refused (a link out of the folder, not regular, not UTF-8), or
            the folder holds no Turtle file.
        OSError: the folder or a file cannot be read.
    """
    from atlas.data._graph import TurtleFile  # noqa: PLC0415

    folder = Path(folder)
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".ttl"))
    if not names:
        problem = Problem("violation", f"no Turtle files (*.ttl) in {str(folder)!r}", code="empty")
        raise DatasetError([problem], source=str(folder))
    return [TurtleFile(str(folder / n), _text(folder, n, MAX_TURTLE_BYTES)) for n in names]


def witness_records(folder: Path) -> tuple[WitnessRecord, ...]:
    """The witness records of ``folder`` (``witness/*.json``) by id; none without that folder.

    Raises:
        DatasetError: a record is refused or is not a valid witness record (naming the file).
    """
    import pydantic  # noqa: PLC0415

    from atlas.models._witness import WitnessRecord  # noqa: PLC0415

    witness = Path(folder) / WITNESS_FOLDER
    if not witness.is_dir():
        return ()
    found = []
    for name in sorted(p.name for p in witness.iterdir() if p.name.endswith(".json")):
        text = _text(Path(folder), f"{WITNESS_FOLDER}/{name}", MAX_WITNESS_BYTES)
        try:
            found.append(WitnessRecord.model_validate_json(text))
        except pydantic.ValidationError as error:
            first = error.errors()[0]
            where = "/".join(str(part) for part in first["loc"])
            problem = Problem(
                "violation",
                f"not a witness record: {where}: {first['msg']}"
                + (f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""),
                file=str(witness / name),
                hint="witness records are written by 'atlas witness'",
                code="witness",
            )
            raise DatasetError([problem], source=str(witness / name)) from None
    return tuple(sorted(found, key=lambda r: r.id))


def shipped_records() -> tuple[WitnessRecord, ...]:
    """The witness records shipped with the data (``dataset/witness/*.json``), by id."""
    from atlas.models._witness import WitnessRecord  # noqa: PLC0415

    folder = dataset_dir() / WITNESS_FOLDER
    if not folder.is_dir():
        return ()
    found = [
        WitnessRecord.model_validate_json(item.read_text(encoding="utf-8"))
        for item in folder.iterdir()
        if item.name.endswith(".json")
    ]
    return tuple(sorted(found, key=lambda r: r.id))
