"""How long the test suite takes, file by file: wall and CPU of each test file, on which worker
it ran and when, and how busy each worker was (the figure behind `make test`'s expected duration,
docs/internals/benchmarks.md "How long make test takes").

    python benchmarks/bench_test_suite.py [--records DIR] [PYTEST ARGS ...]
    python benchmarks/bench_test_suite.py --from DIR

Runs ``python -m pytest`` with the project's own options (pyproject.toml: two xdist workers,
files pinned to a worker in conftest's LONGEST_FIRST order) plus PYTEST ARGS (``-n 3``, a few
files, ``-k ...``), with the plugin benchmarks/suite_clock.py loaded: each test's wall time and
the CPU (user + system) of its worker and of the children it waited for. ``--from DIR`` prints
the records a run left in DIR (``--records DIR`` keeps them) without running anything.

Printed: per file, its tests, wall (its tests' durations summed), CPU, CPU / wall (under 1 on a
machine at rest: the file waits on something, a timeout, a sleep, a vendor's start elsewhere;
over 1: its children run beside it), its worker, and when it started and ended from the first
test's start; per worker, its busy time and when it ended; the run's wall and the load. Measure
at rest: on a shared machine wall time lies (CPU much less so).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
FOLDER = "TABLECERT_SUITE_CLOCK"           # suite_clock.py's: where the workers write their lines


@dataclass
class FileTime:
    """One test file's tests summed."""
    name: str
    worker: str
    tests: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    start: float = float("inf")
    end: float = 0.0
    workers: set[str] = field(default_factory=set)


def read_records(folder: Path) -> list[dict]:
    """Every test's line, from every worker's file in ``folder``."""
    return [json.loads(line) for path in sorted(folder.glob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def by_file(records: list[dict]) -> list[FileTime]:
    files: dict[str, FileTime] = {}
    for r in records:
        f = files.setdefault(r["file"], FileTime(r["file"], r["worker"]))
        f.tests += 1
        f.wall += r["wall"]
        f.cpu += r["cpu"]
        f.start, f.end = min(f.start, r["start"]), max(f.end, r["start"] + r["wall"])
        f.workers.add(r["worker"])
    return sorted(files.values(), key=lambda f: -f.wall)


def report(records: list[dict]) -> str:
    if not records:
        return "no test records (did pytest collect anything?)"
    t0 = min(r["start"] for r in records)
    end = max(r["start"] + r["wall"] for r in records)
    loads = [r["load"] for r in records]
    lines = [f"{len(records):,} tests, {end - t0:,.0f} s from the first test's start to the last one's end; "
             f"load {min(loads):.1f}-{max(loads):.1f} (median {sorted(loads)[len(loads) // 2]:.1f})", "",
             f"{'file':44s} {'tests':>5s} {'wall s':>8s} {'CPU s':>8s} {'CPU/wall':>8s} {'worker':>7s} "
             f"{'start':>6s} {'end':>6s}"]
    files = by_file(records)
    for f in files:
        worker = f.worker if len(f.workers) == 1 else f"{len(f.workers)} of"
        lines.append(f"{f.name:44s} {f.tests:5d} {f.wall:8.1f} {f.cpu:8.1f} {f.cpu / max(f.wall, 1e-9):8.2f} "
                     f"{worker:>7s} {f.start - t0:6.0f} {f.end - t0:6.0f}")
    busy: dict[str, float] = defaultdict(float)
    ended: dict[str, float] = defaultdict(float)
    for r in records:
        busy[r["worker"]] += r["wall"]
        ended[r["worker"]] = max(ended[r["worker"]], r["start"] + r["wall"] - t0)
    wall, cpu = sum(f.wall for f in files), sum(f.cpu for f in files)
    lines += ["", f"{'all files':44s} {len(records):5d} {wall:8.1f} {cpu:8.1f} {cpu / max(wall, 1e-9):8.2f}", ""]
    lines += [f"worker {w}: busy {busy[w]:,.0f} s, its last test ended at {ended[w]:,.0f} s" for w in sorted(busy)]
    return "\n".join(lines)


def run_pytest(args: list[str], folder: Path) -> int:
    env = dict(os.environ, **{FOLDER: str(folder)})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "suite_clock", *args], cwd=REPO, env=env).returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--records", type=Path, help="keep the per-test records in this folder (new or empty)")
    parser.add_argument("--from", dest="source", type=Path, help="print the records of an earlier run; run nothing")
    args, pytest_args = parser.parse_known_args()
    if args.source:
        print(report(read_records(args.source)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-test-suite-") as tmp:
        folder = args.records or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if list(folder.glob("*.jsonl")):
            print(f"bench_test_suite: --records {folder}: holds an earlier run's records; choose a new folder",
                  file=sys.stderr)
            sys.exit(2)
        print(f"load {os.getloadavg()[0]:.2f} at the start; pytest {' '.join(pytest_args)}", flush=True)
        started = time.perf_counter()
        code = run_pytest(pytest_args, folder)
        print(f"\npytest exited {code} after {time.perf_counter() - started:,.0f} s of wall "
              f"(load {os.getloadavg()[0]:.2f} at the end)\n")
        print(report(read_records(folder)))


if __name__ == "__main__":
    main()
