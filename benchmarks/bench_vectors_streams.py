"""Benchmark of the hand-stream suites' expected answers: wall time and hands per second of
:func:`tablecert.vectors.hand_stream.expected_stream_digest` for ``joker`` and ``exhaustive``,
and the wall time of the ``standard`` suite's pai gow sample.

Run as ``python benchmarks/bench_vectors_streams.py``. Numba compilation (or loading from its
cache) is timed separately by a first call on the one-hand block, so the digests are warm. Each
digest is checked against the committed ``golden/hand_streams.toml``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per suite (the best is reported)")
    parser.add_argument("--no-sample", action="store_true", help="skip timing the standard suite's sample")
    args = parser.parse_args(argv)

    load_at_start = os.getloadavg()[0]
    t0 = time.perf_counter()
    import numba

    from tablecert.oracle.labeller import label_hands_with_top
    from tablecert.vectors import paigow_cases
    from tablecert.vectors.hand_stream import SUITES, expected_stream_digest, golden_digest
    import_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    label_hands_with_top(6)
    paigow_cases.shapes_with_top(6)
    compile_s = time.perf_counter() - t0

    print(f"numba {numba.__version__}, {numba.get_num_threads()} threads, {os.cpu_count()} CPUs, "
          f"load average at start {load_at_start:.2f} (other work on the machine slows the runs)")
    print(f"import                    {import_s:8.3f} s")
    print(f"compile / cache load      {compile_s:8.3f} s")
    failed = False
    for suite in SUITES:
        walls = []
        result = None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = expected_stream_digest(suite)
            walls.append(time.perf_counter() - t0)
        assert result is not None
        sha, hands = result
        wall = min(walls)
        ok = result == golden_digest(suite)
        failed |= not ok
        print(f"{suite:<11} {hands:>11,} hands: {wall:7.3f} s wall (best of {args.repeat}: "
              + ", ".join(f"{w:.3f}" for w in walls) + f"), {hands / wall:14,.0f} hands/s, "
              f"{2 * hands / wall / 1e6:6.0f} MB/s of stream; sha256 {sha[:16]}... "
              + ("= golden" if ok else "DIFFERS FROM golden/hand_streams.toml"))

    if not args.no_sample:
        t0 = time.perf_counter()
        groups = list(paigow_cases.sample_groups(4_000_000))
        wall = time.perf_counter() - t0
        n_hands = sum(len(list(g.vectors)) for g in groups if g.op == paigow_cases.PLAYER_OP)
        n_rounds = sum(len(list(g.vectors)) for g in groups if g.op == paigow_cases.SETTLE_OP)
        print(f"standard pai gow sample: {wall:.3f} s wall, {n_hands:,} hands (each to both label ops), "
              f"{n_rounds:,} rounds")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
