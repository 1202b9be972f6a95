"""The ``tablecert`` command line: one console command, one subcommand per job.

Every subcommand reports bad input as one line on stderr (what and where) and exits 2, never with
a traceback; exit 0 means the job was done (for ``certify``: the verdict was pass).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any
from pathlib import Path

from tablecert import (__version__, cli_fuzz, cli_harness, cli_kit, cli_parallel, cli_reports, cli_rng, cli_site, cli_vectors,
                       harness, oracle)
from tablecert.cli_common import UsageError, progress_bar, subcommand


def _json_out(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def cmd_census(args: argparse.Namespace) -> int:
    result = oracle.run_census(progress=progress_bar("labelling hands", args.quiet))
    if args.json:
        _json_out(oracle.census_as_dict(result))
    else:
        print(oracle.format_census(result))
    return 0


def cmd_math(args: argparse.Namespace) -> int:
    from tablecert.oracle.game_math import game_math  # lazy: 380 ms of --help start (bench_startup.py, at rest)

    figures = game_math(oracle.resolve_profile(args.profile), progress=progress_bar("labelling hands", args.quiet),
                        joint_progress=progress_bar("counting hand pairs", args.quiet, unit="tasks"))
    if args.json:
        _json_out(figures)
    else:
        print(oracle.format_game_math(figures))
    return 0


def cmd_reference_vendor(args: argparse.Namespace) -> int:
    oracle.use_private_cache()      # confined (a read-only install): the kernels compiled in the tree, not again
    versions = (oracle.V1,) if args.protocol == "1" else oracle.SPOKEN
    return oracle.serve(sys.stdin, sys.stdout, oracle.ReferenceVendor(versions, args.build_root))


def cmd_profiles(args: argparse.Namespace) -> int:
    rows = []
    for pid in oracle.list_profiles():
        profile = oracle.load_profile(pid)
        rows.append({"id": pid, "title": profile.title, "sha256": profile.sha256,
                     "default": pid == oracle.DEFAULT_PROFILE, "findings": [f.message for f in profile.findings()]})
    if args.json:
        _json_out(rows)
    else:
        for row in rows:
            mark = "*" if row["default"] else " "
            status = "compliant" if not row["findings"] else f"{len(row['findings'])} finding(s)"
            print(f"{mark} {row['id']:<24} {row['title']}  [{status}]")
        print("(* default)")
    return 0


def cmd_check_config(args: argparse.Namespace) -> int:
    """Validate a table configuration or profile file: malformed -> exit 2; findings listed."""
    profile = oracle.load_profile_file(Path(args.file))
    findings = [f"{f.id} ({f.clause}): {f.message}" for f in profile.findings()]
    print(f"{args.file}: well-formed")
    if findings:
        print(f"regulatory findings ({len(findings)}):")
        for line in findings:
            print(f"  - {line}")
        return 1
    print("regulatory findings: none")
    return 0


def cmd_register(args: argparse.Namespace) -> int:
    data = {
        "clauses": {c.id: {"source": c.source, "summary": c.summary} for c in oracle.clauses().values()},
        "interpretations": {
            i.id: {"clauses": list(i.clauses), "reading": i.reading, "reason": i.reason}
            for i in oracle.interpretations().values()
        },
    }
    if args.json:
        _json_out(data)
        return 0
    print("Clauses")
    for cid, c in data["clauses"].items():
        print(f"  {cid:<15} {c['source']}")
    print("Interpretations")
    for iid, i in data["interpretations"].items():
        print(f"  {iid:<24} {i['reading']}")
    return 0


def version_text() -> str:
    """What ``tablecert --version`` prints: the package version, the vendor contract versions it
    speaks (newest first) and each suite's release anchor on the default profile."""
    from tablecert.vectors.anchor import release_anchors  # lazy: 930-1,150 ms of every start (-X importtime, loaded)
    from tablecert.oracle.profiles import DEFAULT_PROFILE
    from tablecert.oracle.protocol import SPOKEN

    anchors = release_anchors()
    width = max(map(len, anchors))
    return "\n".join([f"tablecert {__version__}", f"vendor contract: {', '.join(SPOKEN)}",
                      f"suite release anchors (profile {DEFAULT_PROFILE}):",
                      *(f"  {suite:<{width}}  {anchor}" for suite, anchor in anchors.items())])


class VersionAction(argparse.Action):
    """``--version``: print :func:`version_text` and exit (computed only when asked for)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="the version, the vendor contract versions and the suites' release anchors")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablecert",
        description="Reference oracle, test vectors and certification harness for craps free-odds "
        "wagers and the New Jersey Imperial pai gow bonus.",
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, func: Any, help_text: str) -> argparse.ArgumentParser:
        return subcommand(sub, name, func, help_text)

    p = add("census", cmd_census, "Label all 154,143,080 seven-card hands and count them per label, "
            "checked against the published counts.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p = add("math", cmd_math, "Exact returns of the craps line bets with each profile's odds, and of "
            "the Imperial pai gow bonus.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--profile", help="only this rule profile: a shipped id or a compliant table configuration "
                   "file (default: every shipped profile)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p = add("reference-vendor", cmd_reference_vendor, "Serve the oracle over the vendor protocol "
            "(tablecert-vendor/2, and /1 when greeted so) on stdin/stdout: a complete model vendor.")
    p.add_argument("--protocol", choices=("1", "2"), default="2",
                   help="2 (default): speak tablecert-vendor/2 and /1; 1: only tablecert-vendor/1, as a vendor "
                        "of the earlier contract (refuses a v2 hello with unsupported_protocol)")
    p.add_argument("--build-root", metavar="DIR", help="answer build.authenticate (HMAC-SHA256 of the named files "
                   "under DIR with the harness's seed) and declare it in hello; default: not declared")
    p = add("profiles", cmd_profiles, "List the shipped rule profiles (table configurations) and "
            "whether each is compliant.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = add("check-config", cmd_check_config, "Validate a rule profile file (TOML): malformed -> "
            "exit 2 naming the field; regulatory findings -> exit 1.")
    p.add_argument("file", help="profile TOML file")
    cli_vectors.add_parser(sub)
    cli_harness.add_parsers(sub)
    cli_reports.add_parsers(sub)
    cli_rng.add_parsers(sub)
    cli_fuzz.add_parsers(sub)
    cli_parallel.add_parsers(sub)
    cli_kit.add_parsers(sub)
    cli_site.add_parsers(sub)
    p = add("register", cmd_register, "Print the clause ids and the interpretation register.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    return parser


ERROR_SHOWN = 2000    # characters of an error line (which may quote a vendor)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (a scheduler stopping the job) unwinds like Ctrl-C: the vendor process group is
        # killed and the batch being written is rolled back, so --resume continues cleanly.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    # The error classes are the faces' (tablecert.harness, tablecert.oracle): an except clause
    # names them only when an error reaches it, so a command that succeeds never imports them.
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("tablecert: interrupted", file=sys.stderr)
        return 130
    except UsageError as err:
        print(f"tablecert: error: {harness.for_terminal(err, ERROR_SHOWN)}", file=sys.stderr)
    except (harness.RunError, harness.StorageError) as err:   # may quote a vendor: shown without control characters
        print(f"tablecert: error: {harness.for_terminal(err, ERROR_SHOWN)}", file=sys.stderr)
    except RecursionError:
        print("tablecert: error: input nested too deeply", file=sys.stderr)
    except oracle.ConfigError as err:
        print("tablecert: error: invalid table config: "
              f"{harness.for_terminal(f'{err.field}: {err.message}', ERROR_SHOWN)}", file=sys.stderr)
    except (OSError, ValueError) as err:  # unreadable files, unknown profiles, bad TOML
        print(f"tablecert: error: {harness.for_terminal(err, ERROR_SHOWN)}", file=sys.stderr)
    return 2
