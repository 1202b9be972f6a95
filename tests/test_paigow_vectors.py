"""The pai gow vector generators: the curated data says what it means, the groups are well made,
the seeded sample is deterministic and covers every bucket, and the hand-stream digests are right.

The curated data's ``claim*`` fields are checked against the reference evaluator
(:mod:`tablecert.oracle.hands`) and the oracle's protocol ops; those claims are never what the
vector files carry as expected answers (the writer computes those), they only pin what each
entry's comment says it is.
"""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from math import comb
from typing import Any

import numpy as np
import pytest

from tablecert.oracle.cards import HAND_COUNT, JOKER, colex_rank, colex_unrank, parse_hand, suit_of
from tablecert.oracle.census import published_counts
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_CATEGORIES, PLAYER_LABELS, banker_label, player_category, player_label
from tablecert.oracle.labeller import label_hands_with_top
from tablecert.oracle.register import clauses, interpretations
from tablecert.oracle.vendor import run_op
from tablecert.vectors import hand_stream as hs
from tablecert.vectors import paigow_cases as pc
from tablecert.vectors.model import VectorGroup

CAP = 4_000_000
NOTES = tomllib.loads(resources.files("tablecert.vectors").joinpath("notes.toml").read_text(encoding="utf-8"))
KNOWN_IDS = set(clauses()) | set(interpretations())
DATA = pc.load_edge_data()
HANDS = DATA["hand"]
ROUNDS = [(group, r) for group in DATA["settle"] for r in group["round"]]


def _id(entry: dict[str, Any]) -> str:
    return entry["comment"][:70]


def _answer(op: str, config: dict[str, Any], case: Any) -> dict[str, Any]:
    (answer,) = run_op(op, config, [case])
    return answer


# ------------------------------------------------------------------------------ curated hands

@pytest.mark.parametrize("entry", HANDS, ids=_id)
def test_curated_hand_is_what_it_claims(entry: dict[str, Any]) -> None:
    case = pc.hand_case(entry)
    if "claim_error" in entry:
        assert "claim" not in entry and "claim_banker" not in entry
        for op in pc.LABEL_OPS:
            assert _answer(op, {"cap": CAP}, case)["error"]["code"] == entry["claim_error"]
        return
    cards = parse_hand(entry["cards"])
    assert player_category(cards) == entry["claim"]
    assert banker_label(cards) == entry["claim_banker"]
    assert _answer(pc.PLAYER_OP, {"cap": CAP}, case) == {"hand": player_label(cards)}
    assert _answer(pc.BANKER_OP, {"cap": CAP}, case) == {"hand": entry["claim_banker"]}


def test_curated_hands_cover_every_label_with_and_without_joker() -> None:
    claimed: set[tuple[str, bool]] = set()
    banker: set[tuple[str, bool]] = set()
    for entry in HANDS:
        if "claim" in entry:
            joker = "JK" in entry["cards"]
            claimed.add((entry["claim"], joker))
            banker.add((entry["claim_banker"], joker))
    # five aces needs the joker; every other category both ways
    assert claimed == {(c, j) for c in PLAYER_CATEGORIES for j in (False, True)} - {("five_aces", False)}
    # a joker hand is never banker-qualifying (INT-BANKER-HIGH)
    assert banker == {(b, False) for b in BANKER_LABELS} | {("none", True)}


def test_curated_hands_hold_the_required_cases() -> None:
    hands = {frozenset(e["cards"]): e for e in HANDS if "claim" in e}
    for suit in "cdhs":
        entry = hands[frozenset([f"{r}{suit}" for r in "78TJQK"] + ["JK"])]
        assert entry["claim"] == "royal_flush"
    assert hands[frozenset(["Ks", "Kh", "Kd", "JK", "2c", "5d", "9h"])]["claim"] == "three_of_a_kind"
    shapes = {tuple(sorted(np.bincount([suit_of(c) for c in parse_hand(e["cards"])], minlength=4)))
              for e in HANDS if e.get("claim_banker") == "nine_high"}
    assert len(shapes) >= 4
    errors = [e for e in HANDS if "claim_error" in e]
    assert {e["claim_error"] for e in errors} == {"invalid_hand", "invalid_request"}
    cards = [e.get("cards") for e in errors]
    assert [] in cards and any(isinstance(c, str) for c in cards)
    assert any(isinstance(c, list) and len(c) == 6 for c in cards) and any(isinstance(c, list) and len(c) == 8 for c in cards)


def test_every_flag_and_clause_in_the_data_is_defined() -> None:
    def ids(entry: dict[str, Any], suffix: str) -> list[str]:
        return [x for key, value in entry.items() if key.endswith(suffix) for x in value]

    entries = HANDS + [r for _, r in ROUNDS]
    for entry in entries:
        assert set(ids(entry, "flags")) <= set(NOTES), entry["comment"]
        assert set(ids(entry, "clauses")) <= KNOWN_IDS, entry["comment"]
    for op in pc.PAIGOW_OPS:
        assert set(DATA["ops"][op]["clauses"]) <= KNOWN_IDS


# ------------------------------------------------------------------------------ curated rounds

@pytest.mark.parametrize("group, entry", ROUNDS, ids=[_id(r) for _, r in ROUNDS])
def test_curated_round_is_what_it_claims(group: dict[str, Any], entry: dict[str, Any]) -> None:
    answer = _answer(pc.SETTLE_OP, {"cap": group.get("cap", CAP)}, pc.round_case(entry))
    if "claim_error" in entry:
        assert "claim" not in entry
        assert answer.get("error", {}).get("code") == entry["claim_error"], answer
        return
    assert "error" not in answer, answer
    seats = answer["seats"]
    assert len(seats) == len(entry["claim"])
    for got, claimed in zip(seats, entry["claim"]):
        assert {k: got[k] for k in claimed} == claimed


def test_cap_groups_sit_around_the_seat_total() -> None:
    caps = sorted(g["cap"] for g in DATA["settle"] if "cap" in g)
    total = 150_000  # seat 1's uncapped wins in those groups (checked by the claims above)
    assert {total - 1, total, total + 1} <= set(caps)


def test_invalid_configs_are_invalid_config() -> None:
    for bad in DATA["invalid_config"]:
        for op in pc.PAIGOW_OPS:
            entries = [c for c in DATA["invalid_config_case"] if c["op"] == op]
            assert 1 <= len(entries) <= 2
            cases = [pc.round_case(c) if op == pc.SETTLE_OP else pc.hand_case(c) for c in entries]
            assert [a["error"]["code"] for a in run_op(op, bad["config"], cases)] == ["invalid_config"] * len(cases)
            assert all("error" not in a for a in run_op(op, {"cap": CAP}, cases[:1]))


# ------------------------------------------------------------------------------ groups

def _check_groups(groups: list[VectorGroup]) -> None:
    for group in groups:
        assert group.op in pc.PAIGOW_OPS and group.comment
        json.dumps(group.config, allow_nan=False)
        for v in group.vectors:
            json.dumps(v.case, allow_nan=False)
            assert v.comment and v.flags
            assert len(set(v.flags)) == len(v.flags) and set(v.flags) <= set(NOTES), v.comment
            assert len(set(v.clauses)) == len(v.clauses) and set(v.clauses) <= KNOWN_IDS, v.comment


def test_edge_groups() -> None:
    groups = list(pc.edge_groups(CAP))
    _check_groups(groups)
    label_groups = [g for g in groups if g.op in pc.LABEL_OPS and g.config == {"cap": CAP}]
    assert [g.op for g in label_groups] == list(pc.LABEL_OPS)
    for g in label_groups:
        assert [v.case for v in g.vectors] == [pc.hand_case(e) for e in HANDS]  # every hand to both ops
    settle = [g for g in groups if g.op == pc.SETTLE_OP and not g.comment.startswith("malformed config")]
    assert [g.config["cap"] for g in settle] == [g.get("cap", CAP) for g in DATA["settle"]]
    assert sum(len(list(g.vectors)) for g in settle) == len(ROUNDS)
    bad_configs = [g for g in groups if g.config not in ({"cap": CAP},) and g.comment.startswith("malformed config")]
    assert len(bad_configs) == 3 * len(DATA["invalid_config"])
    assert list(pc.edge_groups(CAP)) == groups
    assert [g.config for g in pc.edge_groups(5_000_000) if g.op in pc.LABEL_OPS][:2] == [{"cap": 5_000_000}] * 2


# ------------------------------------------------------------------------------ the sample

@pytest.fixture(scope="module")
def sample() -> list[VectorGroup]:
    return list(pc.sample_groups(CAP))


@pytest.fixture(scope="module")
def sample_hands() -> list[pc.SampledHand]:
    return pc.sample_hands()


def test_sample_is_deterministic(sample: list[VectorGroup]) -> None:
    again = list(pc.sample_groups(CAP))
    assert [(g.op, g.config, g.comment, list(g.vectors)) for g in again] == \
        [(g.op, g.config, g.comment, list(g.vectors)) for g in sample]


def test_sample_groups_are_well_made(sample: list[VectorGroup]) -> None:
    _check_groups(sample)
    ops = [g.op for g in sample]
    assert ops.count(pc.PLAYER_OP) == ops.count(pc.BANKER_OP) == ops.count(pc.SETTLE_OP) == 2
    player = [v.case for g in sample if g.op == pc.PLAYER_OP for v in g.vectors]
    banker = [v.case for g in sample if g.op == pc.BANKER_OP for v in g.vectors]
    assert player == banker and 300 <= len(player) <= 5_000


def test_sample_hands_are_in_their_buckets_and_cover_every_label(sample_hands: list[pc.SampledHand]) -> None:
    hands = sample_hands
    player: set[tuple[str, bool]] = set()
    banker: set[tuple[str, bool]] = set()
    for h in hands:
        cards = colex_unrank(h.position)
        name, labels = pc.FAMILIES[h.family]
        label = player_category(cards) if name == "player" else banker_label(cards)
        assert label == labels[h.label]
        counts = tuple(sorted((n for n in np.bincount([suit_of(c) for c in cards if c != JOKER], minlength=4) if n),
                              reverse=True))
        assert counts == pc.SHAPES[h.shape] and h.joker == (JOKER in cards)
        (player if name == "player" else banker).add((label, h.joker))
    assert player == {(c, j) for c in PLAYER_CATEGORIES for j in (False, True)} - {("five_aces", False)}
    assert banker == {(b, False) for b in BANKER_LABELS} | {("none", True)}
    assert len({h.position for h in hands if h.family == 0 and PLAYER_CATEGORIES[h.label] == "five_aces"}) == 6


@pytest.mark.slow
def test_sample_covers_every_suit_shape_that_occurs(sample_hands: list[pc.SampledHand]) -> None:
    """Independently of the sampler's counting kernel: every (label, suit shape) that occurs in the
    enumeration has min(per_bucket, population) sampled hands."""
    population = [np.zeros(n, dtype=np.int64) for n in (len(PLAYER_CATEGORIES) * pc.N_SHAPES,
                                                         len(BANKER_LABELS) * pc.N_SHAPES)]
    for top in range(6, 53):
        categories, banker = label_hands_with_top(top)
        shapes = pc.shapes_with_top(top).astype(np.int64)
        for f, labels in enumerate((categories, banker)):
            population[f] += np.bincount(labels.astype(np.int64) * pc.N_SHAPES + shapes, minlength=population[f].size)
    drawn = [np.zeros_like(p) for p in population]
    for h in sample_hands:
        drawn[h.family][h.label * pc.N_SHAPES + h.shape] += 1
    for f in range(2):
        assert (drawn[f] == np.minimum(population[f], 3)).all()
    assert sum(int(p.sum()) for p in population) == 2 * HAND_COUNT


def test_sample_rounds_settle_and_bind_the_cap(sample: list[VectorGroup]) -> None:
    groups = [g for g in sample if g.op == pc.SETTLE_OP]
    assert [g.config["cap"] for g in groups] == [CAP, pc.SMALL_CAP]
    capped = banked = paid = 0
    for g in groups:
        vectors = list(g.vectors)
        assert len(vectors) == 150
        for v, answer in zip(vectors, run_op(pc.SETTLE_OP, g.config, [v.case for v in vectors])):
            assert "error" not in answer, v.comment
            assert 2 <= len(v.case["seats"]) <= 5
            banked += v.case["bank_seat"] is not None
            for seat in answer["seats"]:
                paid += seat["total_win"] > 0
                capped += seat["total_win"] < seat["player_bonus_win"] + seat["banker_bonus_win"]
    assert capped > 0 and banked > 20 and paid > 50


# ------------------------------------------------------------------------------ hand streams

def test_stream_format_names_the_label_orders() -> None:
    assert "(" + ", ".join(PLAYER_LABELS) + ")" in hs.EXPECTED_STREAM_FORMAT
    assert "(" + ", ".join(BANKER_LABELS) + ")" in hs.EXPECTED_STREAM_FORMAT
    assert [PLAYER_LABELS[c] for c in hs.CATEGORY_TO_LABEL] == [
        c if c in PLAYER_LABELS else "none" for c in PLAYER_CATEGORIES]


def test_suite_ranges() -> None:
    assert hs.suite_first_position("joker") == comb(53, 7) - comb(52, 6)
    assert hs.suite_size("joker") == comb(52, 6) == 20_358_520
    assert hs.suite_first_position("exhaustive") == 0 and hs.suite_size("exhaustive") == HAND_COUNT
    with pytest.raises(ValueError):
        hs.suite_size("edge")


def _check_positions(first: int, data: bytes, positions: list[int]) -> None:
    for p in positions:
        cards = parse_hand(hs.hand_at(p))
        assert colex_rank(cards) == p
        i = 2 * (p - first)
        assert (PLAYER_LABELS[data[i]], BANKER_LABELS[data[i + 1]]) == (player_label(cards), banker_label(cards)), p


def test_joker_stream_matches_golden_digest_and_reference() -> None:
    done: list[tuple[int, int]] = []
    assert hs.expected_stream_digest("joker", progress=lambda d, t: done.append((d, t))) == hs.golden_digest("joker")
    assert done[-1] == (20_358_520, 20_358_520)
    ((first, data),) = list(hs.iter_expected_blocks("joker"))
    assert first == hs.suite_first_position("joker") and len(data) == 2 * 20_358_520
    rng = np.random.default_rng(7)
    _check_positions(first, data, [first, first + 1, HAND_COUNT - 1] + rng.integers(first, HAND_COUNT, 300).tolist())
    # the label counts of the stream are the published joker-hand counts
    published = published_counts()
    counts = np.bincount(np.frombuffer(data, dtype=np.uint8)[0::2], minlength=len(PLAYER_LABELS))
    expected = {label: 0 for label in PLAYER_LABELS}
    for category in PLAYER_CATEGORIES:
        label = category if category in PLAYER_LABELS else "none"
        expected[label] += published.player[category] - published.player_no_joker[category]
    assert dict(zip(PLAYER_LABELS, counts.tolist())) == expected
    assert set(np.frombuffer(data, dtype=np.uint8)[1::2].tolist()) == {BANKER_LABELS.index("none")}


@pytest.mark.slow
def test_exhaustive_stream_matches_golden_digest_and_reference() -> None:
    assert hs.expected_stream_digest("exhaustive") == hs.golden_digest("exhaustive")
    rng = np.random.default_rng(11)
    positions = sorted(rng.integers(0, HAND_COUNT, 400).tolist() + [0, HAND_COUNT - 1])
    import hashlib

    digest = hashlib.sha256()
    expected_first = 0
    for first, data in hs.iter_expected_blocks("exhaustive"):
        assert first == expected_first
        expected_first += len(data) // 2
        digest.update(data)
        _check_positions(first, data, [p for p in positions if first <= p < expected_first])
    assert expected_first == HAND_COUNT
    assert digest.hexdigest() == hs.golden_digest("exhaustive")[0]


def test_prompt_cases_walk_the_colex_order() -> None:
    first = hs.suite_first_position("joker")
    assert list(hs.iter_prompt_cases("joker", 0, 2)) == [
        (1, {"cards": ["2c", "2d", "2h", "2s", "3c", "3d", "JK"]}),
        (2, {"cards": ["2c", "2d", "2h", "2s", "3c", "3h", "JK"]})]
    size = hs.suite_size("joker")
    assert list(hs.iter_prompt_cases("joker", size - 1)) == [(size, {"cards": ["Kh", "Ks", "Ac", "Ad", "Ah", "As", "JK"]})]
    for start in (0, 1_000, 123_456, size - 50):
        got = list(hs.iter_prompt_cases("joker", start, start + 50))
        assert got == [(start + i + 1, {"cards": hs.hand_at(first + start + i)}) for i in range(50)]
    for start in (0, 54_264, 133_784_550):  # across block boundaries of the exhaustive order
        got = list(hs.iter_prompt_cases("exhaustive", start, start + 20))
        assert got == [(start + i + 1, {"cards": hs.hand_at(start + i)}) for i in range(20)]
    assert list(hs.iter_prompt_cases("joker", 5, 5)) == []
    with pytest.raises(ValueError):
        list(hs.iter_prompt_cases("joker", 0, size + 1))
