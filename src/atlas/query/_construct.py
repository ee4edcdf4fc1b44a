"""Frozen pydantic models built from fields already valid, without validating them again.

The hot path of :func:`atlas.path` assembles its answers from validated records: building them
through pydantic's descriptors directly costs a fraction of ``model_construct``.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from atlas.models import ExecutionPath, JourneyStep

__all__ = ["PATH_FIELDS", "STEP_FIELDS", "construct"]

_T = TypeVar("_T", bound=BaseModel)


_new = object.__new__
# pydantic keeps these four in slots of BaseModel: their descriptors set them directly
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def construct(cls: type[_T], fields: dict[str, object], names: set[str] | None = None) -> _T:
    """An instance of a frozen model from already-valid fields, without validation.

    What ``model_construct`` does for a model whose every field is given, at a fraction of its
    cost; used on the hot path for results assembled from validated records. ``names``, the
    set of the fields' names, may be shared by instances: a frozen model never changes it
    (pydantic copies it before updating a copy).
    """
    instance = _new(cls)  # pydantic models have no __new__ of their own
    _set_dict(instance, fields)
    _set_fields_set(instance, set(fields) if names is None else names)
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance


# the fields' names, shared by every path and every numbered step made with construct
PATH_FIELDS = set(ExecutionPath.model_fields)
STEP_FIELDS = set(JourneyStep.model_fields)
