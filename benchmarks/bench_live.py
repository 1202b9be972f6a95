"""Live tables: interruptions per second and the time of the ``live`` suite with the reference
vendor, a real subprocess in the real sandbox, killed with SIGKILL and restarted on its state_dir.

    python benchmarks/bench_live.py [--interruptions 1000] [--seed 0] [--isolation auto] [--vendor-cmd CMD]
                                    [--stations | --only-stations] [--station-rounds 1000] [--station-cuts 1000]

* The ``live`` suite without interruptions (every step and every recall still one request each):
  the harness's and the vendor's cost per step.
* The suite with a cut at every step of its named scripts and ``--interruptions`` seeded steps
  among its seeded sessions (1,000 by default: the issue's figure; the test suite plays a smaller
  number), twice: with the step cuts alone (as releases before issue 41 cut, so their figures
  compare), and as certify cuts (every vector's life cuts, storms and closed tables too, issue 41).
  Each row: every power cut counted by kind (a storm's each), wall time, time per cut and per cut
  over the uncut play, and whether the reference vendor survived every one (it must: exit
  status 1 otherwise).

* With ``--stations`` (issue 38): one table of 8 stations playing ``--station-rounds`` rounds on one
  shooter, every station's recall and the meters judged after every game, without a cut and
  with ``--station-cuts`` seeded cuts: steps per second, and the cost of a cut (the extra wall
  time over the uncut play, per cut: the kill, the vendor's start and journal replay, the resume
  and the recalls judged after it).

The vendor is ``python -m tablecert.oracle.vendor`` by default (``tablecert reference-vendor``
imports the command line first: about 25 ms of CPU more per start on this machine, with the
package's bytecode written: ``make bytecode``). A cut's cost by component, and the vendor's start
part by part: benchmarks/bench_cut_cost.py.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import sys
import tempfile
import time
from pathlib import Path

from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.cuts import CUT_KINDS, RESENT, STORM
from tablecert.harness.live.driver import EVERY_STEP_FLAG, MODES, judge_live, plan_interruptions
from tablecert.harness.confine.sandbox import vendor_uid
from tablecert.harness.adapters.registry import VendorTarget
from tablecert.harness.instance.vendor_instance import VendorInstance
from tablecert.harness.live.instance import vendor_state_dir
from tablecert.harness.suites.reader import iter_batches
from tablecert.oracle.live_tables import GAME_OF_OP
from tablecert.vectors.suites import generate


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def play(cmd: str, options: SessionOptions, batches: list, plan) -> tuple[float, int, int, dict[str, tuple[int, int]]]:
    """(wall seconds, vectors passed, vectors, kind -> (made, survived)) of one pass over the suite:
    every kind of :data:`~tablecert.harness.live.cuts.CUT_KINDS` (the power cuts), storms and steps
    sent again."""
    with tempfile.TemporaryDirectory(prefix="bench-live-") as base, \
            vendor_state_dir(Path(base), vendor_uid(shlex.split(cmd), options)) as state:
        control = VendorInstance(VendorTarget("subprocess", cmd, options).live_opener(state))
        wall = time.perf_counter()
        outcomes = [judge_live(control, batch, plan) for batch in batches]
        wall = time.perf_counter() - wall
        control.drop()
    passed = sum(sum(o.counts[("op", op, "pass")] for op in GAME_OF_OP) for o in outcomes)
    kinds = {kind: (sum(o.counts[("interruption", kind, "made")] for o in outcomes),
                    sum(o.counts[("interruption", kind, "survived")] for o in outcomes))
             for kind in (*CUT_KINDS, STORM, RESENT)}
    return wall, passed, sum(len(b.cases) for b in batches), kinds


def cut_line(what: str, wall: float, calm: float, kinds: dict[str, tuple[int, int]], passed: int, total: int) -> bool:
    """Print one row of cuts (every power cut counted, a storm's each); True when all survived."""
    made = sum(kinds[k][0] for k in CUT_KINDS)
    survived = sum(kinds[k][1] for k in CUT_KINDS)
    print(f"live suite, {what}: {made:,} cuts ({', '.join(f'{k} {m:,}' for k, (m, _) in kinds.items() if m)}) in "
          f"{wall:.1f} s: {wall / max(made, 1) * 1000:.0f} ms per cut, {(wall - calm) / max(made, 1) * 1000:.0f} ms over "
          f"the uncut play; survived {survived:,} of {made:,}; {passed} of {total} rounds passed   {load()}")
    return survived == made and passed == total


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
    ap.add_argument("--stations", action="store_true", help="also 8 stations x --station-rounds with --station-cuts")
    ap.add_argument("--station-rounds", type=int, default=1000)
    ap.add_argument("--station-cuts", type=int, default=1000)
    ap.add_argument("--only-stations", action="store_true", help="only the station table")
    args = ap.parse_args()
    options = SessionOptions(isolation=args.isolation, timeout=60)
    if args.only_stations:
        return 0 if stations(args, options) else 1
    batches, vectors = live_suite()
    steps = sum(n for _, n, _ in vectors)
    calm, passed, total, _ = play(args.vendor_cmd, options, batches, plan_interruptions(vectors, 0, 0, False))
    print(f"live suite, no interruptions: {total} rounds, {steps:,} steps in {calm:.1f} s "
          f"({steps / calm:,.0f} steps/s); {passed} of {total} passed   {load()}")
    ok = passed == total
    # the step cuts alone (every named step + the seeded ones), as the releases before issue 41 cut
    wall, passed, total, kinds = play(args.vendor_cmd, options, batches,
                                      plan_interruptions(vectors, args.interruptions, args.seed, lived=lambda _: False))
    ok = cut_line(f"step cuts only (every named step + {args.interruptions:,} seeded)", wall, calm, kinds, passed, total) and ok
    # and as certify plays it: the step cuts, every vector's life cuts, storms and closed tables, steps sent again
    wall, passed, total, kinds = play(args.vendor_cmd, options, batches, plan_interruptions(vectors, args.interruptions, args.seed))
    ok = cut_line("as certify cuts (step cuts, life cuts, storms, closed tables)", wall, calm, kinds, passed, total) and ok
    if args.stations:
        ok = stations(args, options) and ok
    return 0 if ok else 1


def station_table(rounds: int) -> tuple[dict, dict, list[dict]]:
    """(config, case, expected records) of one table of 8 stations playing ``rounds`` rounds on
    one shooter: each round every station bets its line (pass or don't pass, in turn), the first
    takes odds once a point is set, and the dice (seeded) roll until the pass line is decided."""
    from tablecert.oracle.craps_round import parse_round_config
    from tablecert.oracle.live_stations import play as play_stations
    from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
    from tablecert.vectors.live_cases import Draw
    from tablecert.vectors.station_cases import bet, odds, roll

    config = dict(load_profile(DEFAULT_PROFILE).craps, house_rules={})
    draw = Draw(b"bench live stations")
    steps: list[dict] = []
    for _ in range(rounds):
        steps += [bet(s, ("pass", "dont_pass")[s % 2], 500) for s in range(1, 9)]
        total = 2 + draw.below(11)
        steps.append(roll(total))
        if total in (4, 5, 6, 8, 9, 10):
            steps.append(odds(1, "pass", 500))
            while (t := 2 + draw.below(11)) not in (7, total):
                steps.append(roll(t))
            steps.append(roll(t))
    case = {"stations": [{"station": s, "rack": 10**12} for s in range(1, 9)], "on_disable": "keep", "steps": steps}
    return config, case, play_stations(parse_round_config(config), case)["steps"]


def stations(args: argparse.Namespace, options: SessionOptions) -> bool:
    """8 stations x ``--station-rounds`` rounds on one table, played once without a cut and once
    with ``--station-cuts`` seeded cuts: steps per second and the cost of a cut."""
    from tablecert.harness.live.driver import LivePlan, Play
    from tablecert.harness.live.stations import StationPlayer

    config, case, expected = station_table(args.station_rounds)
    n = len(case["steps"])
    player = StationPlayer(f"tablecert-{__import__('tablecert').__version__}", True)
    results = []
    for cuts in (0, args.station_cuts):
        plan = plan_interruptions([("t", n, False)], cuts, args.seed)
        with tempfile.TemporaryDirectory(prefix="bench-live-") as base, \
                vendor_state_dir(Path(base), vendor_uid(shlex.split(args.vendor_cmd), options)) as state:
            control = VendorInstance(VendorTarget("subprocess", args.vendor_cmd, options).live_opener(state))
            play = Play(1)
            wall = time.perf_counter()
            player(control, config, 1, case, expected, plan.of("t"), play)
            wall = time.perf_counter() - wall
            control.drop()
        results.append((wall, len(play.made), play.survived))
    (calm, _, _), (cut, made, survived) = results
    print(f"8 stations x {args.station_rounds:,} rounds: {n:,} steps in {calm:.1f} s without a cut ({n / calm:,.0f} "
          f"steps/s, every station's recall and the meters judged after every game)   {load()}")
    print(f"  with {made:,} cuts: {cut:.1f} s, {(cut - calm) / max(made, 1) * 1000:.0f} ms per cut over the uncut "
          f"play; survived {survived:,} of {made:,}; peak RSS of this process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB   {load()}")
    return survived == made


if __name__ == "__main__":
    sys.exit(main())
