"""What the vendor sandbox costs: starting a confined vendor, and a whole certify run.

    python benchmarks/bench_sandbox.py [--suite standard] [--starts 5] [--out DIR] [--keep]

1. Starts the reference vendor (``PYTHON -m tablecert reference-vendor``) ``--starts`` times
   with ``isolation`` ``none`` and ``auto``: seconds from start to its hello answer, and to its
   exit after ``bye`` (median), with the mechanisms ``auto`` got on this machine.
2. Runs exactly what a lab types, ``tablecert certify --vendor-cmd ... --suite SUITE`` with
   ``--isolation none`` and ``--isolation auto`` on one generated suite, and prints the wall
   time of each, the overhead, and the verdicts (both must be ``pass``: the script exits 1
   otherwise).
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.vectors.suites import generate

REFERENCE = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])


def starts(isolation: str, n: int) -> tuple[float, float, str]:
    """Median seconds to the hello answer and to a closed session; the isolation description."""
    to_hello, to_closed, described = [], [], ""
    for _ in range(n):
        t0 = time.perf_counter()
        session = SubprocessAdapter().open(REFERENCE, SessionOptions(isolation=isolation, timeout=120))
        session.hello()
        to_hello.append(time.perf_counter() - t0)
        session.close()
        to_closed.append(time.perf_counter() - t0)
        described = session.isolation
    return statistics.median(to_hello), statistics.median(to_closed), described


def certify(suite_dir: Path, suite: str, out: Path, isolation: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", REFERENCE, "--suite", suite,
                           "--suite-dir", str(suite_dir), "--out", str(out), "--isolation", isolation, "--quiet"],
                          capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if done.returncode not in (0, 1, 2):
        sys.exit(f"certify failed: {done.stderr.strip()}")
    return seconds, json.loads((out / "summary.json").read_text())["verdict"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="standard")
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--out", help="work folder (default: a new temporary folder, removed afterwards)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    work = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-sandbox-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        for isolation in ("none", "auto"):
            hello, closed, described = starts(isolation, args.starts)
            print(f"start, isolation {isolation}: hello after {hello:.3f} s, closed after {closed:.3f} s "
                  f"(median of {args.starts}); {described}")
        suite_dir = work / "suite"
        if not (suite_dir / "manifest.json").exists():
            generate(args.suite, suite_dir)
        results = {}
        for isolation in ("none", "auto"):
            out = work / f"run-{isolation}"
            shutil.rmtree(out, ignore_errors=True)
            results[isolation] = certify(suite_dir, args.suite, out, isolation)
            print(f"certify --suite {args.suite} --isolation {isolation}: {results[isolation][0]:.1f} s, "
                  f"verdict {results[isolation][1]}")
        none_s, auto_s = results["none"][0], results["auto"][0]
        print(f"overhead of the sandbox: {auto_s - none_s:+.1f} s ({(auto_s / none_s - 1) * 100:+.1f} %)")
        return 0 if all(verdict == "pass" for _, verdict in results.values()) else 1
    finally:
        if not args.keep and not args.out:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
