"""The ``rounds`` suite's certify time before and after a change, in one run: ``tablecert certify
--suite rounds`` of the reference vendor (as ``make test`` runs it, tests/test_suite_folders.py),
alternating between two source trees and their own generated ``rounds`` folders so the machine's
load weighs on both alike.

    python benchmarks/bench_rounds_certify.py --before TREE:DIR --after TREE:DIR [--rounds 2]

Each side is a source tree with its own ``.venv`` (``make .venv/bin/.tablecert-installed``; e.g. a
``git worktree`` of the base commit) and the ``rounds`` folder that tree generated (``tablecert
vectors generate --suite rounds --out DIR``). Printed: per round and side the wall seconds, the
vectors judged and the load average before the run; then each side's median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def certify(tree: Path, suite: Path) -> tuple[float, int, str]:
    python = tree / ".venv" / "bin" / "python"
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        done = subprocess.run([str(python), "-m", "tablecert", "certify", "--vendor-cmd",
                               f"{python} -m tablecert reference-vendor", "--suite", "rounds", "--suite-dir",
                               str(suite), "--out", out, "--quiet"], cwd=tree, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{tree}: certify exited {done.returncode}: {done.stderr.strip()[-300:]}")
        summary = json.loads((Path(out) / "summary.json").read_text())
    return seconds, sum(summary["totals"].values()), summary["verdict"]


def side(text: str) -> tuple[Path, Path]:
    tree, _, suite = text.partition(":")
    return Path(tree).resolve(), Path(suite).resolve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=side, required=True, help="TREE:DIR of the base")
    parser.add_argument("--after", type=side, required=True, help="TREE:DIR of the change")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"before": [], "after": []}
    for i in range(args.rounds):
        order = ("before", "after") if i % 2 == 0 else ("after", "before")
        for name in order:
            load = os.getloadavg()[0]
            seconds, vectors, verdict = certify(*getattr(args, name))
            times[name].append(seconds)
            print(f"round {i + 1} {name:6}: {seconds:6.1f} s, {vectors:,} vectors, {verdict}, load {load:.1f}")
    for name, values in times.items():
        print(f"{name:6} median {statistics.median(values):.1f} s")


if __name__ == "__main__":
    main()
