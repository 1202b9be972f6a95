"""Power cuts over a live vendor's whole life: how many a default ``live`` run makes at each point,
what one cut costs at each point, and cuts per second of play, with the reference vendor (a real
subprocess in the real sandbox, killed with SIGKILL and restarted on its state_dir).

    python benchmarks/bench_cuts.py [--cuts 5] [--seed 0] [--isolation auto] [--full] [--vendor-cmd CMD]

* **Cuts by point in a default run** (``certify --suite live``: ``--interruptions 100``, seed 0),
  from the run's plan: the step cuts by kind, each life point, storms and their cuts, cuts after
  a close.
* **Cost of a cut at each point**: one seeded session of the suite (twelve games) played with no
  cut, then with ``--cuts`` cuts at one point (step points at that many steps; life points as a
  storm of that many in a row; after a close, that many); the cost is the extra wall time over the
  cuts made (a cut's kill, the vendor's start, its resume and recall, the step sent again).
* With ``--full``: the whole default run played (every vector, its plan): wall time, cuts and
  steps sent again, cuts per second of play.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tablecert.harness.confine.sandbox import vendor_uid
from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.cuts import CLOSED, CUT_KINDS, LIFE_POINTS, RESENT, STORM, VectorLife
from tablecert.harness.live.driver import (ALL_KINDS, DEFAULT_INTERRUPTIONS, EVERY_STEP_FLAG, MODES, Play,
                                           judge_live, plan_interruptions, play_vector)
from tablecert.harness.adapters.registry import VendorTarget
from tablecert.harness.instance.vendor_instance import VendorInstance
from tablecert.harness.live.instance import vendor_state_dir
from tablecert.oracle.live_tables import GAME_OF_OP, SUITE_OP

from bench_live import live_suite, load     # a script beside this one (benchmarks/ is sys.path[0])


def timed(cmd: str, options: SessionOptions, batch, index: int, points: dict[int, str], life: VectorLife) -> tuple[float, int]:
    """(wall seconds, cuts made) of one vector played with these cuts."""
    case, expected = batch.cases[index], batch.expected[index]["result"]["steps"]
    with tempfile.TemporaryDirectory(prefix="bench-cuts-") as base, \
            vendor_state_dir(Path(base), vendor_uid(shlex.split(cmd), options)) as state:
        control = VendorInstance(VendorTarget("subprocess", cmd, options).live_opener(state))
        play = Play(batch.tc_ids[index])
        control.live_session()
        wall = time.perf_counter()
        play_vector(control, batch.config, batch.tc_ids[index], case, expected, points, play, "craps", life)
        wall = time.perf_counter() - wall
        control.drop()
    return wall, sum(1 for p in play.made if p.mode != RESENT)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cuts", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--isolation", default="auto", choices=("auto", "strict", "none"))
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--vendor-cmd", default=f"{shlex.quote(sys.executable)} -m tablecert.oracle.vendor")
    args = ap.parse_args()
    options = SessionOptions(isolation=args.isolation, timeout=60)
    batches, vectors = live_suite()
    plan = plan_interruptions(vectors, DEFAULT_INTERRUPTIONS, args.seed)
    by = Counter(mode for points in plan.points.values() for mode in points.values())
    for life in plan.life.values():
        for cuts in life.at.values():
            by.update(cuts)
            by[STORM] += len(cuts) > 1
        by[CLOSED] += len(life.after_close)
        by[STORM] += len(life.after_close) > 1
    total = sum(by[k] for k in CUT_KINDS)
    print(f"default live run ({len(vectors)} vectors, --interruptions {DEFAULT_INTERRUPTIONS}, seed {args.seed}): "
          f"{total:,} cuts planned: " + ", ".join(f"{k} {by[k]:,}" for k in (*CUT_KINDS, STORM)))

    craps = next(b for b in batches if b.op == SUITE_OP and not any(EVERY_STEP_FLAG in f for f in b.flags))
    index = 2
    steps = len(craps.cases[index]["steps"])
    base, _ = timed(args.vendor_cmd, options, craps, index, {}, VectorLife())
    print(f"one seeded session, {steps} steps, no cut: {base:.2f} s ({steps / base:,.0f} steps/s)   {load()}")
    n = args.cuts
    at = [steps // 2 + k * max(1, steps // (2 * n + 2)) for k in range(n)]
    for kind in (*MODES, *LIFE_POINTS, CLOSED):
        if kind in MODES:
            points, life = dict.fromkeys(at, kind), VectorLife()
        elif kind == CLOSED:
            points, life = {}, VectorLife(after_close=("hello_answered",) * n)
        else:
            points, life = {}, VectorLife({steps // 2: (kind,) * n})
        wall, made = timed(args.vendor_cmd, options, craps, index, points, life)
        print(f"  {kind:16} {made} cuts: {wall:.2f} s, {(wall - base) / max(made, 1) * 1000:,.0f} ms per cut   {load()}")

    if args.full:
        with tempfile.TemporaryDirectory(prefix="bench-cuts-") as tmp, \
                vendor_state_dir(Path(tmp), vendor_uid(shlex.split(args.vendor_cmd), options)) as state:
            control = VendorInstance(VendorTarget("subprocess", args.vendor_cmd, options).live_opener(state))
            wall = time.perf_counter()
            outcomes = [judge_live(control, batch, plan) for batch in batches]
            wall = time.perf_counter() - wall
            control.drop()
        made = Counter({k: sum(o.counts[("interruption", k, "made")] for o in outcomes) for k in ALL_KINDS})
        survived = sum(o.counts[("interruption", k, "survived")] for o in outcomes for k in CUT_KINDS)
        cuts = sum(made[k] for k in CUT_KINDS)
        passed = sum(o.counts[("op", op, "pass")] for o in outcomes for op in GAME_OF_OP)
        print(f"default live run played: {wall:.1f} s, {cuts:,} cuts ({cuts / wall:.2f} cuts per second of play), "
              f"{survived:,} survived, {made[RESENT]:,} steps sent again; {passed} of {len(vectors)} vectors passed; "
              "by point: " + ", ".join(f"{k} {made[k]:,}" for k in (*CUT_KINDS, STORM)) + f"   {load()}")
        return 0 if passed == len(vectors) and survived == cuts else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
