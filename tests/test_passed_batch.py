"""A batch counted in bulk (``runner.passed_batch``, ``runner.whole_batch``) counts exactly what
judging its vectors one by one counts: every batch of the ``edge`` and ``configs`` parts of the
standard suite, unmarked (everything offered) and marked with declarations that leave tables,
bets and banking out, against a plain count written here case by case from
:func:`~tablecert.harness.answers.compare.label_of` and :func:`~tablecert.harness.answers.compare.refusal_bet`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecert.harness.answers import compare as judge
from tablecert.harness.answers.capabilities import Capabilities, case_features, mark_batch, table_features, vector_features
from tablecert.harness.run.runner import passed_batch, whole_batch
from tablecert.harness.suites.reader import Batch, _file_batches, vector_set_files
from tablecert.vectors.checks import load_manifest

DECLARATIONS = [
    {"craps": {"commission": False, "bar": [12]}},
    {"craps": {"bets": ["pass", "come"], "units": [100], "odds": "whole"}},
    {"craps": {"commission_rounding": ["down"], "payout_rounding": ["exact"]}, "paigow": {"player_banked": False}},
]


@pytest.fixture(scope="module")
def batches(standard_suite: Path) -> list[Batch]:
    """Every batch of the standard suite's edge and configs parts (its files without ``.domain``),
    in batches of 97 (ragged ends, several batches per group)."""
    manifest = load_manifest(standard_suite)
    out = []
    for entry in vector_set_files(manifest):
        name = entry["path"].split("/", 1)[1]
        if not name.endswith(".domain.jsonl.gz"):
            out.extend(_file_batches(standard_suite / "prompt" / name, standard_suite / "expected" / name, name,
                                     entry["op"], 97))
    return out


def fresh(batch: Batch) -> Batch:
    return Batch(batch.file, batch.op, batch.tg_id, batch.config, batch.tc_ids, batch.cases, batch.expected,
                 batch.flags, batch.clauses, batch.comments)


def plain_counts(batch: Batch, outcome: str) -> Counter[tuple[str, str, str]]:
    """What counting each vector on its own adds up to (the judge's dimensions)."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for tc_id, clauses, flags in zip(batch.tc_ids, batch.clauses, batch.flags):
        reason = (batch.outside or {}).get(tc_id)
        result = "unsupported" if reason else outcome
        counts[("op", batch.op, result)] += 1
        for c in clauses:
            counts[("clause", c, result)] += 1
        for f in flags:
            counts[("flag", f, result)] += 1
            counts[("op_flag", f"{batch.op} {f}", result)] += 1
        if reason:
            counts[("unsupported_feature", reason, "unsupported")] += 1
        for feature in (batch.features or {}).get(tc_id, ()):
            counts[("feature", feature, result)] += 1
    return counts


def plain_passed(batch: Batch) -> tuple[Counter[Any], Counter[Any]]:
    """The counts and confusion of a batch whose every answer passed, vector by vector."""
    counts = plain_counts(batch, "pass")
    confusion: Counter[tuple[str, str, str]] = Counter()
    key = judge.CONFUSION_KEYS.get(batch.op)
    for case, expected in zip(batch.cases, batch.expected):
        if key is not None:
            label = judge.label_of(expected, key)
            confusion[(batch.op, label, label)] += 1
        if batch.op in judge.REFUSAL_OPS and "result" in expected:
            table = judge.refusal_table(batch.op, json.dumps(batch.config, separators=(",", ":"), ensure_ascii=False))
            counts[("table", table, "answered")] += 1
            bet = judge.refusal_bet(case) if batch.op.startswith("craps.") else None
            if bet is not None:
                counts[("bet", bet, "answered")] += 1
    return counts, confusion


def test_the_suite_parts_hold_every_op_and_the_shapes_counted(batches: list[Batch]) -> None:
    ops = Counter(b.op for b in batches)
    assert set(ops) >= {"craps.settle", "craps.place_odds", "craps.odds_limits", "paigow.settle"}
    expected = [e for b in batches for e in b.expected]
    assert any("error" in e for e in expected) and any("result" in e for e in expected)
    assert any(not isinstance(c, dict) or not isinstance(c.get("bet", ""), str) for b in batches for c in b.cases)


def test_passed_batch_counts_what_judging_each_vector_counts(batches: list[Batch]) -> None:
    for batch in batches:
        batch = fresh(batch)
        outcome = passed_batch(batch)
        counts, confusion = plain_passed(batch)
        assert (outcome.counts, outcome.confusion) == (counts, confusion), batch.key
        assert outcome.status == "done" and outcome.n == len(batch.cases) and not outcome.failures


@pytest.mark.parametrize("declaration", DECLARATIONS)
def test_whole_batch_counts_vectors_outside_a_declaration_as_unsupported(batches: list[Batch],
                                                                        declaration: dict[str, Any]) -> None:
    capabilities = Capabilities.from_declaration(declaration)
    outside = 0
    for batch in batches:
        batch = fresh(batch)
        mark_batch(batch, capabilities)
        outside += len(batch.outside or {})
        for status, result in (("done", "pass"), ("done", "fail"), ("unsupported", "unsupported")):
            got = whole_batch(batch, status, result)
            assert got.counts == plain_counts(batch, result), (batch.key, result)
            assert got.status == status and not got.confusion
    assert outside > 0      # the declaration leaves vectors of these parts out


def plain_features(op: str, config: Any, cases: list[Any], expected: list[Any]) -> list[tuple[str, ...]]:
    table = table_features(op, config)
    return [table + case_features(op, c, e) if table or isinstance(c, dict) else () for c, e in zip(cases, expected)]


def test_vector_features_are_each_vector_s_features(batches: list[Batch]) -> None:
    for batch in batches:
        assert vector_features(batch.op, batch.config, batch.cases, batch.expected) == \
            plain_features(batch.op, batch.config, batch.cases, batch.expected), batch.key


# The label, bet and feature counts on shapes the suites never hold (their one-by-one fallbacks).
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=70),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=8)
LABEL = st.sampled_from(["win", "lose", "push", "none", "x" * 65]) | JSON
RESULT = st.fixed_dictionaries({}, optional={"outcome": LABEL, "hand": LABEL, "error": JSON, "flat_win": JSON})
VALUE = (st.builds(lambda r: {"result": r}, RESULT | JSON) | st.builds(lambda c: {"error": c}, LABEL)
         | st.dictionaries(st.sampled_from(["result", "error", "outcome", "x"]), LABEL, max_size=3) | JSON)


@settings(max_examples=400, deadline=None)
@given(st.lists(VALUE, max_size=8), st.sampled_from(["", "outcome", "hand"]))
def test_label_counts_are_the_labels_counted_one_by_one(values: list[Any], key: str) -> None:
    assert judge.label_counts(values, key) == Counter(judge.label_of(v, key) for v in values)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.fixed_dictionaries({}, optional={"bet": LABEL, "flat": JSON}) | JSON, max_size=8))
def test_refusal_bets_are_the_bets_counted_one_by_one(cases: list[Any]) -> None:
    assert judge.refusal_bets(cases) == Counter(judge.refusal_bet(c) for c in cases)


CRAPS_TABLE = {"unit": 100, "free_odds": {"4": "1", "5": "1", "6": "1", "8": "1", "9": "1", "10": "1"},
               "max_odds": {"4": "1", "5": "1", "6": "1", "8": "1", "9": "1", "10": "1"}, "commission_rate": "0.05",
               "commission_rounding": "down", "commission_unit": 1, "payout_rounding": "exact", "bar": 12}
FIELD = st.sampled_from(["pass", "dont_come", "field", None, 0, 1, True, False]) | JSON
CASE = st.fixed_dictionaries({}, optional={"bet": FIELD, "bank_seat": FIELD}) | JSON
EXPECTED = st.fixed_dictionaries({}, optional={"error": st.sampled_from(["invalid_request", "invalid_config",
                                                                          "invalid_hand", "invalid_bet"]) | JSON,
                                               "result": JSON})      # expected values are objects


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["craps.settle", "craps.place_odds", "paigow.settle", "paigow.player_bonus"]),
       st.sampled_from([CRAPS_TABLE, {"unit": 0}, None, {"cap": 4000000}]),
       st.lists(st.tuples(CASE, EXPECTED), max_size=8))
def test_vector_features_on_odd_shapes(op: str, config: Any, vectors: list[tuple[Any, Any]]) -> None:
    cases, expected = [c for c, _ in vectors], [e for _, e in vectors]
    assert vector_features(op, config, cases, expected) == plain_features(op, config, cases, expected)
