"""``tablecert certify --rerun-failed RUN``: a vendor's pre-check of what an earlier run got wrong.

Only the vectors that failed or faulted in RUN are sent (:mod:`tablecert.harness.run.rerun`),
against the suite RUN ran (its folder ``RUN/suite`` unless ``--suite-dir`` names another copy, which
must be the same bytes), into a new run folder; then that run is compared with RUN by cause, as
``tablecert diff RUN OUT`` compares them (the same code: printed, and ``diff.json``/``diff.pdf`` in
OUT). A rerun never certifies: its verdict is never a pass, its documents' every page and its
summary.json (``rerun_of``) say so.

Exit status (:data:`RERUN_EXIT`): 0 every rerun vector now agrees with the oracle, nothing
faulted and nothing was left unsent; 1 some still fail, fault or go unsent; 2 bad input, or the
rerun did not finish.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tablecert import harness
from tablecert.cli_common import UsageError, say
from tablecert.cli_reports import write_diff

DEFAULT_SUITE = "standard"      # certify's --suite default: with --rerun-failed, RUN's suite instead
RERUN_HELP = ("send only the vectors that failed or faulted in the run folder RUN (a vendor's pre-check after "
              "a fix), against the suite RUN ran (RUN/suite, or --suite-dir if it is the same bytes), then compare "
              "with RUN by cause as tablecert diff does (diff.json and diff.pdf in OUT). Never certifies. Exit 0 "
              "every one of them now passes, 1 some still fail, fault or go unsent, 2 bad input or not finished")


def rerun_inputs(args: argparse.Namespace) -> harness.RerunSelection:
    """The rerun's vectors, and its suite checked to be RUN's (UsageError, one line, if not);
    ``args`` then name RUN's suite and its folder."""
    if args.resume:
        raise UsageError("--rerun-failed starts a new run folder: it takes no --resume")
    if args.workers or args.ray or args.shard or args.range is not None or args.sample is not None:
        raise UsageError("--rerun-failed sends its vectors from one vendor instance: it takes no --workers, --ray, "
                         "--shard, --range or --sample")
    run = Path(args.rerun_failed)
    if Path(args.out).resolve() == run.resolve():
        raise UsageError(f"--out {args.out}: a rerun goes into a new run folder, not the run it reruns")
    try:
        selection = harness.rerun_selection(run)
        if args.suite not in (DEFAULT_SUITE, selection.suite):
            raise UsageError(f"--suite {args.suite}: {run} is a run of the {selection.suite} suite; a rerun runs "
                             "against the suite the run ran")
        suite_dir = Path(args.suite_dir) if args.suite_dir else run / "suite"
        harness.same_suite(selection, suite_dir)
    except harness.RerunError as err:
        raise UsageError(str(err)) from None
    args.suite, args.suite_dir = selection.suite, str(suite_dir)
    args.custom_suite = args.custom_suite or selection.custom_suite
    return selection


def rerun_result(selection: harness.RerunSelection, out: Path, summary: dict[str, Any]) -> int:
    """The rerun compared with its run (``tablecert diff``'s comparison, printed and written into
    ``out``) and its exit status (see the module)."""
    from tablecert.reports.run_diff import run_diff, terminal_lines  # lazy: 732 ms of --help start (bench_startup.py, at rest)

    diff = run_diff(Path(selection.run), out)
    say(f"rerun of {selection.run}: {len(selection.vectors):,} vectors sent again ({selection.failed:,} failed, "
        f"{selection.faulted:,} faulted there); compared with it by cause:", *terminal_lines(diff))
    write_diff(diff, out, out)
    totals = summary.get("totals") or {}
    print("rerun: NEVER CERTIFIED (a rerun of failed vectors never certifies; certify the whole suite for a "
          "certificate)")
    if summary.get("state") != "finished" or summary.get("stopped"):
        return 2
    left = totals.get("fail", 0) + totals.get("fault", 0) + totals.get("unsupported", 0)
    return 1 if left or (summary.get("fault_totals") or {}).get("count") or diff.regressed else 0
