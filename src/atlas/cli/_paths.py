"""The commands that read the atlas: ``path``, ``atlases``, ``values``, ``stage(s)``, ``step(s)``.

``atlas path`` takes its selection as values in order, a phrase, ``dimension=value`` words or an
option per dimension (``_selection`` adds those, from the data, only when ``atlas path`` runs).
``atlas path MODE DEVICE`` (or any selection in words) with the default branches is answered
from the shipped path table (``atlas.query._pathtable``, standard library only) without loading
the models; the others, and the other formats and ``--brief`` (``_formats``), load them.
Nothing heavy is imported here before a command runs.
"""

from __future__ import annotations

import sys

from atlas.cli import _formats, _selection
from atlas.cli._args import add_command
from atlas.cli._output import dump, print_json

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any, TypeVar

    from atlas.query._retired import RetiredIdWarning

    _T = TypeVar("_T")

__all__ = ["add_parsers"]


def add_parsers(sub: Any) -> None:
    """Add ``path``, ``atlases``, ``values``, ``stages``, ``steps``, ``stage`` and ``step``."""
    cmd = add_command(
        sub,
        "path",
        _cmd_path,
        "print the journey of one selection (a mode and device, a device and offload...), step "
        "by step",
    )
    cmd.add_argument(
        "values",
        nargs="*",
        metavar="WORD",
        help="the selection: one value per dimension in order (PyTorch: MODE DEVICE, e.g. "
        "compile gpu; llama.cpp: DEVICE OFFLOAD), a phrase ('eager on CPU'), or DIMENSION=VALUE",
    )
    cmd.add_argument(
        "--atlas",
        default=None,
        help="the atlas, by id or label (default: the one the words name or whose values they are)",
    )
    cmd.add_argument(
        "--graph-breaks",
        action="store_true",
        help="torch.compile only: add the code TorchDynamo cannot trace, which runs in normal "
        "Python between compiled graphs (the same as --branch 'graph breaks')",
    )
    cmd.add_argument(
        "--branch",
        action="append",
        default=[],
        metavar="NAME",
        help="add a branch the default path leaves out (repeatable)",
    )
    _formats.add_arguments(cmd)
    _selection.add_later(cmd)

    add_command(sub, "atlases", _cmd_atlases, "list the atlases and their dimensions")
    cmd = add_command(
        sub, "values", _cmd_values, "list each dimension's values, with their aliases"
    )
    cmd.add_argument("atlas", nargs="?", default=None, help="only this atlas (id or label)")

    for name, handler, text in (
        ("stages", _cmd_stages, "list the stages"),
        ("steps", _cmd_steps, "list the steps with their conditions"),
    ):
        cmd = add_command(sub, name, handler, text)
        cmd.add_argument("--atlas", default=None, help="only this atlas")

    cmd = add_command(sub, "stage", _cmd_stage, "describe one stage, with its sources")
    cmd.add_argument(
        "id",
        help="the stage's id, label or alias, case-insensitively: torchdynamo, Dynamo (a retired "
        "id shows the stage that replaces it, with a notice on stderr)",
    )
    cmd = add_command(sub, "step", _cmd_step, "describe one step, with its sources")
    cmd.add_argument(
        "id",
        help="the step's id, e.g. pytorch-cpython-intercepted-by-dynamo (a retired id shows the "
        "step that replaces it, with a notice on stderr)",
    )


def _cmd_path(args: argparse.Namespace) -> int:
    from atlas.query import _pathtable  # noqa: PLC0415 - standard library only

    branches = tuple(args.branch) + (("graph breaks",) if args.graph_breaks else ())
    named: dict[str, Any] = _selection.named(args)  # Any: path() takes them as **kwargs
    form = _formats.chosen(args)
    if form in ("text", "json") and not args.brief and not branches:  # the table's paths
        files = _selection.shipped()  # none: the models answer
        if form == "text":
            text = files and _pathtable.lookup(args.values, args.atlas, *files, named)
            if text:
                sys.stdout.write(text)
                return 0
        elif files and (data := _pathtable.lookup_json(args.values, args.atlas, *files, named)):
            print_json(data)
            return 0
    from atlas.query import paths as query  # noqa: PLC0415

    result = query.path(*args.values, atlas=args.atlas, branches=branches, **named)
    _formats.print_path(result, form, brief=args.brief)
    return 0


def _cmd_atlases(args: argparse.Namespace) -> int:
    from atlas.query import paths as query  # noqa: PLC0415

    found = query.atlases()
    if args.json:
        print_json(dump(found))
        return 0
    schemes = query.index().schemes
    rows = [
        (a.id, a.label, ", ".join(schemes[d].label for d in a.dimensions) or "(no paths)")
        for a in found
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    for atlas_id, label, dimensions in rows:
        print(f"{atlas_id:<{widths[0]}}  {label:<{widths[1]}}  {dimensions}")
    return 0


def _cmd_values(args: argparse.Namespace) -> int:
    from atlas.query import paths as query  # noqa: PLC0415

    found = query.values(args.atlas)
    if args.json:
        print_json({atlas: dump(schemes) for atlas, schemes in found.items()})
        return 0
    for number, (atlas_id, schemes) in enumerate(found.items()):
        atlas = query.get(atlas_id)
        order = " ".join(s.label.upper().replace(" ", "_") for s in schemes) or "(no paths)"
        if number:
            print()
        print(f"{atlas.label} ({atlas.id}): {order}")
        for scheme in schemes:
            print(f"  {scheme.label}")
            width = max(len(v.label) for v in scheme.values)
            for value in scheme.values:
                also = f"  also: {', '.join(value.alt_labels)}" if value.alt_labels else ""
                print(f"    {value.label:<{width}}{also}".rstrip())
    return 0


def _cmd_stages(args: argparse.Namespace) -> int:
    from atlas.query import paths as query  # noqa: PLC0415

    found = query.stages(args.atlas)
    if args.json:
        print_json(dump(found))
        return 0
    width = max((len(s.id) for s in found), default=0)
    for stage in found:
        print(f"{stage.id:<{width}}  {stage.label} ({stage.kind.split('/', 1)[1]})")
    return 0


def _cmd_steps(args: argparse.Namespace) -> int:
    from atlas.query import paths as query  # noqa: PLC0415

    index = query.index()
    found = query.steps(args.atlas)
    if args.json:
        print_json(dump(found))
        return 0
    for step in found:
        when = ", ".join(
            [*(v.split("/", 1)[1] for v in step.when), *(f"any {d}" for d in step.when_any)]
        )
        print(
            f"{step.id}\n  {index.stage(step.from_stage).label} \u2014 {step.verb} \u2192 "
            f"{index.stage(step.to_stage).label}  [{when}]"
        )
    return 0


def _cmd_stage(args: argparse.Namespace) -> int:
    from atlas.query import paths as query  # noqa: PLC0415

    index = query.index()
    stage = _resolved(query.stage, args.id)
    if args.json:
        print_json(dump(stage))
        return 0
    print(f"{stage.label} ({stage.id})")
    print(f"kind: {stage.kind.split('/', 1)[1]}")
    if stage.technology:
        print(f"technology: {index.technologies[stage.technology].label}")
    print(f"atlases: {', '.join(stage.atlases)}")
    print(f"runs in the Python interpreter: {'yes' if stage.executes_in_python else 'no'}")
    if stage.deprecated:  # retired with no live replacement: shown as it was
        print("retired; no live replacement")
    print()
    print(stage.description)
    for item in index.evidence(stage.citations):
        print()
        print(f"Source: {item}")
    return 0


def _cmd_step(args: argparse.Namespace) -> int:
    from atlas.query import paths as query  # noqa: PLC0415

    index = query.index()
    step = _resolved(query.step, args.id)
    if args.json:
        print_json(dump(step))
        return 0
    when = [index.concept(v).label for v in step.when]
    when += [f"any {index.schemes[d].label}" for d in step.when_any]
    print(step.id)
    print(
        f"{index.stage(step.from_stage).label} \u2014 {step.verb} \u2192 "
        f"{index.stage(step.to_stage).label}"
    )
    print(f"atlas: {step.atlas}")
    print(f"applies under: {', '.join(when) or 'any values'}")
    if step.branch:
        print(f"only with the branch: {index.concept(step.branch).label}")
    if step.ends_python:
        print("Python ends here: the model's operations stop running as Python calls")
    if step.deprecated:
        print(f"retired{f'; replaced by {step.replaced_by}' if step.replaced_by else ''}")
    print()
    print(step.what_happens)
    for item in index.evidence(step.citations):
        print()
        print(f"Source: {item}")
    return 0


def _resolved(find: Callable[[str], _T], name: str) -> _T:
    """``find(name)``; a retired id's ``DeprecationWarning`` becomes a one-line notice on stderr.

    Any other warning is issued again, as it would have been without this.
    """
    import warnings  # noqa: PLC0415

    from atlas.query._retired import RetiredIdWarning  # noqa: PLC0415

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RetiredIdWarning)
        found = find(name)
    for seen in caught:
        if isinstance(seen.message, RetiredIdWarning):
            print(_notice(seen.message), file=sys.stderr)
        else:
            warnings.warn_explicit(seen.message, seen.category, seen.filename, seen.lineno)
    return found


def _notice(warning: RetiredIdWarning) -> str:
    """The notice for a retired id: which record is shown instead of it."""
    old, new, kind = warning.old, warning.new, warning.kind
    route = f" ({' -> '.join(warning.chain)})" if len(warning.chain) > 2 else ""  # noqa: PLR2004
    if warning.replaced:
        return f"notice: {kind} {old!r} is deprecated; showing its replacement {new!r}{route}"
    if old == new:
        return f"notice: {kind} {old!r} is deprecated and names no replacement; showing it"
    return f"notice: {warning}; showing {new!r}"
