"""The ``atlas`` command: thin sub-commands over the API. Each parses, calls and prints.

One table of exit statuses (``atlas --help`` shows it): 0 ok; 1 problems found (library errors
become one line on stderr, never a traceback); 2 wrong usage (argparse's message); 3 could not
run here (:class:`~atlas.errors.CouldNotRunError`, an ``OSError``, a missing optional extra).
Arguments that are not UTF-8 reach Python as lone surrogates: they may name files (any bytes
may), but as text (a value, an id, a query) they are refused with a message that says so. What
is printed escapes such characters, and those the terminal's encoding lacks, instead of failing.

``main`` is the entry point; the parser is built in ``_parse`` from one module per group of
sub-commands (``_paths``, ``_serve``, ``_data``, ``_site``), on ``_args`` (the parser class,
checked values) and ``_output`` (what is printed).
"""

from __future__ import annotations

import os
import sys

from atlas.cli._output import one_line, tolerate_encoding
from atlas.cli._parse import parser as _parser

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    from collections.abc import Sequence

    from atlas.cli._args import Handler

__all__ = ["main"]
_PROBLEMS, _COULD_NOT_RUN, _INTERRUPTED = 1, 3, 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``atlas`` command; returns the exit status.

    Run as the program (``argv`` left out), standard output and error escape the characters
    their encoding lacks, and ``atlas sparql`` takes the network from its own process before the
    query runs; called from Python with ``argv``, it leaves its host alone.

    Raises:
        SystemExit: for ``--help``, ``--version`` and wrong usage (status 2), as argparse does.
        ArgumentTypeError: ``argv`` is not a sequence of ``str``.
    """
    if argv is not None and (
        isinstance(argv, str | bytes) or not all(isinstance(item, str) for item in argv)
    ):
        from atlas.errors import ArgumentTypeError  # noqa: PLC0415

        raise ArgumentTypeError("argv", argv, "a sequence of str (the arguments, no program)")
    if argv is None:
        tolerate_encoding()
    args = _parser().parse_args(argv)
    args.program = argv is None
    try:
        handler: Handler = args.handler
        return handler(args)
    except BrokenPipeError:
        # The reader went away (``atlas path ... | head``): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"atlas {args.command}: interrupted", file=sys.stderr)
        return _INTERRUPTED
    except ModuleNotFoundError as error:  # an optional extra: its install command
        from atlas.cli._args import missing_extra  # noqa: PLC0415

        print(f"atlas {args.command}: error: {missing_extra(error.name or '?')}", file=sys.stderr)
        return _COULD_NOT_RUN
    except Exception as error:
        from atlas.errors import AtlasError, CouldNotRunError  # noqa: PLC0415 - when needed

        if not isinstance(error, AtlasError | OSError | UnicodeError):
            raise
        print(f"atlas {args.command}: error: {one_line(str(error))}", file=sys.stderr)
        could_not_run = isinstance(error, CouldNotRunError | OSError)
        return _COULD_NOT_RUN if could_not_run else _PROBLEMS
