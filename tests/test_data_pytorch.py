"""Data tests: walk every record of the shipped dataset and say exactly what to fix."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path

import pytest

import atlas
from atlas.models import AtlasDocument  # noqa: TC001 - pytest resolves fixture annotations

SOURCES = Path(__file__).resolve().parents[1].parent / "shared" / "sources"


@pytest.fixture(scope="module")
def document() -> AtlasDocument:
    return atlas.load()


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_ids_are_unique(document: AtlasDocument) -> None:
    for key in ("atlases", "stages", "steps", "citations", "sources", "technologies", "relations"):
        counts = Counter(item.id for item in getattr(document, key))
        dups = sorted(i for i, n in counts.items() if n > 1)
        assert not dups, f"duplicate {key} ids {dups}: give each record its own id"


def test_every_step_has_existing_endpoints_in_its_atlas(document: AtlasDocument) -> None:
    stages = {s.id: s for s in document.stages}
    for step in document.steps:
        for end in (step.from_stage, step.to_stage):
            assert end in stages, f"step {step.id!r}: stage {end!r} does not exist; declare it"
            assert step.atlas in stages[end].atlases, (
                f"step {step.id!r}: stage {end!r} is not part of atlas {step.atlas!r}; "
                f"add dcterms:isPartOf atlas:{step.atlas}"
            )


def test_every_step_and_relation_is_backed_claim_by_claim(document: AtlasDocument) -> None:
    citations = {c.id for c in document.citations}
    for record in (*document.steps, *document.relations):
        assert record.claims, f"{record.id!r} has no claims: its text is made of them"
        # a step or relation is a cited hand-over: some of its sentences are cited or observed;
        # the others are flagged, never silently unsupported
        assert any(c.citations or c.observed_in for c in record.claims), record.id
        for claim in record.claims:
            assert claim.citations or claim.observed_in or claim.unsupported, claim.id
            missing = [c for c in claim.citations if c not in citations]
            assert not missing, f"{claim.id!r} cites unknown citations {missing}"


def test_every_citation_is_well_formed(document: AtlasDocument) -> None:
    sources = {s.url for s in document.sources}
    now = dt.datetime.now(dt.UTC)
    for citation in document.citations:
        assert _norm(citation.quote), f"citation {citation.id!r}: the quote is empty"
        assert citation.source.startswith("https://"), (
            f"citation {citation.id!r}: source {citation.source!r} must be an https URL"
        )
        assert citation.source in sources, (
            f"citation {citation.id!r}: source <{citation.source}> is not in sources.ttl"
        )
        assert citation.retrieved_on <= now, (
            f"citation {citation.id!r}: check date {citation.retrieved_on} is in the future"
        )
        if citation.support == "partial":
            assert citation.support_note, (
                f"citation {citation.id!r} is partial: say what it leaves out (ea:supportNote)"
            )


@pytest.mark.skipif(not SOURCES.is_dir(), reason=f"source snapshots not found at {SOURCES}")
def test_every_quote_is_verbatim_in_its_snapshot(document: AtlasDocument) -> None:
    # the rule of the snapshots' README: whitespace collapsed, inline markup read as a page shows it
    from atlas.data._quotes import Haystack  # noqa: PLC0415

    by_url = {s.url: s for s in document.sources}
    texts: dict[str, Haystack] = {}
    wrong = []
    for citation in document.citations:
        source = by_url[citation.source]
        if source.snapshot not in texts:
            text = (SOURCES / source.snapshot).read_text(encoding="utf-8")
            texts[source.snapshot] = Haystack(text)
        if not texts[source.snapshot].finds(citation.quote):
            wrong.append(f"{citation.id} (not in {source.snapshot}): {citation.quote[:70]!r}")
    assert not wrong, "quotes not verbatim in their snapshot; copy them again:\n" + "\n".join(wrong)


@pytest.mark.skipif(not SOURCES.is_dir(), reason=f"source snapshots not found at {SOURCES}")
def test_sources_match_the_manifest(document: AtlasDocument) -> None:
    manifest = {m["id"]: m for m in json.loads((SOURCES / "manifest.json").read_text("utf-8"))}
    for source in document.sources:
        entry = manifest.get(source.id)
        assert entry is not None, f"source {source.id!r} is not in the manifest"
        assert source.url == entry["url"], f"source {source.id!r}: cite the manifest's URL"
        assert source.snapshot == entry["file"], f"source {source.id!r}: snapshot file differs"


def test_every_stage_is_described_and_kinded(document: AtlasDocument) -> None:
    kinds = {c.id for s in document.schemes if s.id == "stage-kind" for c in s.values}
    technologies = {t.id for t in document.technologies}
    for stage in document.stages:
        assert stage.kind in kinds, f"stage {stage.id!r}: kind {stage.kind!r} is not a stage kind"
        assert len(stage.description.split(". ")) >= 2 or len(stage.description) > 80, (
            f"stage {stage.id!r}: describe it in two or three sentences"
        )
        if stage.technology is not None:
            assert stage.technology in technologies, f"stage {stage.id!r}: unknown technology"


def test_the_pytorch_atlas_has_the_specified_shape(document: AtlasDocument) -> None:
    """The issue that created the atlas fixed its 16 stages, 19 steps and four paths; issue 24
    added 10 stages (9 new, and the AMD GPU shared with llama.cpp) and 24 steps for
    reduce-overhead, AOTInductor and AMD GPUs, and the four paths of the page keep their counts."""
    pytorch = [s for s in document.stages if "pytorch" in s.atlases]
    assert len(pytorch) == 16 + 10
    # the steps on the default paths; the graph-break branch adds its own, off by default
    assert len([s for s in document.steps if s.atlas == "pytorch" and s.branch is None]) == 19 + 24
    expected = {
        ("eager", "cpu"): (5, 4),
        ("eager", "gpu"): (5, 4),
        ("compile", "cpu"): (8, 8),
        ("compile", "gpu"): (12, 12),
    }
    for (mode, device), (n_stages, n_steps) in expected.items():
        path = atlas.path(mode, device)
        assert (len(path.stages), len(path.steps)) == (n_stages, n_steps), path.summary
    assert str(atlas.path("torch.compile", "NVIDIA GPU")) == (
        "torch.compile on an NVIDIA GPU: 12 stages, 12 steps"
    )


def test_python_hands_over_where_the_data_says(document: AtlasDocument) -> None:
    # the page: in eager mode Python's part ends at each operation's call into ATen; under
    # torch.compile it ends earlier, where TorchDynamo captures the operations
    for device in ("cpu", "gpu"):
        eager = atlas.path("eager", device)
        assert [j.id for j in eager.python_ends] == ["pytorch-cpython-calls-aten-dispatch"]
        compiled = atlas.path("compile", device)
        assert [j.id for j in compiled.python_ends] == ["pytorch-cpython-intercepted-by-dynamo"]
        assert compiled.python_ends[0].to_stage.id == "torchdynamo"


def test_the_graph_break_branch_is_off_by_default_and_for_torch_compile_only() -> None:
    """The page: code Dynamo cannot trace runs in normal Python, through ATen dispatch."""
    for device, (n_stages, n_steps) in (("cpu", (9, 10)), ("gpu", (13, 14))):
        plain = atlas.path("compile", device)
        broken = atlas.path("compile", device, graph_breaks=True)
        assert (len(broken.stages), len(broken.steps)) == (n_stages, n_steps), broken.summary
        assert broken.summary.split(":")[0].endswith(" with graph breaks")
        added = {j.id for j in broken.steps} - {j.id for j in plain.steps}
        assert "pytorch-graph-break-code-calls-aten-dispatch" in added
        assert "aten-dispatch" in {s.id for s in broken.stages}
        assert "aten-dispatch" not in {s.id for s in plain.stages}
        # Python ends at Dynamo's capture, and at the dispatch of the code left to Python
        assert [j.id for j in broken.python_ends] == [
            "pytorch-cpython-intercepted-by-dynamo",
            "pytorch-graph-break-code-calls-aten-dispatch",
        ]
        # the witness runs saw that code go through the dispatcher
        observed = [
            c for j in broken.steps if j.id in added for c in j.step.claims if c.observed_in
        ]
        assert observed, added
        with pytest.raises(
            atlas.errors.BranchNotApplicableError, match=r"torch\.compile or reduce-overhead only"
        ):
            atlas.path("eager", device, graph_breaks=True)
