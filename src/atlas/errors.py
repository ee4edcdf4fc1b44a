"""The one exception hierarchy of the package.

Every error raised on purpose is an :class:`AtlasError`. Each child also subclasses the builtin
that fits (``TypeError`` for an argument of the wrong type, ``ValueError`` for bad input,
``LookupError`` for unknown identifiers), so callers can catch either. Messages quote the bad value
(cut when long: see :func:`shown`), name the parameter, file, line or identifier at fault and,
where there is a closed set of valid choices, list them.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "AmbiguousIdError",
    "ArgumentTypeError",
    "ArgumentValueError",
    "AtlasError",
    "BranchNotApplicableError",
    "CouldNotRunError",
    "CycleError",
    "DatasetError",
    "MissingValueError",
    "NetworkRefusedError",
    "NoPathError",
    "Problem",
    "SelectionError",
    "UnknownIdError",
    "UnknownValueError",
]

Severity = Literal["violation", "warning"]

_SHOWN_CHARS = 80  # a quoted value longer than this is cut, and its length said


def shown(value: object) -> str:
    """``value`` as a message quotes it: its ``repr``, cut when long, never failing.

    >>> shown("cpu")
    "'cpu'"
    >>> print(shown("0123456789" * 100))
    '01234567890123456789012345678901234...56789012345678901234567890123456789' (1000 characters)
    """
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the error being reported
        return f"<{type(value).__name__} object>"
    if len(text) <= _SHOWN_CHARS:
        return text
    half = (_SHOWN_CHARS - 8) // 2
    size = f" ({len(value)} characters)" if isinstance(value, str) else ""
    return f"{text[:half]}...{text[-half:]}{size}"


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


class CouldNotRunError(AtlasError):
    """The work could not be done here (the environment, not the data is at fault).

    A missing tool or extra, a busy port, a service out of reach, an input that cannot be read.
    The command exits with status 3 (not 1: nothing was found wrong with the data).
    """


def _close(value: str, choices: list[str], count: int) -> list[str]:
    """The choices closest to ``value``; none for a value far longer than any id."""
    if len(value) > _SHOWN_CHARS:  # difflib's time grows with the length: no id is this long
        return []
    return difflib.get_close_matches(value, choices, n=count)


class ArgumentTypeError(AtlasError, TypeError):
    """An argument of the wrong type; the message names the parameter and the type it takes.

    >>> str(ArgumentTypeError("stage_id", 3, "a str (a stage id, e.g. 'cpu')"))
    "stage_id must be a str (a stage id, e.g. 'cpu'), not int: 3"
    """

    def __init__(self, parameter: str, value: object, expected: str) -> None:
        self.parameter = parameter
        self.value = value
        self.expected = expected
        super().__init__(
            f"{parameter} must be {expected}, not {type(value).__name__}: {shown(value)}"
        )


class ArgumentValueError(AtlasError, ValueError):
    r"""An argument of the right type whose value no call accepts, e.g. text that is not Unicode.

    >>> str(ArgumentValueError("stage_id", "\udcff", "is not valid text"))
    "stage_id '\\udcff' is not valid text"
    """

    def __init__(self, parameter: str, value: object, problem: str) -> None:
        self.parameter = parameter
        self.value = value
        super().__init__(f"{parameter} {shown(value)} {problem}")


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
        message = f"unknown {what} {shown(value)}"
        if choices:  # none: the extra says why (an atlas without branches)
            message += f"; valid: {', '.join(choices)}"
        close = _close(value.casefold(), [c.casefold() for c in choices], 1)
        if close:
            suggestion = next(c for c in choices if c.casefold() == close[0])
            message += f"; did you mean {suggestion!r}?"
        if extra:
            message += f"; {extra}"
        super().__init__(message)


class BranchNotApplicableError(UnknownValueError):
    """A branch asked for under values where none of its steps apply (graph breaks in eager mode).

    >>> str(BranchNotApplicableError("graph breaks", ["torch.compile"], ["eager mode", "on a CPU"]))
    'graph breaks apply under torch.compile only, not under eager mode on a CPU'
    """

    def __init__(self, branch: str, under: list[str], chosen: list[str]) -> None:
        self.value = branch
        self.choices = tuple(under)
        where = " or ".join(under) or "other values"
        ValueError.__init__(
            self, f"{branch} apply under {where} only, not under {' '.join(chosen)}"
        )


class NoPathError(UnknownValueError):
    """A selection that the dataset says has no path: it does not exist, or is not covered yet.

    ``reason`` is ``"does-not-exist"`` or ``"not-covered"``; the message says why, and where the
    path that really runs is (``see``: the words of ``atlas path`` for it, or ``""``).

    >>> str(NoPathError("reduce-overhead on a CPU", "not-covered", ["reduce-overhead", "CPU"]))
    "reduce-overhead on a CPU is not covered by the atlas's sources yet (flagged, not drawn)"
    """

    def __init__(
        self, selection: str, reason: str, values: list[str], why: str = "", see: str = ""
    ) -> None:
        self.value = " ".join(values)
        self.choices = ()
        self.reason = reason
        self.see = see
        if reason == "not-covered":
            message = f"{selection} is not covered by the atlas's sources yet (flagged, not drawn)"
        else:
            message = f"{selection} has no path: {why or 'the combination does not exist'}"
        if see:
            message += f"; see 'atlas path {see}'"
        ValueError.__init__(self, message)


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


class SelectionError(UnknownValueError):
    """Words that name no one path: unknown words, two values of a dimension, several readings.

    ``choices`` lists the readings (or atlases) that the words fit, or the valid values.

    >>> str(SelectionError("eager compile", "'eager' and 'compile' give two values of the mode"))
    "'eager compile': 'eager' and 'compile' give two values of the mode"
    """

    def __init__(self, words: str, problem: str, choices: list[str] | None = None) -> None:
        self.value = words
        self.choices = tuple(choices or ())
        ValueError.__init__(self, f"{shown(words)}: {problem}")


class UnknownIdError(AtlasError, LookupError):
    """An identifier (of a stage, step, atlas...) that the dataset does not hold."""

    def __init__(self, what: str, value: str, choices: list[str]) -> None:
        self.value = value
        self.choices = tuple(choices)
        message = f"unknown {what} id {shown(value)}"
        close = _close(value, choices, 3)
        if close:
            message += f"; did you mean {', '.join(repr(c) for c in close)}?"
        elif 0 < len(choices) <= 30:  # noqa: PLR2004 - short lists are shown whole
            message += f"; valid: {', '.join(choices)}"
        super().__init__(message)

    def __str__(self) -> str:
        # LookupError would otherwise repr() the message (KeyError does; be explicit).
        return str(self.args[0])


class AmbiguousIdError(UnknownIdError):
    """A label or alias that names more than one record; ``choices`` holds their ids.

    >>> str(AmbiguousIdError("stage", "GPU", ["amd-gpu", "gpu"]))
    "stage 'GPU' is ambiguous: it names amd-gpu, gpu; give one of these ids"
    """

    def __init__(self, what: str, value: str, choices: list[str]) -> None:
        self.value = value
        self.choices = tuple(choices)
        LookupError.__init__(
            self,
            f"{what} {shown(value)} is ambiguous: it names {', '.join(choices)}; give one "
            "of these ids",
        )


class NetworkRefusedError(AtlasError, ValueError):
    """A query or document would reach the network, which offline use never does."""
