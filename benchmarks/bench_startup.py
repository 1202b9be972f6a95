"""Start-up paths and the imports kept inside functions for them: what each such import saves.

    python benchmarks/bench_startup.py [--repeat 7] [--only FILE]

An import inside a function is kept only where it keeps a start-up path short
(tests/test_layers.py: ``LATE_IMPORTS``). The paths:

* ``tablecert --help``: the whole command line's parsers, every subcommand's module loaded;
* ``tablecert reference-vendor``: the reference vendor started and answering a hello (what every
  certify, restart and live interruption waits for);
* ``import tablecert.parallel.actor``: what a Ray actor imports before its vendor starts (it
  imports the judging while the vendor starts);
* ``import tablecert.parallel.ray_pool``: what a Ray run imports before it connects (``ray``
  itself is imported in the background, beside the vendor's greeting);
* ``import tablecert.reports``: what certify's report step (and ``tablecert report``) imports
  before an unsigned report is written;
* ``import tablecert.oracle.game_math`` beside it: what the report step imports to store a run's
  game math (its committed figures: no census is run);
* ``import tablecert.harness.run.certify``: what ``tablecert certify`` imports before it checks
  its suite and starts the vendor (a refused certify pays it all).

For each path the script finds the modules it loads (run once in a fresh interpreter). Then, for
each function of the product with imports inside it (listed by tests/test_layers.py's
``product_late_imports``), on each path that loads the function's module: the time the function's
import statements take in a fresh interpreter that has already loaded everything the path loads
(best of ``--repeat``, each in a child forked from it; once only when it took over
:data:`CLEAR_MS`): what moving them to the top of the module would add to that path. A
function whose module no path loads saves nothing: its imports belong at the top. Also printed:
the wall time of each path (best and median of ``--repeat`` fresh processes) and the load.
Only the best of several fresh processes is compared, so the machine's load weighs little.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from test_layers import product_late_imports  # noqa: E402  (the list of late imports, one source)

HELLO = b'{"id": 0, "op": "hello", "protocol": "tablecert-vendor/2", "protocols": ["tablecert-vendor/2"]}\n'
KEEP_MS = 2.0
"""A late import that saves less than this on every path is moved to the top (the noise of the
best of 7 fresh processes on the loaded 2-core machine is about 1 ms)."""

CLEAR_MS = 10 * KEEP_MS
"""A group that takes longer than this once is timed once (its verdict is clear; on the loaded
machine a heavy import took up to a minute)."""

CLI = "import sys; from tablecert.cli import main; sys.argv = ['tablecert', *{argv!r}]\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
PATHS: dict[str, tuple[str, bytes]] = {
    "tablecert --help": (CLI.format(argv=["--help"]), b""),
    "tablecert reference-vendor": (CLI.format(argv=["reference-vendor"]), HELLO),
    "Ray actor module": ("import tablecert.parallel.actor\n", b""),
    "Ray run connecting": ("import tablecert.parallel.ray_pool\n", b""),
    "report step": ("import tablecert.reports\n", b""),
    "report step's game math": ("import tablecert.reports, tablecert.oracle.game_math\n", b""),
    "certify's imports": ("import tablecert.harness.run.certify\n", b""),
}
"""path -> (the code a fresh interpreter runs, its stdin)."""


def python(code: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, check=True, cwd=REPO)


def loaded_by(code: str, stdin: bytes) -> list[str]:
    """The modules a path leaves loaded (written to stderr after it ran: its stdout may be the protocol)."""
    done = python(code + "import sys, json; sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n", stdin)
    return json.loads(done.stderr.decode().rsplit("MODULES ", 1)[1])


def wall(code: str, stdin: bytes, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        python(code, stdin)
        times.append(time.perf_counter() - start)
    return times


MEASURE = """
import importlib, json, os, sys, time
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except Exception:
        pass
groups, repeat, clear, out = json.loads(sys.stdin.read()), int(sys.argv[2]), float(sys.argv[3]), []
for statements in groups:
    best = None
    for _ in range(repeat):
        read, write = os.pipe()
        if os.fork() == 0:                      # a child with the path loaded times the statements once
            start = time.perf_counter()
            exec(statements, {})
            os.write(write, repr(time.perf_counter() - start).encode())
            os._exit(0)
        os.close(write)
        os.wait()
        took = float(os.read(read, 64))
        os.close(read)
        best = took if best is None else min(best, took)
        if best > clear:                        # far above the bar: more tries would not change the verdict
            break
    out.append(best)
print(json.dumps(out))
"""
"""Run in a fresh interpreter per path: the path's modules loaded once, then each group of import
statements timed in a forked child (so each starts from exactly the path's modules), best of N."""


def late_costs(preload: list[str], groups: list[list[str]], repeat: int) -> list[float]:
    """Seconds each group of import ``statements`` takes after every module of ``preload`` is
    loaded, best of ``repeat``."""
    done = subprocess.run([sys.executable, "-c", MEASURE, json.dumps(preload), str(repeat), str(CLEAR_MS / 1e3)],
                          input=json.dumps(["\n".join(g) for g in groups]).encode(), capture_output=True, check=True,
                          cwd=REPO)
    return json.loads(done.stdout)


def module_of(file: str) -> str:
    parts = list(Path(file).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts if parts[0] == "tablecert" else ["tablecert", *parts])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", help="measure the late imports of this file only")
    ap.add_argument("--path", action="append", choices=list(PATHS), help="measure on this path only (repeatable)")
    args = ap.parse_args()
    paths = {name: PATHS[name] for name in args.path or PATHS}
    print(f"load {os.getloadavg()[0]:.2f}, python {sys.version.split()[0]}, best and median of {args.repeat}")
    loaded = {}
    for name, (code, stdin) in paths.items():
        loaded[name] = loaded_by(code, stdin)
        times = wall(code, stdin, args.repeat)
        print(f"  {name:<28} {min(times) * 1e3:7.0f} ms best  {statistics.median(times) * 1e3:7.0f} ms median  "
              f"{sum(m.startswith('tablecert') for m in loaded[name])} tablecert modules, {len(loaded[name])} in all", flush=True)
    print(f"\nimports inside functions (saving: what moving them to the top adds to a path; keep at >= {KEEP_MS} ms)")
    late = {key: kept for key, kept in sorted(product_late_imports(REPO).items()) if not args.only or key[0] == args.only}
    savings: dict[tuple[str, str], dict[str, float]] = {key: {} for key in late}
    for name in paths:
        on_path = [key for key in late if module_of(key[0]) in loaded[name]]
        preload = [m for m in loaded[name] if "__main__" not in m]
        costs = late_costs(preload, [[s for _, s in late[key]] for key in on_path], args.repeat)
        for key, cost in zip(on_path, costs):
            savings[key][name] = cost * 1e3
    keep = 0
    for (file, function), statements in late.items():
        best = max(savings[file, function].values(), default=0.0)
        keep += best >= KEEP_MS
        shown = ", ".join(f"{name}: {ms:.1f} ms" for name, ms in savings[file, function].items()) or "on no start-up path"
        print(f"  {'keep' if best >= KEEP_MS else 'move'}  {file}:{statements[0][0]} {function} "
              f"({len(statements)} import{'s' * (len(statements) > 1)}): {shown}", flush=True)
    print(f"\n{sum(len(s) for s in late.values())} imports inside {len(late)} functions; {keep} functions keep theirs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
