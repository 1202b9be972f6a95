"""``tablecert merge``: shard run folders (``certify --shard K/N``) joined into one run folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from tablecert import harness
from tablecert.cli_common import UsageError, add_seal_arguments, existing_dir, subcommand
from tablecert.cli_harness import _path, format_run_summary


def cmd_merge(args: argparse.Namespace) -> int:
    from tablecert.parallel import merge_shards  # lazy: 767 ms of --help start (bench_startup.py, at rest)

    shards = [existing_dir(d) for d in args.shards]
    if args.suite_dir:
        suite_dir = existing_dir(args.suite_dir)
    else:
        found = [d / "suite" for d in shards if (d / "suite" / "manifest.json").is_file()]
        if not found:
            raise UsageError("no shard folder holds its suite/: name the suite folder the shards ran with --suite-dir")
        suite_dir = found[0]
    key = harness.run_key(_path(args.seal_key))
    trusted = [key.public_key(), *harness.trusted_seal_keys(args.trust, own=False)]
    out = harness.prepare_run_folder(Path(args.out))
    with harness.locked_run_folder(out):
        merge_shards(shards, suite_dir, out, key, trusted)
        summary = harness.write_outputs(out)
        if not args.no_reports:
            from tablecert.reports import store_game_math, write_reports

            store_game_math(out)
            write_reports(out, submission=_path(args.submission), declared=_path(args.declared),
                          sign_key=_path(args.sign), cert=_path(args.cert), seal_keys=[key.public_key()])
    print(format_run_summary(summary, out))
    return harness.EXIT_CODES[summary["verdict"]]


def add_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subcommand(sub, "merge", cmd_merge, "Join the shard run folders of one run (certify --shard K/N) into "
                   "one run folder, checking the same suite, the same vendor and that the shards cover every "
                   "batch once. Exit as certify: 0 certified, 1 failed, 2 incomplete or refused.")
    p.add_argument("shards", nargs="+", metavar="SHARD_DIR", help="the N shard run folders")
    p.add_argument("--out", required=True, help="the merged run folder (new)")
    p.add_argument("--suite-dir", help="the suite folder the shards ran (default: a shard folder's suite/)")
    add_seal_arguments(p)
    p.add_argument("--no-reports", action="store_true", help="write run.db, summary.json, junit.xml and failures/ "
                   "only, no PDFs")
    p.add_argument("--submission", help="TOML/JSON naming the lab, product and submission id for the certificate")
    p.add_argument("--declared", help="TOML/JSON of the vendor's declared return figures, compared in the certificate")
    p.add_argument("--sign", metavar="KEY", help="the lab's Ed25519 private key (PEM): signs summary.json and the PDFs")
    p.add_argument("--cert", help="X.509 certificate (PEM) for the PDF signature (default: self-signed for KEY)")
