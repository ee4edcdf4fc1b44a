"""The files of a release: the distributions that the dataset's DCAT description names.

``dataset/catalog.ttl`` describes each file of a release (``dcat:distribution``): the whole graph
of documented claims as Turtle and as N-Triples, and the JSON export, offered as JSON-LD and as
plain JSON. :func:`release_files` makes them from a dataset folder of a checkout (its Turtle and
the export beside it, read as ``atlas check`` reads them), each named as the last part of its
``dcat:downloadURL``; ``python -m atlas.data.release OUT`` writes them into ``OUT``, to be
attached to the release at the download location.

>>> sorted(MEDIA_TYPES)[:2]
['application/json', 'application/ld+json']
"""

from __future__ import annotations

import sys
from pathlib import Path

from atlas.data import _dataset, export
from atlas.data._rdflib import dataset_graph
from atlas.errors import DatasetError, Problem

__all__ = ["MEDIA_TYPES", "main", "release_files"]

#: The media types a distribution may have, each with the rdflib format that writes it (None:
#: the JSON export itself).
MEDIA_TYPES: dict[str, str | None] = {
    "text/turtle": "turtle",
    "application/n-triples": "nt",
    "application/ld+json": None,
    "application/json": None,
}
_IANA = "https://www.iana.org/assignments/media-types/"


def release_files(folder: Path) -> dict[str, bytes]:
    """Each file of the release of the dataset in ``folder``, by name.

    Raises:
        DatasetError: the export is unreadable or stale in some way ``export.read`` finds, it
            names no distributions, or a distribution has a media type not in
            :data:`MEDIA_TYPES`.
    """
    folder = Path(folder)
    path = folder / _dataset.EXPORT_NAME
    document = export.read(path)
    text = export.dumps(document).encode("utf-8")
    if not document.distributions:
        raise DatasetError(
            [Problem("violation", "the dataset names no distributions", file=str(path))],
            source=str(path),
        )
    graph = None
    files: dict[str, bytes] = {}
    for distribution in document.distributions:
        media = distribution.media_type.removeprefix(_IANA)
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


def main(argv: list[str] | None = None) -> int:
    """Write the release files of ``dataset/`` (or ``--dataset DIR``) into the folder given.

    Exit status: 0 written, 1 the dataset's export is refused, 2 a usage error, 3 the folder
    cannot be written.
    """
    args = sys.argv[1:] if argv is None else argv
    folder = Path("dataset")
    if len(args) == 3 and args[0] == "--dataset":  # noqa: PLR2004 - --dataset DIR OUT
        folder, args = Path(args[1]), args[2:]
    if len(args) != 1:
        print("usage: python -m atlas.data.release [--dataset DIR] OUT")  # noqa: T201
        return 2
    try:
        files = release_files(folder)
    except DatasetError as error:
        print(error)  # noqa: T201
        return 1
    out = Path(args[0])
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, data in sorted(files.items()):
            export.write_text_atomic(out / name, data.decode("utf-8"))
            print(f"wrote {out / name}")  # noqa: T201
    except OSError as error:  # could not write here: exit status 3, as the CLI's
        print(f"cannot write into {str(out)!r}: {error.strerror or error}")  # noqa: T201
        return 3
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
