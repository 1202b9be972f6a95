"""Helpers shared by the command modules: the one-line usage error, progress display, folders."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


PROFILE_HELP = ("rule profile: a shipped id (`tablecert profiles`) or a table configuration file in the same "
                "TOML form, which must be compliant (default: the default profile)")


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


def progress_bar(label: str, quiet: bool, unit: str = "hands") -> Callable[[int, int], None] | None:
    if quiet:
        return None
    from tablecert.harness.progress import progress_callback

    return progress_callback(label, unit)


def step_printer(quiet: bool) -> Callable[[str], None] | None:
    if quiet:
        return None
    return lambda what: print(f"generating {what}", file=sys.stderr, flush=True)


def existing_dir(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise UsageError(f"{text}: not a folder")
    return path


def subcommand(sub: Any, name: str, func: Callable[[argparse.Namespace], int], help_text: str) -> argparse.ArgumentParser:
    """Add one subcommand whose help and description are the same sentence."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text)
    p.set_defaults(func=func)
    return p
