"""``tablecert site RUNS --out SITE``: a lab's static view over a folder of run folders (every
vendor and build, verdicts and causes across builds, a diff page between consecutive builds,
links to each run's report.html; :mod:`tablecert.reports.site`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from tablecert.cli_common import UsageError, subcommand


def cmd_site(args: argparse.Namespace) -> int:
    from tablecert.reports.site import SiteError, write_site  # lazy: 773 ms of --help start (bench_startup.py, at rest)

    try:
        pages = write_site(Path(args.runs), Path(args.out))
    except SiteError as err:
        raise UsageError(str(err)) from None
    print(f"site: {len(pages)} pages in {args.out} (open {Path(args.out) / 'index.html'})")
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subcommand(sub, "site", cmd_site, "Write a lab's static view over a folder of run folders: every vendor "
                   "and build with its verdict, each vendor's causes across builds, a diff page between "
                   "consecutive builds, links to each run's report.html.")
    p.add_argument("runs", metavar="RUNS", help="a folder holding run folders (searched at any depth)")
    p.add_argument("--out", required=True, metavar="SITE", help="the folder to write the site into (made)")
