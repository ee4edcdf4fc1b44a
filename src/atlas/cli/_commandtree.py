"""The tree of the ``atlas`` command that completion scripts are made from, read from its parser.

Per command: its sub-commands, its options (flags, a one-line description, the values each takes:
argparse ``choices``, or files or folders by the option's type) and the words of its arguments;
the shipped data adds the atlases' ids and, for ``atlas path``, the names of the dimensions'
values. Standard library only.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field

from atlas.cli._args import file, file_path, folder

__all__ = ["Command", "Option", "command_tree"]

_WORD = re.compile(r"[A-Za-z0-9_.:/+@%,=-]+")  # a word every shell takes unquoted in a list
_HELP_CHARS = 72  # a description is cut to this many characters


@dataclass(frozen=True)
class Option:
    """An option: its flags, a description, and what its value is (none for a flag).

    ``files`` is ``file`` or ``folder`` when the value names one, else ``""``.
    """

    flags: tuple[str, ...]
    help: str
    takes_value: bool = False
    values: tuple[str, ...] = ()
    files: str = ""


@dataclass
class Command:
    """A command: its options, sub-commands, and the words its arguments may be."""

    name: str
    help: str = ""
    options: list[Option] = field(default_factory=list)
    commands: dict[str, Command] = field(default_factory=dict)
    words: tuple[str, ...] = ()
    files: str = ""

    def walk(self, key: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Command]]:
        """Every command under this one (itself first), each with its key: the names to it."""
        found = [(key, self)]
        for name, command in self.commands.items():
            found.extend(command.walk((*key, name)))
        return found


def command_tree(parser: argparse.ArgumentParser) -> Command:
    """The completion tree of ``parser``, with the words the shipped data gives.

    ``atlas path`` completes the one-word names of the dimensions' values (as words and after
    ``--mode``, ``--device``...), and every ``--atlas`` (and ``atlas values``) the atlases' ids.
    """
    tree = _tree(parser, "atlas", "")
    _add_data_words(tree)
    return tree


def _tree(parser: argparse.ArgumentParser, name: str, text: str) -> Command:
    parser.format_usage()  # adds the options an atlas.cli._args.Parser leaves for later
    command = Command(name, text)
    for action in parser._actions:  # noqa: SLF001 - argparse offers no public walk
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            helps = {a.dest: a.help or "" for a in action._choices_actions}  # noqa: SLF001
            for sub_name, sub in action.choices.items():
                command.commands[sub_name] = _tree(sub, sub_name, _short(helps.get(sub_name)))
        elif action.option_strings:
            command.options.append(_option(action))
        else:
            command.words += _words(action.choices)
            command.files = command.files or _files(action)
    return command


def _option(action: argparse.Action) -> Option:
    return Option(
        tuple(action.option_strings),
        _short(action.help),
        action.nargs != 0,
        _words(action.choices),
        _files(action),
    )


def _short(text: str | None) -> str:
    """A help text as a one-line description: argparse's ``%`` markup out, cut when long."""
    if not text or text == argparse.SUPPRESS:
        return ""
    line = " ".join(re.sub(r"%\([a-z_]+\)s", "", text).replace("%%", "%").split())
    return line if len(line) <= _HELP_CHARS else line[: _HELP_CHARS - 3].rstrip() + "..."


def _words(choices: object) -> tuple[str, ...]:
    """The choices that every shell can list unquoted (argparse's ``choices``, or none)."""
    if not isinstance(choices, list | tuple | dict):
        return ()
    return tuple(str(c) for c in choices if _WORD.fullmatch(str(c)))


def _files(action: argparse.Action) -> str:
    """``file`` or ``folder`` when the value of ``action`` names one, else ``""``."""
    if action.type is folder:
        return "folder"
    if action.type in (file, file_path) or action.metavar in ("FILE", "PATH"):
        return "file"
    return ""


def _add_data_words(tree: Command) -> None:
    """Add the words of the shipped data: atlas ids, and ``atlas path``'s dimension values."""
    from atlas.cli._selection import _vocabulary  # noqa: PLC0415

    vocabulary = _vocabulary()
    if vocabulary is None:
        return  # the data cannot be read: complete without its words
    every: dict[str, None] = {}
    by_option: dict[str, dict[str, None]] = {"--atlas": dict.fromkeys(vocabulary.ids)}
    for atlas in vocabulary.atlases:
        for name, keys, values in zip(atlas.names, atlas.keys, atlas.values, strict=True):
            found = dict.fromkeys(  # the value's one-word names, not its IRI-like id
                k for v, _ in values for k in keys if keys[k] == v and _WORD.fullmatch(k)
            )
            every.update((k, None) for k in found if "/" not in k)
            option = "--" + "-".join(name.casefold().split())
            by_option.setdefault(option, {}).update((k, None) for k in found if "/" not in k)
    for key, command in tree.walk():
        if key == ("path",):
            command.words = tuple(every)
        elif key == ("values",):
            command.words = tuple(vocabulary.ids)
        shown = by_option if key == ("path",) else {"--atlas": by_option["--atlas"]}
        command.options = [
            Option(o.flags, o.help, True, tuple(shown[o.flags[0]]), o.files)  # noqa: FBT003
            if o.flags[0] in shown and o.takes_value and not o.values
            else o
            for o in command.options
        ]
