"""Build the export from Turtle, checked: the document ``atlas export`` writes, and its files.

:func:`build` reads the Turtle files, refuses them on any consistency violation
(:mod:`atlas.checks.consistency`) and adds each atlas's journeys
(:func:`~atlas.checks._journeys.with_journeys`); :func:`build_folder` does so for a dataset
folder and adds its witness records; :func:`write_folder` writes the export and its table of
printed paths (:mod:`atlas.query._pathtable`) beside the Turtle, atomically; :func:`read` reads
an export with every consistency rule, the cycles of its paths included.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.checks._journeys import with_journeys
from atlas.checks.consistency import consistency_problems
from atlas.data import _dataset, export
from atlas.errors import DatasetError
from atlas.query import _pathtable

if TYPE_CHECKING:
    from atlas.models import AtlasDocument

__all__ = ["build", "build_folder", "read", "with_journeys", "write_folder"]


def build(files: Any = None) -> AtlasDocument:
    """Read the Turtle files (default: the shipped ones) and check their consistency.

    Raises:
        DatasetError: every violation found, at once.
    """
    from atlas.data import turtle  # noqa: PLC0415 - rdflib is only needed to build

    document = turtle.read_turtle(files)
    problems = [p for p in consistency_problems(document) if p.severity == "violation"]
    if problems:
        raise DatasetError(problems, source="Turtle dataset")
    document = with_journeys(document)
    # the shipped dataset carries its witness records
    return export.with_witnesses(document) if files is None else document


def build_folder(folder: Path) -> AtlasDocument:
    """Read the Turtle files of a dataset folder, check them, and add its witness records.

    The folder is a checkout's ``dataset/`` (or a copy): its ``*.ttl`` files and its
    ``witness/*.json`` records, each read inside the folder (see :mod:`atlas.data._dataset`).

    Raises:
        DatasetError: every violation found, at once; or a file that is refused.
    """
    document = build(_dataset.turtle_files(Path(folder)))
    return export.with_witnesses(document, _dataset.witness_records(Path(folder)))


def write_folder(document: AtlasDocument, folder: Path) -> tuple[Path, Path]:
    """Write the export and its table of printed paths beside the Turtle of ``folder``.

    Each file is written atomically: ``atlas.json``, then ``paths.json``, made from it.
    """
    text = export.dumps(document)
    target, table = Path(folder) / _dataset.EXPORT_NAME, Path(folder) / _dataset.TABLE_NAME
    export.write_text_atomic(target, text)
    export.write_text_atomic(table, _pathtable.dumps(_pathtable.build(text)))
    return target, table


def read(path: Path, *, any_context: bool = False, content: bytes | None = None) -> AtlasDocument:
    """Read and validate an export file (:func:`atlas.data.export.read`), its cycles included.

    Raises:
        DatasetError: naming the file, and the line (and JSON pointer) where it can.
    """
    return export.read(
        path, any_context=any_context, consistency=consistency_problems, content=content
    )
