"""`p4tester completion bash|zsh`: a completion script for the shell, written from the
program's own parser (p4tester.program.build_parser), so it never lags the commands:

    eval "$(p4tester completion bash)"    # in ~/.bashrc
    eval "$(p4tester completion zsh)"     # in ~/.zshrc (zsh runs it through bashcompinit)

It completes the commands, each command's options, an option's choices where it has
some, and file names for the other values. The script is static: a TAB costs the shell
no Python start (importing the program takes seconds, too slow for argcomplete's way of
asking the program itself on every TAB).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Final

PROG: Final = "p4tester"
SHELLS: Final = ("bash", "zsh")
FUNCTION: Final = "_p4tester"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sub = commands.add_parser("completion", help="print a completion script for the shell "
                              "(bash, zsh): commands, options, choices")
    sub.add_argument("shell", choices=SHELLS,
                     help='e.g. eval "$(p4tester completion bash)" in ~/.bashrc')


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    sys.stdout.write(script(parser, args.shell))
    return 0


@dataclass(frozen=True, slots=True)
class Words:
    """What one parser (the program's or a command's) completes."""

    options: tuple[str, ...]  # every option string
    valued: tuple[tuple[str, tuple[str, ...]], ...]  # an option taking a value: its choices
    positional: tuple[str, ...]  # the choices of its positional arguments (commands too)


def words(parser: argparse.ArgumentParser) -> Words:
    options: list[str] = []
    valued: list[tuple[str, tuple[str, ...]]] = []
    positional: list[str] = []
    for action in parser._actions:
        choices = tuple(str(c) for c in action.choices or ()) or _metavar_choices(action)
        if not action.option_strings:
            positional.extend(choices)
            continue
        options.extend(action.option_strings)
        if action.nargs != 0:
            valued.extend((option, choices) for option in action.option_strings)
    return Words(tuple(options), tuple(valued), tuple(positional))


def _metavar_choices(action: argparse.Action) -> tuple[str, ...]:
    """Choices an option shows as its metavar, "{a,b}", and checks itself (its type)."""
    metavar = action.metavar
    if isinstance(metavar, str) and metavar.startswith("{") and metavar.endswith("}"):
        return tuple(metavar[1:-1].split(","))
    return ()


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The program's commands, by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script for `shell` (one of SHELLS)."""
    if shell not in SHELLS:
        raise ValueError(f"no completion for shell {shell!r}; use one of {SHELLS}")
    body = _bash(parser)
    if shell == "zsh":
        # zsh runs bash's completion functions through its bashcompinit.
        body = ("autoload -U +X compinit && { (( $+functions[compdef] )) || compinit; }\n"
                "autoload -U +X bashcompinit && bashcompinit\n" + body)
    return f"# {PROG} completion for {shell}: eval \"$({PROG} completion {shell})\"\n" + body


def _bash(parser: argparse.ArgumentParser) -> str:
    top = words(parser)
    subs = commands(parser)
    cases = [f'        "") opts={_quote(top.options)}; words={_quote(tuple(subs))} ;;']
    values: list[str] = []  # "command:option") its choices
    files: list[str] = []  # "command:option" whose value is anything else: a file name
    for name, sub in subs.items():
        found = words(sub)
        cases.append(f"        {_quote((name,))}) opts={_quote(found.options)}; "
                     f"words={_quote(found.positional)} ;;")
        for option, choices in found.valued:
            if choices:
                values.append(f'        {_quote((f"{name}:{option}",))}) '
                              f"COMPREPLY=($(compgen -W {_quote(choices)} -- \"$cur\")); "
                              "return ;;")
            else:
                files.append(_quote((f"{name}:{option}",)))
    if files:
        values.append("        " + "|".join(files) + ")")
        values.append('            COMPREPLY=($(compgen -f -- "$cur")); return ;;')
    lines = [
        f"{FUNCTION}() {{",
        "    # ${array[@]:offset:1}: the word at a bash index, in zsh (bashcompinit) too.",
        '    local cur="${COMP_WORDS[@]:$COMP_CWORD:1}"',
        '    local prev="${COMP_WORDS[@]:$((COMP_CWORD - 1)):1}"',
        '    local cmd="" opts="" words="" word i',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        word="${COMP_WORDS[@]:$i:1}"',
        '        if [[ $word != -* ]]; then cmd=$word; break; fi',
        "    done",
        '    case "$cmd:$prev" in',
        *values,
        "    esac",
        '    case "$cmd" in',
        *cases,
        "        *) return ;;",
        "    esac",
        '    if [[ $cur == -* ]]; then',
        '        COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
        '    elif [[ -n $words ]]; then',
        '        COMPREPLY=($(compgen -W "$words" -- "$cur"))',
        "    else",
        '        COMPREPLY=($(compgen -f -- "$cur"))',
        "    fi",
        "}",
        f"complete -o filenames -F {FUNCTION} {PROG}",
    ]
    return "\n".join(lines) + "\n"


def _quote(items: tuple[str, ...]) -> str:
    """Words for the script, in double quotes (no word of p4tester's has a quote in it)."""
    text = " ".join(items)
    if any(c in text for c in '"$`\\'):
        raise ValueError(f"cannot quote {text!r} for the shell")
    return f'"{text}"'
