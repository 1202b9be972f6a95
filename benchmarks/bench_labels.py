"""Benchmark of the all-hands labeller: full census wall time and hands per second, beside the
rate of phevaluator's 7-card evaluator on a sample of the same (joker-free) hands.

Run as ``python benchmarks/bench_labels.py``. Numba compilation (or loading from numba's cache)
is timed separately by a first call on a one-hand block, so the census time is warm.

phevaluator is a pure-Python package and far slower, so it is timed on a sample of
``--sample`` joker-free hands spread evenly over the canonical colex order; converting the hands
to card codes is done before its clock starts. The two evaluators do different work (a poker
rank value versus a pai gow category and a banker label), so the ratio is indicative only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from math import comb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=200_000, help="joker-free hands given to phevaluator")
    parser.add_argument("--repeat", type=int, default=3, help="census runs (the best is reported)")
    args = parser.parse_args(argv)

    load_at_start = os.getloadavg()[0]
    t0 = time.perf_counter()
    import numba

    from tablecert.oracle.cards import HAND_COUNT, colex_unrank, hand_codes
    from tablecert.oracle.census import census_mismatches, run_census
    from tablecert.oracle.labeller import _count_block, _tasks, label_hands_with_top
    import_s = time.perf_counter() - t0

    # Compile (or load from cache) both kernels on the one-hand block with highest card 6.
    t0 = time.perf_counter()
    label_hands_with_top(6)
    c5s, c4s, _ = _tasks(6)
    _count_block(6, c5s, c4s, numba.get_num_threads())
    compile_s = time.perf_counter() - t0

    walls = []
    result = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        result = run_census()
        walls.append(time.perf_counter() - t0)
    wall = min(walls)
    assert result is not None
    mismatches = census_mismatches(result)
    rate = HAND_COUNT / wall

    t0 = time.perf_counter()
    top52 = label_hands_with_top(52)
    stream_s = time.perf_counter() - t0

    print(f"numba {numba.__version__}, {numba.get_num_threads()} threads, {os.cpu_count()} CPUs, "
          f"load average at start {load_at_start:.2f} (other work on the machine slows the census)")
    print(f"import                    {import_s:8.3f} s")
    print(f"compile / cache load      {compile_s:8.3f} s")
    print(f"census, {HAND_COUNT:,} hands: {wall:8.3f} s wall (best of {args.repeat}: "
          + ", ".join(f"{w:.3f}" for w in walls) + ")")
    print(f"census rate               {rate:14,.0f} hands/s")
    print(f"labels for top=52 ({len(top52[0]):,} hands, arrays): {stream_s:.3f} s, "
          f"{len(top52[0]) / stream_s:,.0f} hands/s")
    print("census vs published:      " + ("ok" if not mismatches else "MISMATCH: " + "; ".join(mismatches)))

    try:
        from phevaluator import evaluate_cards
    except ImportError:
        print("phevaluator not installed (pip install 'tablecert[bench]'): no comparison")
        return 1 if mismatches else 0

    no_joker_hands = comb(52, 7)  # the first C(52,7) colex positions are the joker-free hands
    step = no_joker_hands // args.sample
    sample = [hand_codes(colex_unrank(i * step)) for i in range(args.sample)]
    t0 = time.perf_counter()
    for codes in sample:
        evaluate_cards(*codes)
    ph_s = time.perf_counter() - t0
    ph_rate = len(sample) / ph_s
    print(f"phevaluator 7-card, {len(sample):,} joker-free hands: {ph_s:.3f} s, {ph_rate:,.0f} hands/s")
    print(f"ratio (census rate / phevaluator rate): {rate / ph_rate:,.0f}x")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
