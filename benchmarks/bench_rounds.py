"""Rounds (``craps.round``): how long the ``rounds`` suite takes to generate, and how many round
steps a second the harness judges with an instant vendor.

    python benchmarks/bench_rounds.py [--rounds-dir DIR] [--batch 1000]

* Generation: ``generate("rounds", ...)`` into a temporary folder (wall and CPU seconds; the
  target is 60 s).
* Judging: every batch of the suite, read into memory first, answered by the canned vendors of
  ``bench_judging.py`` (the suite's expected answers written out before the clock starts: the
  harness's own cost, not a vendor's) as a subprocess (compact lines, byte for byte; spaced lines,
  the bulk judge) and as a Python plugin, judged batch by batch as the runner does it. Steps per
  second count every step of every round judged (the target is 100,000), by the wall clock and by
  the harness process's own CPU time (on a shared machine the wall clock also counts the others).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_judging import answers_of, load, timed, vendors  # noqa: E402

from tablecert.harness.instance.recovery import FaultPolicy  # noqa: E402
from tablecert.harness.instance.vendor_instance import VendorInstance, identity_of  # noqa: E402
from tablecert.harness.run.judging import judge  # noqa: E402
from tablecert.harness.suites.reader import iter_batches  # noqa: E402
from tablecert.vectors.suites import generate  # noqa: E402

OP = "craps.round"


def generation(out: Path) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    manifest = generate("rounds", out)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    size = sum(f["size"] for f in manifest["files"])
    print(f"rounds: {manifest['numberOfTests']:,} rounds generated in {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({size / 1e6:.1f} MB gzip, both views)   {load()}")


def judging(suite: Path, tmp: Path, size: int) -> None:
    batches = [b for b in iter_batches(suite, size) if b.op == OP]
    rounds = sum(len(b.cases) for b in batches)
    steps = sum(len(c["steps"]) for b in batches for c in b.cases if isinstance(c, dict)
                and isinstance(c.get("steps"), list))
    answers = [answers_of(b.expected) for b in batches]
    gc.freeze()
    print(f"judging {rounds:,} rounds of {steps:,} steps in {len(batches):,} batches of up to {size:,}")
    v = vendors(tmp, "rounds", answers, [OP])
    for name, opener, raw in (("subprocess, compact", v["compact"], True),
                              ("subprocess, spaced (bulk judge)", v["spaced"], True),
                              ("python plugin, values", v["plugin"], False)):
        session = opener()
        instance = VendorInstance(opener, FaultPolicy(), began=identity_of(session.hello()), session=session)
        exchange = timed(session, "batch_raw" if raw else "batch")
        passed = 0
        t0, c0 = time.perf_counter(), time.process_time()
        for b in batches:
            outcome = judge(instance, b)          # the run pipeline: the raw line, or the values
            passed += sum(k for (dim, _, result), k in outcome.counts.items() if dim == "op" and result == "pass")
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        session.close()
        assert passed == rounds, (name, passed, rounds)
        print(f"  {name:<34} {steps / elapsed:>12,.0f} steps/s ({rounds / elapsed:>9,.0f} rounds/s), "
              f"{elapsed:.2f} s of which the exchange {exchange[0]:.2f} s; {steps / cpu:,.0f} steps per CPU "
              f"second of the harness   {load()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds-dir", type=Path, help="a generated rounds suite (else generated, and timed)")
    parser.add_argument("--batch", type=int, default=1000, help="rounds per request (the runner's default 1000)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-rounds-") as tmp:
        suite = args.rounds_dir
        if suite is None:
            suite = Path(tmp) / "rounds"
            generation(suite)
        judging(suite, Path(tmp), args.batch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
