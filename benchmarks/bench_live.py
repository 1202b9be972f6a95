"""Live tables: interruptions per second and the time of the ``live`` suite with the reference
vendor, a real subprocess in the real sandbox, killed with SIGKILL and restarted on its state_dir.

    python benchmarks/bench_live.py [--interruptions 1000] [--seed 0] [--isolation auto] [--vendor-cmd CMD]

* The ``live`` suite without interruptions (every step and every recall still one request each):
  the harness's and the vendor's cost per step.
* The suite with an interruption at every step of its named scripts and ``--interruptions`` seeded
  points among its seeded sessions (1,000 by default: the issue's figure; the test suite plays a
  smaller number): wall time, time per interruption, interruptions per second, and whether the
  reference vendor survived every one (it must: exit status 1 otherwise).

The vendor is ``python -m tablecert.oracle.vendor`` by default (``tablecert reference-vendor``
imports the whole command line first: about 1.4 s more per start on this machine).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.driver import EVERY_STEP_FLAG, MODES, judge_live, plan_interruptions
from tablecert.harness.confine.sandbox import vendor_uid
from tablecert.harness.live.instance import InstanceControl, live_opener, vendor_state_dir
from tablecert.harness.suites.reader import iter_batches
from tablecert.oracle.live_tables import GAME_OF_OP
from tablecert.vectors.suites import generate


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def play(cmd: str, options: SessionOptions, batches: list, plan) -> tuple[float, int, int, int, int]:
    """(wall seconds, vectors passed, vectors, interruptions made, survived) of one pass over the suite."""
    with tempfile.TemporaryDirectory(prefix="bench-live-") as base, \
            vendor_state_dir(Path(base), vendor_uid(shlex.split(cmd), options)) as state:
        control = InstanceControl(live_opener(cmd, options, state))
        wall = time.perf_counter()
        outcomes = [judge_live(control, batch, plan) for batch in batches]
        wall = time.perf_counter() - wall
        control.close()
    passed = sum(sum(o.counts[("op", op, "pass")] for op in GAME_OF_OP) for o in outcomes)
    made = sum(o.counts[("interruption", m, "made")] for o in outcomes for m in MODES)
    survived = sum(o.counts[("interruption", m, "survived")] for o in outcomes for m in MODES)
    return wall, passed, sum(len(b.cases) for b in batches), made, survived


def live_suite() -> tuple[list, list]:
    """The ``live`` suite's batches, and its vectors as the plan takes them (key, steps, flagged every step)."""
    with tempfile.TemporaryDirectory(prefix="bench-live-suite-") as tmp:
        generate("live", Path(tmp))
        batches = [b for b in iter_batches(Path(tmp), 1000) if b.op in GAME_OF_OP]
    return batches, [((b.file, tc), len(case["steps"]), EVERY_STEP_FLAG in flags)
                     for b in batches for tc, case, flags in zip(b.tc_ids, b.cases, b.flags)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--interruptions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--isolation", default="auto", choices=("auto", "strict", "none"))
    ap.add_argument("--vendor-cmd", default=f"{shlex.quote(sys.executable)} -m tablecert.oracle.vendor")
    args = ap.parse_args()
    options = SessionOptions(isolation=args.isolation, timeout=60)
    batches, vectors = live_suite()
    steps = sum(n for _, n, _ in vectors)
    wall, passed, total, _, _ = play(args.vendor_cmd, options, batches, plan_interruptions(vectors, 0, 0, False))
    print(f"live suite, no interruptions: {total} rounds, {steps:,} steps in {wall:.1f} s "
          f"({steps / wall:,.0f} steps/s); {passed} of {total} passed   {load()}")
    plan = plan_interruptions(vectors, args.interruptions, args.seed)
    wall, passed, total, made, survived = play(args.vendor_cmd, options, batches, plan)
    print(f"live suite, {made:,} interruptions (every named step + {args.interruptions:,} seeded): {wall:.1f} s, "
          f"{wall / max(made, 1) * 1000:.0f} ms per interruption, {made / wall:.2f} interruptions/s; survived "
          f"{survived:,} of {made:,}; {passed} of {total} rounds passed   {load()}")
    return 0 if passed == total and survived == made else 1


if __name__ == "__main__":
    sys.exit(main())
