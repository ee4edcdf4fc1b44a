"""The ``atlas witness`` sub-command: run the tiny model, print what it showed, compare.

Register it in the main parser with ``add_parser(subparsers)``; it sets ``handler=main``.
Exit status, as every ``atlas`` command's: 0 done, 1 a documented step contradicted by the run
(``--compare``) or a failed run, 3 could not run here (PyTorch not installed, ``--device cuda``
without a CUDA GPU, an input that cannot be read). ``-`` as ``--record`` or ``--from-raw`` is
standard input; as ``--output``, standard output (the summary then goes to standard error).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "EXIT_CONTRADICTED",
    "EXIT_COULD_NOT_RUN",
    "EXIT_NO_TORCH",
    "EXIT_OK",
    "add_parser",
    "configure",
    "main",
    "summary",
]

EXIT_OK = 0
EXIT_CONTRADICTED = 1
EXIT_USAGE = 2
EXIT_COULD_NOT_RUN = 3
EXIT_NO_TORCH = EXIT_COULD_NOT_RUN  # PyTorch not installed: the witness could not run here
_STDIO = Path("-")  # as a file: standard input (or output)

_DESCRIPTION = (
    "Run a tiny model (Linear/GELU/LayerNorm and a deliberate graph break) with the installed "
    "PyTorch, in fresh temporary caches, and record what each stage showed: aten operators and "
    "kernels in eager mode; Dynamo's graphs and graph breaks, Inductor's generated C++/OpenMP or "
    "Triton code, and on a GPU the Triton, PTX and SASS artifacts under torch.compile. "
    "Exit status: 0 done; 1 a documented step contradicted by the run (--compare) or a failed "
    "run; 3 could not run here (PyTorch is not installed, --device cuda without a CUDA GPU, an "
    "input that cannot be read)."
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
        help="write the record to FILE: JSON, or TriG when FILE ends in .trig"
        " ('-': JSON on standard output, and the summary on standard error)",
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
        help="read a recorded witness (JSON; '-': standard input) instead of running PyTorch",
    )
    parser.add_argument(
        "--from-raw",
        type=Path,
        metavar="FILE",
        help="analyse a raw run saved with --raw ('-': standard input) instead of running PyTorch",
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
    one_line = " ".join(message.splitlines())  # pydantic's errors take several lines
    sys.stderr.write(f"atlas witness: error: {one_line}\n")
    return status


def _read(path: Path, option: str) -> str:
    """The text of the input ``path`` of ``option`` (``-``: standard input).

    Raises:
        CouldNotRunError: it cannot be read (missing, a folder, no permission), named.
        UnicodeDecodeError: it is not UTF-8 (a ``ValueError``).
    """
    from atlas.errors import CouldNotRunError  # noqa: PLC0415

    try:
        data = sys.stdin.buffer.read() if path == _STDIO else path.read_bytes()
    except OSError as error:
        where = "standard input" if path == _STDIO else repr(str(path))
        reason = error.strerror or error
        raise CouldNotRunError(f"cannot read {option} {where}: {reason}") from None
    return data.decode("utf-8")


def _usage_error(args: argparse.Namespace) -> str | None:
    """What is wrong with the combination of options, if anything."""
    if args.raw == _STDIO:
        return "--raw '-': the raw output is written to a file; '-' (standard output) is --output's"
    if args.record == _STDIO and args.from_raw == _STDIO:
        return "only one input can be read from standard input ('-')"
    return None


def _record(args: argparse.Namespace) -> Any:
    """The record: read (``--record``), analysed from a raw run (``--from-raw``), or run now."""
    from atlas.models import _witness as records  # noqa: PLC0415 - pydantic only when used

    if args.record is not None:
        return records.WitnessRecord.model_validate_json(_read(args.record, "--record"))
    if args.from_raw is not None:
        from atlas._witness.observe import build_record  # noqa: PLC0415
        from atlas.models._raw import RawRun  # noqa: PLC0415

        return build_record(RawRun.model_validate_json(_read(args.from_raw, "--from-raw")))
    from atlas._witness import witness  # noqa: PLC0415

    return witness(args.mode, args.device, raw_output=args.raw)


def main(args: argparse.Namespace) -> int:
    """Run the sub-command with parsed ``args``; return the exit status."""
    from atlas._witness import files  # noqa: PLC0415 - pydantic only when used
    from atlas._witness.errors import WitnessError  # noqa: PLC0415
    from atlas.errors import CouldNotRunError  # noqa: PLC0415
    from atlas.models import _witness as records  # noqa: PLC0415

    usage = _usage_error(args)
    if usage is not None:
        return _fail(usage, EXIT_USAGE)
    try:
        record = _record(args)
    except (CouldNotRunError, OSError) as error:  # OSError: writing --raw
        return _fail(str(error), EXIT_COULD_NOT_RUN)
    except (WitnessError, ValueError) as error:
        return _fail(str(error), 1)
    report = sys.stdout
    if args.output == _STDIO:
        sys.stdout.write(records.dump_json(record))
        report = sys.stderr
    elif args.output is not None:
        text = files.to_trig(record) if args.output.suffix == ".trig" else records.dump_json(record)
        files.write_atomic(args.output, text)
    report.write(summary(record))
    if not args.compare:
        return EXIT_OK
    from atlas._witness.compare import compare, format_comparisons  # noqa: PLC0415

    try:
        comparisons = compare(record)
    except (LookupError, ValueError) as error:
        return _fail(f"cannot compare with the atlas: {error}", 1)
    report.write("\n" + format_comparisons(comparisons))
    return EXIT_CONTRADICTED if any(c.contradicted for c in comparisons) else EXIT_OK
