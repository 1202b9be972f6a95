"""``tablecert vectors ...``: generate, export, lint, verify and list test-vector suites."""

from __future__ import annotations

import argparse
from typing import Any
from pathlib import Path

from tablecert import oracle
from tablecert.cli_common import PROFILE_HELP, existing_dir, step_printer, subcommand


def cmd_generate(args: argparse.Namespace) -> int:
    from tablecert.vectors.suites import generate  # lazy: 371 ms of --help start (bench_startup.py, at rest)

    out = Path(args.out)
    manifest = generate(args.suite, out, oracle.resolve_profile(args.profile), args.view, progress=step_printer(args.quiet))
    print(f"{args.suite}: {manifest['numberOfTests']:,} tests in {len(manifest['files'])} files -> {out}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from tablecert.vectors.suites import generate  # lazy: 402 ms of --help start (bench_startup.py, at rest)

    manifest = generate(args.suite, Path(args.out), oracle.resolve_profile(args.profile), "prompt")
    print(f"{args.suite}: prompts of {manifest['numberOfTests']:,} tests -> {args.out} (give this folder to the vendor; "
          f"its answers come back as a responses file for 'tablecert validate')")
    return 0


def report_problems(kind: str, folder: str, problems: list[str]) -> int:
    if not problems:
        print(f"{folder}: {kind} ok")
        return 0
    for line in problems[:200]:
        print(f"{folder}/{line}")
    if len(problems) > 200:
        print(f"... and {len(problems) - 200} more")
    print(f"{folder}: {kind} FAILED ({len(problems)} problem(s))")
    return 1


def cmd_lint(args: argparse.Namespace) -> int:
    from tablecert.vectors.checks import lint  # lazy: 98 ms of --help start (bench_startup.py, at rest)

    return report_problems("lint", args.dir, lint(existing_dir(args.dir)))


def cmd_verify(args: argparse.Namespace) -> int:
    """Every file against the manifest, then the manifest against the release: a suite that
    verifies against its own manifest but is not the release's is a custom suite (exit 1, unless
    --custom-suite says the lab expects one)."""
    from tablecert.vectors.anchor import CUSTOM, anchor_suite  # lazy: 388 ms of --help start (bench_startup.py, at rest)
    from tablecert.vectors.checks import verify

    folder = existing_dir(args.dir)
    status = report_problems("verify", args.dir, verify(folder))
    if status:
        return status
    oracle.resolve_profile(args.profile)
    anchor = anchor_suite(folder, allow_custom=True)
    if anchor.kind == CUSTOM:
        print(f"{args.dir}: not the {anchor.suite!r} suite of this tablecert release ({anchor.reason}): a custom suite, "
              f"manifest sha256 {anchor.manifest_sha256}")
        return 0 if args.custom_suite else 1
    print(f"{args.dir}: the {anchor.suite!r} suite of this tablecert release, manifest sha256 {anchor.manifest_sha256}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from tablecert.vectors.suites import SUITES  # lazy: 375 ms of --help start (bench_startup.py, at rest)

    for info in SUITES.values():
        print(f"{info.name:<11} {info.size:<30} {info.description}")
        print(f"{'':<11} ops: {', '.join(info.ops)}")
    print(f"profiles: {', '.join(oracle.list_profiles())} (default {oracle.DEFAULT_PROFILE})")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    text = "Generate, export, list, lint and verify test-vector suites."
    vec = sub.add_parser("vectors", help=text, description=text)
    vsub = vec.add_subparsers(dest="vectors_command", metavar="ACTION", required=True)

    def add(name: str, func: Any, help_text: str) -> argparse.ArgumentParser:
        return subcommand(vsub, name, func, help_text)

    g = add("generate", cmd_generate, "Generate a suite into a folder (prompt and/or expected view, manifest).")
    g.add_argument("--suite", required=True, help="edge | standard | joker | exhaustive")
    g.add_argument("--out", required=True, help="output folder")
    g.add_argument("--profile", help=PROFILE_HELP)
    g.add_argument("--view", default="both", choices=["prompt", "expected", "both"], help="which view(s) to write")
    g.add_argument("--quiet", action="store_true", help="no progress lines")
    e = add("export", cmd_export, "Write only the prompt view of a suite, for a vendor answering offline.")
    e.add_argument("--suite", required=True, help="edge | standard")
    e.add_argument("--out", required=True, help="output folder")
    e.add_argument("--profile", help=PROFILE_HELP)
    add("lint", cmd_lint, "Check a suite folder: schemas, unique tcIds, counts, flags, clause ids.").add_argument(
        "dir", help="suite folder")
    v = add("verify", cmd_verify, "Check every file of a suite folder against its manifest's digests, and the "
            "manifest against this release's (exit 1 for a custom suite).")
    v.add_argument("dir", help="suite folder")
    v.add_argument("--profile", help="the table configuration file of a lab's own table the suite was made for")
    v.add_argument("--custom-suite", action="store_true", help="a custom suite is expected: say so, exit 0")
    add("list", cmd_list, "The suites, their sizes and ops, and the profiles.")
