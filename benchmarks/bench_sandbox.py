"""What the vendor sandbox costs: starting a confined vendor, and a whole certify run.

    python benchmarks/bench_sandbox.py [--suite standard] [--starts 9] [--runs 2] [--out DIR] [--keep]

(``--runs 0``: part 1 only.)

1. Starts the reference vendor (``PYTHON -m tablecert reference-vendor``) ``--starts`` times
   with ``isolation`` ``none`` and ``auto``, alternating: seconds from start to its hello answer,
   and to its exit after ``bye`` (median), the sandbox's cost per start (target: at most 100 ms),
   with the mechanisms ``auto`` got on this machine. Not root, where a live ``state_dir`` is held
   in a user namespace of the lab's own (:mod:`tablecert.harness.live.state_holder`), two more
   starts alternate with those: ``auto`` with a live state folder bound writable (as before the
   holder) and the same inside the holder's namespaces; the holder's cost per start is their
   difference, and its own start and end (once per run) is timed too.
2. Runs exactly what a lab types, ``tablecert certify --vendor-cmd ... --suite SUITE`` with
   ``--isolation none`` and ``--isolation auto`` on one generated suite, ``--runs`` times each,
   alternating (a load that comes and goes falls on both), and prints the median wall time of
   each, the overhead (target: at most 5 %), and the verdicts (all must be ``pass``: the script
   exits 1 otherwise).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.state_holder import held_state, state_holds
from tablecert.vectors.suites import generate

REFERENCE = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])


def start(options: SessionOptions) -> tuple[float, float, str]:
    """Seconds to the hello answer and to a closed session; the isolation description."""
    t0 = time.perf_counter()
    session = SubprocessAdapter().open(REFERENCE, options)
    session.hello()
    hello = time.perf_counter() - t0
    session.close()
    return hello, time.perf_counter() - t0, session.isolation


def starts(work: Path, count: int) -> dict[str, float]:
    """Part 1 (see the module docstring): the median seconds to the hello answer of each kind of start."""
    state = work / "state-parent" / "state"
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o700)
    auto = SessionOptions(isolation="auto", timeout=120)
    kinds = {"none": SessionOptions(isolation="none", timeout=120), "auto": auto}
    holds = state_holds()
    with contextlib.ExitStack() as stack:
        if holds:
            held = []
            for _ in range(count):
                t0 = time.perf_counter()
                with held_state(str(state.resolve()), 64 << 20, 64 * 256):
                    held.append(time.perf_counter() - t0)
            print(f"the state holder's own start and end (once per run): {statistics.median(held) * 1000:.1f} ms "
                  f"(median of {count})")
            holder = stack.enter_context(held_state(str(state.resolve()), 64 << 20, 64 * 256))
            bound = replace(auto, writable_paths=(str(state),))
            kinds.update({"auto, state bound": bound, "auto, state held": replace(bound, state_holder=holder)})
        seen: dict[str, list[tuple[float, float, str]]] = {kind: [] for kind in kinds}
        for _ in range(count):
            for kind, options in kinds.items():
                seen[kind].append(start(options))
    median = {}
    for kind, got in seen.items():
        median[kind] = statistics.median(h for h, _, _ in got)
        print(f"start, {kind}: hello after {median[kind]:.3f} s, closed after "
              f"{statistics.median(c for _, c, _ in got):.3f} s (median of {count}); {got[-1][2]}")
    return median


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
    parser.add_argument("--starts", type=int, default=9)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--out", help="work folder (default: a new temporary folder, removed afterwards)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    work = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-sandbox-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        median = starts(work, args.starts)
        print(f"the sandbox's cost per start: {(median['auto'] - median['none']) * 1000:+.0f} ms (target <= 100 ms)")
        if "auto, state held" in median:
            print(f"the state holder's cost per start: "
                  f"{(median['auto, state held'] - median['auto, state bound']) * 1000:+.1f} ms")
        if args.runs == 0:             # the starts only
            return 0
        suite_dir = work / "suite"
        if not (suite_dir / "manifest.json").exists():
            generate(args.suite, suite_dir)
        results: dict[str, list[tuple[float, str]]] = {"none": [], "auto": []}
        for n in range(args.runs):
            for isolation in ("none", "auto"):
                out = work / f"run-{isolation}-{n}"
                shutil.rmtree(out, ignore_errors=True)
                results[isolation].append(certify(suite_dir, args.suite, out, isolation))
                print(f"certify --suite {args.suite} --isolation {isolation}: {results[isolation][-1][0]:.1f} s, "
                      f"verdict {results[isolation][-1][1]}")
        none_s = statistics.median(s for s, _ in results["none"])
        auto_s = statistics.median(s for s, _ in results["auto"])
        print(f"overhead of the sandbox (medians of {args.runs}): {auto_s - none_s:+.1f} s "
              f"({(auto_s / none_s - 1) * 100:+.1f} %, target <= 5 %)")
        return 0 if all(verdict == "pass" for got in results.values() for _, verdict in got) else 1
    finally:
        if not args.keep and not args.out:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
