"""Hand-suite failures stored as codes, classified by cause, and picked for replay.

A hand suite (``joker``, ``exhaustive``) has one test per hand and a vendor can be wrong on
millions of them, so its wrong hands are not kept as JSON text in ``failures`` but as integer
codes in ``hand_failures`` (a WITHOUT ROWID table whose key orders them for the reports):

    (op, expected, actual, cause, simplicity, tc_id, features)

``op`` is 0 for ``paigow.player_bonus`` and 1 for ``paigow.banker_bonus``; ``expected`` and
``actual`` are indices into the op's labels (:data:`LABEL_NAMES`), ``actual`` :data:`OTHER` for an
answer that is not one of them (its text, bounded like any stored answer, is in ``hand_answers``);
``tc_id`` is the hand's tcId (its canonical position is the suite's first position + tcId - 1,
kept in the run's meta as ``hand_first_position``); ``features`` the hand's feature mask,
``cause`` its most specific feature and ``simplicity`` how special the hand is
(:mod:`tablecert.oracle.hand_features`). Every failing tcId stays queryable here.

:func:`judge_hand_batch` judges a hand batch to the same counts and confusion cells as the generic
judge, with these rows instead of ``failures`` rows. :func:`replay_selection` picks the hands a
replay file holds: at most :data:`REPLAY_PER_GROUP` of each cause within each confusion cell, the
plainest first.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from tablecert.harness.answers.compare import label_of, passes
from tablecert.harness.model import (Batch, BatchOutcome, BatchStatus, HandAnswer, Outcome, RunMeta, count_vectors,
                                     stored_answer)
from tablecert.harness.store import HandCause, RunReader
from tablecert.oracle.cards import card_code, colex_unrank, parse_hand
from tablecert.oracle.hand_features import cause_and_simplicity, hand_features
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_LABELS
from tablecert.oracle.names import BANKER_BONUS, HAND_CLAUSES, HAND_FLAGS, HAND_OPS, PLAYER_BONUS
from tablecert.oracle.hand_features import cause_feature

OP_CODE = {op: i for i, op in enumerate(HAND_OPS)}
LABEL_NAMES = {PLAYER_BONUS: PLAYER_LABELS, BANKER_BONUS: BANKER_LABELS}
OTHER = 255
"""The ``actual`` code of an answer that is not one of the op's labels."""

REPLAY_PER_GROUP = 20
"""Hands a replay file holds at most per cause and per confusion cell (the plainest first)."""


def hand_codes(first_position: int, tc_id: int) -> list[str]:
    """The card codes of a hand suite's hand ``tc_id`` (the suite starting at ``first_position``)."""
    return [card_code(c) for c in colex_unrank(first_position + tc_id - 1)]


def label_name(op: str | int, code: int) -> str:
    op = HAND_OPS[op] if isinstance(op, int) else op
    return LABEL_NAMES[op][code] if code != OTHER else "(not a label)"


def judge_hand_batch(batch: Batch, results: list[Any], cards: np.ndarray | None = None) -> BatchOutcome:
    """Judge a hand batch (``batch.file`` the hand file): counts and confusion as the generic
    judge counts them, failures as ``hand_failures`` rows (and ``hand_answers`` for answers that
    are not a label). ``cards``: the batch's hands as card indices (n x 7), when at hand."""
    op = batch.op
    names = LABEL_NAMES[op]
    code_of = {name: i for i, name in enumerate(names)}
    out = BatchOutcome(batch.file, op, batch.tc_ids[0], len(batch.cases), BatchStatus.DONE)
    wrong: list[tuple[int, int, int]] = []          # (case index, expected code, actual code)
    for i, (expected, actual) in enumerate(zip(batch.expected, results)):
        want = expected["result"]["hand"]
        if type(actual) is dict and len(actual) == 1 and actual.get("hand") == want:
            out.confusion[(op, want, want)] += 1
            continue
        out.confusion[(op, label_of(expected), label_of(actual))] += 1
        if passes(expected, actual):
            continue
        got = actual.get("hand") if type(actual) is dict and len(actual) == 1 else None
        code = code_of.get(got, OTHER) if isinstance(got, str) else OTHER
        wrong.append((i, code_of[want], code))
        if code == OTHER:
            out.hand_answers.append(HandAnswer(OP_CODE[op], batch.tc_ids[i], stored_answer(actual)))
    n_fail = len(wrong)
    if n_fail < len(batch.cases):
        count_all(out.counts, op, len(batch.cases) - n_fail, Outcome.PASS)
    if n_fail:
        count_all(out.counts, op, n_fail, Outcome.FAIL)
        index = np.array([i for i, _, _ in wrong], dtype=np.int64)
        hands = (cards[index] if cards is not None
                 else np.array([parse_hand(batch.cases[i]["cards"]) for i in index.tolist()], dtype=np.int64))
        add_wrong_hands(out, [e for _, e, _ in wrong], [a for _, _, a in wrong],
                        [batch.tc_ids[i] for i in index.tolist()], hands)
    return out


def count_all(counts: Counter[tuple[str, str, str]], op: str, n: int, outcome: str) -> None:
    """``n`` vectors of a hand batch of ``op`` with one outcome (what judging them one by one counts)."""
    count_vectors(counts, op, outcome, n, ((c, n) for c in HAND_CLAUSES[op]), ((f, n) for f in HAND_FLAGS))


def add_wrong_hands(out: BatchOutcome, expected: list[int], actual: list[int], tc_ids: list[int],
                    hands: np.ndarray) -> None:
    """Put wrong hands of ``out.op`` (their label codes, tcIds and cards, n x 7) into ``out``:
    their ``hand_failures`` rows, and their numbers per cause of each cell (``hand_causes``)."""
    masks = hand_features(hands)
    causes, simplicity = cause_and_simplicity(masks)
    op = OP_CODE[out.op]
    cause_list = causes.tolist()
    out.hand_failures.extend(zip([op] * len(tc_ids), expected, actual, cause_list, simplicity.tolist(), tc_ids,
                                 masks.tolist()))
    out.hand_causes.update((op, e, a, c) for e, a, c in zip(expected, actual, cause_list))


def _most_first(db: RunReader) -> list[HandCause]:
    return sorted(db.hand_causes(), key=lambda g: (-g.n, g.op, g.expected, g.actual, g.cause))


def hand_cause_totals(db: RunReader) -> list[dict[str, Any]]:
    """The wrong hands per op, confusion cell and cause (for ``summary.json``), most first."""
    return [{"op": HAND_OPS[g.op], "expected": label_name(g.op, g.expected), "actual": label_name(g.op, g.actual),
             "cause": cause_feature(g.cause).id, "failures": g.n} for g in _most_first(db)]


def replay_selection(db: RunReader, per_group: int = REPLAY_PER_GROUP) -> dict[int, list[int]]:
    """Per op code, the tcIds a replay file holds: the ``per_group`` plainest hands of each cause
    of each confusion cell (so every cell and every cause is in it, each at most ``per_group``
    times per cell), in tcId order."""
    chosen: dict[int, set[int]] = {}
    for g in db.hand_causes():
        chosen.setdefault(g.op, set()).update(h.tc_id for h in db.plainest(g.op, g.expected, g.actual, g.cause, per_group))
    return {op: sorted(tcs) for op, tcs in sorted(chosen.items())}


def hand_replays(db: RunReader, meta: RunMeta) -> dict[str, tuple[str, Any, list[Any], list[int]]]:
    """The replay files of a hand-suite run: per op, ``paigow.hands.OP.jsonl`` with the hands of
    :func:`replay_selection` (name -> (op, config, cases, tcIds))."""
    first = meta.hand_first_position
    if first is None:
        return {}
    out = {}
    for op_code, tc_ids in replay_selection(db).items():
        op = HAND_OPS[op_code]
        cases = [{"cards": hand_codes(int(first), tc)} for tc in tc_ids]
        out[f"paigow.hands.{op}.jsonl"] = (op, meta.hand_config, cases, tc_ids)
    return out


def hand_examples(db: RunReader, meta: RunMeta, per_op: int) -> dict[str, list[str]]:
    """Per op, up to ``per_op`` lines naming a wrong hand: the plainest of each cause, causes with
    the most wrong hands first (for junit.xml)."""
    first = int(meta.hand_first_position or 0)
    out: dict[str, list[str]] = {}
    for g in _most_first(db):
        lines = out.setdefault(HAND_OPS[g.op], [])
        if len(lines) >= per_op:
            continue
        for hand in db.plainest(g.op, g.expected, g.actual, g.cause, 1):
            cards = " ".join(hand_codes(first, hand.tc_id))
            lines.append(f"paigow.hands tcId {hand.tc_id}: {cards} expected {label_name(g.op, g.expected)} got "
                         f"{label_name(g.op, g.actual)} (cause {cause_feature(g.cause).id}; {g.n:,} wrong hands of this cause)")
    return out
