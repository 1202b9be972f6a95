"""``tablecert report | verify-report | diff``: the certification PDFs of a run folder, their
checks, and two runs compared by cause.

Wired into ``tablecert.cli`` with ``cli_reports.add_parsers(sub)``; ``python -m
tablecert.cli_reports`` runs the two subcommands on their own, with the same error handling (one
line on stderr, exit 2).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tablecert import harness
from tablecert.cli_common import (SIGN_HELP, SUBMISSION_HELP, UsageError, add_seal_arguments, progress_bar, say,
                                  subcommand)


def _run_dir(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise UsageError(f"{text}: no such run folder")
    if not (path / "run.db").is_file():
        raise UsageError(f"{text}: not a run folder (no run.db)")
    return path


def cmd_report(args: argparse.Namespace) -> int:
    from tablecert.reports import KINDS, store_game_math, write_reports  # lazy: 726 ms of --help start (bench_startup.py, at rest)

    run_dir = _run_dir(args.run_dir)
    kinds = KINDS if args.kind == "both" else (args.kind,)
    if args.out and len(kinds) != 1:
        raise UsageError("--out names one file: give --kind certificate or --kind findings with it")
    if args.cert and not args.sign:
        raise UsageError("--cert needs --sign KEY")
    if args.game_math:
        store_game_math(run_dir, progress_bar("labelling hands", args.quiet))
    seal_keys = None
    if args.sign:
        seal_keys = harness.trusted_seal_keys(args.trust, Path(args.seal_key) if args.seal_key else None)
    written = write_reports(run_dir, submission=args.submission, declared=args.declared, sign_key=args.sign,
                            cert=args.cert, kinds=kinds, out=args.out, seal_keys=seal_keys)
    for path in written:
        print(path)
    return 0


UNTRUSTED = 3
"""verify-report's exit status when nothing failed but not every part was checked against a key
the lab trusts (no --pubkey, --cert, --trust or TABLECERT_TRUST; or no summary beside the report)."""


def cmd_verify_report(args: argparse.Namespace) -> int:
    from tablecert.reports import check_report, format_part  # lazy: 704 ms of --help start (bench_startup.py, at rest)

    if not Path(args.file).is_file():
        raise UsageError(f"{args.file}: no such report")
    trust = args.trust
    if trust is None and args.pubkey is None and args.cert is None:
        trust = os.environ.get("TABLECERT_TRUST") or None
    parts = check_report(args.file, args.summary, args.pubkey, args.cert, trust)
    for part in parts:
        say(format_part(*part))
    if any(ok is False for _, ok, _ in parts):
        return 1
    if any(ok is None for _, ok, _ in parts):
        if not (args.pubkey or args.cert or trust):
            print("NOT VERIFIED: no trusted key was named; give the lab's key (--pubkey PEM, --cert PEM, "
                  "--trust DIR or TABLECERT_TRUST=DIR)")
        return UNTRUSTED
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    """Compare two runs of one suite by cause; exit 1 when something regressed."""
    from tablecert.reports.run_diff import RunDiffError, run_diff, terminal_lines  # lazy: 758 ms of --help start (bench_startup.py, at rest)

    old, new = _run_dir(args.old_run), _run_dir(args.new_run)
    try:
        diff = run_diff(old, new)
    except RunDiffError as err:
        raise UsageError(str(err)) from None
    say(*terminal_lines(diff))
    if args.out:
        write_diff(diff, harness.prepare_run_folder(Path(args.out)), new)
    return 1 if diff.regressed else 0


def cmd_verify_build(args: argparse.Namespace) -> int:
    """An installed copy of the vendor's build against a run's sealed record: exit 0 when every
    file matches, 1 when one differs, 2 bad input or a seal that does not check."""
    run_dir = _run_dir(args.run_dir)
    seed = None
    if args.seed is not None:
        try:
            seed = bytes.fromhex(args.seed)
        except ValueError:
            raise UsageError(f"--seed {args.seed[:80]!r}: not hex") from None
        if not seed:
            raise UsageError("--seed: give at least one byte (two hex digits)")
    keys = harness.trusted_seal_keys(args.trust, Path(args.seal_key) if args.seal_key else None)
    found = harness.verify_build(run_dir, list(args.tree), keys, seed)
    say(f"run seal: checked (key {found.sealed_by}); build signature {found.signature}")
    if (run_dir / "summary.json.sig").is_file():
        from tablecert.reports.signing import trusted_keys, verify_summary  # lazy: 2476 ms of --help start (best of 5, after tablecert.cli, load 14.8)

        trust = args.trust or os.environ.get("TABLECERT_TRUST") or None
        ok, what = verify_summary(run_dir / "summary.json", trusted_keys(None, None, trust) if trust else None)
        stated = json.loads((run_dir / "summary.json").read_text(encoding="utf-8")).get("build") or {}
        if ok is False:
            raise UsageError(f"{run_dir}: summary.json's signature: {what}")
        if stated.get("signature") != found.signature:
            raise UsageError(f"{run_dir}: summary.json's build signature is not the one its run seal covers")
        say(f"summary signature: {'ok' if ok else 'not checked'} ({what})")
    say(*(f.line() for f in found.files))
    if seed is not None:
        say(f"build    hmac-sha256 {found.keyed_build}")
    bad = sum(f.status != "match" for f in found.files)
    say(f"{len(found.files) - bad} of {len(found.files)} files match" + ("" if not bad else f"; {bad} do not"))
    return 0 if found.all_match else 1


def write_diff(diff: Any, out: Path, new: Path) -> None:
    """``diff.json`` and ``diff.pdf`` (dated by the ``new`` run's finish) of a comparison into ``out``
    (``tablecert diff --out``; a rerun's run folder, ``certify --rerun-failed``)."""
    from tablecert.reports.data import load_report_data  # lazy: 758 ms of --help start (bench_startup.py, at rest)
    from tablecert.reports.run_diff import diff_pdf

    harness.write_atomically(out / "diff.json", (json.dumps(diff.as_json(), indent=2, sort_keys=True) + "\n").encode())
    harness.write_atomically(out / "diff.pdf", diff_pdf(diff, load_report_data(new).finished))
    print(f"written: {out / 'diff.json'}, {out / 'diff.pdf'}")


def add_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    def add(name: str, func: Any, help_text: str) -> argparse.ArgumentParser:
        return subcommand(sub, name, func, help_text)

    p = add("report", cmd_report, "Write the certification report (certificate.pdf, for the lab and the "
            "regulator) and the pre-submission findings (findings.pdf, for the vendor) of a run folder.")
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run folder (holding run.db and summary.json)")
    p.add_argument("--kind", choices=("certificate", "findings", "both"), default="both",
                   help="which document (default both, into RUN_DIR)")
    p.add_argument("--out", help="output file (with one --kind; default RUN_DIR/KIND.pdf)")
    p.add_argument("--submission", metavar="FILE", help=SUBMISSION_HELP)
    p.add_argument("--declared", metavar="FILE",
                   help="TOML/JSON: the vendor's declared return figures, name = \"1.414%%\" or \"7/495\"")
    p.add_argument("--sign", metavar="KEY", help=SIGN_HELP)
    p.add_argument("--cert", metavar="PEM", help="the lab's X.509 certificate for KEY (default: a self-signed one)")
    add_seal_arguments(p)
    p.add_argument("--game-math", action="store_true",
                   help="first compute the exact pai gow figures (all-hands census, ~30 s) into the run database")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p = add("diff", cmd_diff, "Compare two runs of one suite (two builds of a vendor) by cause: fixed, still "
            "failing, newly failing, with counts. Exit 0 nothing regressed, 1 something newly fails, 2 bad input.")
    p.add_argument("old_run", metavar="OLD_RUN", help="the earlier run folder")
    p.add_argument("new_run", metavar="NEW_RUN", help="the later run folder (same suite)")
    p.add_argument("--out", metavar="DIR", help="also write DIR/diff.json and DIR/diff.pdf (a findings page)")
    p = add("verify-build", cmd_verify_build, "Check an installed copy of a vendor's build against a run's sealed "
            "record of the files it ran (the run seal checked first): each file match, changed, missing or extra. "
            "Exit 0 all match, 1 not, 2 bad input or a seal that does not check.")
    p.add_argument("run_dir", metavar="RUN_FOLDER", help="the run folder (holding run.db)")
    p.add_argument("--tree", action="append", required=True, metavar="DIR", help="the installed copy of the vendor's "
                   "tree (again, in order, for each --vendor-path the run bound)")
    p.add_argument("--seed", metavar="HEX", help="also print each file's keyed digest (HMAC-SHA256 with this seed) "
                   "and the whole build's, as a device answering build.authenticate for this seed would")
    add_seal_arguments(p)
    p = add("verify-report", cmd_verify_report, "Check a report's PDF signature, the run summary's signature "
            "and that the summary is the one the report states, against a key the lab trusts. Exit 0 ok, 1 a check "
            f"failed, {UNTRUSTED} intact but not checked against a trusted key (none named), 2 bad input.")
    p.add_argument("file", metavar="FILE", help="a signed report PDF")
    p.add_argument("--summary", metavar="SUMMARY", help="the run's summary.json (default: beside the report)")
    p.add_argument("--pubkey", metavar="PEM", help="the lab's public key (PEM key or certificate) to check against")
    p.add_argument("--cert", metavar="PEM", help="the lab's X.509 certificate (trusted for its key)")
    p.add_argument("--trust", metavar="DIR", help="a trust store: a folder of the public keys and certificates "
                   "(*.pem, *.crt, *.pub) the lab trusts (default: $TABLECERT_TRUST when no key is named)")


def main(argv: Sequence[str] | None = None) -> int:
    """The two subcommands alone, with ``tablecert``'s error handling (one line, exit 2)."""
    parser = argparse.ArgumentParser(prog="tablecert")
    add_parsers(parser.add_subparsers(dest="command", metavar="COMMAND", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (UsageError, OSError, ValueError) as err:  # ValueError covers the reports' input errors
        print(f"tablecert: error: {err}", file=sys.stderr)
    except KeyboardInterrupt:
        print("tablecert: interrupted", file=sys.stderr)
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
