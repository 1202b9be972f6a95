"""Running the hand-stream suites (``joker``, ``exhaustive``): every hand of a range of the canonical
colex order, sent to ``paigow.player_bonus`` and ``paigow.banker_bonus``, at the speed of the data.

An exhaustive run is 154,143,080 hands x 2 ops. Building each case as a Python dict, encoding
and decoding JSON, and judging answer by answer would take hours, so for these suites nothing is
done per case in Python unless an answer is wrong:

* **Cases.** A :class:`HandBatch` is ``n`` consecutive hands of the order. A compiled kernel
  steps through the colex order from any position (:func:`tablecert.oracle.cards.colex_unrank`
  for the first hand) and writes each hand straight into its request bytes: every compact case
  ``{"cards":["2c",...]}`` is a fixed-width record of 46 bytes plus a comma. The two ops share
  the case bytes; only the line's head (id, op, config) differs. The line is byte for byte what
  :meth:`SubprocessSession.batch` would send for the same cases (compact ``json.dumps``).
* **Expected answers.** The label codes come from the suite's expected stream
  (``expected/paigow.hands.labels``, two bytes per hand, read at the batch's offset), and the
  whole expected answer line, compact JSON ``{"id":N,"results":[{"hand":"none"},...]}``, is
  written by a kernel.
* **Judging** (by the run pipeline, :func:`tablecert.harness.run.judging.judge`, on one op of a
  batch: :class:`~tablecert.harness.run.judging.HandOp`). On a session that exchanges pre-encoded
  lines (:class:`~tablecert.harness.contract.RawExchange`, the subprocess adapter), an answer equal to the expected line passes the whole batch: the counts (per op, its
  clauses, flag ``Exhaustive``, op and flag) are ``n`` passes and the confusion matrix is the
  diagonal, from ``np.bincount`` of the expected codes; nothing is decoded. An answer in another
  formatting (spaces, key order) that :mod:`tablecert.harness.answers.bulk` confirms passes the
  same way. Any other answer (wrong, or not surely right) is decoded and checked as
  :meth:`SubprocessSession.batch` would check it and judged case by case
  (:func:`tablecert.harness.answers.hand_failures.judge_hand_batch`: wrong hands stored as codes), so the
  run database is the same either way.
  Other sessions (Python plugins, HTTP) get the batch's cases as JSON values;
  their answers are confirmed in bulk too, else judged by the generic judge.

Resumption skips recorded batches by arithmetic (batch ``k`` starts at hand ``k * size``), never
by enumerating them. Time spent in each stage is counted in the run's own
:class:`~tablecert.harness.instance.stats.InstanceStats` of its vendor instance (the run's result hands
them back: ``RunResult.stats``).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from tablecert.harness.run.hand_batches import HandBatch, HandSuite, hand_ranges
from tablecert.harness.run.hand_slices import HandSlice
from tablecert.harness.instance.vendor_instance import VendorInstance
from tablecert.harness.run.judging import HandOp, judge
from tablecert.harness.run.recorder import Recorder
from tablecert.harness.store import RunStore
from tablecert.oracle.names import HAND_FILE, HAND_OPS



class HandRun(Protocol):
    """What the hand loop needs of a run (the one-worker :class:`~tablecert.harness.run.runner.Runner` is one)."""

    instance: VendorInstance
    recorder: Recorder
    suite_dir: Path
    hand_batch_size: int
    max_hands: int | None
    hand_slice: HandSlice | None
    db: RunStore

# ---------------------------------------------------------------------------------------------
# The run loop
# ---------------------------------------------------------------------------------------------

def run_hands(runner: HandRun, done: set[tuple[str, str, int]], total: int) -> bool:
    """The one-worker loop of a hand suite: its batches not in ``done``, both ops of each judged
    through the run's instance and recorded; True if stopped early (``Recorder.should_stop``).

    The next batch's bytes are prepared on a worker thread while the current one is with the
    vendor (the kernels release the GIL); the batch carries its own preparation times."""
    instance, recorder = runner.instance, runner.recorder
    stats = instance.stats
    started = time.perf_counter()
    suite = HandSuite.load(runner.suite_dir)
    size = runner.hand_batch_size
    stop = suite.n_hands if runner.max_hands is None else min(runner.max_hands, suite.n_hands)
    planned = (list(runner.hand_slice.batches(suite.n_hands, size)) if runner.hand_slice is not None
               else [(index, n, None) for index, n in hand_ranges(stop, size)])
    before: dict[int, int] = {}                     # hands of the batches before each batch, done or not
    hands = 0
    for index, n, _ in planned:
        before[index], hands = hands, hands + n
    if runner.hand_slice is not None:
        total = 2 * hands
    todo = [batch for batch in planned if any((HAND_FILE, op, batch[0] + 1) not in done for op in HAND_OPS)]
    fd = os.open(suite.labels_path, os.O_RDONLY)
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hand-batches")
    try:
        def make(i: int) -> Future[HandBatch] | None:
            return pool.submit(HandBatch, suite, fd, *todo[i]) if i < len(todo) else None

        upcoming = make(0)
        for i in range(len(todo)):
            assert upcoming is not None
            t0 = time.perf_counter()
            hb = upcoming.result()
            stats.prefetch_wait_s += time.perf_counter() - t0
            stats.encode_s += hb.encode_s
            stats.expected_s += hb.expected_s
            upcoming = make(i + 1)
            stats.hands += hb.n
            count = 2 * before[hb.index]             # vectors before this batch, done or not
            for op in HAND_OPS:
                count += hb.n
                if hb.key(op) in done:
                    continue
                outcome = judge(instance, HandOp(hb, op))
                if op in instance.ops:
                    stats.vectors += hb.n
                t0 = time.perf_counter()
                recorder.record(outcome)
                stats.record_s += time.perf_counter() - t0
                recorder.advance(count, total)
                if recorder.should_stop():
                    return True
        return False
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        os.close(fd)
        stats.run_s = time.perf_counter() - started


def note_hand_suite(runner: HandRun) -> None:
    """Keep in the run's meta where the suite's hands begin in the canonical order and their
    config (the compact hand failures are read back from them), whoever runs the batches."""
    suite = HandSuite.load(runner.suite_dir)
    runner.db.set_meta(hand_first_position=suite.first_position, hand_config=suite.config)
