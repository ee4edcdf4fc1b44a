"""The ``atlas`` command: thin sub-commands over the API. Each parses, calls and prints.

Library errors become one line on stderr and exit status 1, never a traceback; wrong usage is
argparse's message and exit status 2. Arguments that are not UTF-8 reach Python as lone
surrogates: they may name files (any bytes may), but as text (a value, an id, a query) they are
refused with a message that says so. What is printed escapes such characters instead of failing.

``main`` is the entry point; the parser is built in ``_parse`` from one module per group of
sub-commands (``_paths``, ``_serve``, ``_data``, ``_site``), on ``_args`` (the parser class,
checked values) and ``_output`` (what is printed).
"""

from __future__ import annotations

import os
import sys

from atlas.cli._output import one_line
from atlas.cli._parse import parser as _parser

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    from collections.abc import Sequence

    from atlas.cli._args import Handler

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``atlas`` command; returns the exit status.

    Run as the program (``argv`` left out), ``atlas sparql`` takes the network from its own
    process before the query runs; called from Python with ``argv``, it leaves its host alone.

    Raises:
        SystemExit: for ``--help``, ``--version`` and wrong usage (status 2), as argparse does.
        ArgumentTypeError: ``argv`` is not a sequence of ``str``.
    """
    if argv is not None and (
        isinstance(argv, str | bytes) or not all(isinstance(item, str) for item in argv)
    ):
        from atlas.errors import ArgumentTypeError  # noqa: PLC0415

        raise ArgumentTypeError("argv", argv, "a sequence of str (the arguments, no program)")
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
        return 130
    except Exception as error:
        from atlas.errors import AtlasError, CouldNotRunError  # noqa: PLC0415 - when needed

        if not isinstance(error, AtlasError | OSError | UnicodeError):
            raise
        print(f"atlas {args.command}: error: {one_line(str(error))}", file=sys.stderr)
        return 3 if isinstance(error, CouldNotRunError) else 1
