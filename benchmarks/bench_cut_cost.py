"""The cost of a power cut on a live station table (issue 38), component by component.

    python benchmarks/bench_cut_cost.py [--rounds 100] [--cuts 100] [--starts 15] [--seed 0] [--isolation auto]

**The vendor's start, alone** (``python -m tablecert.oracle.vendor``'s parts, ``--starts`` fresh
processes each, started as the harness starts a vendor; medians): the sandbox starting
``/bin/true``; the interpreter (``python -c pass``: site and the editable install's finder); the
vendor's imports; the vendor greeted (hello, then bye) on an empty ``state_dir`` and on one whose
journal holds a station table 0, half COMPACT_EVERY and COMPACT_EVERY - 1 steps after its last compaction (the
journal's replay: the reference vendor compacts every COMPACT_EVERY steps, oracle/table_journal.py). Each with its
wall, the CPU of the processes this one reaps (under the sandbox: bubblewrap's own) and the CPU
the Python program reports of itself as it ends (bubblewrap's namespace init reaps it, so its
CPU never reaches this process). Also printed: how many of the modules of this tree the vendor
loads have no bytecode, or older than their source (each is compiled at every start: the tree is
read-only in the sandbox; ``make bytecode`` writes it).

**A cut in play**: 8 stations x ``--rounds`` rounds (benchmarks/bench_live.py's table), played
without a cut and with ``--cuts`` seeded cuts, each request timed by phase (a subclass of the
harness's VendorInstance): the kill (SIGKILL and reap), the spawn (the sandbox's fork and exec),
the vendor's start to its hello answered (interpreter, imports, journal replay, hello),
``table.resume``, the recalls and meters judged after the restart, the step left in flight; the
harness's own CPU, in its requests and outside them (books, judging, bookkeeping); the phases
only a cut has per cut, the others and the harness outside its requests per cut over the uncut
play; and the peak RSS of this process. The wall of each phase includes waiting for a core: the
load is printed with each figure.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench_live import load, station_table
import tablecert
from tablecert import __version__
from tablecert.harness.adapters.vendor_process import command_argv, minimal_env
from tablecert.harness.confine.sandbox import plan, resolve, vendor_uid
from tablecert.harness.adapters.registry import VendorTarget
from tablecert.harness.contract import Cuttable, SessionOptions, VendorSession
from tablecert.harness.instance.vendor_instance import VendorInstance
from tablecert.harness.live.driver import Play, plan_interruptions
from tablecert.harness.live.instance import vendor_state_dir
from tablecert.harness.live.stations import StationPlayer
from tablecert.harness.protocol_versions import hello_request
from tablecert.oracle.protocol import V2
from tablecert.oracle.table_journal import COMPACT_EVERY

BYE = b'{"id":1,"op":"bye"}\n'
VENDOR_CMD = f"{shlex.quote(sys.executable)} -m tablecert.oracle.vendor"


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


TIMED = ("import resource, sys\ntry:\n    {}\nfinally:\n    t = resource.getrusage(resource.RUSAGE_SELF)\n"
         "    sys.stderr.write(f'CPU {{t.ru_utime + t.ru_stime}}\\n')\n")
"""A Python program that writes its own CPU time on stderr as it ends (the started process's own
CPU is not reaped by this process under the sandbox: bubblewrap's namespace init reaps it)."""
VENDOR = "import runpy; runpy.run_module('tablecert.oracle.vendor', run_name='__main__')"


def started(argv: list[str], options: SessionOptions, stdin: bytes, starts: int) -> tuple[float, float, float]:
    """(median wall ms, median CPU ms of the processes reaped, median CPU ms a Python program
    reports of itself) of ``starts`` runs of ``argv`` started as the harness starts a vendor
    (confined as ``options`` say), given ``stdin``, each run to its normal exit."""
    argv = resolve(argv) if options.isolation != "none" else argv      # as the harness's VendorProcess does
    sandbox = plan(argv, options)
    walls, reaped, own = [], [], []
    for _ in range(starts):
        before, wall = cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
        run = sandbox.start(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=minimal_env(options.pass_env), start_new_session=True, close_fds=True)
        _, err = run.proc.communicate(stdin)
        walls.append(time.perf_counter() - wall)
        reaped.append(cpu(resource.RUSAGE_CHILDREN) - before)
        own.append(float(err.rsplit(b"CPU ", 1)[1]) if b"CPU " in err else 0.0)
        run.release()
        if run.status_fd is not None:
            os.close(run.status_fd)
    wall_ms, reaped_ms, own_ms = (statistics.median(x) * 1000 for x in (walls, reaped, own))
    return wall_ms, reaped_ms, own_ms


def journal_after(command: str, options: SessionOptions, state: str, config: dict[str, Any], case: dict[str, Any],
                  steps: int) -> None:
    """``state``'s journal: a station table opened and ``steps`` of ``case``'s steps played."""
    control = VendorInstance(VendorTarget("subprocess", command, options).live_opener(state))
    control.request("table.open", table="s1", config=config, stations=case["stations"], on_disable=case["on_disable"])
    for i, step in enumerate(case["steps"][:steps]):
        control.request("table.step", table="s1", seq=i, step=step)
    control.drop()


def without_bytecode(module: str) -> list[str]:
    """The modules of this tree ``module`` loads whose bytecode is missing or older than their source."""
    code = (f"import sys, json; import {module}; "
            "print(json.dumps([m.__file__ for m in list(sys.modules.values()) if getattr(m, '__file__', None)]))")
    files = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    tree = str(Path(tablecert.__file__).resolve().parents[1])
    missing = []
    for name in json.loads(files):
        if name.startswith(tree) and name.endswith(".py"):
            cached = Path(importlib.util.cache_from_source(name))
            if not cached.exists() or cached.stat().st_mtime < Path(name).stat().st_mtime:
                missing.append(name)
    return missing


def vendor_start(args: argparse.Namespace, options: SessionOptions) -> None:
    """The vendor's start alone, part by part (see the module docstring)."""
    python = sys.executable
    print(f"the vendor's start, alone (median of {args.starts}): wall; CPU of the processes reaped (the "
          "sandbox's); CPU the Python program reports of itself as it ends")
    parts: list[tuple[str, list[str], bytes, SessionOptions]] = [
        ("the sandbox alone (/bin/true)", ["/bin/true"], b"", options),
        ("the interpreter (python -c pass)", [python, "-c", TIMED.format("pass")], b"", options),
        ("the vendor's imports", [python, "-c", TIMED.format("import tablecert.oracle.vendor")], b"", options)]
    config, case, _ = station_table(2 * COMPACT_EVERY // 10)
    with ExitStack() as stack:
        base = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-cut-")))
        owner = vendor_uid([python], options)
        for steps in (0, COMPACT_EVERY, COMPACT_EVERY + COMPACT_EVERY // 2, 2 * COMPACT_EVERY - 1):
            state = stack.enter_context(vendor_state_dir(base, owner))
            if steps:
                journal_after(VENDOR_CMD, options, state, config, case, steps)
            line = (json.dumps({**hello_request(V2), "state_dir": state}) + "\n").encode()
            parts.append((f"the vendor, hello; journal {steps % COMPACT_EVERY} steps after its compaction" if steps
                          else "the vendor, hello; no journal", [python, "-c", TIMED.format(VENDOR)], line + BYE,
                          replace(options, writable_paths=(*options.writable_paths, state))))
        for what, argv, stdin, opts in parts:
            wall, reaped, own = started(argv, opts, stdin, args.starts)
            print(f"  {what:<56} {wall:6.1f} ms wall {reaped:5.1f} + {own:5.1f} ms CPU   {load()}")
    missing = without_bytecode("tablecert.oracle.vendor")
    print(f"  modules of this tree the vendor loads without bytecode (each compiled at every start): {len(missing)}")


CUT_PHASES = ("kill (SIGKILL, reap)", "spawn (the sandbox's fork and exec)", "vendor's start to hello answered",
              "table.resume", "recalls, meters after a restart", "step in flight")
"""The phases only a cut has (:class:`TimedControl`'s names)."""


class TimedControl(VendorInstance):
    """The harness's VendorInstance, each live call's wall and this process's CPU added to its phase."""

    def __init__(self, open_session: Callable[[], VendorSession]) -> None:
        super().__init__(open_session)
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.restarted = False

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        wall, used = time.perf_counter(), cpu(resource.RUSAGE_SELF)
        try:
            yield
        finally:
            self.wall[name] += time.perf_counter() - wall
            self.cpu[name] += cpu(resource.RUSAGE_SELF) - used

    def live_session(self) -> Cuttable:
        if self.live is not None and self.live.alive and isinstance(self.live, Cuttable):
            return self.live
        opener = self.open_session
        with self.phase("spawn (the sandbox's fork and exec)"):
            session = opener()
        self.open_session = lambda: session
        try:
            with self.phase("vendor's start to hello answered"):
                return super().live_session()
        finally:
            self.open_session = opener

    def kill(self) -> None:
        with self.phase("kill (SIGKILL, reap)"):
            super().kill()
        self.restarted = True

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        self.live_session()
        if op in ("table.recall", "table.meters"):
            name = "recalls, meters after a restart" if self.restarted else "recalls, meters after a game"
        elif op == "table.resume":
            name = "table.resume"
        else:
            name, self.restarted = "steps", False
        with self.phase(name):
            return super().request(op, **fields)

    def in_flight(self, op: str, answered: bool, **fields: Any) -> None:
        self.live_session()
        with self.phase("step in flight"):
            super().in_flight(op, answered, **fields)


def in_play(args: argparse.Namespace, options: SessionOptions) -> bool:
    """The station table played without and with cuts, each cut's cost by phase."""
    config, case, expected = station_table(args.rounds)
    n = len(case["steps"])
    player = StationPlayer(f"tablecert-{__version__}", True)
    runs = []
    for cuts in (0, args.cuts):
        points = plan_interruptions([("t", n, False)], cuts, args.seed).of("t")
        with tempfile.TemporaryDirectory(prefix="bench-cut-") as base, \
                vendor_state_dir(Path(base), vendor_uid(command_argv(VENDOR_CMD), options)) as state:
            control = TimedControl(VendorTarget("subprocess", VENDOR_CMD, options).live_opener(state))
            play = Play(1)
            wall, used = time.perf_counter(), cpu(resource.RUSAGE_SELF)
            player(control, config, 1, case, expected, points, play)
            wall, used = time.perf_counter() - wall, cpu(resource.RUSAGE_SELF) - used
            control.drop()
        runs.append((wall, used, control, len(play.made), play.survived))
    (calm, calm_cpu, quiet, _, _), (cut, cut_cpu, timed, made, survived) = runs
    per = max(made, 1) / 1000
    print(f"8 stations x {args.rounds:,} rounds, {n:,} steps: {calm:.1f} s without a cut, {cut:.1f} s with {made:,} "
          f"cuts (survived {survived:,}): {(cut - calm) / per:.0f} ms wall per cut over the uncut play, of "
          f"which the harness's CPU {(cut_cpu - calm_cpu) / per:.1f} ms   {load()}")
    print("  a cut by phase (ms per cut: wall, the harness's CPU):")
    for name in CUT_PHASES:
        print(f"    {name:<44} {timed.wall[name] / per:7.1f} {timed.cpu[name] / per:7.1f}")
    rest = [(timed.wall[k] - quiet.wall[k], timed.cpu[k] - quiet.cpu[k]) for k in set(timed.wall) - set(CUT_PHASES)]
    outside = (cut_cpu - sum(timed.cpu.values())) - (calm_cpu - sum(quiet.cpu.values()))
    print(f"    {'steps and recalls after games, over the uncut':<44} {sum(w for w, _ in rest) / per:7.1f} "
          f"{sum(c for _, c in rest) / per:7.1f}")
    print(f"    {'the harness outside its requests, over the uncut':<44} {outside / per:15.1f}")
    print(f"  peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    return survived == made


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--cuts", type=int, default=100)
    ap.add_argument("--starts", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--isolation", default="auto", choices=("auto", "strict", "none"))
    args = ap.parse_args()
    options = SessionOptions(isolation=args.isolation, timeout=60)
    vendor_start(args, options)
    return 0 if in_play(args, options) else 1


if __name__ == "__main__":
    sys.exit(main())
