"""The model layer: the pydantic models of the atlas, and the names that tie them to RDF.

The models are the schema of the export. No I/O here, and nothing imported from any layer above.

The models live in ``_records.py`` (the atlas) and ``_witness.py`` (a witness record); the IRIs
in ``_iri.py``, the RDF vocabulary in ``_vocab.py``, the rules for values users give in
``_names.py``. This face hands the models on lazily: ``import atlas.models._iri`` (on the fast
path of ``atlas path``) does not import pydantic.

>>> from atlas.models import Stage
>>> Stage.__name__
'Stage'
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # spares importing typing
if TYPE_CHECKING:
    from atlas.models._records import (
        LICENSE_URL,
        SCHEMA_URL,
        SCHEMA_VERSION,
        Atlas,
        AtlasDocument,
        Citation,
        Claim,
        Concept,
        ConceptScheme,
        Counts,
        Evidence,
        ExecutionPath,
        JourneyStep,
        QuoteSelector,
        Relation,
        Source,
        Stage,
        Step,
        Technology,
    )

__all__ = [
    "LICENSE_URL",
    "SCHEMA_URL",
    "SCHEMA_VERSION",
    "Atlas",
    "AtlasDocument",
    "Citation",
    "Claim",
    "Concept",
    "ConceptScheme",
    "Counts",
    "Evidence",
    "ExecutionPath",
    "JourneyStep",
    "QuoteSelector",
    "Relation",
    "Source",
    "Stage",
    "Step",
    "Technology",
]


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module 'atlas.models' has no attribute {name!r}")
    value = getattr(importlib.import_module("atlas.models._records"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
