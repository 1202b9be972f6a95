"""``tablecert fuzz`` measured: cases per second against the reference vendor through the
subprocess adapter (no failure may be reported), the same over a long budget for the reference
and for the independent craps implementation of tests/independent_vendor.py, and the seconds
until fuzz finds each faulty vendor of tests/config_faulty_vendors.py (target: within 60 s).
A budget of 0 skips that part. ``--overrun B,B...`` only measures how far past ``--budget B`` a
run goes: the demo vendor (failures found and shrunk) and the reference vendor (none), each
through its adapter; the search loop's own seconds and the whole call's (writing the run
folder and findings.pdf included).

    python benchmarks/bench_fuzz.py [--long SECONDS] [--speed SECONDS] [--seed N] [--overrun 2,5,10]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from config_faulty_vendors import CONFIG_FAULTY_VENDORS  # noqa: E402
from tablecert.fuzz import fuzz  # noqa: E402
from tablecert.harness.adapters import VendorTarget  # noqa: E402
from tablecert.harness.contract import SessionOptions  # noqa: E402

FIND_BUDGET = 60.0


def run(adapter: str, target: str, out: Path, budget: float, seed: int, **kw):  # type: ignore[no-untyped-def]
    opener = VendorTarget(adapter, target, SessionOptions(timeout=60)).opener()
    return fuzz(opener, out, budget=budget, seed=seed, profile="odds-3-4-5x", **kw)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--speed", type=float, default=30.0, help="budget of the cases/s measurement")
    parser.add_argument("--long", type=float, default=300.0, help="budget of the long no-false-positive runs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--overrun", help="comma-separated budgets (s): measure only how far past each a run goes")
    args = parser.parse_args()
    command = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])
    if args.overrun:
        overrun([float(b) for b in args.overrun.split(",")], command, args.seed)
        return
    with tempfile.TemporaryDirectory() as tmp:
        cpu = time.process_time()
        r = run("subprocess", command, Path(tmp) / "speed", args.speed, args.seed) if args.speed > 0 else None
        cpu = time.process_time() - cpu
        s = r.stats if r else None
        if s:
            print(f"reference, subprocess adapter: {s.cases:,} cases in {s.examples:,} examples, {s.seconds:.1f} s: "
                  f"{s.cases / s.seconds:,.0f} cases/s ({s.cases / cpu:,.0f} per CPU second of the fuzzer), "
                  f"{len(s.failures)} failures")
        for name, adapter, target in (("reference (subprocess)", "subprocess", command),
                                      ("independent craps (python)", "python", "independent_vendor:IndependentVendor")
                                      )[:2 if args.long > 0 else 0]:
            r = run(adapter, target, Path(tmp) / f"long-{adapter}", args.long, args.seed + 1)
            print(f"long run, {name}: {r.stats.cases:,} cases, {r.stats.seconds:.0f} s, "
                  f"{len(r.stats.failures)} failures {[f.signature for f in r.stats.failures]}")
        worst = 0.0
        for cls, fault in CONFIG_FAULTY_VENDORS:
            start = time.perf_counter()
            r = run("python", f"config_faulty_vendors:{cls.__name__}", Path(tmp) / cls.__name__, FIND_BUDGET,
                    args.seed, max_failures=1)
            took = time.perf_counter() - start
            seen = r.stats.first_seen if r.failed else float("inf")
            worst = max(worst, seen)
            found = r.stats.failures[0].signature if r.failed else "NOT FOUND"
            print(f"{cls.__name__:<30} found at {seen:5.1f} s, shrunk by {took:5.1f} s  {r.stats.cases:>7,} cases  {found}")
        print(f"slowest find: {worst:.1f} s (target {FIND_BUDGET:.0f} s)")


def overrun(budgets: list[float], command: str, seed: int) -> None:
    """Seconds past the budget: of the search loop (no example is sent past it) and of the call."""
    for name, adapter, target in (("demo (python)", "python", "demo"), ("reference (subprocess)", "subprocess", command)):
        for budget in budgets:
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                r = run(adapter, target, Path(tmp) / "fz", budget, seed)
                wall = time.perf_counter() - start
            print(f"{name:<24} budget {budget:5.1f} s: search {r.stats.seconds:6.2f} s "
                  f"({r.stats.seconds - budget:+.2f}), whole call {wall:6.2f} s ({wall - budget:+.2f}); "
                  f"{r.stats.cases:,} cases, {len(r.stats.failures)} failures", flush=True)


if __name__ == "__main__":
    main()
