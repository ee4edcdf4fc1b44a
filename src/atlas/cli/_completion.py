"""``atlas completion {bash,zsh,fish}``: a shell completion script, made from the parser.

The parser is read into a tree of commands (:mod:`atlas.cli._commandtree`), which
:mod:`atlas.cli._shells` writes as a script. The words are fixed when the script is made: make it
again after an upgrade. Only argparse is imported until the command runs: ``atlas path`` must
start fast.
"""

from __future__ import annotations

import argparse
import sys

from atlas.cli._args import add_command

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    from typing import Any

__all__ = ["SHELLS", "add_parsers"]

#: The shells a script is made for.
SHELLS = ("bash", "zsh", "fish")


def add_parsers(sub: Any, root: argparse.ArgumentParser) -> None:
    """Add ``completion`` to the sub-commands ``sub`` of the parser ``root``."""
    cmd = add_command(
        sub,
        "completion",
        lambda args: _cmd_completion(root, args),
        "print a shell completion script (bash, zsh or fish)",
        json_flag=False,
    )
    cmd.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    cmd.epilog = (
        "install it, e.g.:\n"
        "  bash: atlas completion bash > ~/.local/share/bash-completion/completions/atlas\n"
        "  zsh:  atlas completion zsh > ~/.zfunc/_atlas   (with fpath+=(~/.zfunc) before"
        " compinit)\n"
        "  fish: atlas completion fish > ~/.config/fish/completions/atlas.fish"
    )
    cmd.formatter_class = argparse.RawDescriptionHelpFormatter


def _cmd_completion(root: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from atlas.cli import _shells  # noqa: PLC0415
    from atlas.cli._commandtree import command_tree  # noqa: PLC0415

    sys.stdout.write(_shells.script(args.shell, command_tree(root)))
    return 0
