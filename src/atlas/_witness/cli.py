"""The ``atlas witness`` sub-command: run the tiny model, print what it showed, compare.

Register it in the main parser with ``add_parser(subparsers)``; it sets ``handler=main``.
Exit status: 0 done, 1 a documented step contradicted by the run (``--compare``) or a failed
run, 2 PyTorch not installed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "EXIT_CONTRADICTED",
    "EXIT_NO_TORCH",
    "EXIT_OK",
    "add_parser",
    "configure",
    "main",
    "summary",
]

EXIT_OK = 0
EXIT_CONTRADICTED = 1
EXIT_NO_TORCH = 2

_DESCRIPTION = (
    "Run a tiny model (Linear/GELU/LayerNorm and a deliberate graph break) with the installed "
    "PyTorch, in fresh temporary caches, and record what each stage showed: aten operators and "
    "kernels in eager mode; Dynamo's graphs and graph breaks, Inductor's generated C++/OpenMP or "
    "Triton code, and on a GPU the Triton, PTX and SASS artifacts under torch.compile. "
    "Exit status: 0 done; 1 a documented step contradicted by the run (--compare) or a failed "
    "run; 2 PyTorch is not installed."
)


def configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the witness options to ``parser`` and set ``handler=main``."""
    parser.add_argument(
        "--mode",
        choices=("eager", "compile", "all"),
        default="all",
        help="what to run (default: all)",
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda", "auto"),
        default="auto",
        help="where to run; auto picks cuda when available (default: auto)",
    )
    parser.add_argument(
        "--output",
        "-o",
        type=Path,
        metavar="FILE",
        help="write the record to FILE: JSON, or TriG when FILE ends in .trig",
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="compare each step with atlas.path(mode, device); exit 1 on a contradiction",
    )
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="read a recorded witness (JSON) instead of running PyTorch",
    )
    parser.add_argument(
        "--from-raw",
        type=Path,
        metavar="FILE",
        help="analyse a raw run saved with --raw instead of running PyTorch",
    )
    parser.add_argument(
        "--raw",
        type=Path,
        metavar="FILE",
        help="also save the collector's raw output (JSON), e.g. for test fixtures",
    )
    parser.set_defaults(handler=main)
    return parser


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``witness`` sub-command to the ``subparsers`` of the main ``atlas`` parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "witness",
        help="run a tiny model and record what each stage of the atlas showed",
        description=_DESCRIPTION,
    )
    return configure(parser)


def summary(record: Any) -> str:
    """The record as a few lines of text: one line per step of each mode."""
    lines = [f"{record.title} ({record.duration_s:.1f} s)", f"record {record.id}"]
    for mode in record.modes:
        lines.append("")
        lines.append(f"{mode.mode}: {mode.duration_s:.1f} s")
        if mode.error:
            lines.append(f"  problem: {mode.error}")
        for observation in mode.steps:
            lines.append(f"  {observation.status:<13} {observation.step}")
            detail = observation.evidence[0].text if observation.evidence else observation.note
            if detail:
                lines.append(f"{'':16}{detail}")
        if mode.graphs:
            lines.append(
                f"  graphs: {len(mode.graphs)}; kernels: {', '.join(mode.kernels) or 'none'}"
            )
        lines.extend(f"  graph break: {b.count} x {b.reason}" for b in mode.graph_breaks)
    return "\n".join(lines) + "\n"


def _fail(message: str, status: int) -> int:
    sys.stderr.write(f"atlas witness: error: {message}\n")
    return status


def main(args: argparse.Namespace) -> int:
    """Run the sub-command with parsed ``args``; return the exit status."""
    from atlas._witness import files  # noqa: PLC0415 - pydantic only when used
    from atlas._witness.errors import TorchNotInstalledError, WitnessError  # noqa: PLC0415
    from atlas.models import _witness as records  # noqa: PLC0415

    try:
        if args.record is not None:
            record = files.load_record(args.record)
        elif args.from_raw is not None:
            from atlas._witness.observe import build_record  # noqa: PLC0415
            from atlas.models._raw import RawRun  # noqa: PLC0415

            raw_text = args.from_raw.read_text(encoding="utf-8")
            record = build_record(RawRun.model_validate_json(raw_text))
        else:
            from atlas._witness import witness  # noqa: PLC0415

            record = witness(args.mode, args.device, raw_output=args.raw)
    except TorchNotInstalledError as error:
        return _fail(str(error), EXIT_NO_TORCH)
    except (WitnessError, OSError, ValueError) as error:
        return _fail(str(error), 1)
    if args.output is not None:
        text = files.to_trig(record) if args.output.suffix == ".trig" else records.dump_json(record)
        files.write_atomic(args.output, text)
    sys.stdout.write(summary(record))
    if not args.compare:
        return EXIT_OK
    from atlas._witness.compare import compare, format_comparisons  # noqa: PLC0415

    try:
        comparisons = compare(record)
    except (LookupError, ValueError) as error:
        return _fail(f"cannot compare with the atlas: {error}", 1)
    sys.stdout.write("\n" + format_comparisons(comparisons))
    return EXIT_CONTRADICTED if any(c.contradicted for c in comparisons) else EXIT_OK
