"""Property tests of ``atlas diff``: no change with itself, exactly the change made otherwise."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atlas.data import export
from atlas.models import AtlasDocument
from atlas.publish import diff
from strategies import atlas_documents

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(atlas_documents())
def test_an_export_diffed_with_itself_is_empty(document: AtlasDocument) -> None:
    result = diff.diff(document, document)
    assert result.is_empty
    assert result.bump == "none"
    assert result.exit_code == 0


def _mutated(
    document: AtlasDocument, kind: str, pick: int
) -> tuple[AtlasDocument, tuple[str, str, str, str]]:
    """One change to ``document`` and the (kind, collection, id, level) it must be reported as."""
    data: dict[str, Any] = export.to_data(document)
    if kind == "refresh-quote" and not data["citations"]:  # every claim is flagged
        kind = "reword-stage"
    if kind == "add-stage":
        stage = {**data["stages"][pick % len(data["stages"])], "id": "brand-new-stage"}
        data["stages"].append(stage)
        expected = ("added", "stages", "brand-new-stage", "minor")
    elif kind == "remove-step":
        step = data["steps"].pop(pick % len(data["steps"]))
        for other in data["steps"]:
            if other.get("replacedBy") == step["id"]:
                other.pop("replacedBy")
        violation = not step.get("deprecated")
        expected = ("removed", "steps", step["id"], "major")
        assert violation or step.get("deprecated")
    elif kind == "refresh-quote":
        citation = data["citations"][pick % len(data["citations"])]
        citation["selector"] = {
            **citation["selector"],
            "exact": citation["selector"]["exact"] + "!",
        }
        expected = ("changed", "citations", citation["id"], "patch")
    elif kind == "reword-stage":
        stage = data["stages"][pick % len(data["stages"])]
        stage["claims"][0]["text"] += " More."
        for derived in ("description", "unsupportedClaims"):  # made again from the claims
            stage.pop(derived, None)
        expected = ("changed", "stages", stage["id"], "minor")
    else:  # deprecate-step
        live = [s for s in data["steps"] if not s.get("deprecated")]
        step = live[pick % len(live)]
        step["deprecated"] = True
        expected = ("deprecated", "steps", step["id"], "minor")
    return AtlasDocument.model_validate(data), expected


@SETTINGS
@given(
    atlas_documents(),
    st.sampled_from(
        ["add-stage", "remove-step", "refresh-quote", "reword-stage", "deprecate-step"]
    ),
    st.integers(0, 20),
)
def test_a_generated_change_is_reported_exactly(
    document: AtlasDocument, kind: str, pick: int
) -> None:
    changed, expected = _mutated(document, kind, pick)
    result = diff.diff(document, changed)
    if kind == "remove-step" and any(
        s.replaced_by == expected[2] for s in document.steps
    ):  # the step that pointed to it changed too
        assert expected in {(c.kind, c.collection, c.id, c.level) for c in result.changes}
        return
    assert [(c.kind, c.collection, c.id, c.level) for c in result.changes] == [expected]
    assert result.bump == expected[3]
    removed_live = (
        kind == "remove-step"
        and not next(s for s in document.steps if s.id == expected[2]).deprecated
    )
    assert result.exit_code == (1 if removed_live else 0)
