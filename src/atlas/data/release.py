"""The files of a release of the dataset, their checksums and their DCAT description.

``dataset/catalog.ttl`` describes each file of a release (``dcat:distribution``): the whole graph
of documented claims as Turtle and as N-Triples, and the JSON export, offered as JSON-LD and as
plain JSON. :func:`release_files` makes them from a dataset folder of a checkout (its Turtle and
the export beside it, read as ``atlas check`` reads them), each named as the last part of its
``dcat:downloadURL``. :func:`dataset_release` adds the JSON Schema of the export and the SHACL
shapes, named with the data version too (``execution-atlas-X.Y.Z.schema.json``,
``...shapes.ttl``), and :func:`write_release` writes such files as a new folder, whole or not at
all, with ``SHA256SUMS`` and a DCAT description of every file (``...dcat.ttl``: size, media type,
download URL, SHA-256), checked before the folder is put in place. ``python -m
atlas.data.release OUT`` does all of it, to be attached to the release at the download location;
``scripts/release.py`` in a checkout adds the wheel, the sdist and the data's changes.

>>> sorted(MEDIA_TYPES)[:2]
['application/json', 'application/ld+json']
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.data import _dataset, _resources, export
from atlas.data._rdflib import dataset_graph
from atlas.data._releasedcat import IANA, Artefact, Release, describe
from atlas.data._releasefolder import (
    DCAT_SUFFIX,
    SUMS_NAME,
    ReleaseFolderError,
    sha256sums,
    verify_folder,
    write_folder,
)
from atlas.errors import ArgumentValueError, DatasetError, Problem

if TYPE_CHECKING:
    from collections.abc import Sequence

    from atlas.models import AtlasDocument

__all__ = [
    "MEDIA_TYPES",
    "NAME",
    "SUMS_NAME",
    "Artefact",
    "Release",
    "ReleaseFolderError",
    "dataset_release",
    "main",
    "release_files",
    "verify_release",
    "write_release",
]

#: The media types a distribution may have, each with the rdflib format that writes it (None:
#: the JSON export itself).
MEDIA_TYPES: dict[str, str | None] = {
    "text/turtle": "turtle",
    "application/n-triples": "nt",
    "application/ld+json": None,
    "application/json": None,
}
#: The start of every release file's name: ``execution-atlas-X.Y.Z.<what>``.
NAME = "execution-atlas"
_MIT = "https://spdx.org/licenses/MIT"
#: The schema files of a release: the file in ``schema/``, what follows the version in the
#: release's name, its media type, title and the standard it follows.
_SCHEMA_FILES = (
    (
        "atlas.schema.json",
        "schema.json",
        "application/json",
        "JSON Schema of the JSON export",
        "https://json-schema.org/draft/2020-12/schema",
    ),
    ("shapes.ttl", "shapes.ttl", "text/turtle", "SHACL shapes", "https://www.w3.org/TR/shacl/"),
)


def release_files(folder: Path) -> dict[str, bytes]:
    """Each file of the release of the dataset in ``folder``, by name.

    Raises:
        DatasetError: the export is unreadable or stale in some way ``export.read`` finds, it
            names no distributions, or a distribution has a media type not in
            :data:`MEDIA_TYPES`.
    """
    folder = Path(folder)
    return _files(folder, export.read(folder / _dataset.EXPORT_NAME))


def _files(folder: Path, document: AtlasDocument) -> dict[str, bytes]:
    """The files of :func:`release_files`, for the export ``document`` read from ``folder``."""
    path = folder / _dataset.EXPORT_NAME
    text = export.dumps(document).encode("utf-8")
    if not document.distributions:
        raise DatasetError(
            [Problem("violation", "the dataset names no distributions", file=str(path))],
            source=str(path),
        )
    graph = None
    files: dict[str, bytes] = {}
    for distribution in document.distributions:
        media = distribution.media_type.removeprefix(IANA)
        if media not in MEDIA_TYPES:
            problem = Problem(
                "violation",
                f"distribution {distribution.title!r}: unknown media type "
                f"<{distribution.media_type}>; known: {', '.join(sorted(MEDIA_TYPES))}",
                file=str(folder / "catalog.ttl"),
            )
            raise DatasetError([problem], source=str(folder))
        name = distribution.download_url.rsplit("/", 1)[-1]
        rdf_format = MEDIA_TYPES[media]
        if rdf_format is None:
            files[name] = text
            continue
        if graph is None:
            graph = dataset_graph(_dataset.turtle_files(folder))
        written = graph.serialize(format=rdf_format, encoding="utf-8")
        if rdf_format == "nt":  # one triple a line: sorted, so that two releases diff well
            written = b"".join(sorted(written.splitlines(keepends=True)))
        files[name] = written
    return files


def dataset_release(folder: Path, schema: Path | None = None) -> tuple[Release, list[Artefact]]:
    """The release of the dataset in ``folder``, and its files with the schema's (from ``schema``).

    The files are those of :func:`release_files`, each presented as its distribution in the
    catalogue presents it, then the JSON Schema of the export and the SHACL shapes of
    ``schema`` (default: the package's), in the same download folder.

    Raises:
        DatasetError: as :func:`release_files`; the distributions lie in several download
            folders; or the JSON Schema is not the one the models generate.
        OSError: a schema file cannot be read.
    """
    folder = Path(folder)
    document = export.read(folder / _dataset.EXPORT_NAME)
    files = _files(folder, document)
    schema = Path(str(_resources.schema_dir())) if schema is None else Path(schema)
    base = _download_folder(document, folder)
    artefacts = []
    for distribution in document.distributions:
        name = distribution.download_url.rsplit("/", 1)[-1]
        artefacts.append(
            Artefact(
                name,
                files[name],
                distribution.media_type.removeprefix(IANA),
                distribution.title,
                distribution.download_url,
                distribution.conforms_to,
                document.license,
            )
        )
    for source, suffix, media, title, standard in _SCHEMA_FILES:
        data = (schema / source).read_bytes()
        if source == "atlas.schema.json":
            _check_schema(data, schema / source)
        name = f"{NAME}-{document.version}.{suffix}"
        artefacts.append(Artefact(name, data, media, title, base + name, standard, _MIT))
    return _release_of(document), artefacts


def _release_of(document: AtlasDocument) -> Release:
    return Release(
        iri=document.current_version or f"{document.id}dataset/{document.version}",
        dataset=document.id,
        title=f"{document.title} {document.version}",
        version=document.version,
        issued=document.issued,
        license=document.license,
        publisher=document.publisher,
    )


def _download_folder(document: AtlasDocument, folder: Path) -> str:
    """The one folder that the download URLs of the distributions lie in (ending with /)."""
    bases = sorted({d.download_url.rsplit("/", 1)[0] + "/" for d in document.distributions})
    if len(bases) != 1:
        message = f"the distributions' download URLs lie in several folders: {', '.join(bases)}"
        problem = Problem("violation", message, file=str(folder / "catalog.ttl"))
        raise DatasetError([problem], source=str(folder))
    return bases[0]


def _check_schema(data: bytes, path: Path) -> None:
    """Refuse a JSON Schema that is not the one that the models generate."""
    from atlas.data.schema import dumps_schema  # noqa: PLC0415 - pydantic's generation

    if data.decode("utf-8", "replace") != dumps_schema():
        problem = Problem(
            "violation",
            "not the JSON Schema that the models generate",
            file=str(path),
            hint="regenerate it: python -m atlas.data.schema",
        )
        raise DatasetError([problem], source=str(path))


def write_release(out: Path, release: Release, artefacts: Sequence[Artefact]) -> Path:
    """Write ``artefacts`` as the new folder ``out``, with SHA256SUMS and a DCAT description.

    The description, ``execution-atlas-X.Y.Z.dcat.ttl``, has a distribution per artefact;
    ``SHA256SUMS`` lists every file but itself. The folder is checked with
    :func:`verify_release` before it is put in place, and written whole or not at all.

    Raises:
        ReleaseFolderError: ``out`` is not a folder, or holds files.
        ArgumentValueError: two artefacts have one name, or a name is not a plain file name.
        DatasetError: the folder written does not verify; nothing is left.
        OSError: the folder cannot be written.
    """
    dcat = f"{NAME}-{release.version}{DCAT_SUFFIX}"
    files = {a.name: a.data for a in artefacts}
    if len(files) != len(artefacts) or files.keys() & {dcat, SUMS_NAME}:
        names = sorted(a.name for a in artefacts)
        raise ArgumentValueError("artefacts", names, f"must have distinct names, none {dcat!r}")
    files[dcat] = describe(release, artefacts).encode("utf-8")
    files[SUMS_NAME] = sha256sums(files).encode("utf-8")
    return write_folder(out, files, verify_release)


def verify_release(folder: Path) -> list[Problem]:
    """The problems of a release folder: SHA256SUMS and the DCAT description against the files.

    Every file but ``SHA256SUMS`` must be listed there with its SHA-256, and every file but
    that and the description (``*.dcat.ttl``) described there, with its size and SHA-256.
    """
    return verify_folder(folder)


def main(argv: list[str] | None = None) -> int:
    """Write the release of ``dataset/`` (or ``--dataset DIR``) as the new folder given.

    Exit status: 0 written, 1 the dataset's export is refused or the folder holds files, 2 a
    usage error, 3 the folder cannot be written.
    """
    args = sys.argv[1:] if argv is None else argv
    folder = Path("dataset")
    if len(args) == 3 and args[0] == "--dataset":  # noqa: PLR2004 - --dataset DIR OUT
        folder, args = Path(args[1]), args[2:]
    if len(args) != 1:
        print("usage: python -m atlas.data.release [--dataset DIR] OUT")  # noqa: T201
        return 2
    out = Path(args[0])
    try:
        release, artefacts = dataset_release(folder)
        write_release(out, release, artefacts)
    except (DatasetError, ReleaseFolderError) as error:
        print(error)  # noqa: T201
        return 1
    except OSError as error:  # could not write here: exit status 3, as the CLI's
        print(f"cannot write into {str(out)!r}: {error.strerror or error}")  # noqa: T201
        return 3
    for name in sorted(p.name for p in out.iterdir()):
        print(f"wrote {out / name}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
