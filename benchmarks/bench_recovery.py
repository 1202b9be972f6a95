"""What a vendor fault costs a run: the `standard` suite through the subprocess adapter against
the reference vendor, clean, then with poisoned cases that kill the vendor (SIGSEGV), each found
by bisection, then against a vendor that crashes on every request of one op (given up after
three batches), then against one that hangs on every request of one op (given up after three
timeouts). Prints wall time, vendor restarts (faulted requests), timeouts and vectors lost.

    python benchmarks/bench_recovery.py [--only clean,poisoned,dead-op,hung-op] [--hang-timeout S]

``--hang-timeout`` (default 1) is the hung-op run's ``--timeout``: a hang costs the run this many
seconds per timeout, so the time the run spends waiting is the timeouts printed times it (the
others run with 120 s, never reached).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from tablecert.harness.adapters import VendorTarget
from tablecert.harness.contract import SessionOptions
from tablecert.harness.run.runner import Runner
from tablecert.harness.suites.reader import iter_batches
from tablecert.vectors.suites import generate

POISON_VENDOR = Path(__file__).parents[1] / "tests" / "poison_vendor.py"
POISONED = (("craps.settle", 5_000), ("craps.place_odds", 70_000), ("paigow.player_bonus", 300))
RUNS = ("clean", "poisoned", "dead-op", "hung-op")


def run(suite: Path, out: Path, command: str, timeout: float = 120) -> None:
    start = time.perf_counter()
    result = Runner(VendorTarget("subprocess", command, SessionOptions(timeout=timeout)).opener(), suite, out).run()
    wall = time.perf_counter() - start
    db = sqlite3.connect(out / "run.db")
    faults = db.execute("SELECT COUNT(*) FROM faults WHERE kind != 'not_sent'").fetchone()[0]
    timeouts = db.execute("SELECT COUNT(*) FROM faults WHERE kind = 'timeout'").fetchone()[0]
    poisoned = db.execute("SELECT COUNT(*) FROM poisoned").fetchone()[0]
    print(f"{out.name:<10} {wall:6.1f} s  verdict {result.verdict:<10} faulted requests {faults:>4}  "
          f"timeouts {timeouts:>3} (of {timeout:g} s)  cases isolated {poisoned:>3}  "
          f"vectors lost {result.totals['fault']:,}", flush=True)


def poisoned_cases(suite: Path) -> list[object]:
    wanted = dict(POISONED)
    cases, seen = [], dict.fromkeys(wanted, 0)
    for batch in iter_batches(suite, 10_000):
        if batch.op in wanted and seen[batch.op] <= wanted[batch.op] < seen[batch.op] + len(batch.cases):
            cases.append(batch.cases[wanted[batch.op] - seen[batch.op]])
        seen[batch.op] = seen.get(batch.op, 0) + len(batch.cases)
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(RUNS), help=f"runs to make, of {', '.join(RUNS)}")
    parser.add_argument("--hang-timeout", type=float, default=1.0, help="--timeout of the hung-op run (s)")
    args = parser.parse_args()
    only = args.only.split(",")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        suite = tmp / "standard"
        manifest = generate("standard", suite)
        print(f"standard: {manifest['numberOfTests']:,} vectors, 1,000 cases per request")
        if "clean" in only:
            run(suite, tmp / "clean", shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"]))
        faulty = {"poisoned": ({"cases": poisoned_cases(suite)}, "segv", 120.0),
                  "dead-op": ({"ops": ["paigow.settle"]}, "segv", 120.0),
                  "hung-op": ({"ops": ["paigow.settle"]}, "hang", args.hang_timeout)}
        for name, (spec, mode, timeout) in faulty.items():
            if name in only:
                path = tmp / f"{name}.json"
                path.write_text(json.dumps(spec))
                run(suite, tmp / name, shlex.join([sys.executable, str(POISON_VENDOR), str(path), mode]), timeout)


if __name__ == "__main__":
    main()
