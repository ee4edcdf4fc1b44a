"""What a record says about the model beyond the steps: its graphs, breaks and where Python ended.

Each captured graph gets its output module and the calls it makes (the kernels Inductor
generated, with the aten operators they fuse, and the calls it left to ATen or vendor
libraries); each graph break its reason and user code location from Dynamo's log; and the mode
a few sentences on where Python's part ended for this model, drawn from that evidence only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from atlas._witness import _parse_graphs as graphs_text
from atlas._witness import parse
from atlas._witness._report_text import operations
from atlas._witness._run_view import clip, listing
from atlas.models._witness import CapturedGraphSummary, GraphBreak, KernelCall

if TYPE_CHECKING:
    from atlas._witness._run_view import RunView
    from atlas.models._raw import CapturedGraph, ModeRun

__all__ = ["graph_breaks", "graph_summaries", "python_ends"]


def _kind(name: str) -> Literal["C++", "Triton", "library"]:
    if name.startswith("cpp_"):
        return "C++"
    if name.startswith("triton_"):
        return "Triton"
    return "library"


def _calls(code: str, graph: CapturedGraph) -> tuple[KernelCall, ...]:
    uses = graphs_text.kernel_uses(code)
    known = {o.removeprefix("aten.") for u in uses for o in u.origins}
    known |= {op.removeprefix("aten.").split(".")[0] for op in graph.ops}
    calls = []
    for use in uses:
        ops = use.origins
        if not ops and _kind(use.callee) != "library":
            ops = tuple(f"aten.{op}" for op in graphs_text.fused_ops(use.callee, known))
        calls.append(KernelCall(name=use.callee, kind=_kind(use.callee), ops=ops))
    return tuple(calls)


def graph_summaries(view: RunView) -> tuple[CapturedGraphSummary, ...]:
    """Each graph Dynamo captured, with its output module and what that module calls."""
    texts = {a.path: a.text or "" for a in view.run.artifacts}
    summaries = []
    for graph in view.run.graphs:
        module = next((p for p in graph.written if parse.is_wrapper_module(texts.get(p, ""))), None)
        summaries.append(
            CapturedGraphSummary(
                compile_id=graph.compile_id,
                ops=graph.ops,
                output_module=module,
                calls=_calls(texts[module], graph) if module else (),
                compile_s=graph.compile_s,
            )
        )
    return tuple(summaries)


def graph_breaks(run: ModeRun) -> tuple[GraphBreak, ...]:
    """The graph breaks: from Dynamo's log (with locations) when the run kept it, else counters."""
    counted = parse.graph_breaks(run.dynamo_counters)
    reports = graphs_text.break_reports(run.graph_break_log)
    if not reports:
        return tuple(GraphBreak(reason=clip(reason), count=count) for reason, count in counted)
    found = []
    for report, logged in reports:
        count = next((c for r, c in counted if r.startswith(report.reason)), logged)
        found.append(
            GraphBreak(
                reason=clip(report.reason),
                count=count,
                location=report.location,
                function=report.function,
                code=clip(report.code) if report.code else None,
                explanation=clip(report.explanation) if report.explanation else None,
                hint=clip(report.hint) if report.hint else None,
            )
        )
    return tuple(found)


def _graph_sentence(graph: CapturedGraphSummary) -> str | None:
    if graph.output_module is None:
        return None
    kernels = [c.name for c in graph.calls if c.kind != "library"]
    library = [c.name for c in graph.calls if c.kind == "library"]
    parts = []
    if kernels:
        parts.append(
            f"{len(kernels)} generated kernel{'s' * (len(kernels) != 1)} ({listing(kernels)})"
        )
    if library:
        parts.append(f"{len(library)} library call{'s' * (len(library) != 1)} ({listing(library)})")
    calls = " and ".join(parts) or "no kernel"
    return (
        f"Graph {graph.compile_id} ({operations(len(graph.ops))}) no longer ran as Python calls: "
        f"Inductor's output module for it calls {calls}."
    )


def _break_sentence(item: GraphBreak, *, resumed: bool) -> str:
    where = item.location or "a place the log does not name"
    inside = f" in {item.function}" if item.function else ""
    code = f": `{item.code}`" if item.code else ""
    after = ", and Dynamo captured the code after it as another graph" if resumed else ""
    return (
        f"At {where}{inside}{code}, Dynamo broke the graph ({item.reason}): that code ran in "
        f"CPython as ordinary Python{after}."
    )


def python_ends(
    run: ModeRun, graphs: tuple[CapturedGraphSummary, ...], breaks: tuple[GraphBreak, ...]
) -> tuple[str, ...]:
    """Where Python's part ended for this model in this mode, from the run's evidence."""
    if run.mode == "eager":
        if not run.dispatched:
            return ()
        total = sum(op.count for op in run.dispatched)
        sentence = (
            "Python's part did not end: the model's code ran as Python, and each of its "
            f"{total} aten operator calls was made from Python, one at a time (seen by the "
            "dispatch mode)."
        )
        return (sentence,)
    if run.error is not None:
        return ()
    if run.mode == "aotinductor":
        return _aoti_sentences(run, graphs)
    sentences = [s for g in graphs if (s := _graph_sentence(g))]
    resumed = bool(run.dynamo_counters.get("resumes"))
    sentences += [_break_sentence(b, resumed=resumed) for b in breaks]
    return tuple(sentences)


def _aoti_sentences(run: ModeRun, graphs: tuple[CapturedGraphSummary, ...]) -> tuple[str, ...]:
    """Under AOTInductor: Python ran the model only under torch.export; calls go to the package."""
    exported = next((g for g in graphs if g.compile_id == "export"), None)
    if exported is None or run.dynamo_counters.get("frames", {}).get("total", 0):
        return ()
    sentence = (
        f"The model's Python code ran only ahead of time, when torch.export traced it into "
        f"{operations(len(exported.ops))}; each call of the loaded package then hands its "
        "inputs to the package's compiled C++, which runs the whole graph (Dynamo evaluated "
        "no frame)."
    )
    return (sentence,)
