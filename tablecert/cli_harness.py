"""``tablecert certify | validate | serve-vendor | sandbox-check | demo``: running vendors against suites."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from tablecert import harness, oracle
from tablecert.cli_rerun import RERUN_HELP, rerun_inputs, rerun_result
from tablecert.parallel.options import add_parallel_arguments, parallel_options
from tablecert.cli_common import (MANIFEST_HELP, PROFILE_HELP, SIGN_HELP, SUBMISSION_HELP, UsageError, add_seal_arguments,
                                  add_vendor_arguments, chosen_vendor, existing_dir, progress_bar, sandbox_options, say,
                                  step_printer, subcommand)


def verdict_words(summary: dict[str, Any]) -> str:
    """The verdict as the terminal says it: its code and the words the run's decision keeps
    (:class:`tablecert.harness.Decision`, summary.json's ``verdict_title``), the same words as the
    PDFs, the HTML and junit; a summary written before 1.0 keeps none and is worded the same way."""
    verdict = harness.Verdict(summary["verdict"])
    title = summary.get("verdict_title") or harness.verdict_title(
        verdict, summary.get("scope") or {}, None, summary.get("shard"), isinstance(summary.get("rerun_of"), dict))
    return verdict.upper() if title == verdict.upper() else f"{verdict.upper()} ({title})"


CUSTOM_HELP = ("run a suite folder that is not the one this tablecert release generates (hand-edited or "
               "re-hashed); the run records it and the certificate names it a custom suite with its digest")


MAX_RUN_ANSWER_MB = 32768    # default cap on all the answers of one run
VENDOR_SHOWN = 80    # characters of a vendor's name, version or build printed on the terminal
LINE_SHOWN = 4000    # characters of a line of the run's summary printed on the terminal


def format_run_summary(summary: dict[str, Any], out: Path) -> str:
    t = summary["totals"]
    vendor = {k: harness.for_terminal(v, VENDOR_SHOWN) for k, v in (summary.get("vendor") or {}).items()}
    isolation = summary.get("isolation")
    faults = summary.get("fault_totals") or {"count": 0, "recovered": 0}
    custom = " CUSTOM SUITE (not this release's)" if (summary.get("suite_anchor") or {}).get("kind") == "custom" else ""
    lines = [f"vendor:  {vendor.get('name')} {vendor.get('version')} ({vendor.get('build')})",
             f"suite:   {summary['suite']} (manifest sha256 {summary['suite_manifest_sha256'][:16]}...){custom}",
             f"verdict: {verdict_words(summary)}  pass {t['pass']:,}  fail {t['fail']:,}  "
             f"unsupported {t['unsupported']:,}  fault {t['fault']:,}  vendor faults {faults['count']:,} "
             f"({faults['recovered']:,} recovered by a retry)"]
    lines += [f"  why: {harness.for_terminal(reason, 400)}" for reason in summary.get("verdict_reasons") or []]
    if summary.get("shard"):
        part = "failed" if summary["verdict"] == harness.Verdict.FAIL else "passed"
        lines.append(f"shard:   {summary['shard']}: this shard's part {part} (exit status "
                     f"{harness.EXIT_CODES[harness.Verdict(summary['verdict'])]}: 1 its part failed, 2 it passed; "
                     "a shard is never "
                     "certified alone): once every shard is done, run tablecert merge SHARD_DIR... --out RUN")
    if summary.get("stopped"):
        lines.append(f"stopped: {summary['stopped']}")
    started = summary.get("start_failures") or []
    if started:
        lines.append(f"attempts that did not start (before the vendor was identified; not faults): {len(started)}, "
                     f"the last: {started[-1]['kind']}: {harness.for_terminal(started[-1]['detail'], 200)}")
    if isolation is not None:
        lines.insert(2, f"vendor isolation: {isolation}" + (" -- WARNING: the vendor was not confined"
                                                            if isolation.startswith("none") else ""))
        if summary.get("vendor_limits"):
            lines.insert(3, f"vendor limits: {summary['vendor_limits']}")
        if summary.get("vendor_bound") is not None:
            lines.insert(3, "the vendor saw from the host (read-only, besides the system folders): "
                         + (", ".join(summary["vendor_bound"]) or "nothing"))
    lines += cause_lines(summary)
    written = ("certificate.pdf", "findings.pdf", "report.html", "failures/")
    parts = ["summary.json", "junit.xml", "run.db"] + [name for name in written if (out / name.rstrip("/")).exists()]
    lines.append(f"results in {out}/: {', '.join(parts)}")
    return "\n".join(harness.for_terminal(line, LINE_SHOWN) for line in lines)     # causes quote vendors' answers


CAUSES_SHOWN = 12


def cause_lines(summary: dict[str, Any]) -> list[str]:
    """The failures by cause (summary.json's ``causes``), most severe first: count, what differs,
    the factor most suspicious among those every failure shares; a capped list says by how much."""
    analysis = summary.get("causes") or {}
    causes = analysis.get("causes") or []
    if not causes:
        return []
    lines = [f"  {analysis['failed']:,} failing vector{'s' if analysis['failed'] != 1 else ''} in {len(causes):,} "
             f"cause{'s' if len(causes) != 1 else ''}:"]
    for c in causes[:CAUSES_SHOWN]:
        shared = c["shared_factors"][:1] or c["leading_factors"][:1]
        where = ""
        if shared:
            f = shared[0]
            every = "shared by every failure" if f["failed"] == c["failed"] else f"in {f['failed']:,} of {c['failed']:,}"
            passed = "" if f["passed"] is None else f", {f['passed']:,} of the {c['not_failed']:,} that did not fail" \
                if c["not_failed"] else ", every vector of its ops failed"
            where = f" -- {f['factor']} ({every}{passed})"
        lines.append(f"  failed {c['failed']:,}: {c['cause']}{where}")
    if len(causes) > CAUSES_SHOWN:
        rest = causes[CAUSES_SHOWN:]
        failures = sum(c["failed"] for c in rest)
        lines.append(f"  and {len(rest):,} more cause{'s' if len(rest) != 1 else ''} ({failures:,} "
                     f"failure{'s' if failures != 1 else ''}; summary.json lists them)")
    if analysis.get("not_analysed"):
        n = analysis["not_analysed"]
        lines.append(f"  and {n:,} more failing vector{'s' if n != 1 else ''} not analysed by cause (only the first "
                     f"{analysis['failed']:,} are)")
    return lines


def check_certify_inputs(args: argparse.Namespace) -> int | None:
    """What ``certify`` is given, checked before anything heavy is imported (a bad path is
    refused in well under a second): the vendor options, the numbers, ``--suite`` and
    ``--suite-dir``, the run folder (a run in it needs ``--resume``; one going on is refused by
    its lock, as ever). ``--resume`` of a run that concluded returns its exit status at once,
    having changed nothing, once its seal is checked as any resumed run's (None: go on)."""
    chosen_vendor(args)
    if (args.batch_size is not None and args.batch_size < 1) or args.timeout <= 0 or args.retries < 0:
        raise UsageError("--batch-size must be at least 1, --timeout above 0 and --retries at least 0")
    if args.max_run_seconds is not None and args.max_run_seconds <= 0:
        raise UsageError("--max-run-seconds must be above 0")
    if min(args.memory_limit, args.cpu_limit, args.max_answer_mb, args.max_run_answer_mb) < 1:
        raise UsageError("--memory-limit, --cpu-limit, --max-answer-mb and --max-run-answer-mb must be at least 1")
    if args.suite_dir:
        existing_dir(args.suite_dir)
    elif args.suite not in oracle.SUITE_NAMES:
        raise UsageError(f"--suite {args.suite}: unknown suite (suites: {', '.join(oracle.SUITE_NAMES)})")
    if args.manifest:
        harness.load_build_manifest(Path(args.manifest))   # a bad one refused at once (ValueError: one line, exit 2)
    if args.build_archive and not (args.manifest and args.vendor_url):
        raise UsageError(f"--build-archive {args.build_archive}: only for a vendor reached over HTTP (--vendor-url), "
                         "with its submission manifest (--manifest)")
    if args.previous and not (Path(args.previous) / "run.db").is_file():
        raise UsageError(f"--previous {args.previous}: not a run folder (no run.db)")
    out = Path(args.out)
    harness.check_new_run_folder(out)
    if harness.run_is_live(out):
        return None
    harness.check_database_files(out / "run.db")
    if not args.resume:
        if (out / "run.db").exists():
            was = harness.run_command(out)
            raise UsageError(f"{out}: holds a run already (run.db): give a new --out, or --resume to continue that run"
                             + (f" (its command was: {was})" if was else " (with the command that started it)"))
        return None
    concluded = harness.concluded_run(out)
    if concluded is None:
        return None
    harness.resumed_head(out / "run.db", harness.run_key(_path(args.seal_key)), str(out))   # said only as sealed
    verdict = harness.Verdict(str(concluded["verdict"]))
    shard = f" (shard {concluded['shard']})" if concluded.get("shard") else ""
    said = (f"tablecert: {out}: this run{shard} concluded at {concluded.get('finished')} with the verdict "
            f"{verdict_words(concluded)}")
    written = out / "summary.json"
    if written.is_symlink() or not written.is_file():      # stopped before writing it: cmd_certify writes it
        raise OutputsMissing(said, harness.EXIT_CODES[verdict])
    print(f"{said}: there is nothing to resume, and nothing was changed (its results: {written})", file=sys.stderr)
    return harness.EXIT_CODES[verdict]


class OutputsMissing(Exception):
    """``--resume`` of a run that concluded but stopped before writing summary.json: what to say
    of it, and its exit status (never a claim of a file that is not there)."""

    def __init__(self, said: str, code: int) -> None:
        super().__init__(said)
        self.said, self.code = said, code


def _outputs(args: argparse.Namespace) -> Any:
    """The certify run's OutputOptions (keys, certificate, submission and declared files, run id)."""
    return harness.OutputOptions(seal_key=_path(args.seal_key), sign_key=_path(args.sign), cert=_path(args.cert),
                                 submission=_path(args.submission), declared=_path(args.declared),
                                 run_id=args.run_id, manifest=_path(args.manifest), previous=_path(args.previous),
                                 build_archive=_path(args.build_archive))


def cmd_certify(args: argparse.Namespace) -> int:
    rerun = rerun_inputs(args) if args.rerun_failed else None
    missing: OutputsMissing | None = None
    try:
        concluded = check_certify_inputs(args)
    except OutputsMissing as stopped:      # (the name of an except clause is unbound after it)
        concluded, missing = None, stopped
    if concluded is not None:
        return concluded
    from tablecert.reports import report_step  # lazy: 834 ms of --help start (bench_startup.py, at rest)

    if missing is not None:
        harness.write_concluded(Path(args.out), _path(args.seal_key), report_step(_outputs(args)))
        print(f"{missing.said}, but its summary.json was not there (the run stopped before writing it): there is "
              f"nothing to resume; its outputs were written now from its record (its results: "
              f"{Path(args.out) / 'summary.json'})", file=sys.stderr)
        return missing.code

    adapter, target = chosen_vendor(args)
    policy = harness.FaultPolicy(retries=args.retries, bisect=not args.no_bisect)
    if args.interruptions is not None and args.interruptions < 0:
        raise UsageError(f"--interruptions {args.interruptions}: must be at least 0")

    live = harness.LiveSettings(enabled=not args.no_interruptions, seed=args.interruption_seed,
                                **({"interruptions": args.interruptions} if args.interruptions is not None else {}))
    if args.suite == "live" and _parallel(args) is not None:
        raise UsageError("--suite live plays one vendor instance, killed and restarted on its state_dir: "
                         "it takes no --workers, --ray or --shard")
    options = harness.SessionOptions(timeout=args.timeout, pass_env=tuple(args.pass_env or ()),
                                     max_line_bytes=args.max_answer_mb << 20, memory_limit_mb=args.memory_limit,
                                     cpu_limit_s=args.cpu_limit, **sandbox_options(args))
    out = Path(args.out)
    suite_dir = existing_dir(args.suite_dir) if args.suite_dir else None
    hand_slice = chosen_slice(args)

    try:
        outputs = _outputs(args)
        run = harness.RunOptions(batch_size=args.batch_size, resume=args.resume, policy=policy, require=args.require,
                                 max_run_answer_bytes=args.max_run_answer_mb << 20,
                                 max_run_seconds=args.max_run_seconds, hand_slice=hand_slice, parallel=_parallel(args),
                                 progress=progress_bar("certifying", args.quiet, unit="vectors"), rerun=rerun)
        scope = harness.SuiteOptions(profile=oracle.resolve_profile(args.profile), suite_dir=suite_dir,
                                     custom_suite=args.custom_suite, cache_dir=_suite_cache(args))
        result, summary = harness.certify(harness.VendorTarget(adapter, target, options), args.suite, out,
                                          harness.CertifyOptions(run, scope, outputs, step_printer(args.quiet),
                                                                 report_step(outputs), live))
    except KeyboardInterrupt:
        return _interrupted(out)
    print(format_run_summary(summary, out))
    if rerun is not None:
        return rerun_result(rerun, out, summary)
    return harness.EXIT_CODES[result.verdict]


def _interrupted(out: Path) -> int:
    """A run stopped with Ctrl-C (or SIGTERM): its summary.json written (verdict incomplete) from
    what the run database holds, one line saying how to continue; exit 130 (stopped by a signal)."""
    written = ""
    if (out / "run.db").is_file():
        harness.write_outputs(out)
        written = f"{out}/summary.json says incomplete; "
    print(f"tablecert: interrupted: {written}continue the run with the same command and --resume", file=sys.stderr)
    return 130


def _suite_cache(args: argparse.Namespace) -> Path | None:
    """The suite cache folder the options name (default under $XDG_CACHE_HOME), or None."""
    if args.no_suite_cache:
        return None
    return Path(args.suite_cache) if args.suite_cache else harness.default_cache_dir()


def chosen_slice(args: argparse.Namespace) -> Any:
    """The hand-suite slice asked for (--range, or --sample with --seed), or None; UsageError for
    a slice of another suite or a malformed one."""
    if args.range is None and args.sample is None:
        if args.seed is not None:
            raise UsageError("--seed goes with --sample N")
        return None
    if args.range is not None and args.sample is not None:
        raise UsageError("give --range or --sample, not both")
    if args.suite not in oracle.HAND_SUITES and not args.suite_dir:
        raise UsageError(f"--range and --sample slice a hand suite (joker, exhaustive), not the {args.suite} suite")
    try:
        return (harness.HandSlice.parse_range(args.range) if args.range is not None
                else harness.HandSlice.sample(args.sample, 0 if args.seed is None else args.seed))
    except harness.SliceError as err:
        raise UsageError(str(err)) from None


def _parallel(args: argparse.Namespace) -> Any:
    """The certify run's --workers, --ray and --shard (None: one vendor instance, the whole suite)."""
    try:
        return parallel_options(args.workers, args.ray, args.shard)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _path(text: str | None) -> Path | None:
    return Path(text) if text else None


def cmd_validate(args: argparse.Namespace) -> int:
    # the paths first, before anything heavy is imported (a bad one is refused at once)
    responses, suite_dir, out = Path(args.responses), existing_dir(args.suite_dir), Path(args.out)
    if not responses.is_file():
        raise UsageError(f"--responses {args.responses}: no such file")
    if min(args.max_answer_mb, args.max_run_answer_mb) < 1:
        raise UsageError("--max-answer-mb and --max-run-answer-mb must be at least 1")

    oracle.resolve_profile(args.profile)            # a lab's own table file: known when its suite is anchored
    verdict = harness.validate_responses(responses, suite_dir, out,
                                         progress=progress_bar("judging", args.quiet, unit="answers"),
                                         custom_suite=args.custom_suite, protocol=f"tablecert-vendor/{args.protocol}",
                                         seal_key=_path(args.seal_key), max_answer_bytes=args.max_answer_mb << 20,
                                         max_run_answer_bytes=args.max_run_answer_mb << 20)
    summary = harness.write_outputs(out)
    from tablecert.reports import store_game_math, write_reports  # lazy: 850 ms of --help start (bench_startup.py, at rest)

    store_game_math(out)
    write_reports(out)                              # what certify writes: both PDFs too
    print(format_run_summary(summary, out))
    return harness.EXIT_CODES[verdict]


def cmd_serve_vendor(args: argparse.Namespace) -> int:
    return oracle.serve(sys.stdin, sys.stdout, harness.find_python_vendor(args.plugin))  # type: ignore[arg-type]


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job on built-in defaults: certify the demo vendor (which has bugs) and the
    reference vendor against the standard suite, both as real subprocesses."""
    from tablecert.reports import report_step  # lazy: 751 ms of --help start (bench_startup.py, at rest)

    out = Path(args.out)
    exe = shlex.join([sys.executable, "-m", "tablecert"])
    runs = [("demo-vendor", f"{exe} serve-vendor --plugin demo"), ("reference-vendor", f"{exe} reference-vendor")]
    print(f"== suite 'standard' in {out / 'suite'}", flush=True)
    suite_dir, _ = harness.prepare_suite("standard", None, harness.prepare_run_folder(out), None,
                                         step_printer(args.quiet))
    verdicts = []
    for name, command in runs:
        run_dir = out / name
        harness.remove_our_folder(run_dir)
        print(f"== certifying {name}: {command}", flush=True)
        vendor = harness.VendorTarget("subprocess", command, harness.SessionOptions(timeout=120, isolation="auto"))
        progress = progress_bar("certifying", args.quiet, unit="vectors")
        _result, summary = harness.certify(vendor, "standard", run_dir, harness.CertifyOptions(
            harness.RunOptions(progress=progress), harness.SuiteOptions(suite_dir=suite_dir),
            then=report_step(harness.OutputOptions())))
        print(format_run_summary(summary, run_dir))
        verdicts.append((name, summary))
    print()
    for name, summary in verdicts:
        print(f"{name}: {verdict_words(summary)}  (open {out / name / 'report.html'} in a browser; certificate: "
              f"{out / name / 'certificate.pdf'}, findings: {out / name / 'findings.pdf'})")
    return 0


def cmd_sandbox_check(args: argparse.Namespace) -> int:
    """Start a vendor confined as a run would, say what it could see, greet it: 0 greeted, 2 not."""
    if not args.vendor_cmd:
        raise UsageError("sandbox-check needs --vendor-cmd (only a subprocess vendor is confined)")
    options = harness.SessionOptions(timeout=args.timeout, **sandbox_options(args))
    view = harness.check_sandbox(args.vendor_cmd, options)
    say(*view.lines())
    if view.problem:
        print("tablecert: error: the vendor did not start confined: "
              f"{harness.for_terminal(view.problem, LINE_SHOWN)}", file=sys.stderr)
        return 2
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    def add(name: str, func: Any, help_text: str) -> argparse.ArgumentParser:
        return subcommand(sub, name, func, help_text)

    p = add("demo", cmd_demo, "The main job on built-in defaults: certify the demo vendor (with bugs) and the "
            "reference vendor against the standard suite, as subprocesses.")
    p.add_argument("--out", default="out/demo", help="where the suite and both runs go (default out/demo)")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p = add("certify", cmd_certify, "Run a suite against a vendor and write run.db, summary.json, junit.xml "
            "and failures/ into OUT. Exit 0 certified, 1 failed, 2 incomplete or not run.")
    add_vendor_arguments(p)
    p.add_argument("--suite", default="standard", help="edge | standard | joker | exhaustive (default standard)")
    p.add_argument("--out", required=True, help="run folder")
    p.add_argument("--profile", help=PROFILE_HELP)
    p.add_argument("--suite-dir", help="use this generated suite folder instead of generating one (it must be the "
                   "release's suite named by --suite)")
    p.add_argument("--custom-suite", action="store_true", help=CUSTOM_HELP)
    cache = p.add_mutually_exclusive_group()
    cache.add_argument("--suite-cache", metavar="DIR", help="keep generated suites here between runs (default "
                       "$XDG_CACHE_HOME/tablecert/suites, else ~/.cache/tablecert/suites); a cached suite is "
                       "checked against the release before each use and generated again if it is not the release's")
    cache.add_argument("--no-suite-cache", action="store_true", help="generate the suite without the suite cache")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds for one vendor answer (default 60)")
    p.add_argument("--batch-size", type=int, help="cases per request (default 1000; 20,000 hands for the "
                   "joker and exhaustive suites)")
    p.add_argument("--retries", type=int, default=2, help="extra attempts of a request the vendor faulted on, "
                   "each with the vendor restarted (default 2)")
    p.add_argument("--no-bisect", action="store_true", help="record a batch that keeps faulting as a whole, "
                   "without splitting it to find the case that kills the vendor")
    defaults = harness.SessionOptions()
    p.add_argument("--memory-limit", type=int, metavar="MB", default=defaults.memory_limit_mb,
                   help=f"address-space limit of the vendor process (default {defaults.memory_limit_mb} MB)")
    p.add_argument("--cpu-limit", type=int, metavar="SECONDS", default=defaults.cpu_limit_s,
                   help=f"CPU time one vendor process may use before it is killed and restarted "
                        f"(default {defaults.cpu_limit_s} s)")
    p.add_argument("--max-answer-mb", type=int, metavar="MB", default=defaults.max_line_bytes >> 20,
                   help=f"longest answer accepted, from any adapter (default {defaults.max_line_bytes >> 20} MB)")
    p.add_argument("--max-run-answer-mb", type=int, metavar="MB", default=MAX_RUN_ANSWER_MB,
                   help=f"all the vendor's answers of a run together; past it nothing more is sent and the "
                        f"run is incomplete (default {MAX_RUN_ANSWER_MB} MB: the exhaustive suite's answers "
                        "are about 7 GB)")
    p.add_argument("--max-run-seconds", type=float, metavar="S", help="wall-clock cap on this invocation: past it "
                   "nothing more is sent and the run is incomplete (exit 2; --resume continues it). Default: none")
    p.add_argument("--pass-env", action="append", metavar="NAME", help="pass this environment variable to the vendor")
    p.add_argument("--require", metavar="SCOPE", help="the ops the lab requires: 'all' (the default: every op "
                   "of the suite), 'profile' (the profile's declared scope), or a comma-separated list of ops "
                   "and games (craps, paigow), to which bets and table features may be added (bet:dont_pass, "
                   "feature:commission, feature:bar=2, feature:unit=100, ...). A required op the vendor leaves "
                   "untested, or a required feature it does not declare, fails the run; a run that passes every "
                   "required op while others went untested is CERTIFIED FOR the required ones")
    p.add_argument("--resume", action="store_true", help="continue the run already in OUT")
    p.add_argument("--rerun-failed", metavar="RUN", help=RERUN_HELP)
    p.add_argument("--interruptions", type=int, metavar="N", help="live suite: the seeded interruptions (SIGKILL "
                   "of the vendor between two steps or with a step in flight) besides one at every step of the "
                   "named scripts (default 100)")
    p.add_argument("--no-interruptions", action="store_true", help="live suite: never kill the vendor (the live "
                   "tables and their recall are still judged)")
    p.add_argument("--interruption-seed", type=int, default=0, metavar="S", help="live suite: the seed of the "
                   "interruption points (default 0)")
    p.add_argument("--range", metavar="A:B", help="hand suites only: run the hands A to B-1 of the canonical order "
                   "(0-based; a first look at a slow vendor: never certified)")
    p.add_argument("--sample", type=int, metavar="N", help="hand suites only: run a deterministic random sample of N "
                   "hands (with --seed; never certified)")
    p.add_argument("--seed", type=int, metavar="S", help="the seed of --sample (default 0)")
    add_parallel_arguments(p)
    p.add_argument("--submission", metavar="FILE", help=SUBMISSION_HELP)
    p.add_argument("--manifest", metavar="FILE", help=MANIFEST_HELP)
    p.add_argument("--build-archive", metavar="DIR_OR_TAR", help="an HTTP vendor's files as the lab received them "
                   "(a folder or a tar): checked against --manifest before the first vector; the build is "
                   "authenticated when the vendor's build.authenticate answers for a fresh seed match them")
    p.add_argument("--previous", metavar="RUN", help="an earlier run folder of this vendor: when the vendor declares "
                   "the same build (name, version, build) but its files differ, the certificate says so")
    p.add_argument("--declared", help="TOML/JSON of the vendor's declared return figures, compared in the certificate")
    p.add_argument("--sign", metavar="KEY", help=SIGN_HELP)
    p.add_argument("--cert", help="X.509 certificate (PEM) for the PDF signature (default: self-signed for KEY)")
    add_seal_arguments(p, trust=False)
    p.add_argument("--run-id", metavar="ID", help="a name for this run, recorded and sealed; the shards of one run "
                   "(--shard K/N) must share it to be merged")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p = add("validate", cmd_validate, "Judge a vendor's offline responses file against a suite's expected view "
            "(writes the same run folder as certify). Exit 0 pass, 1 fail, 2 refused.")
    p.add_argument("--responses", required=True, help="JSON Lines: {file, tcId, answer} per case (gzip allowed)")
    p.add_argument("--suite-dir", required=True, help="the generated suite folder (with its expected view; it must "
                   "be a suite of this release)")
    p.add_argument("--profile", help="the table configuration file the suite was generated for (a lab's own table)")
    p.add_argument("--custom-suite", action="store_true", help=CUSTOM_HELP)
    p.add_argument("--out", required=True, help="run folder")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    add_seal_arguments(p, trust=False)
    p.add_argument("--max-answer-mb", type=int, metavar="MB", default=defaults.max_line_bytes >> 20,
                   help=f"longest answer line, and all the answers to one batch together (default "
                        f"{defaults.max_line_bytes >> 20} MB, as a live run)")
    p.add_argument("--max-run-answer-mb", type=int, metavar="MB", default=MAX_RUN_ANSWER_MB,
                   help=f"all the answers of the file together (default {MAX_RUN_ANSWER_MB} MB); past it the file "
                        "is refused")
    p.add_argument("--protocol", choices=("1", "2"), default="2",
                   help="the vendor contract version the answers follow (default 2; with 1 the vectors v1 cannot "
                        "express need no answer and are counted unsupported)")
    p = add("sandbox-check", cmd_sandbox_check, "Start a --vendor-cmd vendor confined exactly as certify would, print "
            "what it could see (mounts, user, limits, network) and greet it. Exit 0 greeted, 2 not.")
    add_vendor_arguments(p)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds for the vendor's hello (default 60)")
    p = add("serve-vendor", cmd_serve_vendor, "Serve a Python vendor plugin over the vendor protocol on "
            "stdin/stdout (e.g. --plugin demo).")
    p.add_argument("--plugin", required=True, help="entry-point name (tablecert.vendors) or module:attr")
