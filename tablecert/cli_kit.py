"""``tablecert kit LANG --out DIR``: write a vendor starter kit (kits/LANG of the release: the
protocol shell, the interface, the skeleton, the worked example, build files and README) for a
vendor to start from."""

from __future__ import annotations

import argparse
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from tablecert.cli_common import UsageError, subcommand

#: The kits, by the name ``tablecert kit`` takes.
KITS = ("cpp", "csharp", "java", "typescript")
#: What a kit folder may hold that is not the kit: its build output and downloaded packages.
NOT_KIT = {"build", "node_modules"}


def kit_files(lang: str) -> Traversable:
    return files("tablecert.kits") / lang


def copy_tree(source: Traversable, target: Path) -> int:
    """Copy the kit folder ``source`` into ``target`` (made); returns the number of files."""
    target.mkdir(parents=True, exist_ok=True)
    count = 0
    for entry in sorted(source.iterdir(), key=lambda e: e.name):
        if entry.name in NOT_KIT or entry.name == "__pycache__":
            continue
        if entry.is_dir():
            count += copy_tree(entry, target / entry.name)
        else:
            (target / entry.name).write_bytes(entry.read_bytes())
            count += 1
    return count


def cmd_kit(args: argparse.Namespace) -> int:
    if args.lang not in KITS:
        raise UsageError(f"kit {args.lang!r}: no such kit (kits: {', '.join(KITS)})")
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out}: exists and is not an empty folder")
    count = copy_tree(kit_files(args.lang), out)
    print(f"{args.lang} kit: {count} files in {out} (build and run: {out / 'README.md'})")
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = subcommand(sub, "kit", cmd_kit, "Write a vendor starter kit (cpp, csharp, java, typescript): the "
                   "protocol shell, the interface a vendor implements per op, a skeleton answering every op "
                   "unsupported, a worked craps.place_odds/craps.settle example, build files and a README.")
    p.add_argument("lang", metavar="LANG", help=f"the kit's language: {', '.join(KITS)}")
    p.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder to write the kit into")
