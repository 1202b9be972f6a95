"""Exact craps house edges, against hand derivations and the published figures.

Published figures: Wizard of Odds (Michael Shackleford), craps pages, the table of the combined
house edge of the line bets with odds (pass 1.414%, don't pass 1.364%; with 1x odds 0.848% /
0.682%, 2x 0.606% / 0.455%, 3-4-5x 0.374% / 0.273%, 5x 0.326% / 0.227%, 10x 0.184% / 0.124%,
100x 0.021% / 0.014%). The same pass-line figures appear in other dealer references (e.g. the
casinodealerswebsite.com summary of bets: 1.41%, 0.848%, 0.606%, 0.374%). On the don't side the
published odds multiples limit the odds' *win* (a 3-4-5x don't is a 6x lay), as here.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablecert.oracle.craps_math import (
    ReturnFigure,
    craps_returns,
    format_percent,
    line_bet_return,
    returns_by_name,
)
from tablecert.oracle.profiles import list_profiles, load_profile
from tablecert.oracle.table_config import parse_table_config

P = {4: Fraction(3, 36), 5: Fraction(4, 36), 6: Fraction(5, 36), 8: Fraction(5, 36), 9: Fraction(4, 36), 10: Fraction(3, 36)}


def config_with(multiples, free=None, rate="0", bar=12):
    free = free or multiples
    return parse_table_config({
        "unit": 100,
        "free_odds": {str(p): free[p] for p in P},
        "max_odds": {str(p): multiples[p] for p in P},
        "commission_rate": rate,
        "commission_rounding": "down",
        "commission_unit": 1,
        "payout_rounding": "exact",
        "bar": bar,
    })


def flat(m):
    return {p: m for p in P}


def test_pass_line_by_hand():
    # P(win) = 8/36 (7, 11) + sum over points of P(point) x P(point before 7)
    #        = 8/36 + 2 x (3/36 x 3/9 + 4/36 x 4/10 + 5/36 x 5/11)
    #        = 8/36 + 2 x (1/36 + 2/45 + 25/396) = 244/495
    p_win = Fraction(8, 36) + 2 * (Fraction(3, 36) * Fraction(3, 9) + Fraction(4, 36) * Fraction(4, 10) + Fraction(5, 36) * Fraction(5, 11))
    assert p_win == Fraction(244, 495)
    edge = (1 - p_win) - p_win  # expected loss per unit: P(lose) - P(win)
    assert edge == Fraction(7, 495)
    figures = returns_by_name(config_with(flat("1")))
    assert figures["pass.flat"].value == Fraction(7, 495)
    assert figures["pass.flat"].percent == "1.414%"   # 7/495 = 1.41414...%
    assert figures["come.flat"].value == Fraction(7, 495)


def test_dont_pass_by_hand_bar_12_push_counted_as_a_bet():
    # Don't pass (bar 12): win 2, 3 (3/36); push 12 (1/36); lose 7, 11 (8/36);
    # with a point, win when 7 comes first: 2 x (3/36 x 6/9 + 4/36 x 6/10 + 5/36 x 6/11) = 2 x (1/18 + 1/15 + 5/66)
    p_win = Fraction(3, 36) + 2 * (Fraction(3, 36) * Fraction(6, 9) + Fraction(4, 36) * Fraction(6, 10) + Fraction(5, 36) * Fraction(6, 11))
    p_push = Fraction(1, 36)
    p_lose = 1 - p_win - p_push
    assert (p_win, p_lose) == (Fraction(949, 1980), Fraction(976, 1980))
    edge = p_lose - p_win  # per bet made: the push is a bet made and returned
    assert edge == Fraction(27, 1980) == Fraction(3, 220)
    figures = returns_by_name(config_with(flat("1")))
    assert figures["dont_pass.flat"].value == Fraction(3, 220)
    assert figures["dont_pass.flat"].percent == "1.364%"  # 3/220 = 1.36363...%
    assert "push counted as a bet made" in figures["dont_pass.flat"].note
    # per resolved bet (the push left out): 27/1980 / (35/36) = 27/1925 = 1.403%
    assert figures["dont_pass.flat.per_resolved"].value == Fraction(27, 1925)
    assert figures["dont_pass.flat.per_resolved"].percent == "1.403%"
    assert figures["dont_come.flat"].value == Fraction(3, 220)


def test_bar_2_gives_the_same_figures():
    # 2 and 12 are each rolled 1 way in 36: barring either leaves the same probabilities
    assert returns_by_name(config_with(flat("3"), bar=2))["dont_pass.max_odds.per_wagered"].value == \
        returns_by_name(config_with(flat("3"), bar=12))["dont_pass.max_odds.per_wagered"].value


@pytest.mark.parametrize(
    "profile_id, pass_pct, dont_pct, pass_exact, dont_exact",
    [
        # pass: 7/495 / (1 + 24/36 x m) for a multiple m on every point (a point is set 24 times in 36);
        # don't: 3/220 / (1 + expected lay), the lay to win m being 2m on 4/10, 1.5m on 5/9, 1.2m on 6/8:
        #   2 x (3/36 x 2m + 4/36 x 1.5m + 5/36 x 1.2m) = 2 x (6m + 6m + 6m)/36 = m, so 3/220 / (1 + m)
        ("odds-1x", "0.848%", "0.682%", Fraction(7, 495) / Fraction(5, 3), Fraction(3, 220) / 2),
        ("odds-2x", "0.606%", "0.455%", Fraction(7, 495) / Fraction(7, 3), Fraction(3, 220) / 3),
        # 3-4-5x: pass wagers 1 + 2 x (3/36 x 3 + 4/36 x 4 + 5/36 x 5) = 1 + 100/36 = 34/9
        #         don't lays 6x on every point: 1 + 24/36 x 6 = 5
        ("odds-3-4-5x", "0.374%", "0.273%", Fraction(7, 495) / Fraction(34, 9), Fraction(3, 220) / 5),
        ("odds-5x", "0.326%", "0.227%", Fraction(7, 495) / Fraction(13, 3), Fraction(3, 220) / 6),
        # 10x: pass 1 + 2/3 x 10 = 23/3; don't lays 20, 15, 12 -> 1 + (6 x 20 + 8 x 15 + 10 x 12)/36 = 11
        ("odds-10x", "0.184%", "0.124%", Fraction(7, 495) / Fraction(23, 3), Fraction(3, 220) / 11),
        ("odds-100x", "0.021%", "0.014%", Fraction(7, 495) / Fraction(203, 3), Fraction(3, 220) / 101),
        ("dont-win-flat", "0.848%", "0.682%", Fraction(7, 495) / Fraction(5, 3), Fraction(3, 220) / 2),
    ],
)
def test_published_edges_with_odds(profile_id, pass_pct, dont_pct, pass_exact, dont_exact):
    figures = returns_by_name(load_profile(profile_id))
    for bet in ("pass", "come"):
        f = figures[f"{bet}.max_odds.per_wagered"]
        assert (f.value, f.percent) == (pass_exact, pass_pct)
        # the odds are fair: per unit of flat the loss is the flat's alone
        assert figures[f"{bet}.max_odds.per_flat"].value == Fraction(7, 495)
    for bet in ("dont_pass", "dont_come"):
        f = figures[f"{bet}.max_odds.per_wagered"]
        assert (f.value, f.percent) == (dont_exact, dont_pct)
        assert figures[f"{bet}.max_odds.per_flat"].value == Fraction(3, 220)
    # no commission in these profiles: the with-commission figures are the same
    for bet in ("pass", "dont_pass", "come", "dont_come"):
        assert figures[f"{bet}.max_odds_commission.per_wagered"].value == figures[f"{bet}.max_odds.per_wagered"].value


def test_exact_values_quoted_in_the_brief():
    assert Fraction(7, 495) / Fraction(34, 9) == Fraction(7, 1870)    # 0.374%
    assert Fraction(3, 220) / 5 == Fraction(3, 1100)                  # 0.273%
    assert Fraction(7, 495) / Fraction(23, 3) == Fraction(7, 3795)    # 0.184%
    assert Fraction(3, 220) / 11 == Fraction(3, 2420)                 # 0.124%


def test_commission_profile():
    figures = returns_by_name(load_profile("odds-3-4-5x-commission-10x"))
    # Without commission it is a 10x table: pass 7/3795, don't 3/2420.
    assert figures["pass.max_odds.per_wagered"].value == Fraction(7, 3795)
    assert figures["dont_pass.max_odds.per_wagered"].value == Fraction(3, 2420)
    # Commission at the max: 5% of (10 - free) x flat, i.e. of 7, 6, 5 on 4/10, 5/9, 6/8 (pass side:
    # the excess; don't side: what the excess lay could win, the same multiple).
    # Expected: 0.05 x 2 x (3/36 x 7 + 4/36 x 6 + 5/36 x 5) = 0.05 x 140/36 = 7/36 per flat.
    commission = Fraction(5, 100) * 2 * (Fraction(3, 36) * 7 + Fraction(4, 36) * 6 + Fraction(5, 36) * 5)
    assert commission == Fraction(7, 36)
    pass_loss = Fraction(7, 495) + commission                           # = 413/1980
    dont_loss = Fraction(3, 220) + commission                           # = 103/495
    assert figures["pass.max_odds_commission.per_flat"].value == pass_loss == Fraction(413, 1980)
    assert figures["dont_pass.max_odds_commission.per_flat"].value == dont_loss == Fraction(103, 495)
    # per unit wagered: pass wagers 1 + 2/3 x 10 = 23/3; don't lays 20, 15, 12 -> 11 (commission is a cost, not a wager)
    assert figures["pass.max_odds_commission.per_wagered"].value == pass_loss / Fraction(23, 3)
    assert figures["dont_pass.max_odds_commission.per_wagered"].value == dont_loss / 11
    assert figures["pass.max_odds_commission.per_wagered"].percent == "2.721%"   # 413/15180 = 2.7207%
    assert figures["dont_pass.max_odds_commission.per_wagered"].percent == "1.892%"  # 103/5445 = 1.8916%


def test_figure_list_shape():
    figures = craps_returns(load_profile("odds-3-4-5x"))
    assert all(isinstance(f, ReturnFigure) and type(f.value) is Fraction and f.percent.endswith("%") and f.note for f in figures)
    names = [f.name for f in figures]
    assert len(names) == len(set(names))
    for bet in ("pass", "dont_pass", "come", "dont_come"):
        for suffix in ("flat", "max_odds.per_wagered", "max_odds.per_flat", "max_odds_commission.per_wagered",
                       "max_odds_commission.per_flat"):
            assert f"{bet}.{suffix}" in names
    # a bare TableConfig works too
    assert craps_returns(load_profile("odds-3-4-5x").table_config) == figures


@pytest.mark.parametrize("profile_id", list_profiles())
def test_every_profile_has_figures_and_fair_odds(profile_id):
    profile = load_profile(profile_id)
    config = profile.table_config
    for bet in ("pass", "dont_pass", "come", "dont_come"):
        alone = line_bet_return(config, bet, odds=False, commission=False)
        with_odds = line_bet_return(config, bet, odds=True, commission=False)
        # true odds add nothing to the expected loss (checks the ratios in rules/craps.toml are fair)
        assert with_odds.expected_loss == alone.expected_loss
        assert with_odds.expected_wagered >= alone.expected_wagered == 1


@pytest.mark.parametrize(
    "value, places, text",
    [
        (Fraction(7, 495), 3, "1.414%"),
        (Fraction(3, 220), 3, "1.364%"),
        (Fraction(1, 800), 2, "0.13%"),     # 0.125% -> half away from zero
        (Fraction(-1, 800), 2, "-0.13%"),
        (Fraction(1, 800), 3, "0.125%"),
        (Fraction(0), 3, "0.000%"),
        (Fraction(-1, 10**9), 3, "0.000%"),  # rounds to zero: no "-0.000%"
        (Fraction(1), 0, "100%"),
        (Fraction(2, 3), 3, "66.667%"),
        (Fraction(1, 3), 1, "33.3%"),
        (Fraction(123456, 100), 2, "123456.00%"),
    ],
)
def test_format_percent(value, places, text):
    assert format_percent(value, places) == text


@given(st.fractions(min_value=-10, max_value=10), st.integers(0, 6))
def test_format_percent_is_exact(value, places):
    text = format_percent(value, places)
    assert text.endswith("%")
    shown = Fraction(text[:-1])   # Fraction parses the decimal string exactly
    assert abs(shown - value * 100) <= Fraction(1, 2 * 10**places)
