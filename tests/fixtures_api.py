"""A tiny hand-made atlas for API tests: two dimensions, a branch, a merge and an 'any' step."""

from __future__ import annotations

import datetime as dt
from typing import Any

from atlas.models import AtlasDocument
from atlas.models._vocab import context

DAY = dt.date(2026, 12, 1)


def tiny_document(**changes: Any) -> AtlasDocument:
    """A valid document; ``changes`` replace top-level fields (as JSON data)."""
    concept = lambda scheme, name, label, **kw: {"id": f"{scheme}/{name}", "label": label, **kw}  # noqa: E731
    stage = lambda sid, label, order, py=False: {  # noqa: E731
        "id": sid,
        "label": label,
        "kind": "stage-kind/thing",
        "claims": [{"id": f"stage-{sid}-1", "text": f"{label} does work.", "citations": ["c1"]}],
        "executesInPython": py,
        "atlases": ["toy"],
        "order": order,
    }
    step = lambda sid, a, b, order, when=(), any_=(), cites=("c1",), ends=None: {  # noqa: E731
        "id": sid,
        "atlas": "toy",
        "from": a,
        "to": b,
        "verb": "feeds",
        "when": list(when),
        "whenAny": list(any_),
        "claims": [{"id": f"step-{sid}-1", "text": f"{a} feeds {b}.", "citations": list(cites)}],
        "endsPython": ends,
        "order": order,
    }
    data: dict[str, Any] = {
        "@context": context(),
        "title": "Toy",
        "description": "A toy dataset.",
        "version": "1.0.0",
        "issued": "2026-12-01",
        "attribution": "toy",
        "counts": {
            "atlases": 1,
            "stages": 5,
            "steps": 6,
            "citations": 1,
            "sources": 1,
            "technologies": 0,
            "relations": 0,
        },
        "atlases": [
            {
                "id": "toy",
                "label": "Toy",
                "question": "How does the toy run?",
                "claims": [{"id": "atlas-toy-1", "text": "A toy.", "citations": ["c1"]}],
                "entryStage": "src",
                "dimensions": ["toy-mode", "toy-hw"],
            }
        ],
        "schemes": [
            {
                "id": "toy-mode",
                "label": "mode",
                "order": 1,
                "values": [
                    concept("toy-mode", "fast", "fast", altLabels=["quick"], order=1),
                    concept("toy-mode", "slow", "slow", summaryPhrase="slowly", order=2),
                ],
            },
            {
                "id": "toy-hw",
                "label": "device",
                "order": 2,
                "values": [
                    concept("toy-hw", "x", "X", summaryPhrase="on an X", order=1),
                    concept("toy-hw", "y", "Y device", altLabels=["why"], order=2),
                ],
            },
            {
                "id": "stage-kind",
                "label": "stage kind",
                "values": [
                    concept("stage-kind", "thing", "thing"),
                ],
            },
        ],
        "stages": [
            stage("src", "Source code", 1, py=True),
            stage("interp", "Interpreter", 2, py=True),
            stage("fastlib", "Fast library", 3),
            stage("slowlib", "Slow library", 4),
            stage("chip", "Chip", 5),
        ],
        "steps": [
            step("toy-src-interp", "src", "interp", 1, any_=("toy-mode", "toy-hw")),
            step(
                "toy-interp-fast",
                "interp",
                "fastlib",
                2,
                when=("toy-mode/fast",),
                any_=("toy-hw",),
                ends=True,
            ),
            step(
                "toy-interp-slow",
                "interp",
                "slowlib",
                3,
                when=("toy-mode/slow",),
                any_=("toy-hw",),
                ends=True,
            ),
            step("toy-fast-chip", "fastlib", "chip", 4, when=("toy-hw/x",), any_=("toy-mode",)),
            step("toy-slow-chip", "slowlib", "chip", 5, any_=("toy-mode", "toy-hw")),
            step("toy-fast-slow", "fastlib", "slowlib", 6, when=("toy-mode/fast", "toy-hw/y")),
        ],
        "citations": [
            {
                "id": "c1",
                "source": "https://example.org/doc",
                "retrievedOn": "2026-12-01T00:00:00Z",
                "support": "full",
                "selector": {"exact": "the toy runs"},
            }
        ],
        "sources": [
            {
                "id": "doc",
                "url": "https://example.org/doc",
                "title": "The toy doc",
                "retrievedOn": "2026-12-01T00:00:00Z",
                "complete": True,
                "snapshot": "doc.txt",
            }
        ],
        "technologies": [],
        "relations": [],
    }
    data.update(changes)
    return AtlasDocument.model_validate(data)
