"""Two versions of tablecert side by side in one run: the judging, parallel and live benchmarks and
the reference vendor's start, alternated between the two so the machine's load weighs on both alike.

    python benchmarks/bench_before_after.py --before /tmp/base [--after .] [--rounds 3]
        --joker-dir DIR [--standard-dir DIR] [--hands 100000] [--live-interruptions 200] [--no-parallel]

``--before`` and ``--after`` are source trees, each with its own ``.venv`` (``make
.venv/bin/.tablecert-installed`` in it): e.g. a ``git worktree`` of the base commit under /tmp.
Each round runs every measure once on one tree, then on the other (the first tree swapped from one
round to the next); each benchmark is its own fresh process, with the tree's own python and its
own copy of the script. The suites are generated once beforehand (``--joker-dir``,
``--standard-dir``; without the standard suite, bench_judging's settle rows are left out), so
both sides read the same files. Printed: for each measure and side, the
figures of each round (the benchmark's own lines with a rate or a time) and the wall time, the
load average before each run, and the median of the rounds.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HELLO = b'{"id": 0, "op": "hello", "protocol": "tablecert-vendor/2", "protocols": ["tablecert-vendor/2"]}\n'
FIGURE = re.compile(r"([\d,]+(?:\.\d+)?)\s*(answers/s|interruptions/s|steps/s| s\b|x\b|%)")


def measures(args: argparse.Namespace) -> dict[str, list[str]]:
    """measure -> the arguments after ``python`` (relative to the tree)."""
    suites = ["--joker-dir", str(args.joker_dir)]
    suites += ["--standard-dir", str(args.standard_dir)] if args.standard_dir else ["--only", "hands"]
    found = {
        "bench_judging": ["benchmarks/bench_judging.py", "--hands", str(args.hands),
                          "--strict-hands", str(args.hands // 10), *suites],
        "bench_live": ["benchmarks/bench_live.py", "--interruptions", str(args.live_interruptions)],
    }
    if not args.no_parallel:
        found["bench_parallel"] = ["benchmarks/bench_parallel.py", "--hands", str(args.hands), "--ceiling-hands",
                                   str(args.hands), "--repeat", "1", "--no-ray"]
    return found


def vendor_start(tree: Path) -> tuple[float, str]:
    """Seconds from starting ``tablecert reference-vendor`` to its answer to a hello."""
    start = time.perf_counter()
    done = subprocess.run([str(tree / ".venv" / "bin" / "tablecert"), "reference-vendor"], input=HELLO,
                          capture_output=True, check=True, cwd=tree)
    took = time.perf_counter() - start
    assert done.stdout.startswith(b'{"id": 0') or done.stdout.startswith(b'{"id":0'), done.stdout[:200]
    return took, f"{took * 1e3:.0f} ms to the hello's answer"


def bench(tree: Path, argv: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([str(tree / ".venv" / "bin" / "python"), *argv], capture_output=True, text=True, cwd=tree)
    took = time.perf_counter() - start
    lines = [line.rstrip() for line in done.stdout.splitlines() if FIGURE.search(line) and "CPUs" not in line]
    if done.returncode != 0:        # shown, and the run goes on: the other measures still compare
        lines.append(f"EXITED {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1][:300]}")
    return took, "\n      ".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--joker-dir", type=Path, required=True)
    ap.add_argument("--standard-dir", type=Path, help="the standard suite (else bench_judging's hand rows only)")
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--live-interruptions", type=int, default=200)
    ap.add_argument("--vendor-starts", type=int, default=5, help="reference-vendor starts per side and round")
    ap.add_argument("--no-parallel", action="store_true")
    args = ap.parse_args()
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    for side, tree in sides.items():
        commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        print(f"{side}: {tree} at {commit}")
    walls: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds):
        order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
        print(f"\nround {round_ + 1} (load {os.getloadavg()[0]:.2f})", flush=True)
        for name, argv in [("reference-vendor start", []), *measures(args).items()]:
            for side in order:
                load = os.getloadavg()[0]
                if argv:
                    took, shown = bench(sides[side], argv)
                else:
                    starts = [vendor_start(sides[side]) for _ in range(args.vendor_starts)]
                    took = min(t for t, _ in starts)
                    shown = f"best {took * 1e3:.0f} ms, median {statistics.median(t for t, _ in starts) * 1e3:.0f} ms " \
                            f"of {args.vendor_starts} starts to the hello's answer"
                walls.setdefault((name, side), []).append(took)
                print(f"  {name:<24} {side:<6} load {load:5.2f}  wall {took:7.2f} s\n      {shown}", flush=True)
    print("\nmedian wall over the rounds (reference-vendor start: of the best start of each round)")
    for name in dict.fromkeys(n for n, _ in walls):
        before, after = (statistics.median(walls[name, side]) for side in ("before", "after"))
        print(f"  {name:<24} before {before:8.3f} s   after {after:8.3f} s   after/before {after / before:5.2f}")
    print(f"load at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
