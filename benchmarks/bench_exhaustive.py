"""Wall time of ``tablecert certify --suite exhaustive`` against the reference vendor as a subprocess.

    python benchmarks/bench_exhaustive.py [--suites joker,exhaustive] [--out DIR] [--keep]

For each suite (``joker`` first: a quick check of 20,358,520 hands x 2 ops; then ``exhaustive``:
154,143,080 hands x 2 ops = 308,286,160 vectors) it runs exactly the command a lab types::

    tablecert certify --vendor-cmd "PYTHON -m tablecert reference-vendor" --suite SUITE --out DIR

(suite generation included, in a fresh run folder) in a child process of this script, where the
command runs in-process (``tablecert.cli.main``) so that its own counters can be read, and
prints:

* wall time of the whole command, of the run proper (after the suite is generated) and vectors/s;
* harness peak RSS (``ru_maxrss`` of the harness process, and the largest RSS sampled during the
  run proper), vendor peak RSS and CPU time (``RUSAGE_CHILDREN``: the vendor is the harness's
  only child process);
* where the time goes: harness encoding (enumerating hands into request bytes) and expected
  answers (label stream into result bytes), both on a worker thread that runs ahead while the
  vendor works; judging (byte comparison and counting) and database writes on the run loop;
  the exchange (request out, answer back: the vendor's compute is in here; the vendor's CPU time
  is shown beside it and the rest is pipe transfer and waiting), and how many batches passed on
  the byte-equal fast path versus case-by-case fallback.

The verdict must be ``pass`` with every vector passed, and the run's confusion matrix (hands per
label, expected x answered) must equal the published hand counts (``oracle/published_counts.toml``:
all hands for ``exhaustive``, all minus those without the joker for ``joker``); the script exits 1
otherwise.
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

EXPECTED_VECTORS = {"joker": 2 * 20_358_520, "exhaustive": 2 * 154_143_080}


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def published_confusion(suite: str) -> dict[str, dict[str, int]]:
    """The diagonal a correct run's confusion matrix must hold, from the published hand counts
    (``oracle/published_counts.toml``), independently of the suite's label stream."""
    from tablecert.oracle.census import published_counts
    from tablecert.oracle.hands import PLAYER_LABELS

    pub = published_counts()
    by_category = dict(pub.player) if suite == "exhaustive" else {
        c: pub.player[c] - pub.player_no_joker[c] for c in pub.player}
    hands = sum(by_category.values())
    player = {c: n for c, n in by_category.items() if c in PLAYER_LABELS}
    player["none"] = sum(n for c, n in by_category.items() if c not in PLAYER_LABELS)
    banker = dict(pub.banker) if suite == "exhaustive" else {}       # a joker hand never has a banker bonus
    banker["none"] = hands - sum(banker.values())
    return {"paigow.player_bonus": {k: v for k, v in player.items() if v},
            "paigow.banker_bonus": {k: v for k, v in banker.items() if v}}


def run_confusion(out: Path) -> dict[str, dict[str, int]]:
    """The run's confusion matrix, diagonal only; an off-diagonal cell is reported as its own key."""
    import sqlite3

    db = sqlite3.connect(out / "run.db")
    try:
        matrix: dict[str, dict[str, int]] = {}
        for op, expected, actual, n in db.execute("SELECT op, expected, actual, n FROM confusion"):
            matrix.setdefault(op, {})[expected if expected == actual else f"{expected}->{actual}"] = n
        return matrix
    finally:
        db.close()


def child(suite: str, out: Path) -> dict[str, Any]:
    """Run the certify command in this process; the measurements as a dict."""
    from tablecert.cli import main
    from tablecert.harness.instance.vendor_instance import VendorInstance

    instances: list[VendorInstance] = []             # the run's instance: its own stats (no process-wide ones)
    made = VendorInstance.__init__

    def keep(self: VendorInstance, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        instances.append(self)
    VendorInstance.__init__ = keep  # type: ignore[method-assign]
    peak_run = [0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.2):
            if instances and instances[0].stats.hands:        # the run proper has started
                peak_run[0] = max(peak_run[0], _rss_kib())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    cmd = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])
    t0 = time.perf_counter()
    status = main(["certify", "--vendor-cmd", cmd, "--suite", suite, "--out", str(out), "--quiet"])
    wall = time.perf_counter() - t0
    stop.set()
    sampler.join()
    VendorInstance.__init__ = made  # type: ignore[method-assign]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"suite": suite, "exit": status, "verdict": summary["verdict"], "totals": summary["totals"],
            "confusion_is_published": run_confusion(out) == published_confusion(suite),
            "wall_s": wall, "stats": instances[0].stats.as_dict(),
            "harness_cpu_s": me.ru_utime + me.ru_stime, "harness_maxrss_mib": me.ru_maxrss / 1024,
            "harness_run_peak_rss_mib": peak_run[0] / 1024,
            "vendor_user_s": kids.ru_utime, "vendor_sys_s": kids.ru_stime, "vendor_maxrss_mib": kids.ru_maxrss / 1024}


def report(m: dict[str, Any]) -> str:
    s = m["stats"]
    vectors = sum(m["totals"].values())
    run_s = s["run_s"]
    vendor_cpu = m["vendor_user_s"] + m["vendor_sys_s"]
    rows = [
        f"== {m['suite']}: verdict {m['verdict'].upper()} (exit {m['exit']}), {vectors:,} vectors "
        f"(pass {m['totals']['pass']:,}, fail {m['totals']['fail']:,}, fault {m['totals']['fault']:,})",
        f"  wall time        {m['wall_s']:8.1f} s   (suite generation, checks and outputs {m['wall_s'] - run_s:.1f} s;"
        f" run {run_s:.1f} s)",
        f"  throughput       {vectors / m['wall_s'] / 1e6:8.2f} M vectors/s overall, "
        f"{vectors / run_s / 1e6:.2f} M/s in the run",
        f"  harness RSS      {m['harness_maxrss_mib']:8.0f} MiB peak (process lifetime), "
        f"{m['harness_run_peak_rss_mib']:.0f} MiB peak sampled during the run; CPU {m['harness_cpu_s']:.1f} s",
        f"  vendor           {m['vendor_maxrss_mib']:8.0f} MiB peak RSS; CPU {vendor_cpu:.1f} s "
        f"(user {m['vendor_user_s']:.1f}, sys {m['vendor_sys_s']:.1f})",
        "  where the run's time goes (harness wall-clock per stage):",
        f"    encode requests  {s['encode_s']:7.1f} s  on the worker thread, overlapped with the exchange "
        f"(run loop waited {s['prefetch_wait_s']:.1f} s for it)",
        f"    expected answers {s['expected_s']:7.1f} s  on the worker thread (label stream -> expected results)",
        f"    exchange         {s['exchange_s']:7.1f} s  = vendor compute (its CPU time {vendor_cpu:.1f} s, "
        f"startup included) + pipe/wait {max(0.0, s['exchange_s'] - vendor_cpu):.1f} s",
        f"    judge            {s['judge_s']:7.1f} s  (complete the expected line, compare bytes, count); "
        f"case-by-case fallback "
        f"{s['fallback_s']:.1f} s",
        f"    database         {s['record_s']:7.1f} s",
        f"  requests {s['requests']:,} ({s['request_bytes'] / 2**30:.1f} GiB out, {s['answer_bytes'] / 2**30:.1f} GiB "
        f"back); byte-equal passes {s['fast_passes']:,}, fallbacks {s['fallbacks']:,}",
        f"  confusion matrix equals the published hand counts: {'yes' if m['confusion_is_published'] else 'NO'}",
    ]
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", default="joker,exhaustive", help="comma-separated, run in order")
    parser.add_argument("--out", help="parent folder of the run folders (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the run folders")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, Path(args.out))))
        return 0
    parent = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-exhaustive-"))
    parent.mkdir(parents=True, exist_ok=True)
    ok = True
    try:
        for suite in args.suites.split(","):
            out = parent / suite
            if out.exists():
                shutil.rmtree(out)
            # A fresh process per suite: its rusage and peak RSS are this suite's alone.
            proc = subprocess.run([sys.executable, __file__, "--child", suite, "--out", str(out)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                print(proc.stderr, file=sys.stderr)
                return 1
            m = json.loads(proc.stdout.strip().splitlines()[-1])
            print(report(m), flush=True)
            ok = (ok and m["verdict"] == "pass" and m["totals"]["pass"] == EXPECTED_VECTORS.get(suite, -1)
                  and m["confusion_is_published"])
            if not args.keep:
                shutil.rmtree(out, ignore_errors=True)
    finally:
        if not args.out and not args.keep:
            shutil.rmtree(parent, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
