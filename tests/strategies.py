"""Hypothesis strategies for small, valid atlas datasets, and their Turtle serialisation.

``atlas_documents()`` draws an :class:`~atlas.models.AtlasDocument` with 1-3 atlases, each with
its own dimensions, stages, and steps whose conditions cover every dimension; the steps of an
atlas only go forward in stage order, so every path is acyclic. Citations, sources, stage kinds,
technologies and (sometimes) a relation and a deprecated step complete it. Documents are in the
canonical order that the Turtle reader produces, so ``read_turtle(to_turtle(doc)) == doc``, and
``verify.consistency_problems(doc)`` reports no violation.

``to_turtle(doc)`` writes the document as Turtle files in the style of ``dataset/`` (a catalog,
the sources, one file per atlas), written here term by term,
independently of ``atlas.models._vocab``.

>>> from hypothesis import given
>>> @given(atlas_documents())
... def test(document): assert document.atlases
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import strategies as st

from atlas.data.turtle import TurtleFile
from atlas.models import LICENSE_URL, AtlasDocument
from atlas.models._iri import BASE_IRI
from atlas.models._vocab import context

__all__ = ["atlas_documents", "to_turtle"]

TODAY = dt.date(2026, 12, 2)
_ALPHABET = st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs"))


def _texts(max_size: int = 24) -> st.SearchStrategy[str]:
    """Short text with at least one visible character; quotes, backslashes and accents included."""
    plain = st.text(_ALPHABET | st.sampled_from("\"\\\n'é→ "), min_size=1, max_size=max_size)
    return plain.filter(lambda s: s.strip() != "")


_WORDS = st.from_regex(r"[a-z]{1,6}", fullmatch=True)
_DATES = st.dates(dt.date(2020, 1, 1), TODAY)
# the dataset's publisher is an agent's IRI (dcterms:publisher)
_PUBLISHERS = _WORDS.map(lambda word: f"https://example.org/agent/{word}")


def _order_key(item: dict[str, Any]) -> tuple[bool, int, str]:
    order = item.get("order")
    return (order is None, order or 0, str(item.get("id", "")))


def _subset(
    draw: Callable[[st.SearchStrategy[Any]], Any], items: list[str], min_size: int = 1
) -> list[str]:
    picked: list[str] = draw(
        st.lists(st.sampled_from(items), min_size=min_size, max_size=len(items), unique=True)
    )
    return sorted(picked)


def _optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


def _strings(draw: Callable[[st.SearchStrategy[Any]], Any], max_size: int = 2) -> list[str]:
    values: list[str] = draw(st.lists(_texts(), max_size=max_size, unique=True))
    return sorted(values)


def _clean(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


@st.composite
def atlas_documents(  # noqa: C901, PLR0915 - one generator for a whole document
    draw: Callable[[st.SearchStrategy[Any]], Any], max_stages: int = 5, max_steps: int = 6
) -> AtlasDocument:
    """A small, valid, consistent and acyclic document."""
    sources = [
        _clean(
            {
                "id": f"src-{i}",
                "url": f"https://example.org/{draw(_WORDS)}/{i}",
                "title": draw(_texts()),
                "publisher": draw(_optional(_texts())),
                "version": draw(_optional(_texts())),
                "license": draw(_optional(_texts())),
                "retrievedOn": f"{draw(_DATES).isoformat()}T00:00:00Z",
                "complete": draw(st.booleans()),
                "snapshot": f"src-{i}.txt",
            }
        )
        for i in range(draw(st.integers(1, 3)))
    ]
    citations: list[dict[str, Any]] = []

    def cite() -> str:
        """A new citation, rated for the one claim that cites it."""
        partial = draw(st.booleans())
        cid = f"cite-{len(citations)}"
        citations.append(
            _clean(
                {
                    "id": cid,
                    "source": draw(st.sampled_from([s["url"] for s in sources])),
                    "selector": _clean(
                        {
                            "exact": draw(_texts(40)),
                            "prefix": draw(_optional(_texts())),
                            "suffix": draw(_optional(_texts())),
                        }
                    ),
                    "retrievedOn": f"{draw(_DATES).isoformat()}T00:00:00Z",
                    "support": "partial" if partial else "full",
                    "supportNote": draw(_texts()) if partial else None,
                }
            )
        )
        return cid

    def claims(kind: str, owner: str, least: int = 1) -> list[dict[str, Any]]:
        """The claims of one text: each cited, or flagged unsupported with or without a note."""
        made = []
        for k in range(draw(st.integers(least, 2))):
            claim: dict[str, Any] = {
                "id": f"{kind}-{owner.replace('/', '-')}-{k + 1}",
                "text": draw(_texts(40)),
                "order": k + 1,
            }
            if draw(st.integers(0, 3)) == 0:
                claim.update(_clean({"unsupported": True, "note": draw(_optional(_texts()))}))
            else:
                claim["citations"] = sorted(cite() for _ in range(draw(st.integers(1, 2))))
            made.append(claim)
        return made

    stage_kinds = [
        {"id": f"stage-kind/k{k}", "label": f"{draw(_WORDS)} {k}", "order": k + 1}
        for k in range(draw(st.integers(1, 3)))
    ]
    schemes: list[dict[str, Any]] = [
        {"id": "stage-kind", "label": "stage kind", "values": stage_kinds},
        {
            "id": "technology-kind",
            "label": "technology kind",
            "values": [{"id": "technology-kind/language", "label": "language"}],
        },
    ]
    technologies = [
        _clean(
            {
                "id": f"tech-{t}",
                "label": draw(_texts()),
                "kind": "technology-kind/language",
                "claims": claims("technology", f"tech-{t}"),
                "order": draw(_optional(st.integers(1, 9))),
            }
        )
        for t in range(draw(st.integers(0, 2)))
    ]
    atlases, stages, steps = [], [], []
    for a in range(draw(st.integers(1, 3))):
        aid = f"{draw(_WORDS)}-{a}"
        dimensions = []
        for d in range(draw(st.integers(1, 2))):
            sid = f"{aid}-d{d}"
            values = [
                _clean(
                    {
                        "id": f"{sid}/v{v}",
                        "label": f"{draw(_WORDS)} {v}",
                        "altLabels": _strings(draw),
                        "definition": draw(_optional(_texts())),
                        "summaryPhrase": draw(_optional(_texts())),
                        "claims": claims("mode", f"{sid}/v{v}", least=0),
                        "order": v + 1,
                    }
                )
                for v in range(draw(st.integers(1, 3)))
            ]
            scheme: dict[str, Any] = {
                "id": sid,
                "label": f"{draw(_WORDS)}{d}",
                "order": d + 1,
                "values": values,
            }
            scheme.update(_clean({"definition": draw(_optional(_texts()))}))
            schemes.append(scheme)
            dimensions.append(scheme)
        count = draw(st.integers(2, max_stages))
        stage_ids = [f"{aid}-s{k}" for k in range(count)]
        for k, stage_id in enumerate(stage_ids):
            stages.append(
                _clean(
                    {
                        "id": stage_id,
                        "label": draw(_texts()),
                        "altLabels": _strings(draw),
                        "kind": draw(st.sampled_from([c["id"] for c in stage_kinds])),
                        "claims": claims("stage", stage_id),
                        "technology": draw(
                            _optional(st.sampled_from([t["id"] for t in technologies]))
                        )
                        if technologies
                        else None,
                        "executesInPython": draw(st.booleans()),
                        "atlases": [aid],
                        "order": k + 1,
                    }
                )
            )
        pairs = [(i, j) for i in range(count) for j in range(i + 1, count)]
        chosen = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=max_steps, unique=True))
        atlas_steps = []
        for n, (i, j) in enumerate(chosen):
            when: list[str] = []
            when_any: list[str] = []
            for scheme in dimensions:
                if draw(st.booleans()):
                    when_any.append(scheme["id"])
                else:
                    when += _subset(draw, [v["id"] for v in scheme["values"]])
            atlas_steps.append(
                _clean(
                    {
                        "id": f"{aid}-t{n}",
                        "atlas": aid,
                        "from": stage_ids[i],
                        "to": stage_ids[j],
                        "verb": draw(_texts()),
                        "when": sorted(when),
                        "whenAny": sorted(when_any),
                        "claims": claims("step", f"{aid}-t{n}"),
                        "endsPython": draw(_optional(st.booleans())),
                        "order": n + 1,
                    }
                )
            )
        if len(atlas_steps) > 1 and draw(st.integers(0, 9)) == 0:
            atlas_steps[-1].update(deprecated=True, replacedBy=atlas_steps[0]["id"])
        steps += atlas_steps
        atlases.append(
            {
                "id": aid,
                "label": draw(_texts()),
                "question": draw(_texts(40)),
                "claims": claims("atlas", aid),
                "entryStage": stage_ids[0],
                "dimensions": [s["id"] for s in dimensions],
                "scopeNotes": _strings(draw),
                "order": a + 1,
            }
        )
    relations = []
    if len(technologies) > 1 and draw(st.booleans()):
        relations.append(
            {
                "id": "tech-0-written-in-tech-1",
                "atlas": atlases[0]["id"],
                "from": "tech-0",
                "to": "tech-1",
                "relation": "written in",
                "claims": claims("relation", "tech-0-written-in-tech-1"),
                "order": 1,
            }
        )
    version = ".".join(str(draw(st.integers(0, 12))) for _ in range(3))
    collections = {
        "atlases": atlases,
        "schemes": sorted(schemes, key=_order_key),
        "stages": sorted(stages, key=_order_key),
        "steps": sorted(steps, key=lambda s: (s["atlas"], *_order_key(s))),
        "citations": sorted(citations, key=lambda c: c["id"]),
        "sources": sorted(sources, key=lambda s: s["id"]),
        "technologies": sorted(technologies, key=_order_key),
        "relations": relations,
    }
    data = {
        "@context": context(),
        "title": draw(_texts()),
        "description": draw(_texts(40)),
        "version": version,
        "issued": draw(_DATES).isoformat(),
        "attribution": f"Execution Atlas {version} ({BASE_IRI}), licensed CC BY 4.0",
        "counts": {
            **{k: len(v) for k, v in collections.items() if k != "schemes"},
            "claims": sum(
                len(item.get("claims", ()))
                for key in ("atlases", "stages", "steps", "technologies", "relations")
                for item in collections[key]
            )
            + sum(len(v.get("claims", ())) for sc in schemes for v in sc["values"]),
        },
        **collections,
    }
    data.update(_clean({"publisher": draw(_optional(_PUBLISHERS))}))
    return AtlasDocument.model_validate(data)


# --- Turtle ------------------------------------------------------------------------------------

_PREFIXES = """\
@prefix ea: <https://w3id.org/execution-atlas/vocab#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix oa: <http://www.w3.org/ns/oa#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix pav: <http://purl.org/pav/> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
"""


def _iri(kind: str, local: str) -> str:
    return f"<{BASE_IRI}{kind}/{local}>"


def _text(value: str) -> str:
    """A Turtle string, always short and escaped (rdflib's ``n3()`` writes a long string that
    ends in an escaped quote, such as ``\\"`` before a newline, as invalid Turtle)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n").replace("\r", "\\r") + '"'


def _date(value: dt.date) -> str:
    if isinstance(value, dt.datetime):
        return f'"{value.isoformat().replace("+00:00", "Z")}"^^xsd:dateTime'
    return f'"{value.isoformat()}"^^xsd:date'


def _bool(value: bool) -> str:  # noqa: FBT001 - a value, not a flag
    return "true" if value else "false"


class _Block:
    """One subject's description: ``subject a type ; p o ; ... .``"""

    def __init__(self, subject: str, rdf_type: str) -> None:
        self.lines = [f"{subject} a {rdf_type}"]

    def add(self, predicate: str, *objects: str | None) -> _Block:
        for obj in objects:
            if obj is not None:
                self.lines.append(f"    {predicate} {obj}")
        return self

    def adds(self, predicate: str, objects: Iterable[str]) -> _Block:
        return self.add(predicate, *objects)

    def text(self) -> str:
        return " ;\n".join(self.lines) + " .\n"


def _opt(render: Callable[[Any], str], value: Any) -> str | None:
    return None if value is None else render(value)


def to_turtle(document: AtlasDocument) -> list[TurtleFile]:  # noqa: C901 - a block per class
    """The document as Turtle files: catalog.ttl, sources.ttl, one file per atlas, technologies."""
    catalog = [
        _Block(f"<{BASE_IRI}>", "dcat:Dataset")
        .add("dcterms:title", _text(document.title))
        .add("dcterms:description", _text(document.description))
        .add("dcterms:publisher", _opt(lambda iri: f"<{iri}>", document.publisher))
        .add("dcat:version", _text(document.version))
        .add("dcterms:license", f"<{LICENSE_URL}>")
        .add("dcterms:issued", _date(document.issued))
        .text()
    ]
    files: dict[str, list[str]] = {"catalog.ttl": catalog, "sources.ttl": []}
    scheme_file = {d: f"{a.id}.ttl" for a in document.atlases for d in a.dimensions}
    for scheme in document.schemes:
        out = files.setdefault(scheme_file.get(scheme.id, "catalog.ttl"), [])
        out.append(
            _Block(_iri("scheme", scheme.id), "skos:ConceptScheme")
            .add("rdfs:label", _text(scheme.label))
            .add("skos:definition", _opt(_text, scheme.definition))
            .add("ea:order", _opt(str, scheme.order))
            .text()
        )
        for value in scheme.values:
            out.append(
                _Block(_iri("scheme", value.id), "skos:Concept")
                .add("skos:inScheme", _iri("scheme", scheme.id))
                .add("skos:prefLabel", _text(value.label))
                .adds("skos:altLabel", map(_text, value.alt_labels))
                .add("skos:definition", _opt(_text, value.definition))
                .add("ea:summaryPhrase", _opt(_text, value.summary_phrase))
                .add("ea:order", _opt(str, value.order))
                .text()
            )
    for atlas in document.atlases:
        files.setdefault(f"{atlas.id}.ttl", []).insert(
            0,
            _Block(_iri("atlas", atlas.id), "ea:Atlas")
            .add("rdfs:label", _text(atlas.label))
            .add("ea:question", _text(atlas.question))
            .add("ea:entryStage", _opt(lambda s: _iri("stage", s), atlas.entry_stage))
            .adds("ea:dimension", (_iri("scheme", d) for d in atlas.dimensions))
            .adds("skos:scopeNote", map(_text, atlas.scope_notes))
            .add("ea:order", _opt(str, atlas.order))
            .text(),
        )
    for stage in document.stages:
        files.setdefault(f"{stage.atlases[0]}.ttl", []).append(
            _Block(_iri("stage", stage.id), "ea:Stage")
            .add("rdfs:label", _text(stage.label))
            .adds("skos:altLabel", map(_text, stage.alt_labels))
            .add("ea:kind", _iri("scheme", stage.kind))
            .add("ea:technology", _opt(lambda t: _iri("technology", t), stage.technology))
            .add("ea:executesInPython", _bool(stage.executes_in_python))
            .adds("dcterms:isPartOf", (_iri("atlas", a) for a in stage.atlases))
            .add("ea:order", _opt(str, stage.order))
            .add("owl:deprecated", _opt(_bool, stage.deprecated))
            .add("dcterms:isReplacedBy", _opt(lambda s: _iri("stage", s), stage.replaced_by))
            .text()
        )
    for step in document.steps:
        files.setdefault(f"{step.atlas}.ttl", []).append(
            _Block(_iri("step", step.id), "ea:Step")
            .add("dcterms:isPartOf", _iri("atlas", step.atlas))
            .add("ea:from", _iri("stage", step.from_stage))
            .add("ea:to", _iri("stage", step.to_stage))
            .add("ea:verb", _text(step.verb))
            .adds("ea:when", (_iri("scheme", v) for v in step.when))
            .adds("ea:whenAny", (_iri("scheme", d) for d in step.when_any))
            .add("ea:endsPython", _opt(_bool, step.ends_python))
            .add("ea:order", _opt(str, step.order))
            .add("owl:deprecated", _opt(_bool, step.deprecated))
            .add("dcterms:isReplacedBy", _opt(lambda s: _iri("step", s), step.replaced_by))
            .text()
        )
    for citation in document.citations:
        selector = citation.selector
        parts = ["a oa:TextQuoteSelector", f"oa:exact {_text(selector.exact)}"]
        if selector.prefix is not None:
            parts.append(f"oa:prefix {_text(selector.prefix)}")
        if selector.suffix is not None:
            parts.append(f"oa:suffix {_text(selector.suffix)}")
        files["sources.ttl"].append(
            _Block(_iri("citation", citation.id), "ea:Citation")
            .add("oa:hasSource", f"<{citation.source}>")
            .add("oa:hasSelector", "[ " + " ;\n        ".join(parts) + " ]")
            .add("pav:retrievedOn", _date(citation.retrieved_on))
            .add("ea:support", _text(citation.support))
            .add("ea:supportNote", _opt(_text, citation.support_note))
            .text()
        )
    for source in document.sources:
        files["sources.ttl"].append(
            _Block(f"<{BASE_IRI}source/{source.id}>", "ea:Source")
            .add("foaf:page", f"<{source.url}>")
            .add("dcterms:title", _text(source.title))
            .add("dcterms:publisher", _opt(_text, source.publisher))
            .add("pav:version", _opt(_text, source.version))
            .add("dcterms:license", _opt(_text, source.license))
            .add("pav:retrievedOn", _date(source.retrieved_on))
            .add("ea:complete", _bool(source.complete))
            .add("ea:snapshot", _text(source.snapshot))
            .text()
        )
    technologies = files.setdefault("technologies.ttl", [])
    for tech in document.technologies:
        technologies.append(
            _Block(_iri("technology", tech.id), "ea:Technology")
            .add("rdfs:label", _text(tech.label))
            .add("ea:kind", _iri("scheme", tech.kind))
            .add("ea:order", _opt(str, tech.order))
            .text()
        )
    for relation in document.relations:
        technologies.append(
            _Block(_iri("relation", relation.id), "ea:Relation")
            .add("dcterms:isPartOf", _iri("atlas", relation.atlas))
            .add("ea:from", _iri("technology", relation.from_technology))
            .add("ea:to", _iri("technology", relation.to_technology))
            .add("ea:relation", _text(relation.relation))
            .add("ea:order", _opt(str, relation.order))
            .text()
        )
    claimed: list[tuple[str, str, Any]] = [
        *((f"{a.id}.ttl", _iri("atlas", a.id), a) for a in document.atlases),
        *((f"{s.atlases[0]}.ttl", _iri("stage", s.id), s) for s in document.stages),
        *((f"{s.atlas}.ttl", _iri("step", s.id), s) for s in document.steps),
        *(("technologies.ttl", _iri("technology", t.id), t) for t in document.technologies),
        *(("technologies.ttl", _iri("relation", r.id), r) for r in document.relations),
        *(
            (scheme_file.get(sc.id, "catalog.ttl"), _iri("scheme", v.id), v)
            for sc in document.schemes
            for v in sc.values
        ),
    ]
    for name, owner, item in claimed:
        files.setdefault(name, []).extend(
            _Block(_iri("claim", claim.id), "ea:Claim")
            .add("ea:about", owner)
            .add("ea:order", _opt(str, claim.order))
            .add("rdf:value", _text(claim.text))
            .adds("prov:wasDerivedFrom", (_iri("citation", c) for c in claim.citations))
            .adds("ea:observedIn", (_iri("witness", o) for o in claim.observed_in))
            .add("ea:unsupported", _opt(_bool, claim.unsupported))
            .add("skos:editorialNote", _opt(_text, claim.note))
            .text()
            for claim in item.claims
        )
    return [
        TurtleFile(name, _PREFIXES + "\n" + "\n".join(blocks))
        for name, blocks in sorted(files.items())
    ]
