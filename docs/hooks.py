"""The MkDocs hook of the documentation site: the generated parts put in at build time.

``mkdocs.yml`` names this file under ``hooks:``. It adds a page per atlas (``atlases/ID.md``,
listed under "Atlases" in the navigation) and expands the ``atlas-docs`` directives of every page
(``atlasdocs``: the README's text included, the references generated from the code and the
shipped data). A directive that names nothing, or a generator that finds the code and its
defaults at odds, stops the build with one line that says why.
"""

# A file that MkDocs loads by its path, not a module of a package:
# ruff: noqa: INP001

from __future__ import annotations

from typing import Any

import atlasdocs
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

_GENERATED: dict[str, str] = {}
_SECTION = "Atlases"  # the navigation's section that the atlases' pages are added to


def on_config(config: Any) -> Any:
    """Make the atlases' pages and list them in the navigation, under "Atlases"."""
    _GENERATED.clear()
    _GENERATED.update(atlasdocs.generated_pages())
    for item in config.nav or ():
        if isinstance(item, dict) and isinstance(item.get(_SECTION), list):
            for path, text in _GENERATED.items():
                title = text.splitlines()[0].removeprefix("# ")
                item[_SECTION].append({title: path})
            return config
    raise PluginError(f"mkdocs.yml: the navigation has no section {_SECTION!r} for the atlases")


def on_files(files: Files, config: Any) -> Files:
    """Add the atlases' pages to the site's files."""
    for path, text in _GENERATED.items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace the page's directives with what they name."""
    try:
        return atlasdocs.expand(markdown, page.file.src_uri)
    except ValueError as error:  # DirectiveError and the generators' errors: one line each
        raise PluginError(str(error)) from None
