"""The execution path: the stages and steps of one atlas under one choice of every dimension.

Query results, not part of the export: :class:`ExecutionPath` holds the path's stages and its
:class:`JourneyStep` items (each step with its stages and evidence resolved), and derives its
summary and the steps where Python ends.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import Field, ValidatorFunctionWrapHandler, computed_field, model_validator

from atlas.models._base import Id, _Model
from atlas.models._evidence import Evidence  # noqa: TC001 - pydantic needs it at run time
from atlas.models._records import Concept, Stage, Step  # noqa: TC001 - pydantic needs them

__all__ = ["ExecutionPath", "JourneyStep"]


class JourneyStep(_Model):
    """One step of an execution path, numbered, with its stages and evidence resolved."""

    number: int = Field(description="1-based position in the journey.")
    step: Step = Field(description="The step.")
    from_stage: Stage = Field(alias="from", description="The stage it starts at.")
    to_stage: Stage = Field(alias="to", description="The stage it leads to.")
    evidence: tuple[Evidence, ...] = Field(description="Its citations with their sources.")

    @property
    def id(self) -> str:
        """The step's id."""
        return self.step.id

    @property
    def label(self) -> str:
        """'from — verb → to', e.g. 'FX graph — is compiled by → TorchInductor'."""
        return f"{self.from_stage.label} \u2014 {self.step.verb} \u2192 {self.to_stage.label}"

    def __str__(self) -> str:
        """The step, its text claim by claim with the numbers of their sources, then the sources.

        A claim no citation backs is marked ``[observed]`` (a witness run showed it) or
        ``[unsupported]`` (flagged).
        """
        numbers = {item.citation.id: n for n, item in enumerate(self.evidence, 1)}
        sentences = []
        for claim in self.step.claims:
            marks = "".join(f"[{numbers[c]}]" for c in claim.citations if c in numbers)
            if not marks:
                marks = "[observed]" if claim.observed_in else "[unsupported]"
            sentences.append(f"{claim.text} {marks}")
        lines = [f"{self.number}. {self.label}", f"   {' '.join(sentences)}"]
        for n, item in enumerate(self.evidence, 1):
            text = str(item).replace("\n", "\n   ")
            lines.append(f"   [{n}] {text}")
        return "\n".join(lines)


_DERIVED = {"summary": "summary", "python_ends": "python_ends", "pythonEnds": "python_ends"}


class ExecutionPath(_Model):
    """The stages and steps of one atlas under one choice of every dimension, in journey order.

    ``summary`` and ``python_ends`` follow from the rest: they are made on first use (and then
    kept), and appear in ``model_dump()`` and the JSON like the other fields.
    """

    atlas: Id = Field(description="The atlas's id.")
    selection: tuple[Concept, ...] = Field(description="The chosen value of each dimension.")
    branches: tuple[Concept, ...] = Field(
        (), description="The branches asked for, e.g. graph breaks (none by default)."
    )
    stages: tuple[Stage, ...] = Field(description="The stages in journey order.")
    steps: tuple[JourneyStep, ...] = Field(description="The steps in journey order.")

    @model_validator(mode="wrap")
    @classmethod
    def _derived_fields_agree(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        """Read back a dumped path: its derived fields must be what they are derived to be."""
        given: dict[str, Any] = {}
        if isinstance(data, dict):
            data = dict(data)
            for key, name in _DERIVED.items():
                if key in data:
                    given[name] = data.pop(key)
        path = handler(data)
        if "summary" in given and given["summary"] != path.summary:
            msg = f"summary {given['summary']!r} does not match the path: {path.summary!r}"
            raise ValueError(msg)
        if "python_ends" in given:
            numbers = [
                end.get("number") if isinstance(end, dict) else getattr(end, "number", None)
                for end in given["python_ends"]
            ]
            if numbers != [j.number for j in path.python_ends]:
                msg = (
                    f"python_ends are steps {numbers}, but the steps where Python ends are"
                    f" {[j.number for j in path.python_ends]}"
                )
                raise ValueError(msg)
        return path

    @computed_field(  # type: ignore[prop-decorator]
        description="E.g. 'torch.compile on an NVIDIA GPU: 12 stages, 12 steps'."
    )
    @functools.cached_property
    def summary(self) -> str:
        """The chosen values, then how many stages and steps the path has."""
        phrase = " ".join([c.phrase for c in (*self.selection, *self.branches)])
        n_stages, n_steps = len(self.stages), len(self.steps)
        return (
            f"{phrase}: {n_stages} stage{'s' * (n_stages != 1)},"
            f" {n_steps} step{'s' * (n_steps != 1)}"
        )

    @computed_field(  # type: ignore[prop-decorator]
        description=(
            "The steps where the model's own operations stop running as individual Python calls "
            "(the steps marked ends_python)."
        )
    )
    @functools.cached_property
    def python_ends(self) -> tuple[JourneyStep, ...]:
        """The steps of the path that the data marks ``ends_python``, in journey order.

        In eager mode, the call into ATen dispatch; under torch.compile, TorchDynamo's capture.
        """
        return tuple([j for j in self.steps if j.step.ends_python])

    def __str__(self) -> str:
        return self.summary
