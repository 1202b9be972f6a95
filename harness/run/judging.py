"""``judge(instance, unit)``: one unit of work sent through a vendor instance and judged.

A unit is a vector-set batch (:class:`~tablecert.harness.suites.reader.Batch`, of any op: round
scripts are batches of ``craps.round``), one op of a hand batch (:class:`HandOp`) or a unit that
plays itself through the instance, one request at a time (:class:`~tablecert.harness.instance.vendor_instance.Played`: a batch of live tables,
:mod:`tablecert.harness.live.run`, which kills and restarts the vendor). What the
vendor did not declare is not sent (:func:`nothing_to_send`: counted ``unsupported``). The rest
goes through the instance's fault recovery (retry, restart, bisect:
:mod:`tablecert.harness.instance.recovery`), by the fastest way the session declares
(:mod:`tablecert.harness.contract`):

* vector batches: a source of answers by test (:class:`~tablecert.harness.contract.AnswersByTest`,
  offline validation) is asked for them; a :class:`~tablecert.harness.contract.RawBatches`
  session's answer line is confirmed in bulk before anything is decoded; any other session's
  results are judged as values. A session speaking contract v1 gets the part of the batch v1
  expresses (:func:`~tablecert.harness.protocol_versions.run_v1`).
* hand batches: a :class:`~tablecert.harness.contract.RawExchange` session gets the request line
  the kernels wrote and an answer equal to the expected line passes the whole batch (else it is
  confirmed in bulk, else decoded and judged case by case); any other session gets the cases as
  values. Time and counts go to the instance's own :class:`~tablecert.harness.instance.stats.InstanceStats`.

The answers are judged by :mod:`tablecert.harness.instance.vectors` and
:mod:`tablecert.harness.answers.hand_failures`, whichever path brought them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tablecert.harness.answers import bulk as bulk_judge
from tablecert.harness.contract import AnswersByTest, RawBatches, RawExchange
from tablecert.harness.answers.hand_failures import judge_hand_batch
from tablecert.harness.protocol_versions import run_v1
from tablecert.harness.model import Batch, BatchOutcome, BatchStatus, Outcome
from tablecert.harness.instance.vendor_instance import Played, VendorInstance
from tablecert.harness.instance.vectors import judge_answer_line, judge_batch, whole_batch
from tablecert.oracle.names import HAND_FILE
from tablecert.oracle.protocol import V1

if TYPE_CHECKING:
    from tablecert.harness.run.hand_batches import HandBatch


@dataclass(frozen=True)
class HandOp:
    """One op of a hand batch: how a hand suite is sent (both ops of each batch, one after the other)."""

    batch: HandBatch
    op: str


Unit = Batch | HandOp | Played


def nothing_to_send(ops: tuple[str, ...], batch: Batch) -> bool:
    """The vendor did not list the batch's op, or declared none of its vectors (all outside its
    capabilities): the batch is counted ``unsupported`` and not sent."""
    return batch.op not in ops or len(batch.outside or ()) == len(batch.cases)


def unsupported(batch: Batch) -> BatchOutcome:
    return whole_batch(batch, BatchStatus.UNSUPPORTED, Outcome.UNSUPPORTED)


def judge(instance: VendorInstance, unit: Unit) -> BatchOutcome:
    """The judged outcome of ``unit`` sent through ``instance`` (see the module docstring)."""
    if isinstance(unit, HandOp):
        if unit.op not in instance.ops:
            return unit.batch.whole(unit.op, BatchStatus.UNSUPPORTED, Outcome.UNSUPPORTED)
        return _hand_op(instance, unit.batch, unit.op)
    if not isinstance(unit, Batch):
        return unit.play(instance)
    if nothing_to_send(instance.ops, unit):
        return unsupported(unit)
    if instance.protocol != V1:
        return _vectors(instance, unit)
    return run_v1(unit, lambda part: _vectors(instance, part), unsupported)


def _vectors(instance: VendorInstance, batch: Batch) -> BatchOutcome:
    def send_whole() -> BatchOutcome:
        session = instance.session()
        if isinstance(session, AnswersByTest):
            return judge_batch(batch, session.answers(batch.file, batch.tc_ids), instance.stats)
        if isinstance(session, RawBatches):
            rid, answer = session.batch_raw(batch.op, batch.config, batch.cases)
            return judge_answer_line(session, batch, rid, answer, instance.stats)
        return judge_batch(batch, session.batch(batch.op, batch.config, batch.cases), instance.stats)

    return instance.recovery.outcome((batch.file, batch.op, batch.tc_ids[0], len(batch.cases)), send_whole,
                                     lambda: batch)


def _hand_op(instance: VendorInstance, hb: HandBatch, op: str) -> BatchOutcome:
    stats = instance.stats
    cases: list[Any] | None = None

    def send_whole() -> BatchOutcome:
        nonlocal cases
        session = instance.session()
        if isinstance(session, RawExchange):
            rid = session.reserve_id()
            line = hb.request_line(op, rid)
            t0 = time.perf_counter()
            answer = session.exchange_raw(line)
            stats.exchange_s += time.perf_counter() - t0
            stats.requests += 1
            stats.request_bytes += len(line)
            stats.answer_bytes += len(answer)
            return _hand_answer_line(instance, session, hb, op, rid, answer)
        stats.generic += 1
        t0 = time.perf_counter()
        cases = cases if cases is not None else hb.case_values()
        results = session.batch(op, hb.suite.config, cases)
        stats.exchange_s += time.perf_counter() - t0
        t0 = time.perf_counter()
        if bulk_judge.confirms_values(results, hb.expected(op)):
            stats.bulk_passes += 1
            stats.judge_s += time.perf_counter() - t0
            return hb.passed(op)
        try:
            return judge_hand_batch(hb.batch(op, cases), results, hb.cards)
        finally:
            stats.fallback_s += time.perf_counter() - t0

    return instance.recovery.outcome((HAND_FILE, op, hb.first_tc, hb.n), send_whole, lambda: hb.batch(op, cases))


def _hand_answer_line(instance: VendorInstance, session: RawBatches, hb: HandBatch, op: str, rid: int,
                      answer: bytes) -> BatchOutcome:
    """The outcome of an undecoded answer to a hand batch: the whole batch passes if it is the
    canonical expected line or :func:`~tablecert.harness.answers.bulk.confirms_line` confirms it
    (another formatting of the right answer), else it is decoded and checked (VendorFault as
    ``batch`` raises it) and judged case by case."""
    stats = instance.stats
    t0 = time.perf_counter()
    if answer == hb.expected_line(op, rid):
        stats.fast_passes += 1
        out = hb.passed(op)
    elif bulk_judge.confirms_line(answer, rid, op, hb.expected(op)):
        stats.bulk_passes += 1
        out = hb.passed(op)
    else:
        stats.fallbacks += 1
        try:
            return judge_hand_batch(hb.batch(op), session.decode_batch_answer(answer, rid, hb.n, op), hb.cards)
        finally:
            stats.fallback_s += time.perf_counter() - t0
    stats.judge_s += time.perf_counter() - t0
    return out
