"""A vendor wrong on millions of hands: run.db size, the time and peak memory of writing the
outputs and both PDFs, and what checking and signing the run database cost.

A real ``certify --range`` run of a buggy vendor (tests/hand_bug_vendors.py) makes a genuine run
folder; then whole batches of the hand suite are judged as a vendor wrong on one player label
in FRACTION would answer them and written through the run database's own recording code
(``RunStore.record`` of outcomes filled by ``hand_failures.add_wrong_hands``: the codes,
features, causes and cause counts a real run stores), each also added to the harness's
``JudgedRecord`` as the runner adds it. Then, timed: the record's check of the database (what a
run does before its verdict), the outputs and PDFs written by a fresh child process (peak RSS
from VmHWM), and the database's digest recomputed as signing and merging do.

    python benchmarks/bench_hand_failures.py [--failures 5000000] [--work DIR]
    python benchmarks/bench_hand_failures.py --every-hand [--suite-dir EXHAUSTIVE] [--work DIR]

``--every-hand``: the worst case, a vendor wrong on both ops of every one of the 154,143,080
hands of ``exhaustive`` (308,286,160 wrong answers; generated into WORK unless --suite-dir).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tablecert.harness.answers.hand_failures import LABEL_NAMES, add_wrong_hands
from tablecert.harness.run.hand_batches import HAND_OPS, LABEL_COLUMN, HandBatch, HandSuite, count_all
from tablecert.harness.record.judged_record import JudgedRecord, database_digest
from tablecert.harness.model import BatchOutcome
from tablecert.harness.store import RunStore
from tablecert.oracle.cards import HAND_COUNT
from tablecert.vectors.suites import generate

ROOT = Path(__file__).parents[1]
CHILD = """
import resource, sys, time
from pathlib import Path
from tablecert.harness.record.outputs import write_outputs
from tablecert.reports import write_reports
run = Path(sys.argv[1])
t0 = time.perf_counter(); write_outputs(run); t1 = time.perf_counter(); write_reports(run); t2 = time.perf_counter()
hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]
print(f"{t1 - t0:.2f} {t2 - t1:.2f} {int(hwm) // 1024}")
"""


def wrong_batch(hb: HandBatch, op: str, every: int) -> BatchOutcome:
    """What judging a vendor wrong on every ``every``-th hand of the batch records."""
    names = LABEL_NAMES[op]
    expected = hb.codes[:, LABEL_COLUMN[op]].astype(np.int64)
    wrong = np.nonzero((np.arange(hb.n) + hb.index) % every == 0)[0]
    actual = (expected[wrong] + 1) % len(names)
    out = BatchOutcome("paigow.hands", op, hb.first_tc, hb.n, "done")
    count_all(out.counts, op, hb.n - len(wrong), "pass")
    count_all(out.counts, op, len(wrong), "fail")
    for e, a in zip(expected[wrong].tolist(), actual.tolist()):
        out.confusion[(op, names[e], names[a])] += 1
    right = np.ones(hb.n, dtype=bool)
    right[wrong] = False
    for e, k in enumerate(np.bincount(expected[right], minlength=len(names)).tolist()):
        if k:
            out.confusion[(op, names[e], names[e])] += k
    add_wrong_hands(out, expected[wrong].tolist(), actual.tolist(), (wrong + hb.index + 1).tolist(),
                    hb.cards[wrong].astype(np.int64))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--failures", type=int, default=5_000_000)
    ap.add_argument("--every-hand", action="store_true", help="the worst case: every hand of exhaustive wrong")
    ap.add_argument("--suite-dir", type=Path, help="a generated suite to use (joker, or exhaustive with --every-hand)")
    ap.add_argument("--work", type=Path)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-hand-failures-"))
    work.mkdir(parents=True, exist_ok=True)
    name = "exhaustive" if args.every_hand else "joker"
    suite_dir = args.suite_dir or work / name
    if not (suite_dir / "manifest.json").is_file():
        generate(name, suite_dir)
    run = work / ("run-every-hand" if args.every_hand else f"run-{args.failures}")
    size = 20_000
    vendor = shlex.join([sys.executable, str(ROOT / "tests" / "hand_bug_vendors.py"), "joker-no-straight"])
    subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", vendor, "--suite", name,
                    "--suite-dir", str(suite_dir), "--out", str(run), "--range", f"0:{size}", "--quiet",
                    "--isolation", "none"], check=False, capture_output=True)
    suite = HandSuite.load(suite_dir)
    every = 1 if args.every_hand else max(1, (suite.n_hands - size) // args.failures)
    target = 2 * suite.n_hands if args.every_hand else args.failures
    db = RunStore(run / "run.db")
    record = JudgedRecord(db)
    fd = os.open(suite.labels_path, os.O_RDONLY)
    t0 = time.perf_counter()
    record_s = 0.0
    recorded = 0
    last = t0
    for index in range(size, suite.n_hands, size):
        if recorded >= target:
            break
        hb = HandBatch(suite, fd, index, min(size, suite.n_hands - index))
        for op in HAND_OPS:
            outcome = wrong_batch(hb, op, every) if op == HAND_OPS[0] or args.every_hand else hb.passed(op)
            db.record(outcome)
            t1 = time.perf_counter()
            record.add(outcome)
            record_s += time.perf_counter() - t1
            recorded += len(outcome.hand_failures)
        if time.perf_counter() - last > 60:
            last = time.perf_counter()
            print(f"  {recorded:,} wrong answers recorded, {last - t0:.0f} s", file=sys.stderr, flush=True)
    os.close(fd)
    fill = time.perf_counter() - t0
    db.set_meta(state="finished")
    t0 = time.perf_counter()
    judged = record.check(db, {})
    check_s = time.perf_counter() - t0
    db.set_meta(verdict="fail", verdict_reasons=[f"{recorded:,} vectors answered differently"], judged=judged)
    db.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    size_mb = (run / "run.db").stat().st_size / 2**20
    proc = subprocess.run([sys.executable, "-c", CHILD, str(run)], capture_output=True, text=True, check=True)
    outputs_s, pdfs_s, rss_mb = proc.stdout.split()
    db = RunStore(run / "run.db")
    t0 = time.perf_counter()
    same = database_digest(db, judged) == judged
    digest_s = time.perf_counter() - t0
    db.close()
    replay = run / "failures" / "paigow.hands.paigow.player_bonus.jsonl"
    lines = replay.read_text().splitlines()
    per_row = size_mb * 2**20 / recorded
    result = {
        "suite": name, "failures": recorded, "fill_s": round(fill, 1),
        "judged_record_add_s": round(record_s, 1), "judged_check_s": round(check_s, 1),
        "digest_as_signing_s": round(digest_s, 1), "digest_matches": same,
        "run_db_mb": round(size_mb, 1), "bytes_per_failure": round(per_row, 1),
        "outputs_s": float(outputs_s), "pdfs_s": float(pdfs_s), "peak_rss_mb": int(rss_mb),
        "replay_lines": len(lines), "replay_bytes": replay.stat().st_size, "load": os.getloadavg()[0],
    }
    if not args.every_hand:
        result["estimate_every_hand_wrong"] = {
            "failures": 2 * HAND_COUNT, "run_db_gb": round(2 * HAND_COUNT * per_row / 2**30, 1),
            "note": "bytes per failure measured here times 2 x 154,143,080 answers; measure it with --every-hand"}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
