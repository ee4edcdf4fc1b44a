"""The model layer: the pydantic models of the atlas, and the names that tie them to RDF.

The models are the schema of the export. No I/O here, and nothing imported from any layer above.

The models live in ``_base.py`` (the model config, the claim and the claimed bases),
``_evidence.py`` (sources, citations, evidence), ``_records.py`` (the atlas's records and the
export document), ``_journey.py`` (a selection's steps in journey order), ``_nopath.py`` (a
selection with no path), ``_catalog.py`` (the dataset's distributions and contact point),
``_path.py`` (an execution path, a query result) and
``_witness.py`` (a witness record); the IRIs in ``_iri.py``, the RDF vocabulary in
``_vocab.py``, the rules for values users give in ``_names.py``. This face hands the models on
lazily (``_HOMES`` says which module holds each name): ``import atlas.models._iri`` (on the fast
path of ``atlas path``) does not import pydantic.

>>> from atlas.models import Stage
>>> Stage.__name__
'Stage'
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # spares importing typing
if TYPE_CHECKING:
    from atlas.models._base import Claim
    from atlas.models._catalog import ContactPoint, Distribution
    from atlas.models._evidence import Citation, Evidence, QuoteSelector, Source
    from atlas.models._journey import Journey
    from atlas.models._nopath import NoPath
    from atlas.models._path import ExecutionPath, JourneyStep
    from atlas.models._records import (
        LICENSE_URL,
        SCHEMA_URL,
        SCHEMA_VERSION,
        Atlas,
        AtlasDocument,
        Concept,
        ConceptScheme,
        Counts,
        Relation,
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
    "ContactPoint",
    "Counts",
    "Distribution",
    "Evidence",
    "ExecutionPath",
    "Journey",
    "JourneyStep",
    "NoPath",
    "QuoteSelector",
    "Relation",
    "Source",
    "Stage",
    "Step",
    "Technology",
]

#: Each name of ``__all__`` -> the module that defines it.
_HOMES = {
    "LICENSE_URL": "atlas.models._records",
    "SCHEMA_URL": "atlas.models._records",
    "SCHEMA_VERSION": "atlas.models._records",
    "Atlas": "atlas.models._records",
    "AtlasDocument": "atlas.models._records",
    "Citation": "atlas.models._evidence",
    "Claim": "atlas.models._base",
    "Concept": "atlas.models._records",
    "ConceptScheme": "atlas.models._records",
    "ContactPoint": "atlas.models._catalog",
    "Counts": "atlas.models._records",
    "Distribution": "atlas.models._catalog",
    "Evidence": "atlas.models._evidence",
    "ExecutionPath": "atlas.models._path",
    "Journey": "atlas.models._journey",
    "JourneyStep": "atlas.models._path",
    "NoPath": "atlas.models._nopath",
    "QuoteSelector": "atlas.models._evidence",
    "Relation": "atlas.models._records",
    "Source": "atlas.models._evidence",
    "Stage": "atlas.models._records",
    "Step": "atlas.models._records",
    "Technology": "atlas.models._records",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'atlas.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
