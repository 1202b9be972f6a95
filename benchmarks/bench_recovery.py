"""What a vendor fault costs a run: the `standard` suite through the subprocess adapter against
the reference vendor, clean, then with poisoned cases that kill the vendor (SIGSEGV), each found
by bisection, then against a vendor that crashes on every request of one op (given up after
three batches). Prints wall time, vendor restarts (faulted requests) and vectors lost.

    python benchmarks/bench_recovery.py
"""

from __future__ import annotations

import json
import shlex
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from tablecert.harness.contract import VendorTarget
from tablecert.harness.contract import SessionOptions
from tablecert.harness.run.runner import Runner
from tablecert.harness.suites.reader import iter_batches
from tablecert.vectors.suites import generate

POISON_VENDOR = Path(__file__).parents[1] / "tests" / "poison_vendor.py"
POISONED = (("craps.settle", 5_000), ("craps.place_odds", 70_000), ("paigow.player_bonus", 300))


def run(suite: Path, out: Path, command: str) -> None:
    start = time.perf_counter()
    result = Runner(VendorTarget("subprocess", command, SessionOptions(timeout=120)).opener(), suite, out).run()
    wall = time.perf_counter() - start
    db = sqlite3.connect(out / "run.db")
    faults = db.execute("SELECT COUNT(*) FROM faults WHERE kind != 'not_sent'").fetchone()[0]
    poisoned = db.execute("SELECT COUNT(*) FROM poisoned").fetchone()[0]
    print(f"{out.name:<10} {wall:6.1f} s  verdict {result.verdict:<10} faulted requests {faults:>4}  "
          f"cases isolated {poisoned:>3}  vectors lost {result.totals['fault']:,}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        suite = tmp / "standard"
        manifest = generate("standard", suite)
        print(f"standard: {manifest['numberOfTests']:,} vectors, 1,000 cases per request")
        run(suite, tmp / "clean", shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"]))
        wanted = dict(POISONED)
        cases, seen = [], dict.fromkeys(wanted, 0)
        for batch in iter_batches(suite, 10_000):
            if batch.op in wanted and seen[batch.op] <= wanted[batch.op] < seen[batch.op] + len(batch.cases):
                cases.append(batch.cases[wanted[batch.op] - seen[batch.op]])
            seen[batch.op] = seen.get(batch.op, 0) + len(batch.cases)
        for name, spec in (("poisoned", {"cases": cases}), ("dead-op", {"ops": ["paigow.settle"]})):
            path = tmp / f"{name}.json"
            path.write_text(json.dumps(spec))
            run(suite, tmp / name, shlex.join([sys.executable, str(POISON_VENDOR), str(path), "segv"]))


if __name__ == "__main__":
    main()
