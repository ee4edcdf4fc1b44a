"""The generated parts of the documentation site, and the directives that place them in pages.

A page of ``docs/`` places text made elsewhere with an HTML comment on a line of its own:

- ``<!-- atlas-docs: include FILE[#SECTION] [lang=LANG] [paragraph="START"] -->`` puts in text
  of the repository's own files (``README.md``, ``ARCHITECTURE.md``, ``dataset/README.md``):
  the section under a heading, its fenced blocks of one language, or one paragraph
  (:mod:`atlasdocs.include`), so that the site never holds a copy that could drift;
- ``<!-- atlas-docs: generate NAME -->`` puts in what a generator makes from the code and the
  shipped data at build time (:data:`GENERATORS`): the CLI reference from the parser, the API
  reference, the vocabulary's diagram, the named queries with their results, the endpoint's
  limits, the witness records, the list of atlases.

The pages of the atlases (``atlases/ID.md``) are made whole (:func:`generated_pages`). The MkDocs
hook (``docs/hooks.py``) calls :func:`expand` on every page; ``tests/test_docs.py`` calls it too,
to run every command and example the reader sees. Nothing here imports MkDocs.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from atlasdocs import apidoc, atlaspages, clidoc, include, limits, queries, vocabulary, witness

__all__ = ["GENERATORS", "DirectiveError", "expand", "generated_pages"]

#: What ``<!-- atlas-docs: generate NAME -->`` puts in, by NAME.
GENERATORS: dict[str, Callable[[], str]] = {
    "api-reference": apidoc.api_reference,
    "atlas-list": atlaspages.atlas_list,
    "cli-reference": clidoc.reference,
    "endpoint-limits": limits.reference,
    "model-reference": apidoc.model_reference,
    "named-queries": queries.reference,
    "vocabulary-diagram": vocabulary.diagram,
    "witness-records": witness.records,
}

_DIRECTIVE = re.compile(r"^<!-- atlas-docs: (?P<body>.*?) -->$", re.MULTILINE)


class DirectiveError(ValueError):
    """A directive that names no generator, no file or no section: the build stops on it."""


def expand(markdown: str, page: str) -> str:
    r"""The page's Markdown with every ``atlas-docs`` directive replaced by what it names.

    >>> expand("# Title\n", "index.md")
    '# Title\n'
    """
    return _DIRECTIVE.sub(lambda match: _one(match.group("body"), page), markdown)


def _one(body: str, page: str) -> str:
    words = shlex.split(body)
    verb, *rest = words or [""]
    if verb == "generate" and len(rest) == 1 and rest[0] in GENERATORS:
        return GENERATORS[rest[0]]().rstrip("\n")
    if verb == "include" and rest:
        options = dict(word.split("=", 1) for word in rest[1:] if "=" in word)
        if len(options) == len(rest) - 1 and set(options) <= {"lang", "paragraph"}:
            try:
                return include.text(words[1], **options).rstrip("\n")
            except include.IncludeError as error:
                raise DirectiveError(f"{page}: {error}") from None
    valid = ", ".join(sorted(GENERATORS))
    raise DirectiveError(
        f"{page}: cannot read the directive {body!r}: write 'generate NAME' (NAME one of {valid})"
        " or 'include FILE[#SECTION] [lang=LANG] [paragraph=\"START\"]'"
    )


def generated_pages() -> dict[str, str]:
    """The pages made whole at build time, by their path under ``docs/``: one per atlas."""
    return atlaspages.pages()
