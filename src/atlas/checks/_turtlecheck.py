"""The checks of Turtle files parsed once: reading, SHACL shapes, consistency, dates and markup.

:class:`Parsed` parses the files, running the SHACL engine on them before it builds the graph;
:func:`turtle_checks` then reads the document and runs the checks that need only it, each
problem located at the file and line of its resource.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from atlas.checks._run import CouldNotRunError, guarded, problem_order
from atlas.checks._sourcecheck import markup_problems, source_problems
from atlas.checks.consistency import consistency_problems
from atlas.checks.dates import date_problems
from atlas.checks.report import CheckResult
from atlas.errors import DatasetError, Problem

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from atlas.data.turtle import TurtleFile
    from atlas.models import AtlasDocument

__all__ = ["Parsed", "turtle_checks"]


class Parsed:
    """The Turtle files parsed once, with a way to find the file and line of any resource.

    The SHACL engine runs first, on the triples streamed to a file, before the graph is built:
    each has the memory to itself (side by side, at a million triples, they held twice as much).
    Once parsed, the texts of the files that ``reread`` can read again (by file number) are let
    go, and read again only to place a problem; :meth:`forget_triples` lets the graph's triples
    go once the document is read.
    """

    def __init__(
        self, files: list[TurtleFile], reread: dict[int, Callable[[], str]] | None = None
    ) -> None:
        from atlas.checks import shapes  # noqa: PLC0415
        from atlas.data import _graph  # noqa: PLC0415

        self.files = files
        self._shapes: list[dict[str, Any]] | Exception | None = None

        def validate(n_triples: Path) -> None:
            try:
                self._shapes = shapes.shacl_report(n_triples)
            except Exception as error:  # noqa: BLE001 - reported as the check's failure
                self._shapes = error

        try:
            self.graph = _graph.parse(files, before_indexing=validate)
        except OSError as error:  # the temporary file of the triples: no room, no permission
            raise CouldNotRunError(
                f"could not write the triples to a temporary file in {tempfile.gettempdir()!r}"
                f" ({error.strerror or error}); set TMPDIR to a folder with room for them"
            ) from None
        self.syntax = self.graph.problems
        # parsed: the texts go (read again to place a problem), the caller's list with them
        self.graph.forget_texts(reread or {})
        self.files = self.graph.files

    def forget_triples(self) -> None:
        """Once the document is read and the shapes' results named: only places are needed."""
        self.graph.forget_triples()

    def shape_results(self) -> list[dict[str, Any]]:
        """The SHACL engine's results (it ran when the files parsed cleanly).

        Raises:
            Exception: what stopped the engine, for :func:`~atlas.checks._run.guarded`.
        """
        if isinstance(self._shapes, Exception):
            raise self._shapes
        assert self._shapes is not None  # noqa: S101 - it ran: the files parsed
        return self._shapes

    def where(self, iri: str) -> dict[str, Any]:
        """``{"file": ..., "line": ...}`` of the resource ``iri``, or ``{}`` when not found."""
        return self.graph.where(iri)

    def located(self, problems: Iterable[Problem]) -> list[Problem]:
        """The problems, each with the file and line of its resource where it has none."""
        return [
            replace(p, **self.where(p.subject)) if p.subject and not p.file else p for p in problems
        ]


def turtle_checks(
    parsed: Parsed, today: dt.date | None, max_age_days: int
) -> tuple[list[CheckResult], AtlasDocument | None]:
    """Reading, shapes, consistency and dates; also returns the document when it reads."""
    from atlas.checks import shapes  # noqa: PLC0415
    from atlas.data import turtle  # noqa: PLC0415

    count = f"{len(parsed.files)} file{'s' * (len(parsed.files) != 1)}"
    if parsed.syntax:
        skipped = [
            CheckResult(name, "skipped", note="the Turtle files do not parse")
            for name in ("shapes", "consistency", "dates", "markup")
        ]
        syntax = tuple(sorted(parsed.syntax, key=problem_order))
        return [CheckResult("turtle", "ran", syntax, count), *skipped], None
    document = None
    read: list[Problem] = []
    try:
        document = turtle.read_graph(parsed.graph)
    except DatasetError as error:
        read = list(error.problems)
    # the shapes' problems are named while the graph is there; then it goes, and the texts
    # (read again to place problems), so that placing them does not add to the graph's memory
    unplaced = guarded(
        "shapes", lambda: shapes.shacl_problems(parsed.graph, results=parsed.shape_results())
    )
    parsed.forget_triples()
    shape_result = replace(
        unplaced, problems=tuple(sorted(parsed.located(unplaced.problems), key=problem_order))
    )
    later: list[CheckResult] = []
    if document is not None:
        doc = document
        later.append(
            guarded(
                "consistency",
                lambda: parsed.located([*consistency_problems(doc), *source_problems(doc)]),
            )
        )
        later.append(
            guarded(
                "dates",
                lambda: parsed.located(date_problems(doc, today=today, max_age_days=max_age_days)),
            )
        )
        later.append(guarded("markup", lambda: parsed.located(markup_problems(doc))))
    kept = tuple(sorted(_without_duplicates(read, shape_result), key=problem_order))
    if document is None and not kept:
        count += "; not read, for the reasons the SHACL shapes give"
    results = [CheckResult("turtle", "ran", kept, count), shape_result]
    if document is None:
        results += [
            CheckResult(name, "skipped", note="the Turtle files could not be read")
            for name in ("consistency", "dates", "markup")
        ]
        return results, None
    return results + later, document


def _without_duplicates(read: list[Problem], shapes: CheckResult) -> list[Problem]:
    """Drop reader problems that a SHACL shape already reports for the same resource and key."""
    covered = {(p.subject, p.message.split(":", 1)[0]) for p in shapes.problems if p.subject}
    return [p for p in read if (p.subject, p.message.split(":", 1)[0]) not in covered]
