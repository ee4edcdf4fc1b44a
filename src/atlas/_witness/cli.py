"""The ``atlas witness`` sub-command: run a model, print what it showed, compare with the atlas.

Register it in the main parser with ``add_parser(subparsers)``; it sets ``handler=main``.
Exit status, as every ``atlas`` command's: 0 done (and, with ``--compare``, no documented step
contradicted); 1 a documented step contradicted by evidence the run produced (``--compare``);
3 could not run or could not observe: PyTorch not installed, ``--device cuda`` without a CUDA
GPU, a ``--model`` that names no usable factory, an input that cannot be read, a run that failed
(a torch.compile that could not compile, e.g. without a C++ compiler) or a setting that hid the
evidence of documented steps (named in the output). ``-`` as ``--record`` or ``--from-raw`` is
standard input; as ``--output``, standard output (the summary then goes to standard error).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

TYPE_CHECKING = False  # spares importing typing: every ``atlas`` command builds this parser
if TYPE_CHECKING:
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
    "Run a model with the installed PyTorch, in fresh temporary caches, and record what each "
    "stage of the atlas showed: aten operators and kernels in eager mode; under torch.compile "
    "Dynamo's graphs and graph breaks (reason and place in your code), the kernels Inductor "
    "generated for each graph (C++/OpenMP or Triton, with the operators they fuse) and the "
    "calls it left to ATen or vendor libraries, and on a GPU the Triton, PTX and SASS artifacts; "
    "where Python's part ended for this model; first-call and warm-call times. The model is the "
    "witness's tiny one (Linear/GELU/LayerNorm and a deliberate graph break) or yours: "
    "--model module:function (or path/to/file.py:function) returning (model, inputs). "
    "Exit status: 0 done; 1 a documented step contradicted by the run (--compare); 3 could not "
    "run or observe (PyTorch not installed, --device cuda without a CUDA GPU, a --model that "
    "names no usable factory, an unreadable input, a failed run, a setting that hid evidence)."
)


def configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the witness options to ``parser`` and set ``handler=main``."""
    parser.add_argument(
        "--mode",
        choices=("eager", "compile", "all", "reduce-overhead", "aotinductor"),
        default="all",
        help="what to run: all is eager and compile (default); reduce-overhead "
        "(torch.compile with CUDA graphs; on a CPU it records that they were skipped) and "
        "aotinductor (torch.export, then a compiled .pt2 package loaded and called) run only "
        "when named",
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda", "auto"),
        default="auto",
        help="where to run; auto picks cuda when available (default: auto)",
    )
    parser.add_argument(
        "--model",
        metavar="MODULE:FUNCTION",
        help="the factory of the model to run (also path/to/file.py:function): called with no "
        "arguments (or device=), it returns (model, inputs), or the model alone with --inputs",
    )
    parser.add_argument(
        "--inputs",
        metavar="MODULE:FUNCTION",
        help="the factory of the model's example inputs (a tensor, a tuple or a dict)",
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
    _add_report_option(parser)
    parser.set_defaults(handler=main)
    return parser


def _add_report_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--report",
        type=Path,
        metavar="FILE",
        help="also write a report a person reads: Markdown (FILE.md) or one self-contained HTML "
        "page with a drawing of each path (FILE.html, needs the 'site' extra); with --compare, "
        "the comparison too",
    )


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``witness`` sub-command to the ``subparsers`` of the main ``atlas`` parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "witness",
        help="run a model (yours, or a tiny one) and record what each stage of the atlas showed",
        description=_DESCRIPTION,
    )
    return configure(parser)


def _mode_lines(mode: Any) -> list[str]:
    from atlas._witness._report_text import operations, seconds  # noqa: PLC0415 - when shown
    from atlas._witness._steps import mode_name  # noqa: PLC0415

    name = mode_name(mode.mode)
    times = f"first call {seconds(mode.first_call_s)}, warm call {seconds(mode.warm_call_s)}"
    lines = ["", f"{name}: {mode.duration_s:.1f} s ({times})"]
    lines += [f"  could not observe: {problem}" for problem in mode.unobservable]
    lines += [f"  {note}" for note in mode.notes]
    for observation in mode.steps:
        lines.append(f"  {observation.status:<13} {observation.step}")
        detail = observation.evidence[0].text if observation.evidence else observation.note
        if detail:
            lines.append(f"{'':16}{detail}")
    for graph in mode.graphs:
        module = f", output module {graph.output_module}" if graph.output_module else ""
        lines.append(f"  graph {graph.compile_id}: {operations(len(graph.ops))}{module}")
        for call in graph.calls:
            ops = f" ({', '.join(call.ops)})" if call.ops else ""
            lines.append(f"    {call.kind:<8} {call.name}{ops}")
    if mode.graphs and not any(g.calls for g in mode.graphs) and mode.kernels:
        lines.append(f"  kernels: {', '.join(mode.kernels)}")
    for item in mode.graph_breaks:
        where = f" at {item.location}" if item.location else ""
        inside = f" in {item.function}" if item.function else ""
        lines.append(f"  graph break{where}{inside}: {item.count} x {item.reason}")
        if item.code:
            lines.append(f"    {item.code}")
    if mode.python_ends:
        lines.append("  where Python's part ended:")
        lines += [f"    {sentence}" for sentence in mode.python_ends]
    return lines


def summary(record: Any) -> str:
    """The record as text: per mode its steps, graphs, kernels, breaks and where Python ended."""
    lines = [f"{record.title} ({record.duration_s:.1f} s)", f"record {record.id}"]
    lines.append(f"model: {record.model}")
    for mode in record.modes:
        lines += _mode_lines(mode)
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
    given = [o for o, v in (("--record", args.record), ("--from-raw", args.from_raw)) if v]
    if given and (args.model or args.inputs):
        return f"--model and --inputs run a model; {given[0]} reads a run made before"
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

    return witness(
        args.mode, args.device, raw_output=args.raw, model=args.model, inputs=args.inputs
    )


def _check_report(path: Path | None) -> int | None:
    """Exit status 2 (a suffix that names no format) or 3 (HTML without Jinja2), else None."""
    if path is None:
        return None
    from atlas._witness.report import check_report  # noqa: PLC0415
    from atlas.errors import CouldNotRunError  # noqa: PLC0415

    try:
        check_report(path)
    except CouldNotRunError as error:
        return _fail(str(error), EXIT_COULD_NOT_RUN)
    except ValueError as error:
        return _fail(f"--report: {error}", EXIT_USAGE)
    return None


def _prechecked(args: argparse.Namespace) -> int | None:
    """The exit status of options that cannot work, checked before a run; None when they can."""
    usage = _usage_error(args)
    if usage is not None:
        return _fail(usage, EXIT_USAGE)
    return _check_report(args.report)


def _write_report(path: Path | None, record: Any, comparisons: Any, status: int) -> int:
    """Write the report, if asked for (atomically): ``status``, or 3 when it cannot be written."""
    if path is None:
        return status
    from atlas._witness.report import write_report  # noqa: PLC0415
    from atlas.errors import CouldNotRunError  # noqa: PLC0415

    try:
        write_report(path, record, comparisons)
    except (CouldNotRunError, OSError) as error:
        reason = getattr(error, "strerror", None) or error
        return _fail(f"cannot write the report {str(path)!r}: {reason}", EXIT_COULD_NOT_RUN)
    return status


def main(args: argparse.Namespace) -> int:
    """Run the sub-command with parsed ``args``; return the exit status."""
    from atlas._witness import files  # noqa: PLC0415 - pydantic only when used
    from atlas._witness.errors import WitnessError  # noqa: PLC0415
    from atlas.errors import CouldNotRunError  # noqa: PLC0415
    from atlas.models import _witness as records  # noqa: PLC0415

    failed = _prechecked(args)  # before a run: a bad --report wastes no time
    if failed is not None:
        return failed
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
    unobservable = [p for mode in record.modes for p in mode.unobservable]
    status = EXIT_OK
    comparisons = None
    if args.compare:
        from atlas._witness.compare import compare, format_comparisons  # noqa: PLC0415

        try:
            comparisons = compare(record)
        except (LookupError, ValueError) as error:
            return _fail(f"cannot compare with the atlas: {error}", 1)
        report.write("\n" + format_comparisons(comparisons))
        if any(c.contradicted for c in comparisons):
            status = EXIT_CONTRADICTED
    status = _write_report(args.report, record, comparisons, status)
    if unobservable:  # a run that could not look proves nothing either way
        sys.stderr.write(
            "atlas witness: the run could not observe every documented step: "
            + "; ".join(dict.fromkeys(unobservable))
            + "\n"
        )
        return EXIT_COULD_NOT_RUN
    return status
