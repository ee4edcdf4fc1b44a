"""The completion scripts of ``atlas completion``: bash, zsh and fish, from a command tree.

Each script holds the tree as tables (per command: its sub-commands, options, the values of each
option, the words of its arguments) and a small function that finds, in the words typed so far,
the command being completed (skipping options and their values) and offers what it takes:
sub-commands and argument words, options after ``-``, an option's values after it, and files
or folders where the option names one. zsh and fish show each option's description. Standard
library only.
"""

from __future__ import annotations

TYPE_CHECKING = False  # spares importing typing
if TYPE_CHECKING:
    from atlas.cli._commandtree import Command, Option

__all__ = ["script"]

_HEAD = "# {shell} completion for atlas, made by `atlas completion {shell}` ({version})\n"


def script(shell: str, tree: Command) -> str:
    """The completion script of ``tree`` for ``shell`` (``bash``, ``zsh`` or ``fish``)."""
    from atlas._version import __version__  # noqa: PLC0415

    write = {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell]
    first = "#compdef atlas\n" if shell == "zsh" else ""  # zsh reads its first line
    return first + _HEAD.format(shell=shell, version=__version__) + write(tree)


def _quote(text: str) -> str:
    """``text`` as one single-quoted word of bash or zsh."""
    return "'" + text.replace("'", "'\\''") + "'"


def _fish_quote(text: str) -> str:
    """``text`` as one single-quoted word of fish."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _values(option: Option) -> list[str]:
    """What an option's value is offered from: ``@file``, ``@folder``, or its values."""
    return [f"@{option.files}"] if option.files else list(option.values)


def _arguments(command: Command) -> list[str]:
    """What an argument of ``command`` is offered from: its words, files or folders."""
    return ([f"@{command.files}"] if command.files else []) + list(command.words)


def _case(function: str, rows: list[tuple[str, list[str]]]) -> str:
    """A shell function that sets ``reply`` from a table: ``case`` on its arguments.

    Without a row for its arguments it sets nothing and returns 1.
    """
    lines = [f"{function}() {{", '    case "$1|$2" in']
    for pattern, words in rows:
        listed = " ".join(_quote(w) for w in words)
        lines.append(f"        ({_quote(pattern)}) reply=({listed}) ;;")
    lines += ["        (*) reply=(); return 1 ;;", "    esac", "}", ""]
    return "\n".join(lines)


def _tables(tree: Command, *, described: bool) -> str:
    """The four tables of a bash or zsh script (``name:description`` entries when described)."""
    commands: list[tuple[str, list[str]]] = []
    options: list[tuple[str, list[str]]] = []
    values: list[tuple[str, list[str]]] = []
    arguments: list[tuple[str, list[str]]] = []
    for key, command in tree.walk():
        at = " ".join(key)
        if command.commands:
            commands.append(
                (
                    f"{at}|",
                    [f"{n}:{c.help}" if described else n for n, c in command.commands.items()],
                )
            )
        flags = [
            f"{flag}:{o.help}" if described else flag for o in command.options for flag in o.flags
        ]
        options.append((f"{at}|", flags))
        values.extend(
            (f"{at}|{flag}", _values(o))
            for o in command.options
            if o.takes_value
            for flag in o.flags
        )
        if _arguments(command):
            arguments.append((f"{at}|", _arguments(command)))
    return "".join(
        _case(f"_atlas_{name}", rows)
        for name, rows in (
            ("commands", commands),
            ("options", options),
            ("values", values),
            ("arguments", arguments),
        )
    )


_BASH = r"""
_atlas_reply() {  # offer the words in reply that start with $1; @file and @folder: names
    local IFS=$'\n' word
    local -a words=()
    COMPREPLY=()
    for word in "${reply[@]}"; do
        case $word in
            ('@file') compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -f -- "$1")) ;;
            ('@folder') compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -d -- "$1")) ;;
            (*) words+=("$word") ;;
        esac
    done
    COMPREPLY+=($(compgen -W "${words[*]}" -- "$1"))
}

_atlas() {
    local cur=${COMP_WORDS[COMP_CWORD]} key='' pending='' word i
    local -a reply
    for (( i = 1; i < COMP_CWORD; i++ )); do
        word=${COMP_WORDS[i]}
        if [[ $word == '=' ]]; then continue; fi  # --option=value, split by COMP_WORDBREAKS
        if [[ -n $pending ]]; then pending=''; continue; fi
        case $word in
            (--*=*) ;;
            (-*) if _atlas_values "$key" "$word"; then pending=$word; fi ;;
            (*) if _atlas_commands "$key" && [[ " ${reply[*]} " == *" $word "* ]]; then
                    key=${key:+$key }$word
                fi ;;
        esac
    done
    if [[ $cur == '=' ]]; then cur=''; fi
    if [[ -n $pending ]]; then
        _atlas_values "$key" "$pending"
    elif [[ $cur == -* ]]; then
        _atlas_options "$key"
    else
        local -a found=()
        if _atlas_commands "$key"; then found=("${reply[@]}"); fi
        if _atlas_arguments "$key"; then found+=("${reply[@]}"); fi
        reply=("${found[@]}")
    fi
    _atlas_reply "$cur"
}

complete -F _atlas atlas
"""


def _bash(tree: Command) -> str:
    return "\n" + _tables(tree, described=False) + _BASH.lstrip("\n")


_ZSH = r"""
_atlas_offer() {  # offer the values in reply; @file and @folder: names
    case ${reply[1]} in
        ('@file') _files ;;
        ('@folder') _files -/ ;;
        (*) (( ${#reply} )) && compadd -a reply ;;
    esac
}

_atlas() {
    local key='' pending='' word cur=${words[CURRENT]} i
    local -a reply found
    for (( i = 2; i < CURRENT; i++ )); do
        word=${words[i]}
        if [[ -n $pending ]]; then pending=''; continue; fi
        case $word in
            (--*=*) ;;
            (-*) _atlas_values "$key" "$word" && pending=$word ;;
            (*) if _atlas_commands "$key" && (( ${reply[(I)${(b)word}:*]} )); then
                    key=${key:+$key }$word
                fi ;;
        esac
    done
    if [[ -z $pending && $cur == --*=* ]]; then
        pending=${cur%%=*}
        compset -P '*='
    fi
    if [[ -n $pending ]]; then
        _atlas_values "$key" "$pending" && _atlas_offer
    elif [[ $cur == -* ]]; then
        _atlas_options "$key" && found=("${reply[@]}") && _describe -t options option found
    else
        _atlas_commands "$key" && found=("${reply[@]}") && _describe -t commands command found
        _atlas_arguments "$key" && _atlas_offer
    fi
    return 0
}

if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
    _atlas "$@"
else
    compdef _atlas atlas
fi
"""


def _zsh(tree: Command) -> str:
    return "\n" + _tables(tree, described=True) + _ZSH.lstrip("\n")


_FISH_KEY = """
function __atlas_key --description 'the atlas command being completed, e.g. "site build"'
    set -l key ''
    set -l skip 0
    set -l typed (commandline -opc)
    set -e typed[1]  # the command's own name
    for word in $typed
        if test $skip = 1
            set skip 0
            continue
        end
        switch "$key|$word"
            case {takes_value}
                set skip 1
            case {commands}
                set key (string trim -- "$key $word")
        end
    end
    echo $key
end

function __atlas_is --description 'whether the command being completed is $argv'
    set -l key (__atlas_key)
    test "$key" = "$argv"
end

complete -c atlas -f
"""


def _fish_option(at: str, option: Option) -> str:
    parts = ["complete -c atlas -n", _fish_quote(f"__atlas_is {at}".rstrip())]
    for flag in option.flags:
        if flag.startswith("--"):
            parts += ["-l", _fish_quote(flag[2:])]
        elif len(flag) == 2:  # noqa: PLR2004 - a dash and one letter
            parts += ["-s", _fish_quote(flag[1:])]
        else:
            parts += ["-o", _fish_quote(flag[1:])]
    if option.files == "folder":
        parts += ["-x", "-a", "'(__fish_complete_directories)'"]
    elif option.files:
        parts += ["-r", "-F"]
    elif option.takes_value:
        parts += ["-x", "-a", _fish_quote(" ".join(option.values))] if option.values else ["-x"]
    if option.help:
        parts += ["-d", _fish_quote(option.help)]
    return " ".join(parts)


def _fish(tree: Command) -> str:
    takes_value, commands, lines = [], [], []
    for key, command in tree.walk():
        at = " ".join(key)
        condition = _fish_quote(f"__atlas_is {at}".rstrip())
        for name, sub in command.commands.items():
            commands.append(_fish_quote(f"{at}|{name}"))
            described = f" -d {_fish_quote(sub.help)}" if sub.help else ""
            lines.append(f"complete -c atlas -n {condition} -a {_fish_quote(name)}{described}")
        for option in command.options:
            takes_value += [_fish_quote(f"{at}|{f}") for f in option.flags if option.takes_value]
            lines.append(_fish_option(at, option))
        if command.files:
            lines.append(f"complete -c atlas -n {condition} -F")
        if command.words:
            lines.append(
                f"complete -c atlas -n {condition} -a {_fish_quote(' '.join(command.words))}"
            )
    head = _FISH_KEY.format(
        takes_value=" ".join(takes_value) or "''", commands=" ".join(commands) or "''"
    )
    return head + "\n".join(lines) + "\n"
