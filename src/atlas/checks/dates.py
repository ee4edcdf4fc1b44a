"""The dates of a dataset: none in the future, and no quote checked too long ago.

:func:`date_problems` returns violations for check, snapshot and release dates after today, and
warnings for quotes last checked more than ``max_age_days`` ago.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from atlas.data._consistency import iri
from atlas.errors import Problem
from atlas.models._iri import BASE_IRI

if TYPE_CHECKING:
    from atlas.models import AtlasDocument

__all__ = ["date_problems"]


def date_problems(
    document: AtlasDocument, *, today: dt.date | None = None, max_age_days: int = 365
) -> list[Problem]:
    """Check dates in the future (violations) and checks older than ``max_age_days`` (warnings)."""
    today = today or dt.datetime.now(dt.UTC).date()
    problems: list[Problem] = []
    for citation in document.citations:
        subject = iri("citation", citation.id)
        checked = citation.retrieved_on.date()
        if checked > today:
            problems.append(
                Problem(
                    "violation",
                    f"check date {checked.isoformat()} is in the future",
                    subject=subject,
                    hint=f"use the day you verified the quote (today is {today})",
                    code="future-date",
                )
            )
        elif (today - checked).days > max_age_days:
            problems.append(
                Problem(
                    "warning",
                    f"quote last checked {checked.isoformat()}, "
                    f"{(today - checked).days} days ago (limit {max_age_days})",
                    subject=subject,
                    hint="verify the quote again and update the date",
                    code="stale-date",
                )
            )
    problems.extend(
        Problem(
            "violation",
            f"snapshot date {source.retrieved_on.date().isoformat()} is in the future",
            subject=source.url,
            hint=f"use the day the snapshot was taken (today is {today})",
            code="future-date",
        )
        for source in document.sources
        if source.retrieved_on.date() > today
    )
    if document.issued > today:
        problems.append(
            Problem(
                "violation",
                f"release date {document.issued} is in the future",
                subject=BASE_IRI,
                code="future-date",
            )
        )
    return problems
