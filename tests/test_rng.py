"""The RNG battery (tablecert.rng): the significance plan, the null moments it relies on (checked
by simulation, not by the formulas), a few correct generators that pass, every biased generator
of tests/rng_generators.py caught, and the checks of a vendor's answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rng_generators import BIASED_DECKS, BIASED_DICE, fair_decks, fair_dice
from tablecert.harness.contract import KNOWN_OPS, RNG_OPS, VendorFault
from tablecert.harness.answers.envelope import parse_hello
from tablecert.oracle.vendor import ReferenceVendor
from tablecert.rng import decks as deck_tests
from tablecert.rng.api import evaluate
from tablecert.rng.collect import check_decks, check_dice, decks_text
from tablecert.rng.dice import gap_test
from tablecert.rng.labels import label_probabilities, seat_labels
from tablecert.rng.plan import TestResult as Result
from tablecert.rng.plan import holm

NO_FACES = np.zeros((0, 2), np.uint8)
NO_DECKS = np.zeros((0, 53), np.uint8)


def _result(i: int, p: float) -> Result:
    return Result(f"t{i}", "", "dice", "x", 0.0, None, p, 1)


def test_holm_stops_at_the_first_p_value_not_below_its_level():
    # alpha 0.01, m = 4: levels 0.0025, 0.01/3, 0.005, 0.01 for the sorted p-values.
    # 0.006 is not below 0.005, so 0.009 passes although it is below its own level 0.01.
    decided = holm([_result(0, 0.009), _result(1, 0.001), _result(2, 0.006), _result(3, 0.0001)])
    assert [r.rejected for r in decided] == [False, True, False, True]
    assert decided[3].threshold == pytest.approx(0.0025) and decided[1].threshold == pytest.approx(0.01 / 3)
    assert decided[2].threshold == pytest.approx(0.005) and decided[0].threshold == pytest.approx(0.01)


def test_card_position_statistic_is_scaled_to_its_chi_square():
    # 300 batteries of 400 decks: the scaled statistic averages df = 2704 (the unscaled one, 2756).
    rng = np.random.default_rng(11)
    values = []
    for _ in range(300):
        d = fair_decks(rng, 400)
        values.append(deck_tests.layout_tests(d, deck_tests.positions(d))[0].statistic)
    se = np.sqrt(2 * 2704 / 300)
    assert abs(np.mean(values) - 2704) < 4 * se


def test_follows_statistic_moments_match_the_satterthwaite_reference():
    rng = np.random.default_rng(12)
    values = []
    for _ in range(300):
        d = fair_decks(rng, 400)
        r = deck_tests.layout_tests(d, deck_tests.positions(d))[1]
        values.append(r.statistic * float(deck_tests.SUCCESSION_VAR / (2 * deck_tests.SUCCESSION_MEAN)))
    raw_mean, raw_var = np.mean(values), np.var(values, ddof=1)
    assert abs(raw_mean - 2704) < 4 * np.sqrt(5510 / 300)
    assert abs(raw_var / float(deck_tests.SUCCESSION_VAR) - 1) < 0.35


def test_shared_successions_of_independent_decks_have_the_stated_mean_and_variance():
    rng = np.random.default_rng(13)
    a, b = fair_decks(rng, 200_000), fair_decks(rng, 200_000)
    nx, ny = deck_tests.successors(a), deck_tests.successors(b)
    shared = ((nx == ny) & (nx != 53)).sum(axis=1)
    assert abs(shared.mean() - 52 / 53) < 4 * np.sqrt(1 / 200_000)
    assert abs(shared.var() / float(deck_tests.SHARED_VAR) - 1) < 0.03


def test_label_probabilities_are_the_census_shares_and_a_deal_matches_them():
    player, banker = label_probabilities()
    assert player.sum() == pytest.approx(1) and banker.sum() == pytest.approx(1)
    assert banker[0] == pytest.approx(31080 / 154143080)     # nine-high, published_counts.toml
    hand = [51, 47, 43, 39, 35, 52, 0]       # As Ks Qs Js Ts JK 2c, dealt first
    deck = np.array([hand + sorted(set(range(53)) - set(hand))], np.uint8)
    p, _ = seat_labels(deck)
    assert p[0, 0] == 1      # As Ks Qs Js Ts + joker + 2c: royal flush (category code 1)


def test_a_few_correct_generators_pass():
    for seed in range(4):
        rng = np.random.default_rng([99, seed])
        results = evaluate(fair_dice(rng, 50_000), fair_decks(rng, 3_000), seed)
        assert len(results) == 62 and not [r.id for r in results if r.rejected]


@pytest.mark.parametrize("name", list(BIASED_DICE))
def test_biased_dice_are_caught(name):
    faces = BIASED_DICE[name](np.random.default_rng(5), 1_000_000)
    failed = {r.id for r in evaluate(faces, NO_DECKS, 5) if r.rejected}
    expected = {"modulo bias (byte % 6)": {"dice.faces_a", "dice.faces_b"},
                "a face favoured (+0.3 points)": {"dice.faces_a", "dice.faces_b"},
                "a roll repeats the previous (+0.3%)": {"dice.repeats"}, "LCG low bits (% 6)": {"dice.pairs"}}
    assert expected[name] & failed


@pytest.mark.parametrize("name", list(BIASED_DECKS))
def test_biased_shuffles_are_caught(name):
    decks = BIASED_DECKS[name](np.random.default_rng(6), 25_000)
    failed = {r.id for r in evaluate(NO_FACES, decks, 6) if r.rejected}
    expected = {"cut, not reshuffled (2%)": "decks.cut_check", "joker at byte % 53": "decks.joker_position",
                "16-bit seed per deck": "decks.duplicates", "sort by an 8-bit key": "decks.inversions",
                "swap with any position": "decks.card_position", "Fisher-Yates, byte % (i + 1)": "decks.card_position"}
    assert expected[name] in failed


def test_gaps_of_a_total_that_never_comes_fail_on_its_count():
    totals = np.full(50_000, 7)
    r = gap_test(totals, 2)
    assert r.method.startswith("binomial") and r.p_value < 1e-100


def test_vendor_answers_are_checked_and_faults_named():
    with pytest.raises(VendorFault, match="5 digits for 3 rolls"):
        check_dice({"dice": "12345"}, 3, "request 1")
    with pytest.raises(VendorFault, match=r"character 4 is '0'"):
        check_dice({"dice": "123056"}, 3, "request 1")
    with pytest.raises(VendorFault, match="refused a valid count"):
        check_dice({"error": {"code": "invalid_count"}}, 3, "request 1")
    decks = fair_decks(np.random.default_rng(1), 3)
    texts = decks_text(decks).decode().split()
    _, cards = check_decks({"decks": texts}, 3, "request 1")
    assert (cards == decks).all()
    twice = texts[:]
    twice[1] = twice[1].replace("As", "Ks")
    with pytest.raises(VendorFault, match="deck 2: missing As; held twice Ks"):
        check_decks({"decks": twice}, 3, "request 1")
    with pytest.raises(VendorFault, match="deck 3: position 53 is 'JX'"):
        check_decks({"decks": texts[:2] + [texts[2][:104] + "JX"]}, 3, "request 1")
    with pytest.raises(VendorFault, match="deck 1: 104 characters"):
        check_decks({"decks": [texts[0][:104]] + texts[1:]}, 3, "request 1")


def test_reference_vendor_deals_one_stream_and_rejects_bad_counts():
    v = ReferenceVendor()
    hello = v.handle({"id": 0, "op": "hello", "protocol": "tablecert-vendor/1"})
    assert set(RNG_OPS) <= set(hello["ops"]) and not set(RNG_OPS) & set(parse_hello(hello, 0).ops)
    assert not set(RNG_OPS) & set(KNOWN_OPS)
    a = v.handle({"id": 1, "op": "rng.dice", "config": {}, "cases": [{"count": 1000}, {"count": 0}, {"count": 1.5}]})
    assert len(a["results"][0]["dice"]) == 2000 and set(a["results"][0]["dice"]) == set("123456")
    assert [r["error"]["code"] for r in a["results"][1:]] == ["invalid_count", "invalid_count"]
    b = v.handle({"id": 2, "op": "rng.dice", "config": {}, "cases": [{"count": 1000}]})
    assert b["results"][0]["dice"] != a["results"][0]["dice"]
    s = v.handle({"id": 3, "op": "rng.shuffle", "config": {}, "cases": [{"count": 4}, {"count": 10_001}]})
    _, cards = check_decks({"decks": s["results"][0]["decks"]}, 4, "request 1")
    assert len({bytes(row) for row in cards}) == 4 and s["results"][1]["error"]["code"] == "invalid_count"
    bad = v.handle({"id": 4, "op": "rng.shuffle", "config": {"seed": 1}, "cases": [{"count": 4}]})
    assert bad["results"][0]["error"]["code"] == "invalid_config"


def test_arrows_point_one_way():
    # rng may use oracle, harness and reports; none of oracle, vectors, harness, reports uses rng.
    root = Path(__file__).parents[1]
    for part in ("oracle", "vectors", "harness", "reports"):
        for path in (root / part).rglob("*.py"):
            assert "tablecert.rng" not in path.read_text(encoding="utf-8"), path
    for path in (root / "rng").glob("*.py"):
        assert "tablecert.vectors" not in path.read_text(encoding="utf-8"), path
