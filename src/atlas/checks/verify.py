"""``atlas check``: every verification of a dataset, run once each and reported together.

:func:`check` reads the Turtle files once, then runs the checks in turn: reading and SHACL
shapes, consistency, dates and markup (:mod:`atlas.checks._turtlecheck`), claim support, quotes
against snapshots and online, the JSON export and the JSON Schema
(:mod:`atlas.checks._exportcheck`). Each returns a list of :class:`~atlas.errors.Problem` rather
than raising, so that the :class:`~atlas.checks.report.Report` shows every problem at once.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.checks._claims import SHAPED, ClaimSummary, claim_problems, summaries
from atlas.checks._exportcheck import (
    export_check,
    folder_export_check,
    path_table_problems,
    schema_file_problems,
)
from atlas.checks._run import CouldNotRunError, guarded
from atlas.checks._sourcecheck import markup_problems, quote_problems, source_problems
from atlas.checks._turtlecheck import Parsed, turtle_checks
from atlas.checks.consistency import consistency_problems
from atlas.checks.dates import date_problems
from atlas.checks.report import CheckResult, Report
from atlas.data import _resources
from atlas.data._files import MAX_TURTLE_BYTES, UnsafeFileError, inside, read_bytes
from atlas.data._integrity import export_problems
from atlas.data._quotes import normalise
from atlas.errors import DatasetError, Problem

if TYPE_CHECKING:
    import datetime as dt

    from atlas.data._fetch import FetchPolicy
    from atlas.data.turtle import TurtleFile
    from atlas.models import AtlasDocument

__all__ = [
    "NO_SOURCES",
    "CheckResult",
    "Report",
    "check",
    "consistency_problems",
    "date_problems",
    "export_problems",
    "markup_problems",
    "normalise",
    "quote_problems",
    "source_problems",
]

#: What ``atlas check`` says, in one line, when it was given no snapshots to check quotes with.
NO_SOURCES = (
    "quotes not verified: no snapshots given; get them with 'atlas sources fetch', "
    "then run 'atlas check --sources'"
)


def check(
    *,
    sources: Path | None = None,
    online: bool = False,
    max_age_days: int = 365,
    today: dt.date | None = None,
    files: Iterable[Path | TurtleFile] | None = None,
    export_path: Path | None = None,
    dataset: Path | None = None,
    fetch_policy: FetchPolicy | None = None,
) -> Report:
    """Run every check of a dataset (default: the shipped one) and report every problem.

    Checks: the Turtle files read cleanly; the SHACL shapes; consistency (references, conditions,
    cycles); dates; quotes against ``sources`` snapshots; quotes online (``online``); the JSON
    export against the JSON Schema and against a fresh export of the Turtle; the committed JSON
    Schema against the models. Nothing is written, and nothing touches the network unless
    ``online`` is true.

    ``dataset`` names a folder whose ``*.ttl`` files (and ``atlas.json`` with ``paths.json``,
    where there are) are checked instead of the shipped ones, the export against a fresh one made
    with the folder's witness records (``witness/*.json``); ``files`` and ``export_path`` name
    them one by one. Without ``sources`` the quotes are not verified (the report says so in one
    line). ``fetch_policy`` sets the limits of the online check, which is an error when it could
    not reach some sources.

    >>> check().exit_code
    0
    """
    error = _argument_error(sources, max_age_days, export_path, dataset)
    if error is not None:
        return Report((error,))
    files, export_path, confine = _dataset_files(dataset, files, export_path)
    try:
        parsed = Parsed(*_turtle_files(files, dataset))
    except CouldNotRunError as failed:
        return failed.report()
    results, document = turtle_checks(parsed, today, max_age_days)
    claims: tuple[ClaimSummary, ...] = ()
    witnessed: AtlasDocument | None = None
    unread: DatasetError | None = None  # the witness records could not be read
    if document is not None:
        witnessed, unread = _witnessed(document, dataset, shipped=files is None)
        results.append(_claim_check(parsed, witnessed or document))
        claims = summaries(document)
    results += _quote_checks(parsed, document, sources, online, fetch_policy)
    clean = document is not None and not any(
        p.severity == "violation" for r in results for p in r.problems
    )
    compared = _fresh_export(witnessed, unread) if clean and witnessed else None
    results.append(_export_result(export_path, compared, confine, shipped=files is None))
    results.append(guarded("json-schema", schema_file_problems))
    return Report(tuple(results), claims)


def _claim_check(parsed: Parsed, document: AtlasDocument) -> CheckResult:
    """Claim support, less what the SHACL shapes already report."""
    return guarded(
        "claims",
        lambda: parsed.located([p for p in claim_problems(document) if p.code not in SHAPED]),
    )


def _dataset_files(
    dataset: Path | None, files: Iterable[Path | TurtleFile] | None, export_path: Path | None
) -> tuple[Iterable[Path | TurtleFile] | None, Path | None, Path | None]:
    """The Turtle files and the export to check, and the folder the export must stay inside.

    A ``dataset`` folder gives its ``*.ttl`` files and its own ``atlas.json``, unless they are
    named; its own export may not be a symbolic link out of it.
    """
    if dataset is None:
        return files, export_path, None
    folder = Path(dataset)
    files = sorted(folder.glob("*.ttl")) if files is None else files
    if export_path is None and os.path.lexists(folder / "atlas.json"):
        return files, folder / "atlas.json", folder
    return files, export_path, None


def _export_result(
    export_path: Path | None,
    compared: Callable[[], str] | None,
    confine: Path | None,
    *,
    shipped: bool,
) -> CheckResult:
    """The export check: the shipped export (and its table), a given file, or skipped."""
    if export_path is None and shipped:
        shipped_file = _resources.export_file()
        name = f"dataset/{shipped_file.name}"

        def shipped_export() -> CheckResult:
            result = export_check(shipped_file, name, compared)
            if result.problems:
                return result
            return replace(result, problems=tuple(path_table_problems(shipped_file)))

        return guarded("export", shipped_export)
    if export_path is None:
        return CheckResult("export", "skipped", note="no --export FILE given")
    given = Path(export_path)
    return guarded("export", lambda: folder_export_check(given, compared, confine))


class _UnsafeTurtleError(CouldNotRunError):
    """A Turtle file that may not be read: a violation of the data, not a failure to run."""

    def __init__(self, file: str, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.file, self.reason, self.line = file, reason, line

    def report(self) -> Report:
        """One violation that names the file (and the line, for text that is not UTF-8)."""
        problem = Problem(
            "violation",
            f"Turtle file refused: {self.reason}",
            file=self.file,
            line=self.line,
            hint="the dataset folder holds regular *.ttl files of UTF-8 text, and no symbolic "
            "link out of it",
            code="turtle-unsafe",
        )
        return Report((CheckResult("turtle", "ran", (problem,)),))


def _turtle_files(
    files: Iterable[Path | TurtleFile] | None, folder: Path | None = None
) -> tuple[list[TurtleFile], dict[int, Callable[[], str]]]:
    """The Turtle files to check, read; those of a dataset ``folder`` must stay inside it.

    Also how to read each file on disk again (by its number), so that the check may let go of
    its text once the document is read and read it again only to place a problem.
    """
    from atlas.data.turtle import TurtleFile  # noqa: PLC0415

    if files is None:
        shipped = list(_resources.turtle_files())
        return [TurtleFile.load(f, f"dataset/{f.name}") for f in shipped], {
            number: functools.partial(_read_again, functools.partial(f.read_text, encoding="utf-8"))
            for number, f in enumerate(shipped)
        }
    loaded = []
    reread: dict[int, Callable[[], str]] = {}
    for item in files:
        if isinstance(item, TurtleFile):
            loaded.append(item)
            continue
        reread[len(loaded)] = functools.partial(
            _read_again, functools.partial(_turtle_text, Path(item), folder)
        )
        loaded.append(TurtleFile(str(item), _turtle_text(Path(item), folder)))
    if not loaded:
        raise CouldNotRunError("no Turtle files to check")
    return loaded, reread


def _turtle_text(item: Path, folder: Path | None) -> str:
    """The text of a Turtle file of the check, once it is known to be safe to read."""
    try:
        if folder is not None:  # a symbolic link out is refused, as ea:snapshot's are
            inside(Path(folder), item.name)
        data = read_bytes(item, MAX_TURTLE_BYTES)
    except UnsafeFileError as error:
        raise _UnsafeTurtleError(str(item), str(error)) from None
    except OSError as error:
        raise CouldNotRunError(f"cannot read {str(item)!r}: {error}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        reason = f"not UTF-8 text: {error.reason} at byte {error.start}"
        line = data.count(b"\n", 0, error.start) + 1
        raise _UnsafeTurtleError(str(item), reason, line) from None


def _read_again(read: Callable[[], str]) -> str:
    """A file's text read again to place a problem; empty (no line) if it can no longer be."""
    try:
        return read()
    except (CouldNotRunError, OSError, UnicodeDecodeError):
        return ""


def _argument_error(
    sources: Path | None, max_age_days: int, export_path: Path | None, dataset: Path | None
) -> CheckResult | None:
    """The first argument that makes the check impossible to run, as an error result."""
    if dataset is not None and not Path(dataset).is_dir():
        return CheckResult("turtle", "error", note=f"--dataset {str(dataset)!r} is not a folder")
    if sources is not None and not Path(sources).is_dir():
        return CheckResult(
            "quotes",
            "error",
            note=f"--sources {str(sources)!r} is not a folder (fill it with 'atlas sources fetch')",
        )
    if max_age_days < 0:
        return CheckResult("dates", "error", note=f"--max-age {max_age_days} is negative")
    if export_path is not None and not Path(export_path).is_file():
        return CheckResult("export", "error", note=f"--export {str(export_path)!r} is not a file")
    return None


def _quote_checks(
    parsed: Parsed,
    document: AtlasDocument | None,
    sources: Path | None,
    online: bool,  # noqa: FBT001 - private helper mirroring check()'s options
    fetch_policy: FetchPolicy | None,
) -> list[CheckResult]:
    """Quotes against local snapshots and, when asked, against the live pages."""
    unread = "the Turtle files could not be read"
    results = []
    if sources is None:
        results.append(CheckResult("quotes", "skipped", note=NO_SOURCES))
    elif document is None:
        results.append(CheckResult("quotes", "skipped", note=unread))
    else:
        doc, snapshots = document, Path(sources)
        results.append(guarded("quotes", lambda: parsed.located(quote_problems(doc, snapshots))))
    if not online:
        results.append(CheckResult("online", "skipped", note="no --online"))
    elif document is None:
        results.append(CheckResult("online", "skipped", note=unread))
    else:
        from atlas.data.sources import online_problems  # noqa: PLC0415

        doc = document
        fetched = guarded("online", lambda: parsed.located(online_problems(doc, fetch_policy)))
        results.append(_not_reached(fetched, doc))
    return results


def _not_reached(online: CheckResult, document: AtlasDocument) -> CheckResult:
    """The online check, as an error saying how many sources and quotes were not checked."""
    unreached = {p.subject for p in online.problems if p.code == "unreachable"}
    if online.status != "ran" or not unreached:
        return online
    cited = {c.source for c in document.citations}
    quotes = sum(c.source in unreached for c in document.citations)
    note = (
        f"{len(unreached)} of {len(cited)} cited sources were not checked (not reached, or not "
        f"text): their {quotes} quote{'s' * (quotes != 1)} were not verified"
    )
    return replace(online, status="error", note=note)


def _witnessed(
    document: AtlasDocument, dataset: Path | None, *, shipped: bool
) -> tuple[AtlasDocument, DatasetError | None]:
    """The document with its witness records, read once for the claims and the export check.

    Those of the ``dataset`` folder, the shipped ones for the shipped Turtle, none for Turtle
    files given one by one; when they cannot be read, the document alone and why.
    """
    from atlas.data import _dataset, export  # noqa: PLC0415

    try:
        if dataset is not None:
            return export.with_witnesses(document, _dataset.witness_records(dataset)), None
        return (export.with_witnesses(document) if shipped else document), None
    except DatasetError as error:  # reported by the export check; claims then name none
        return document, error


def _fresh_export(document: AtlasDocument, unread: DatasetError | None) -> Callable[[], str]:
    """What 'atlas export' would write now: the document already read and checked.

    It carries its witness records (:func:`_witnessed`) and its journeys
    (:func:`atlas.checks._journeys.with_journeys`); ``unread`` says why the records could not be
    read, and is raised when the export is compared.
    """

    def fresh() -> str:
        from atlas.checks._journeys import with_journeys  # noqa: PLC0415
        from atlas.data import export  # noqa: PLC0415

        if unread is not None:
            raise unread
        return export.dumps(with_journeys(document))

    return fresh
