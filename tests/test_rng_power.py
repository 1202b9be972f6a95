"""What the RNG battery would have caught (tablecert.rng.power, .deal, .detect): the stated biases
against their closed forms and against simulation, the deal's null law, the issue's small biases
caught at the default sizes, and --detect's sample sizes.

The simulations use fixed seeds, so each test gives the same answer every run; the rate at which
such a test would fail for another seed is stated in its docstring."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rng_generators import decks_joker_first_seven, dice_face_relative, dice_sticky, fair_decks, fair_dice
from tablecert.rng import DECK_TESTS, DEFAULT_DECKS, DEFAULT_ROLLS, DICE_TESTS, deal, decks, detect, dice
from tablecert.rng.api import evaluate
from tablecert.rng.plan import ALPHA
from tablecert.rng.power import POWER, percent

LEVEL = ALPHA / (DICE_TESTS + DECK_TESTS)


def _test(results, test_id):
    (found,) = [r for r in results if r.id == test_id]
    return found


def test_the_family_has_the_sizes_detect_assumes():
    results = evaluate(fair_dice(np.random.default_rng(1), 20_000), fair_decks(np.random.default_rng(2), 1_000), 3)
    assert sum(r.group == "dice" for r in results) == DICE_TESTS
    assert sum(r.group == "decks" for r in results) == DECK_TESTS
    for r in results:      # every test states its power, in words
        assert r.power["power"] == POWER and r.power["level"] == pytest.approx(LEVEL, rel=1e-5), r.id
        assert r.power["words"].endswith("would have been caught") or "(this test is aimed" in r.power["words"], r.id


def test_a_proportion_and_a_chi_square_statement_match_their_closed_forms():
    n = 1_000_000
    face = dice.face_alternative(n, "A").detectable(LEVEL)
    # z-shift delta * sqrt(n / 5) against z(level / 2) + z(0.99) (the variance change is second order)
    assert face == pytest.approx((stats.norm.isf(LEVEL / 2) + stats.norm.isf(1 - POWER)) / np.sqrt(n / 5), rel=0.02)
    r = _test(dice.face_tests(fair_dice(np.random.default_rng(4), n)), "dice.faces_a")
    delta = r.alternative.detectable(LEVEL)
    lam = n * delta ** 2 / 5                 # one face (1 + delta)/6, five equally less: n delta^2 / 5
    assert stats.ncx2.sf(stats.chi2.isf(LEVEL, 5), 5, lam) == pytest.approx(POWER, abs=1e-4)
    assert percent(0.0031) == "0.31%" and percent(0.26) == "26%"


@pytest.mark.parametrize("test_id, make, tests", [
    ("dice.face_a6", lambda rng, d: dice_face_relative(rng, 200_000, d), dice.face_tests),
    ("dice.repeats", lambda rng, d: dice_sticky(rng, 200_000, d), dice.repeat_tests),
    ("decks.joker_seat_1", lambda rng, d: decks_joker_first_seven(rng, 5_000, d),
     lambda x: deal.deal_tests(decks.positions(x))),
])
def test_the_stated_bias_is_caught_99_times_in_100(test_id, make, tests):
    """300 samples with exactly the stated bias: about 3 are missed if the statement is right; the
    test allows 10 (for a correct statement, P(more than 10 misses) = 3e-4; a power of 95%
    instead of 99% would miss 15 on average)."""
    fair = make(np.random.default_rng(0), 0.0)
    bias = _test(tests(fair), test_id).alternative.detectable(LEVEL)
    misses = sum(_test(tests(make(np.random.default_rng([41, seed]), bias)), test_id).p_value >= LEVEL
                 for seed in range(300))
    assert misses <= 10


def test_card_by_seat_statistic_is_scaled_to_its_chi_square():
    """300 batteries of 400 decks: the scaled statistic averages its df 364 (4 standard errors:
    fails for a correct law once in 16,000 seeds)."""
    rng = np.random.default_rng(14)
    values = [_test(deal.deal_tests(decks.positions(fair_decks(rng, 400))), "decks.card_seat").statistic
              for _ in range(300)]
    assert abs(np.mean(values) - 364) < 4 * np.sqrt(2 * 364 / 300)


def test_the_issues_small_biases_are_caught_at_the_default_sizes():
    """A six of die A 0.5% more likely and the joker moved into the first seven cards in 1% of the
    decks, one seed each at the default sizes (power above 99.9% for both: bench_rng's ``power``)."""
    faces = dice_face_relative(np.random.default_rng(8), DEFAULT_ROLLS)
    assert _test(dice.face_tests(faces), "dice.face_a6").p_value < LEVEL
    shuffled = decks_joker_first_seven(np.random.default_rng(9), DEFAULT_DECKS)
    assert _test(deal.deal_tests(decks.positions(shuffled)), "decks.joker_seat_1").p_value < LEVEL


def test_detect_computes_the_sample_whose_report_states_that_bias():
    n = detect.sample_needed("face", 0.005, LEVEL)
    assert 7_000_000 < n < 8_000_000 and n <= DEFAULT_ROLLS
    assert dice.face_alternative(n, "A").detectable(LEVEL) <= 0.005 < dice.face_alternative(n - 1_000, "A").detectable(LEVEL)
    rolls, decks_, lines = detect.sizes_for(["joker=1%"], 0, None)      # decks only: m = 33
    assert rolls == 0 and decks_ == detect.sample_needed("joker", 0.01, ALPHA / DECK_TESTS) and decks_ <= DEFAULT_DECKS
    assert lines == [f"--detect joker=1%: {decks_:,} decks catch it with 99% power (level {ALPHA / DECK_TESTS:.3g})"]


@pytest.mark.parametrize("text, message", [
    ("face", "give KIND=SIZE"), ("colour=1%", "KIND one of face"), ("face=abc", "'abc' is not a size"),
    ("face=0%", "above 0 and below 100%"), ("face=1e-9", "more than 10,000,000,000 rolls"),
])
def test_detect_refuses_what_it_cannot_size(text, message):
    with pytest.raises(ValueError, match=message):
        detect.sizes_for([text], None, None)
