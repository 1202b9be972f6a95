"""Judging a vector-set batch: every answer against its expected value, into one batch outcome.

:func:`judge_batch` judges a batch's decoded results (a right batch is confirmed in bulk first,
:mod:`tablecert.harness.answers.bulk`); :func:`judge_answer_line` an undecoded answer line (from a
session that is :class:`~tablecert.harness.contract.RawBatches`); :func:`passed_batch` is what a
batch whose every answer passed counts, and :func:`whole_batch` every vector of a batch with one
outcome (unsupported, fault). A vector outside the vendor's declared capabilities is counted
``unsupported``, never judged (:mod:`tablecert.harness.answers.capabilities`). Pure functions of the batch
and the answers: whichever path ran the batch, equal answers give an equal outcome.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain, compress
from typing import Any

from tablecert.harness.answers import bulk as bulk_judge
from tablecert.harness.answers.bulk import Expected
from tablecert.harness.answers.differences import cut_diagnosis
from tablecert.harness.answers.capabilities import UNSUPPORTED_DIMENSION, count_features, features_of
from tablecert.harness.contract import RawBatches
from tablecert.harness.answers.hand_failures import judge_hand_batch
from tablecert.harness.answers.compare import (CONFUSION_KEYS, REFUSAL_OPS, is_refusal, label_counts, label_of, passes,
                                     refusal_bet, refusal_bets, refusal_table)
from tablecert.harness.answers.round_findings import divergence_note
from tablecert.harness.model import (Batch, BatchOutcome, BatchStatus, Failure, Outcome, count_one, count_vectors, dumps,
                                     stored_answer, stored_expected)
from tablecert.harness.instance.stats import InstanceStats
from tablecert.oracle.names import CRAPS_ROUND, HAND_FILE


def all_inside(batch: Batch) -> bool:
    """No vector of ``batch`` is outside the vendor's declared capabilities (so all of it can
    pass in bulk)."""
    return not features_of(batch)[1]


def judge_answer_line(session: RawBatches, batch: Batch, rid: int, answer: bytes,
                      stats: InstanceStats | None = None) -> BatchOutcome:
    """Judge an undecoded answer line to ``batch``: one that
    :func:`~tablecert.harness.answers.bulk.confirms_line` confirms passes in bulk, any other is
    decoded and checked as ``session.batch`` would, then judged case by case. ``stats``: the
    vendor instance's, where what the bulk judge decided is counted."""
    if all_inside(batch):
        confirmed = bulk_judge.confirms_line(answer, rid, batch.op, Expected.of(batch.expected))
        if stats is not None:
            stats.lines_confirmed += confirmed
            stats.lines_refused += not confirmed
        if confirmed:
            return passed_batch(batch)
    return judge_batch(batch, session.decode_batch_answer(answer, rid, len(batch.cases), batch.op))


def judge_batch(batch: Batch, results: list[Any], stats: InstanceStats | None = None) -> BatchOutcome:
    """Judge every answer of a batch; failures keep inputs, expected and actual (a hand suite's as
    codes, :mod:`tablecert.harness.answers.hand_failures`). A vector outside the vendor's declared
    capabilities is counted ``unsupported``, not judged (harness/answers/capabilities.py). A batch whose
    answers all pass (and none outside) is counted in bulk: :mod:`tablecert.harness.answers.bulk`."""
    if batch.file == HAND_FILE:
        return judge_hand_batch(batch, results)
    if all_inside(batch):
        confirmed = bulk_judge.confirms_values(results, Expected.of(batch.expected))
        if stats is not None:
            stats.values_confirmed += confirmed
            stats.values_refused += not confirmed
        if confirmed:
            return passed_batch(batch)
    out = BatchOutcome(batch.file, batch.op, batch.tc_ids[0], len(batch.cases), BatchStatus.DONE)
    features, outside = features_of(batch)
    carried = []
    config_json = table_key = None
    craps = batch.op.startswith("craps.")
    label_key = CONFUSION_KEYS.get(batch.op)
    for i, actual in enumerate(results):
        expected = batch.expected[i]
        tc_id = batch.tc_ids[i]
        if tc_id in outside:
            count_one(out.counts, batch.op, batch.clauses[i], batch.flags[i], Outcome.UNSUPPORTED)
            out.counts[(UNSUPPORTED_DIMENSION, outside[tc_id], Outcome.UNSUPPORTED)] += 1
            carried.append((features[tc_id], Outcome.UNSUPPORTED))
            continue
        ok = passes(expected, actual)
        outcome = Outcome.PASS if ok else Outcome.FAIL
        count_one(out.counts, batch.op, batch.clauses[i], batch.flags[i], outcome)
        if batch.op in REFUSAL_OPS and (refused := is_refusal(expected, actual)) is not None:
            answer = "refused" if refused else "answered"
            table_key = table_key or refusal_table(batch.op, dumps(batch.config))
            out.counts[("table", table_key, answer)] += 1
            if craps and (bet := refusal_bet(batch.cases[i])) is not None:
                out.counts[("bet", bet, answer)] += 1
        carried.append((features[tc_id], outcome))
        if label_key is not None:
            label = label_of(expected, label_key)
            out.confusion[(batch.op, label, label if ok else label_of(actual, label_key))] += 1
        if not ok:
            config_json = config_json or dumps(batch.config)
            out.failures.append(Failure(batch.file, batch.op, batch.tg_id, tc_id, config_json, dumps(batch.cases[i]),
                                        stored_expected(expected),
                                        stored_answer(actual, lambda: cut_diagnosis(batch.op, expected, actual)),
                                        dumps(batch.flags[i]),
                                        dumps(batch.clauses[i]), _comment(batch, i, actual)))
    count_features(out.counts, Counter(carried))
    return out


def _comment(batch: Batch, i: int, actual: Any) -> str:
    """A failing vector's comment as kept in the run database; a round's with where it departs
    (:func:`~tablecert.harness.answers.round_findings.divergence_note`)."""
    comment = batch.comments[i] if batch.comments else ""
    if batch.op == CRAPS_ROUND and "result" in batch.expected[i]:
        note = divergence_note(batch.cases[i], batch.expected[i]["result"], actual)
        return f"{comment} | {note}" if note else comment
    return comment


def passed_batch(batch: Batch) -> BatchOutcome:
    """Every vector of ``batch`` (none outside the declared capabilities) passed: what judging each
    answer would count (:func:`judge_batch`): the counts, the confusion diagonal, and every
    vector that expected a result counted as answered for its table and bet. It depends on the
    batch alone, and is counted with C-level counting (``tests/test_passed_batch.py`` checks it
    against a plain case-by-case count)."""
    out = whole_batch(batch, BatchStatus.DONE, Outcome.PASS)
    label_key = CONFUSION_KEYS.get(batch.op)
    if label_key is not None:
        for label, n in label_counts(batch.expected, label_key).items():
            out.confusion[(batch.op, label, label)] += n
    if batch.op in REFUSAL_OPS:
        answered = ["result" in e for e in batch.expected]
        if any(answered):
            out.counts[("table", refusal_table(batch.op, dumps(batch.config)), "answered")] += sum(answered)
        if batch.op.startswith("craps."):
            for bet, n in refusal_bets(list(compress(batch.cases, answered))).items():
                if bet is not None:
                    out.counts[("bet", bet, "answered")] += n
    return out


def whole_batch(batch: Batch, status: str, outcome: str) -> BatchOutcome:
    """Every vector of a batch counted with one outcome (those outside the declared capabilities
    ``unsupported``): each clause, flag and feature counted once per outcome with C-level counting
    (what :func:`~tablecert.harness.model.count_one` per vector would add up to)."""
    out = BatchOutcome(batch.file, batch.op, batch.tc_ids[0], len(batch.cases), status)
    features, outside = features_of(batch)
    groups = [(outcome, batch.clauses, batch.flags, batch.tc_ids)]
    if outside:
        reasons = list(map(outside.get, batch.tc_ids))
        inside, unsupported = [not r for r in reasons], [bool(r) for r in reasons]
        groups = [(result, list(compress(batch.clauses, chosen)), list(compress(batch.flags, chosen)),
                   list(compress(batch.tc_ids, chosen))) for result, chosen in ((outcome, inside),
                                                                                (Outcome.UNSUPPORTED, unsupported))]
        for reason, n in Counter(compress(reasons, unsupported)).items():
            out.counts[(UNSUPPORTED_DIMENSION, reason, Outcome.UNSUPPORTED)] += n
    for result, clauses, flags, tc_ids in groups:
        if not tc_ids:
            continue
        count_vectors(out.counts, batch.op, result, len(tc_ids), Counter(chain.from_iterable(clauses)).items(),
                      Counter(chain.from_iterable(flags)).items())
        count_features(out.counts, {(f, result): n for f, n in Counter(map(features.__getitem__, tc_ids)).items()})
    return out
