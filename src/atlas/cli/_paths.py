"""The sub-commands that read the atlas: ``path``, ``stages``, ``steps`` and ``stage``.

``atlas path MODE DEVICE`` with the default branches is answered from the shipped path table
(``atlas.query._pathtable``, standard library only) without loading the models; the others, and
``--json``, load them. Nothing heavy is imported here before a command runs.
"""

from __future__ import annotations

import sys

from atlas.cli._args import add_command
from atlas.cli._output import dump, print_json

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    import argparse
    from typing import Any

__all__ = ["add_parsers"]


def add_parsers(sub: Any) -> None:
    """Add ``path``, ``stages``, ``steps`` and ``stage`` to the sub-commands ``sub``."""
    cmd = add_command(
        sub, "path", _cmd_path, "print the journey of one mode and device, step by step"
    )
    cmd.add_argument(
        "values",
        nargs="+",
        metavar="VALUE",
        help="one value per dimension, in order (PyTorch: MODE DEVICE, e.g. compile gpu)",
    )
    cmd.add_argument("--atlas", default="pytorch", help="the atlas (default: pytorch)")
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

    for name, handler, text in (
        ("stages", _cmd_stages, "list the stages"),
        ("steps", _cmd_steps, "list the steps with their conditions"),
    ):
        cmd = add_command(sub, name, handler, text)
        cmd.add_argument("--atlas", default=None, help="only this atlas")

    cmd = add_command(sub, "stage", _cmd_stage, "describe one stage, with its sources")
    cmd.add_argument("id", help="the stage's id, e.g. torchdynamo")


def _cmd_path(args: argparse.Namespace) -> int:
    from atlas.query import _pathtable  # noqa: PLC0415 - standard library only

    branches = tuple(args.branch) + (("graph breaks",) if args.graph_breaks else ())
    if not args.json and not branches:  # the table holds the default paths
        from atlas.data import _resources  # noqa: PLC0415

        try:
            export = _resources.export_file().read_bytes()
            table = _resources.path_table_file().read_bytes()
        except OSError:
            text = None  # no table: the models answer
        else:
            text = _pathtable.lookup(args.values, args.atlas, export, table)
        if text is not None:
            sys.stdout.write(text)
            return 0
    from atlas.query import paths as query  # noqa: PLC0415

    result = query.path(*args.values, atlas=args.atlas, branches=branches)
    if args.json:
        print_json(dump(result))
    else:
        sys.stdout.write(_pathtable.render(result))
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
    stage = query.stage(args.id)
    if args.json:
        print_json(dump(stage))
        return 0
    print(f"{stage.label} ({stage.id})")
    print(f"kind: {stage.kind.split('/', 1)[1]}")
    if stage.technology:
        print(f"technology: {index.technologies[stage.technology].label}")
    print(f"atlases: {', '.join(stage.atlases)}")
    print(f"runs in the Python interpreter: {'yes' if stage.executes_in_python else 'no'}")
    print()
    print(stage.description)
    for item in index.evidence(stage.citations):
        print()
        print(f"Source: {item}")
    return 0
