"""The selection options of ``atlas path``: one per dimension, made from the data, and its help.

``--mode``, ``--device``, ``--offload``... are generated from the dimensions of every atlas,
and the help lists each atlas with its dimensions and values. Both are added by
:meth:`atlas.cli._args.Parser.add_later` only when ``atlas path`` is parsed or its help shown,
from the vocabulary of the shipped table of printed paths (standard library only), else from
the models. :func:`named` gives the values the options were given. Standard library only:
``atlas path`` must start fast.
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    from atlas.query._selection import Vocabulary

__all__ = ["EXAMPLES", "add_later", "named", "shipped"]

_FORMS = """\
The selection may be written in any of these forms:
  atlas path eager cpu                   one value per dimension, in order
  atlas path "eager on CPU"              a phrase, quoted or not: atlas path eager on CPU
  atlas path mode=eager device=cpu       DIMENSION=VALUE, each as one argument
  atlas path --mode eager --device cpu   an option per dimension (below)
Words are matched case-insensitively against each value's label, aliases and id; ignored
are the words {fillers} and the characters , ; : ( ).
The atlas is the one --atlas names, else the one the words name (pytorch, llama.cpp) or whose
values they are; words that fit two atlases, or two readings, are an error that lists them.
"""
#: Command lines that the help shows (a test runs each).
EXAMPLES = (
    'atlas path "torch.compile on an NVIDIA GPU"',
    'atlas path "llama.cpp with CUDA, partial offload"',
    "atlas path --atlas llamacpp metal all",
    "atlas path compile gpu --graph-breaks",
)
_DEST = "dimension {}"  # the attribute of an option's value: never a Python name, so never taken


def shipped() -> tuple[bytes, bytes] | None:
    """The bytes of the shipped export and of its table of printed paths, or None (unreadable)."""
    from atlas.data import _resources  # noqa: PLC0415

    try:
        return _resources.export_file().read_bytes(), _resources.path_table_file().read_bytes()
    except OSError:
        return None


def _vocabulary() -> Vocabulary | None:
    """The vocabulary of the shipped table, else of the models; None when neither can be read."""
    from atlas.query import _pathtable  # noqa: PLC0415

    files = shipped()
    found = None if files is None else _pathtable.vocabulary(*files)
    if found is None:
        from atlas.errors import AtlasError  # noqa: PLC0415
        from atlas.query import paths  # noqa: PLC0415

        try:
            found = paths.vocabulary()
        except (AtlasError, OSError):
            return None  # the command itself will say why
    return found


def add_later(cmd: argparse.ArgumentParser) -> None:
    """Have ``cmd`` (``atlas path``) get its dimension options and help when first used."""
    cmd.formatter_class = argparse.RawDescriptionHelpFormatter
    cmd.add_later(_add_options)  # type: ignore[attr-defined]  # an atlas.cli._args.Parser


def _add_options(cmd: argparse.ArgumentParser) -> None:
    """Add an option per dimension name of any atlas, and the help that lists the atlases."""
    from atlas.query._selection import FILLERS  # noqa: PLC0415

    words = _vocabulary()
    forms = _FORMS.format(fillers=", ".join(sorted(FILLERS)))
    examples = "examples:\n" + "".join(f"  {line}\n" for line in EXAMPLES)
    if words is None:
        cmd.epilog = f"{forms}\n{examples}"
        return
    options = _dimension_options(cmd, words)
    cmd.set_defaults(**{"dimension options": tuple(options)})
    lines = ["atlases, with their dimensions in order ('atlas values' lists every alias):"]
    for atlas in words.atlases:
        order = " ".join(n.upper().replace(" ", "_") for n in atlas.names)
        lines.append(f"  {atlas.label} (--atlas {atlas.id}): {order}")
        shown = [options.get(n, f"{n}=") for n in atlas.names]
        width = max(map(len, shown))
        lines.extend(
            f"    {option:<{width}}  {', '.join(atlas.choices(i))}"
            for i, option in enumerate(shown)
        )
    cmd.epilog = "\n".join([forms, *lines, "", examples])


def _dimension_options(cmd: argparse.ArgumentParser, words: Vocabulary) -> dict[str, str]:
    """Add ``--NAME`` per dimension name; the names and options added, e.g. ``--stage-kind``.

    A dimension named as another option (``--atlas``) gets none: it is given as ``name=value``.
    """
    options: dict[str, str] = {}
    for atlas in words.atlases:
        for name in atlas.names:
            if name in options:
                continue
            helps = [
                f"{a.label}: {', '.join(a.choices(a.names.index(name)))}"
                for a in words.atlases
                if name in a.names
            ]
            option = "--" + "-".join(name.casefold().split())
            try:
                cmd.add_argument(
                    option,
                    dest=_DEST.format(name),
                    metavar=name.upper().replace(" ", "_"),
                    help=f"the {name} ({'; '.join(helps)})",
                )
            except argparse.ArgumentError:
                continue
            options[name] = option
    return options


def named(args: argparse.Namespace) -> dict[str, str]:
    """The dimension values given by option: ``--mode eager`` -> ``{'mode': 'eager'}``."""
    given = {}
    for name in getattr(args, "dimension options", ()):
        value = getattr(args, _DEST.format(name), None)
        if value is not None:
            given[name] = value
    return given
