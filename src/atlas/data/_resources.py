"""The one place that knows where the shipped data files live.

In an installed package the ``dataset/`` and ``schema/`` folders of the repository are shipped
as ``atlas/_data/dataset`` and ``atlas/_data/schema`` and read through ``importlib.resources``
(straight from the folder when the package lies in one, as ``importlib.resources`` would give it:
importing that costs ``atlas path`` a tenth of its start-up).
In a source checkout (``src/`` on the path, no build step) the repository folders are used.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

TYPE_CHECKING = False  # spares importing typing on the fast path
if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from atlas.data._files import TurtleFile

__all__ = [
    "dataset_dir",
    "export_file",
    "layout_file",
    "path_table_file",
    "schema_dir",
    "shipped_turtle",
    "turtle_files",
    "user_cache",
]

EXPORT_NAME = "atlas.json"


@functools.cache
def _data_root() -> Traversable:
    here = Path(__file__).parent.parent  # the package, when it lies in a folder (links kept)
    shipped: Traversable = here / "_data"  # what importlib.resources gives, without its imports
    if not here.is_dir():  # a package in a zip file, say
        from importlib import resources  # noqa: PLC0415

        shipped = resources.files("atlas") / "_data"
    if shipped.is_dir():
        return shipped
    checkout = Path(__file__).resolve().parents[3]
    if (checkout / "dataset").is_dir() and (checkout / "pyproject.toml").is_file():
        return checkout
    msg = f"the atlas data files are missing: neither {shipped} nor {checkout}/dataset exists"
    raise FileNotFoundError(msg)


def user_cache(name: str) -> Path:
    """The folder ``name`` of the user's cache: ``$XDG_CACHE_HOME/execution-atlas/<name>``.

    ``~/.cache`` stands for ``XDG_CACHE_HOME`` when it is unset or not absolute (the XDG rule).
    """
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "execution-atlas" / name


def dataset_dir() -> Traversable:
    """The folder of the curated Turtle files and the committed export."""
    return _data_root() / "dataset"


def schema_dir() -> Traversable:
    """The folder of the vocabulary, the SHACL shapes and the JSON Schemas."""
    return _data_root() / "schema"


def export_file() -> Traversable:
    """The committed JSON export that the API reads at run time."""
    return dataset_dir() / EXPORT_NAME


def path_table_file() -> Traversable:
    """The table of printed paths made with the export (see :mod:`atlas.query._pathtable`)."""
    return dataset_dir() / "paths.json"


def layout_file() -> Traversable:
    """The layouts of the site's drawings, made with the export (see ``atlas.publish.site``)."""
    return dataset_dir() / "layouts.json"


def turtle_files() -> list[Traversable]:
    """The curated Turtle files of the dataset, sorted by name."""
    return sorted(
        (f for f in dataset_dir().iterdir() if f.name.endswith(".ttl")), key=lambda f: f.name
    )


def shipped_turtle() -> list[TurtleFile]:
    """The Turtle files shipped with the package."""
    from atlas.data._files import TurtleFile  # noqa: PLC0415 - the CLI's fast path reads this module

    return [TurtleFile.load(f) for f in turtle_files()]
