"""``tablecert fuzz``: differential testing of a live vendor (see :mod:`tablecert.fuzz`).

Exit 0 when nothing failed, 1 when a failure was found, 2 for bad input or a vendor that cannot be
run. Never a certificate.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tablecert import harness, oracle
from tablecert.cli_common import (PROFILE_HELP, UsageError, add_vendor_arguments, chosen_vendor, sandbox_options, say,
                                  subcommand, vendor_arguments)


def cmd_fuzz(args: argparse.Namespace) -> int:
    from tablecert.fuzz import EXIT_CODES, fuzz  # lazy: 976 ms of --help start (bench_startup.py, at rest)
    from tablecert.fuzz.findings import terminal_lines

    adapter, target = chosen_vendor(args)
    if args.budget <= 0 or args.timeout <= 0:
        raise UsageError("--budget and --timeout must be above 0")
    if args.seed < 0 or args.max_failures < 1 or any(n is not None and n < 1 for n in (args.max_examples,
                                                                                       args.max_cases)):
        raise UsageError("--seed must be 0 or more, --max-failures, --max-examples and --max-cases at least 1")
    ops = tuple(o.strip() for o in args.ops.split(",") if o.strip()) if args.ops else None
    unknown = [o for o in ops or () if o not in harness.KNOWN_OPS]
    if unknown or ops == ():
        raise UsageError(f"--ops: unknown op {unknown[0] if unknown else '(none given)'} (ops: {', '.join(harness.KNOWN_OPS)})")
    profile_id = oracle.resolve_profile(args.profile)
    pinned = oracle.load_profile(profile_id) if profile_id else None
    table = pinned.craps_config() if pinned else None
    cap = pinned.paigow_cap if pinned else None
    out = Path(args.out).absolute()
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {args.out}: not a folder")
    options = harness.SessionOptions(timeout=args.timeout, hidden_paths=(str(out.resolve()),),
                                     **sandbox_options(args))
    opener = harness.VendorTarget(adapter, target, options).opener()
    try:
        result = fuzz(opener, out, budget=args.budget, seed=args.seed, profile=profile_id or oracle.DEFAULT_PROFILE,
                      table=table, cap=cap, ops=ops, max_examples=args.max_examples, max_failures=args.max_failures,
                      max_cases=args.max_cases, vendor_args=vendor_arguments(args),
                      on_failure=None if args.quiet else lambda f: say(f"found: {f.signature}"))
    except harness.VendorFault as fault:
        raise UsageError(f"vendor {target!r} cannot be run: {fault}") from None
    say(*terminal_lines(result.summary))
    print(f"results in {out}/: summary.json, findings.pdf{', vectors/' if result.failed else ''}, hypothesis/")
    return EXIT_CODES[result.failed]


def add_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subcommand(sub, "fuzz", cmd_fuzz, "Differential testing of a live vendor against the oracle with "
                   "hypothesis: random legal tables, bets and hands (and invalid ones), each failure shrunk "
                   "to a minimal case. Exit 0 nothing failed, 1 failures found, 2 bad input or vendor not "
                   "runnable. Never issues a certificate.")
    add_vendor_arguments(p)
    p.add_argument("--out", required=True, help="run folder: summary.json, findings.pdf, vectors/, hypothesis/")
    p.add_argument("--budget", type=float, default=60.0, help="seconds to search: no example is sent past it "
                   "(new ones stop at four fifths of it, shrinking at it; default 60)")
    p.add_argument("--max-cases", type=int, metavar="N", help="a budget in work: draw no new example once N cases "
                   "were sent (with --seed, a run then explores the same cases on any machine; --budget still "
                   "bounds it)")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed draws the same examples (default 0)")
    p.add_argument("--profile", help="pin the craps table: " + PROFILE_HELP + " (default: tables drawn from the "
                   "whole config space)")
    p.add_argument("--ops", help="comma-separated ops to fuzz (default: every op the vendor supports but craps.round, "
                   "whose whole rounds the stateful machine plays only when named)")
    p.add_argument("--max-examples", type=int, help="bound each search round to this many examples "
                   "(a run then depends on the seed alone, not on speed)")
    p.add_argument("--max-failures", type=int, default=25, help="stop after this many distinct failures (default 25)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds for one vendor answer (default 60)")
    p.add_argument("--quiet", action="store_true", help="print only the closing summary")
