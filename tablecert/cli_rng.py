"""``tablecert rng``: collect a vendor's dice and shuffles and evaluate them (``tablecert.rng``).

``--detect face=0.2%`` (and the like) computes the sample that catches that bias with 99% power
(:mod:`tablecert.rng.detect`) and collects it.

Exit status 0: the battery passed; 1: it failed (some test rejected at the plan's family-wise
level); 2: bad input, or a vendor that cannot be run or faulted (named in one line).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from fractions import Fraction

from tablecert import harness, rng
from tablecert.cli_common import (UsageError, add_vendor_arguments, chosen_vendor, progress_bar, sandbox_options, say,
                                  subcommand)


T = TypeVar("T")


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def _from_vendor(args: argparse.Namespace, out: Path, run: Callable[[Any], T]) -> T | None:
    """``run(options)`` with this command's session options; None after a vendor fault or an op the
    vendor does not offer, said in one line on stderr."""
    from tablecert.rng.collect import RngError  # lazy: 103 ms of --help start (bench_startup.py, at rest)

    try:
        return run(harness.SessionOptions(timeout=args.timeout, hidden_paths=(str(out.resolve()),), **sandbox_options(args)))
    except harness.VendorFault as err:
        print(f"tablecert: error: vendor fault ({err.kind.value}): {err.detail}", file=sys.stderr)
    except RngError as err:
        print(f"tablecert: error: {err}", file=sys.stderr)
    return None


RAW_SUMMARY = "raw-summary.json"


def _summary_in(out: Path, name: str) -> dict[str, Any] | None:
    """The other RNG run's summary in the same folder (``summary.json`` of the outcomes,
    ``raw-summary.json`` of the raw stream), or None: one rng-report.pdf names both."""
    path = out / name
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def cmd_rng(args: argparse.Namespace) -> int:
    from tablecert.rng.collect import collect  # lazy: 1528 ms of --help start (bench_startup.py, at rest)

    adapter, target = chosen_vendor(args)
    if args.timeout <= 0:
        raise UsageError("--timeout must be above 0")
    if args.seed is not None and args.seed < 0:
        raise UsageError("--seed must be 0 or more")
    if args.raw is not None or args.scaling:
        return cmd_rng_raw(args, adapter, target)
    if args.raw_sequences is not None:
        raise UsageError("--raw-sequences needs --raw BITS (the deep raw collection)")
    if args.raw_repeat_words is not None:
        raise UsageError("--raw-repeat-words needs --raw BITS (the raw stream's repeats member)")
    try:
        rolls, decks = args.rolls, args.decks
        if args.detect:
            from tablecert.rng.detect import sizes_for

            rolls, decks, lines = sizes_for(args.detect, rolls, decks)
            for line in lines:
                print(line, file=sys.stderr)
        rolls = rng.DEFAULT_ROLLS if rolls is None else rolls
        decks = rng.DEFAULT_DECKS if decks is None else decks
        rng.check_sizes(rolls, decks)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if not args.quiet:
        print(f"collecting {rolls:,} rolls and {decks:,} decks (about {rng.collection_seconds(rolls, decks):,.0f} s at "
              "100,000 outcomes a second)", file=sys.stderr, flush=True)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{args.out}: exists and is not a folder")
    started = _now()
    outcomes = _from_vendor(args, out, lambda options: collect(
        adapter, target, options, rolls, decks, progress=progress_bar("collecting", args.quiet, unit="outcomes")))
    if outcomes is None:
        return 2
    collected = {"started": started, "finished": _now()}
    from tablecert.reports.rng_report import render_report
    from tablecert.rng.api import battery_seed, evaluate, summary, write_run

    seed = battery_seed(outcomes) if args.seed is None else args.seed
    if not args.quiet:
        print("evaluating the outcomes", file=sys.stderr, flush=True)
    results = evaluate(outcomes.faces, outcomes.decks, seed)
    data = summary(outcomes, results, seed, collected)
    write_run(out, outcomes, data, lambda summary: render_report(summary, _summary_in(out, RAW_SUMMARY)))
    from tablecert.reports.rng_html import write_rng_page

    write_rng_page(out)
    failed = [r for r in results if r.rejected]
    say(f"vendor:  {outcomes.vendor['name']} {outcomes.vendor['version']} ({outcomes.vendor['build']})")
    print(f"verdict: {data['verdict'].upper()}  {len(results)} tests, {len(failed)} rejected "
          f"(Holm, family-wise alpha {data['plan']['alpha']}); {len(outcomes.faces):,} rolls, {len(outcomes.decks):,} decks")
    for r in failed:
        print(f"  rejected {r.id}: p = {r.p_value:.3g} < {r.threshold:.3g}  ({r.title})")
    print(f"results in {out}/: summary.json, rng-report.pdf, report.html, dice.txt, decks.txt")
    return 1 if failed else 0


def cmd_rng_raw(args: argparse.Namespace, adapter: str, target: str) -> int:
    """``--raw BITS`` / ``--scaling``: the raw stream, the exact scaling and pairing (tablecert.rng.raw_api)."""
    from tablecert.rng.raw_api import DEFAULT_RAW_BITS, ScalingOptions, check_raw_bits, evaluate_raw, write_raw  # lazy: 1290 ms of --help start (bench_startup.py, at rest)
    from tablecert.rng.raw_workers import default_workers

    bits = DEFAULT_RAW_BITS if args.raw is None else args.raw
    try:
        check_raw_bits(bits, args.raw_sequences)
    except ValueError as err:
        raise UsageError(str(err)) from None
    try:
        tolerance = Fraction(args.tolerance)
    except ValueError:
        tolerance = Fraction(-1)
    if tolerance < 0:
        raise UsageError(f"--tolerance {args.tolerance!r}: not a fraction >= 0 such as 0 or 1/1000000")
    if args.raw_repeat_words is not None and args.raw_repeat_words < 0:
        raise UsageError(f"--raw-repeat-words {args.raw_repeat_words}: must be 0 (the battery's words only) or more")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}: must be 1 or more")
    if args.scale_range < 2:
        raise UsageError(f"--scale-range {args.scale_range}: must be 2 or more (outcomes 0..n-1)")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{args.out}: exists and is not a folder")
    started = _now()
    how = ScalingOptions(out if args.scaling == "exhaustive" else None,
                         lambda what: progress_bar(f"every word, {what}", args.quiet, unit="words"))
    if how.exhaustive is not None:
        out.mkdir(parents=True, exist_ok=True)
    data = _from_vendor(args, out, lambda options: evaluate_raw(
        adapter, target, options, bits, bool(args.scaling), args.pairs, tolerance, args.scale_range,
        args.workers or default_workers(), progress=progress_bar("collecting", args.quiet, unit="words"),
        sequences=args.raw_sequences, how=how, repeat_words=args.raw_repeat_words))
    if data is None:
        return 2
    data["collected"] = {"started": started, "finished": _now()}
    from tablecert.reports.rng_report import render_raw_report

    write_raw(out, data, render_raw_report)
    outcomes_summary = _summary_in(out, "summary.json")
    if outcomes_summary is not None:            # the main RNG report of this folder names this one on page 1
        from tablecert.reports.rng_report import render_report

        (out / "rng-report.pdf").write_bytes(render_report(outcomes_summary, data))
    from tablecert.reports.rng_html import write_rng_page

    write_rng_page(out)
    raw = data["raw"]
    print(f"verdict: {data['verdict'].upper()}  raw: {raw['sequences']} sequences of {raw['sequence_bits']:,} bits, "
          f"{len(raw['rejected'])} of {raw['plan']['family_size']} members rejected (Holm, family-wise alpha "
          f"{raw['plan']['alpha']})")
    if "depth" in raw:
        print(f"  deep: NIST's 15 tests on {raw['depth']['nist_on']}; the bit positions on all "
              f"{raw['depth']['bit_positions_bits']:,} bits; a stuck bit caught with "
              f"{raw['stuck_bit']['power']:.0%} power from 1 word in {raw['stuck_bit']['one_word_in']:,}")
    seen = raw["repeats"]
    print(f"  repeats: {seen['words']:,} words seen ({seen['extra_words']:,} past the battery's), "
          + (f"no period up to {seen['ruled_out']:,} words" if seen["ruled_out"] else
             f"the stream repeats after {next(t['period'] for t in raw['tests'] if t['test'] == 'repeats'):,} words"))
    for item in data.get("scaling", []):
        say(f"  scaling {item['kind']}: {item['decision']}, largest deviation {item['max_deviation']}"
            + ("" if item["proved"] else f" (not proved: {item['reason']})"))
    for item in data.get("pairing", []):
        print(f"  pairing {item['kind']}: {item['pairs']:,} pairs, {item['mismatches']:,} mismatched"
              + (f", {item['outside']:,} outside the game" if item.get("outside") else ""))
    if "paired_stream" in data:
        ps = data["paired_stream"]
        print(f"  dealt words as a stream: {ps['decision']}, {ps['words']:,} words"
              + (f", rejected {', '.join(ps['rejected'])}" if ps["rejected"] else ""))
    print(f"results in {out}/: raw-summary.json, rng-raw-report.pdf, report.html"
          + (" (and rng-report.pdf, which names it on page 1)" if outcomes_summary is not None else ""))
    return 1 if data["verdict"] == "fail" else 0


def add_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subcommand(sub, "rng", cmd_rng, "Collect a vendor's dice rolls and pai gow shuffles (ops rng.dice, "
                   "rng.shuffle) and evaluate them with a statistical battery: summary.json, rng-report.pdf; exit 0 "
                   "pass, 1 fail, 2 bad input or vendor fault.")
    add_vendor_arguments(p)
    p.add_argument("--out", required=True, help="folder for the results")
    p.add_argument("--rolls", type=int, help=f"rolls of two dice (default {rng.DEFAULT_ROLLS:,}; 0 skips)")
    p.add_argument("--decks", type=int, help=f"shuffled decks (default {rng.DEFAULT_DECKS:,}; 0 skips)")
    p.add_argument("--detect", action="append", metavar="KIND=SIZE",
                   help="collect the sample that catches this bias with 99%% power, in place of --rolls or --decks "
                        "(repeatable): face=0.2%% (a face of a die more likely than 1/6), seven=, sticky= (a roll "
                        "repeating the previous one), die-sticky=, joker=1%% (the joker moved into the first seven "
                        "cards in that share of decks), cut= (decks cut, not reshuffled)")
    p.add_argument("--seed", type=int, help="seed of the battery's own random choices (default: from the outcomes' sha256)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds for one vendor answer (default 120)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--raw", type=int, metavar="BITS",
                   help="evaluate the raw stream (op rng.raw) instead of outcomes: BITS bits through NIST SP 800-22's "
                        "15 tests in sequences of 10^6 (default with --scaling: 100,000,000)")
    p.add_argument("--raw-sequences", type=int, metavar="N",
                   help="with --raw, a deep collection: NIST's 15 tests on the first N sequences of 10^6 bits "
                        "only, while the bit-position test counts every word of the BITS (a stuck bit in 1 word "
                        "in 10^4 is caught with 99%% power from about 1.7 x 10^11 bits); default: every sequence")
    p.add_argument("--raw-repeat-words", type=int, metavar="N",
                   help="with --raw, the words the repeats member sees in all: after the BITS, the further words it "
                        "needs are collected and read by that member only (default 2^25 plus one 64-bit window: "
                        "33,554,434 words of 32 bits, every period up to 2^24 words caught); 0: the BITS' words only")
    p.add_argument("--scaling", nargs="?", const="probes", choices=("probes", "exhaustive"),
                   help="with the raw stream, prove the scaling exact (op rng.scale: die, 53-card shuffle and a "
                        "range, see --scale-range) and check paired outcomes (op rng.paired); '--scaling exhaustive' "
                        "sends every word of up to 32 bits through the die's and the range's scaling (resumable: the "
                        "state is kept in --out)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="with --raw, processes testing the raw sequences while the stream is collected (default: "
                        "the cores this process may use; the results do not depend on it)")
    p.add_argument("--scale-range", type=int, default=100, metavar="N",
                   help="with --scaling, the range analysed and paired: a value in 0..N-1 as the game draws it "
                        "(default 100, a percentage draw)")
    p.add_argument("--pairs", type=int, default=10_000, help="paired die outcomes checked (decks: a tenth; default 10,000)")
    p.add_argument("--tolerance", default="0",
                   help="largest deviation from uniform the lab accepts in the scaling, a fraction (default 0)")
