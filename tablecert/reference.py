"""The command reference, written from the command line's own parsers (never typed twice).

:func:`commands` walks :func:`tablecert.cli.build_parser` down to every subcommand (``vectors
generate`` included) and :func:`reference_markdown` writes one section per subcommand: its
sentence, its usage line and a table of its arguments (option strings, value, default, help).
The documentation site's hook (``docs/hooks/generated.py``) puts it into
``docs/reference/cli.md`` at build time; ``tests/test_docs.py`` checks every subcommand and option
has its entry in the built page.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from tablecert.cli import build_parser


@dataclass(frozen=True)
class Command:
    """One subcommand: its words after ``tablecert`` and its parser."""

    words: tuple[str, ...]
    parser: argparse.ArgumentParser

    @property
    def name(self) -> str:
        return " ".join(self.words)

    @property
    def anchor(self) -> str:
        return "-".join(self.words)


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:  # type: ignore[type-arg]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def commands(parser: argparse.ArgumentParser | None = None, words: tuple[str, ...] = ()) -> list[Command]:
    """Every subcommand that runs a job (a group such as ``vectors`` is walked, not listed), in the
    order ``--help`` lists them."""
    if parser is None:
        parser = build_parser()
    sub = _subparsers(parser)
    if sub is None:
        return [Command(words, parser)]
    found: list[Command] = []
    for name, child in sub.choices.items():
        found.extend(commands(child, (*words, name)))
    return found


def arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments a user types (``--help`` and subparser groups left out)."""
    return [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and a.help != argparse.SUPPRESS]


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _value(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None:
        return " \\| ".join(f"`{c}`" for c in action.choices)
    metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    return f"`{metavar}`"


def _default(action: argparse.Action) -> str:
    if action.nargs == 0 or action.default in (None, False, argparse.SUPPRESS) or action.required:
        return ""
    return f"`{action.default}`"


def help_text(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """An argument's help as ``--help`` prints it (``%(default)s`` and the like filled in)."""
    return parser._get_formatter()._expand_help(action) if action.help else ""


def reference_markdown() -> str:
    """The reference page's body: one ``## tablecert NAME`` section per subcommand."""
    out: list[str] = []
    for command in commands():
        p = command.parser
        usage = " ".join(p.format_usage().split())
        out += [f"## tablecert {command.name} {{#{command.anchor}}}", "", _cell(p.description or ""), "",
                "```", usage.removeprefix("usage: "), "```", ""]
        rows = arguments(p)
        if rows:
            out += ["| argument | value | default | what it does |", "|---|---|---|---|"]
            for a in rows:
                names = ", ".join(f"`{s}`" for s in a.option_strings) or f"`{a.metavar or a.dest}`"
                out.append(f"| {names} | {_value(a)} | {_default(a)} | {_cell(help_text(p, a))} |")
            out.append("")
    return "\n".join(out)
