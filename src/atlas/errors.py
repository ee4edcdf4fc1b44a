"""The one exception hierarchy of the package.

Every error raised on purpose is an :class:`AtlasError`. Each child also subclasses the builtin
that fits (``ValueError`` for bad input, ``LookupError`` for unknown identifiers), so callers can
catch either. Messages quote the bad value, name the file, line or identifier at fault and, where
there is a closed set of valid choices, list them.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "AtlasError",
    "CycleError",
    "DatasetError",
    "MissingValueError",
    "NetworkRefusedError",
    "Problem",
    "UnknownIdError",
    "UnknownValueError",
]

Severity = Literal["violation", "warning"]


@dataclass(frozen=True, order=True)
class Problem:
    """One problem found in a dataset: where it is, what is wrong and how to fix it.

    >>> str(Problem("violation", "step without citation", file="pytorch.ttl", line=3, subject="x"))
    'pytorch.ttl:3: violation: x: step without citation'
    """

    severity: Severity
    message: str
    file: str | None = None
    line: int | None = None
    subject: str | None = None
    hint: str | None = None
    code: str = field(default="", compare=False)

    def __str__(self) -> str:
        where = self.file or ""
        if self.file and self.line:
            where += f":{self.line}"
        parts = [where] if where else []
        parts.append(self.severity)
        if self.subject:
            parts.append(self.subject)
        parts.append(self.message)
        text = ": ".join(parts)
        if self.hint:
            text += f" (hint: {self.hint})"
        return text


class AtlasError(Exception):
    """Base class of every error the package raises on purpose."""


class DatasetError(AtlasError, ValueError):
    """A dataset (Turtle or JSON) is malformed or inconsistent; holds every problem found."""

    def __init__(
        self, problems: list[Problem] | tuple[Problem, ...], source: str = "dataset"
    ) -> None:
        self.problems = tuple(problems)
        self.source = source
        count = len(self.problems)
        head = str(self.problems[0]) if self.problems else "no details"
        more = f" (and {count - 1} more)" if count > 1 else ""
        super().__init__(f"{source} is invalid: {head}{more}")


class CycleError(DatasetError):
    """The steps of one path form a cycle, so no journey order exists."""


class UnknownValueError(AtlasError, ValueError):
    """A dimension value (such as a mode or a device) that the atlas does not know."""

    def __init__(self, what: str, value: str, choices: list[str], extra: str = "") -> None:
        self.value = value
        self.choices = tuple(choices)
        message = f"unknown {what} {value!r}; valid: {', '.join(choices)}"
        close = difflib.get_close_matches(value.casefold(), [c.casefold() for c in choices], n=1)
        if close:
            suggestion = next(c for c in choices if c.casefold() == close[0])
            message += f"; did you mean {suggestion!r}?"
        if extra:
            message += f"; {extra}"
        super().__init__(message)


class MissingValueError(UnknownValueError):
    """A value left out: of a dimension (such as the device), or of a named query's parameter."""

    def __init__(self, dimension: str, atlas: str, choices: list[str], order: list[str]) -> None:
        self.value = ""
        self.choices = tuple(choices)
        ValueError.__init__(
            self,
            f"missing the {dimension} for atlas {atlas!r}: give one of {', '.join(choices)} "
            f"(the values go in this order: {', '.join(order)})",
        )

    @classmethod
    def parameter(cls, query: str, name: str, about: str) -> MissingValueError:
        """The parameter ``name`` of the named query ``query`` was given no value.

        >>> str(MissingValueError.parameter("path", "atlas", "the atlas, e.g. pytorch"))
        "query 'path' needs a value for its parameter 'atlas': the atlas, e.g. pytorch"
        """
        error = cls.__new__(cls)
        error.value = ""
        error.choices = ()
        ValueError.__init__(
            error, f"query {query!r} needs a value for its parameter {name!r}: {about}"
        )
        return error


class UnknownIdError(AtlasError, LookupError):
    """An identifier (of a stage, step, atlas...) that the dataset does not hold."""

    def __init__(self, what: str, value: str, choices: list[str]) -> None:
        self.value = value
        self.choices = tuple(choices)
        message = f"unknown {what} id {value!r}"
        close = difflib.get_close_matches(value, choices, n=3)
        if close:
            message += f"; did you mean {', '.join(repr(c) for c in close)}?"
        elif len(choices) <= 30:  # noqa: PLR2004 - short lists are shown whole
            message += f"; valid: {', '.join(choices)}"
        super().__init__(message)

    def __str__(self) -> str:
        # LookupError would otherwise repr() the message (KeyError does; be explicit).
        return str(self.args[0])


class NetworkRefusedError(AtlasError, ValueError):
    """A query or document would reach the network, which offline use never does."""
