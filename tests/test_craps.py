"""The craps oracle: craps.odds_limits, craps.place_odds, craps.settle (tablecert-vendor/1).

Every expected value below is worked out by hand from the rules (regulation paragraphs craps.sw.1-7
and the vendor protocol), with the arithmetic in a comment; none is copied from the code's output.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tablecert.oracle import craps
from tablecert.oracle.errors import CaseError
from tablecert.oracle.protocol import v1_result, v2_case
from tablecert.oracle.table_config import parse_table_config
from tables import raw_config

POINTS = (4, 5, 6, 8, 9, 10)
BETS = ("pass", "dont_pass", "come", "dont_come")
PASS_SIDE = ("pass", "come")
DONT_SIDE = ("dont_pass", "dont_come")
# The regulation's payout odds, written out here independently of rules/craps.toml.
PASS_RATIO = {4: Fraction(2, 1), 10: Fraction(2, 1), 5: Fraction(3, 2), 9: Fraction(3, 2), 6: Fraction(6, 5), 8: Fraction(6, 5)}
DONT_RATIO = {4: Fraction(1, 2), 10: Fraction(1, 2), 5: Fraction(2, 3), 9: Fraction(2, 3), 6: Fraction(5, 6), 8: Fraction(5, 6)}




def cfg(**over):
    return parse_table_config(raw_config(**over))


CONFIG = cfg()


def settle(config, case):
    """craps.settle with the odds working, its result in the v1 shape these tests state (the stake
    dispositions of v2 are tested in test_stake_dispositions.py)."""
    return v1_result("craps.settle", craps.settle(config, v2_case("craps.settle", case)))


def code_of(op, config, case):
    with pytest.raises(CaseError) as info:
        op(config, case)
    return info.value.code


def dice_for(total):
    """One roll of two dice showing ``total``."""
    a = max(1, total - 6)
    return [a, total - a]


# ------------------------------------------------------------------------------------------------
# craps.odds_limits


@pytest.mark.parametrize(
    "bet, flat, point, free, top",
    [
        # pass/come: free = multiple x flat, max = 10 x flat (craps.sw.1, sw.3)
        ("pass", 1000, 6, 5000, 10000),   # 5 x 1000 = 5000; 10 x 1000 = 10000
        ("pass", 1000, 4, 3000, 10000),   # 3 x 1000
        ("come", 500, 5, 2000, 5000),     # 4 x 500 = 2000; 10 x 500 = 5000
        ("come", 700, 9, 2800, 7000),     # 4 x 700
        # don't side: the limit is on the odds' win (INT-DONT-LIMIT-ON-WIN)
        ("dont_pass", 1000, 4, 6000, 20000),  # win <= 3 x 1000 = 3000 at 1:2 -> lay 6000; win <= 10000 -> lay 20000
        ("dont_pass", 1000, 5, 6000, 15000),  # win <= 4000 at 2:3 -> lay 4000 x 3/2 = 6000; 10000 x 3/2 = 15000
        ("dont_come", 1000, 6, 6000, 12000),  # win <= 5000 at 5:6 -> lay 5000 x 6/5 = 6000; 10000 x 6/5 = 12000
        ("dont_come", 1000, 10, 6000, 20000),
        # flooring to the unit of 100
        ("dont_pass", 100, 5, 600, 1500),    # win <= 400 -> lay <= 600; win <= 1000 -> lay <= 1500
        ("dont_pass", 300, 9, 1800, 4500),   # win <= 1200 -> lay 1800; win <= 3000 -> lay 4500
        ("dont_pass", 300, 8, 1800, 3600),   # win <= 1500 -> lay 1800; win <= 3000 -> 3600
    ],
)
def test_odds_limits_known(bet, flat, point, free, top):
    assert craps.odds_limits(CONFIG, {"bet": bet, "flat": flat, "point": point}) == {"free_odds": free, "max_odds": top}


def test_odds_limits_floor_to_unit():
    one_x = cfg(free_odds={p: "1" for p in map(str, POINTS)}, max_odds={p: "2.5" for p in map(str, POINTS)})
    # don't come on 5, flat 100, free 1x: lay L with L x 2/3 <= 100 -> L <= 150 -> floored to 100.
    # max 2.5x: L x 2/3 <= 250 -> L <= 375 -> 300.
    assert craps.odds_limits(one_x, {"bet": "dont_come", "flat": 100, "point": 5}) == {"free_odds": 100, "max_odds": 300}
    # pass on 6, flat 300: free 1 x 300 = 300; max 2.5 x 300 = 750 -> 700.
    assert craps.odds_limits(one_x, {"bet": "pass", "flat": 300, "point": 6}) == {"free_odds": 300, "max_odds": 700}
    # don't pass on 6, flat 100: L x 5/6 <= 100 -> L <= 120 -> 100; L x 5/6 <= 250 -> L <= 300 -> 300.
    assert craps.odds_limits(one_x, {"bet": "dont_pass", "flat": 100, "point": 6}) == {"free_odds": 100, "max_odds": 300}


def test_odds_limits_ignores_fields_it_does_not_have():
    case = {"bet": "pass", "flat": 1000, "point": 6, "odds": "garbage", "dice": 17, "extra": None}
    assert craps.odds_limits(CONFIG, case) == {"free_odds": 5000, "max_odds": 10000}


# ------------------------------------------------------------------------------------------------
# craps.place_odds


@pytest.mark.parametrize(
    "bet, flat, point, odds, commission",
    [
        ("pass", 1000, 6, 5000, 0),       # at the free limit 5 x 1000: no commission (craps.sw.7)
        ("pass", 1000, 6, 100, 0),
        ("pass", 1000, 6, 6000, 50),      # excess 6000 - 5000 = 1000; 5% = 50 (craps.sw.5)
        ("pass", 1000, 6, 10000, 250),    # excess 5000; 5% = 250
        ("come", 1000, 4, 10000, 350),    # free 3000; excess 7000; 5% = 350
        ("come", 300, 5, 1500, 15),       # free 4 x 300 = 1200; excess 300; 5% = 15
        ("pass", 300, 9, 1300, 5),        # free 1200; excess 100; 5% = 5
        ("dont_pass", 1000, 4, 6000, 0),  # the free lay
        ("dont_pass", 1000, 4, 8000, 50),  # excess lay 2000 could win 1000 at 1:2; 5% = 50 (craps.sw.6)
        ("dont_pass", 1000, 5, 9000, 100),  # excess 3000 wins 2000 at 2:3; 5% = 100
        ("dont_come", 1000, 6, 12000, 250),  # excess 6000 wins 5000 at 5:6; 5% = 250
        ("dont_come", 1000, 10, 20000, 350),  # excess 14000 wins 7000; 5% = 350
        ("dont_pass", 1000, 9, 6300, 10),  # excess 300 wins 200; 5% = 10
        ("dont_pass", 1000, 8, 6600, 25),  # excess 600 wins 500; 5% = 25
    ],
)
def test_place_odds_known(bet, flat, point, odds, commission):
    result = craps.place_odds(CONFIG, {"bet": bet, "flat": flat, "point": point, "odds": odds})
    assert result == {"commission": commission}
    assert type(result["commission"]) is int


@pytest.mark.parametrize(
    "rounding, expected",
    [
        # don't pass on 5, flat 1000, payout_rounding down so a lay of 6100 is accepted:
        # excess 6100 - 6000 = 100 could win 100 x 2/3 = 200/3; 5% of it = 10/3 = 3.333...
        ("down", 3),
        ("up", 4),
        ("nearest", 3),
    ],
)
def test_commission_rounding_thirds(rounding, expected):
    config = cfg(payout_rounding="down", commission_rounding=rounding)
    case = {"bet": "dont_pass", "flat": 1000, "point": 5, "odds": 6100}
    assert craps.place_odds(config, case) == {"commission": expected}


@pytest.mark.parametrize(
    "rounding, expected",
    [
        # halves: don't pass on 4, flat 1000: excess lay 100 (6100 - 6000) could win 50 at 1:2;
        # 5% of 50 = 2.5 -> down 2, up 3, nearest rounds halves up -> 3
        ("down", 2),
        ("up", 3),
        ("nearest", 3),
    ],
)
def test_commission_rounding_halves(rounding, expected):
    config = cfg(commission_rounding=rounding)
    assert craps.place_odds(config, {"bet": "dont_pass", "flat": 1000, "point": 4, "odds": 6100}) == {"commission": expected}


@pytest.mark.parametrize(
    "rounding, excess, expected",
    [
        # commission_unit 10, pass on 6, flat 1000 (free 5000):
        ("down", 500, 20),      # 5% of 500 = 25 -> 2.5 units of 10 -> 2 units = 20
        ("up", 500, 30),        # -> 3 units = 30
        ("nearest", 500, 30),   # half -> up -> 30
        ("nearest", 300, 20),   # 5% of 300 = 15 -> 1.5 units -> 2 units = 20
        ("nearest", 200, 10),   # 10 -> 1 unit exactly
        ("nearest", 100, 10),   # 5 -> 0.5 unit -> half up -> 10
        ("down", 100, 0),       # 5 -> 0.5 unit -> 0
        ("up", 700, 40),        # 35 -> 3.5 units -> 4 = 40
        ("nearest", 700, 40),
        ("down", 700, 30),
    ],
)
def test_commission_unit(rounding, excess, expected):
    config = cfg(commission_rounding=rounding, commission_unit=10)
    assert craps.place_odds(config, {"bet": "pass", "flat": 1000, "point": 6, "odds": 5000 + excess}) == {"commission": expected}


def test_commission_rate_not_five_percent():
    config = cfg(commission_rate="0.025", commission_rounding="nearest")
    # pass on 8, flat 1000, odds 5100: excess 100; 2.5% of 100 = 2.5 -> nearest (halves up) 3
    assert craps.place_odds(config, {"bet": "pass", "flat": 1000, "point": 8, "odds": 5100}) == {"commission": 3}
    config = cfg(commission_rate="0", commission_rounding="up")
    assert craps.place_odds(config, {"bet": "pass", "flat": 1000, "point": 8, "odds": 10000}) == {"commission": 0}


def test_free_odds_zero_commission_on_everything():
    config = cfg(free_odds={p: "0" for p in map(str, POINTS)})
    # free limit 0: the whole 1000 is excess; 5% = 50. Don't side: lay 600 on 6 wins 500; 5% = 25.
    assert craps.place_odds(config, {"bet": "pass", "flat": 1000, "point": 6, "odds": 1000}) == {"commission": 50}
    assert craps.place_odds(config, {"bet": "dont_come", "flat": 1000, "point": 6, "odds": 600}) == {"commission": 25}


def test_payout_rounding_exact_refuses_fractional_wins():
    # lay 100 on 5 would win 100 x 2/3 = 66.67 cents: not whole -> bad_increment under exact
    assert code_of(craps.place_odds, CONFIG, {"bet": "dont_pass", "flat": 1000, "point": 5, "odds": 100}) == "bad_increment"
    # lay 300 wins 200: fine (within free odds, no commission)
    assert craps.place_odds(CONFIG, {"bet": "dont_pass", "flat": 1000, "point": 5, "odds": 300}) == {"commission": 0}
    # lay 100 on 6 wins 83.33: refused; lay 600 wins 500: fine
    assert code_of(craps.place_odds, CONFIG, {"bet": "dont_pass", "flat": 1000, "point": 6, "odds": 100}) == "bad_increment"
    assert craps.place_odds(CONFIG, {"bet": "dont_pass", "flat": 1000, "point": 6, "odds": 600}) == {"commission": 0}
    # lay 100 on 4 wins 50: fine
    assert craps.place_odds(CONFIG, {"bet": "dont_pass", "flat": 1000, "point": 4, "odds": 100}) == {"commission": 0}
    # unit 1 cent: pass odds of 1 cent on 5 win 1.5 cents, on 6 win 1.2 cents: refused; on 4 wins 2: fine
    cents = cfg(unit=1)
    assert code_of(craps.place_odds, cents, {"bet": "pass", "flat": 100, "point": 5, "odds": 1}) == "bad_increment"
    assert code_of(craps.place_odds, cents, {"bet": "pass", "flat": 100, "point": 6, "odds": 1}) == "bad_increment"
    assert craps.place_odds(cents, {"bet": "pass", "flat": 100, "point": 4, "odds": 1}) == {"commission": 0}
    # ...the same under payout_rounding down are accepted
    down = cfg(payout_rounding="down")
    assert craps.place_odds(down, {"bet": "dont_pass", "flat": 1000, "point": 5, "odds": 100}) == {"commission": 0}


def test_max_limit_under_exact_may_itself_be_refused():
    # don't pass on 5, flat 100, max 10x: win <= 1000 -> lay <= 1500 (odds_limits says 1500);
    # 1500 x 2/3 = 1000 whole, accepted. Flat 200: lay <= 3000, wins 2000, accepted.
    assert craps.odds_limits(CONFIG, {"bet": "dont_pass", "flat": 100, "point": 5})["max_odds"] == 1500
    assert "commission" in craps.place_odds(CONFIG, {"bet": "dont_pass", "flat": 100, "point": 5, "odds": 1500})
    # 1x free and max on 6, flat 100: lay <= 120 -> 100; 100 x 5/6 = 83.33 is not whole: refused.
    one = cfg(free_odds={p: "1" for p in map(str, POINTS)}, max_odds={p: "1" for p in map(str, POINTS)}, commission_rate="0")
    assert craps.odds_limits(one, {"bet": "dont_pass", "flat": 100, "point": 6}) == {"free_odds": 100, "max_odds": 100}
    assert code_of(craps.place_odds, one, {"bet": "dont_pass", "flat": 100, "point": 6, "odds": 100}) == "bad_increment"


# ------------------------------------------------------------------------------------------------
# craps.settle: every come-out total, both bars


COME_OUT_PASS = {2: "lose", 3: "lose", 12: "lose", 7: "win", 11: "win", 4: "point", 5: "point", 6: "point",
                 8: "point", 9: "point", 10: "point"}


@pytest.mark.parametrize("bar", [12, 2])
@pytest.mark.parametrize("bet", BETS)
@pytest.mark.parametrize("total", range(2, 13))
def test_settle_come_out(bet, total, bar):
    config = cfg(bar=bar)
    result = settle(config, {"bet": bet, "flat": 500, "point": None, "odds": 0, "dice": dice_for(total)})
    if bet in PASS_SIDE:
        outcome = COME_OUT_PASS[total]
    elif total == bar:
        outcome = "push"                  # the barred number
    elif total in (2, 3, 12):
        outcome = "win"
    elif total in (7, 11):
        outcome = "lose"
    else:
        outcome = "point"
    flat_win = 500 if outcome == "win" else 0  # flat pays 1 to 1; the stake is not counted
    point = total if outcome == "point" else None
    assert result == {"outcome": outcome, "flat_win": flat_win, "odds_win": 0, "point": point}


def test_settle_come_out_examples_spelled_out():
    case = {"bet": "dont_pass", "flat": 500, "point": None, "odds": 0}
    assert settle(cfg(bar=12), {**case, "dice": [6, 6]})["outcome"] == "push"
    assert settle(cfg(bar=12), {**case, "dice": [1, 1]}) == {"outcome": "win", "flat_win": 500, "odds_win": 0, "point": None}
    assert settle(cfg(bar=2), {**case, "dice": [1, 1]})["outcome"] == "push"
    assert settle(cfg(bar=2), {**case, "dice": [6, 6]}) == {"outcome": "win", "flat_win": 500, "odds_win": 0, "point": None}
    assert settle(CONFIG, {**case, "bet": "come", "dice": [5, 6]}) == {"outcome": "win", "flat_win": 500, "odds_win": 0, "point": None}
    assert settle(CONFIG, {**case, "bet": "dont_come", "dice": [4, 5]}) == {"outcome": "point", "flat_win": 0, "odds_win": 0, "point": 9}


# The odds at the free limit with a flat of 1000 (3-4-5x) and their hand-computed wins.
FREE_ODDS_WIN = {
    # pass/come: odds = multiple x 1000, win = odds x ratio
    ("pass", 4): (3000, 6000),   # 3000 x 2/1
    ("pass", 5): (4000, 6000),   # 4000 x 3/2
    ("pass", 6): (5000, 6000),   # 5000 x 6/5
    ("pass", 8): (5000, 6000),
    ("pass", 9): (4000, 6000),
    ("pass", 10): (3000, 6000),
    # don't: lay 6000 on every point (win 3-4-5 x 1000)
    ("dont_pass", 4): (6000, 3000),  # 6000 x 1/2
    ("dont_pass", 5): (6000, 4000),  # 6000 x 2/3
    ("dont_pass", 6): (6000, 5000),  # 6000 x 5/6
    ("dont_pass", 8): (6000, 5000),
    ("dont_pass", 9): (6000, 4000),
    ("dont_pass", 10): (6000, 3000),
}


@pytest.mark.parametrize("bet", BETS)
@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("total", range(2, 13))
def test_settle_with_point(bet, point, total):
    side = "pass" if bet in PASS_SIDE else "dont_pass"
    odds, odds_win = FREE_ODDS_WIN[(side, point)]
    result = settle(CONFIG, {"bet": bet, "flat": 1000, "point": point, "odds": odds, "dice": dice_for(total)})
    if total != 7 and total != point:
        expected = {"outcome": "no_action", "flat_win": 0, "odds_win": 0, "point": None}
    elif (side == "pass") == (total == point):
        expected = {"outcome": "win", "flat_win": 1000, "odds_win": odds_win, "point": None}
    else:
        expected = {"outcome": "lose", "flat_win": 0, "odds_win": 0, "point": None}
    assert result == expected


@pytest.mark.parametrize(
    "bet, point, odds, dice, flat_win, odds_win",
    [
        ("pass", 6, 10000, [2, 4], 1000, 12000),     # 10x: 10000 x 6/5 = 12000
        ("come", 5, 700, [1, 4], 1000, 1050),        # 700 x 3/2 = 1050
        ("pass", 10, 100, [5, 5], 1000, 200),        # 100 x 2 = 200
        ("dont_pass", 4, 20000, [3, 4], 1000, 10000),  # lay 20000 x 1/2 = 10000
        ("dont_come", 9, 1500, [1, 6], 1000, 1000),  # 1500 x 2/3 = 1000
        ("dont_pass", 8, 1200, [6, 1], 1000, 1000),  # 1200 x 5/6 = 1000
        ("pass", 8, 0, [4, 4], 1000, 0),             # no odds: flat only
        ("dont_pass", 8, 0, [4, 3], 1000, 0),
    ],
)
def test_settle_wins_known(bet, point, odds, dice, flat_win, odds_win):
    result = settle(CONFIG, {"bet": bet, "flat": 1000, "point": point, "odds": odds, "dice": dice})
    assert result == {"outcome": "win", "flat_win": flat_win, "odds_win": odds_win, "point": None}


def test_settle_payout_rounding_down_floors_odds_win():
    down = cfg(payout_rounding="down")
    # lay 100 on 5 wins 100 x 2/3 = 66.67 -> floored to 66
    assert settle(down, {"bet": "dont_pass", "flat": 1000, "point": 5, "odds": 100, "dice": [3, 4]}) == \
        {"outcome": "win", "flat_win": 1000, "odds_win": 66, "point": None}
    # lay 700 on 6 wins 700 x 5/6 = 583.33 -> 583
    assert settle(down, {"bet": "dont_come", "flat": 1000, "point": 6, "odds": 700, "dice": [5, 2]})["odds_win"] == 583
    # unit 1: pass odds 3 on 5 win 4.5 -> 4; under exact the same case is bad_increment
    down_cents = cfg(payout_rounding="down", unit=1)
    assert settle(down_cents, {"bet": "pass", "flat": 10, "point": 5, "odds": 3, "dice": [2, 3]})["odds_win"] == 4
    assert code_of(settle, cfg(unit=1), {"bet": "pass", "flat": 10, "point": 5, "odds": 3, "dice": [2, 3]}) == "bad_increment"
    # whole wins are unchanged by down: lay 300 on 5 wins 200
    assert settle(down, {"bet": "dont_pass", "flat": 1000, "point": 5, "odds": 300, "dice": [3, 4]})["odds_win"] == 200


# ------------------------------------------------------------------------------------------------
# Rejections: every code of every op, and their order


ORDER = ["invalid_request", "invalid_bet", "invalid_point", "invalid_dice", "no_point", "not_positive",
         "bad_increment", "above_maximum"]

# Variants of each fault as field overrides (several per code, so that two faults can be put on
# different fields). Base cases are valid.
BASE = {
    "odds_limits": {"bet": "pass", "flat": 1000, "point": 6},
    "place_odds": {"bet": "pass", "flat": 1000, "point": 6, "odds": 6000},
    "settle": {"bet": "pass", "flat": 1000, "point": 6, "odds": 5000, "dice": [3, 4]},
}
FAULTS = {
    "odds_limits": {
        "invalid_request": [{"flat": "1000"}, {"flat": True}, {"flat": 1000.0}, {"bet": 1}, {"point": "6"},
                            {"point": True}, {"point": 6.0}, {"bet": None}],
        "invalid_bet": [{"bet": "field"}, {"bet": "Pass"}, {"bet": ""}],
        "invalid_point": [{"point": 7}, {"point": 0}, {"point": 11}, {"point": -4}],
        "no_point": [{"point": None}],
        "not_positive": [{"flat": 0}, {"flat": -100}],
        "bad_increment": [{"flat": 150}, {"flat": 1}],
    },
    "place_odds": {
        "invalid_request": [{"flat": "1000"}, {"odds": True}, {"odds": 6000.0}, {"bet": 1}, {"point": "6"},
                            {"flat": False}, {"odds": None}],
        "invalid_bet": [{"bet": "place"}, {"bet": "dont pass"}],
        "invalid_point": [{"point": 7}, {"point": 2}, {"point": 12}],
        "no_point": [{"point": None}],
        "not_positive": [{"flat": 0}, {"flat": -1000}, {"odds": 0}, {"odds": -100}],
        "bad_increment": [{"flat": 1050}, {"odds": 6050}, {"odds": 1}],
        "above_maximum": [{"odds": 10100}, {"odds": 20000}],
    },
    "settle": {
        "invalid_request": [{"flat": "1000"}, {"odds": True}, {"dice": "34"}, {"dice": None}, {"bet": 1},
                            {"point": "6"}, {"dice": (3, 4)}, {"flat": 10.5}],
        "invalid_bet": [{"bet": "field"}, {"bet": "DONT_PASS"}],
        "invalid_point": [{"point": 7}, {"point": 3}],
        "invalid_dice": [{"dice": [0, 3]}, {"dice": [3, 7]}, {"dice": [3]}, {"dice": [1, 2, 3]}, {"dice": []},
                         {"dice": [True, 3]}, {"dice": ["3", 4]}, {"dice": [3.0, 4]}, {"dice": [None, 1]}],
        "no_point": [{"point": None}],  # with the base odds of 5000 > 0
        "not_positive": [{"flat": 0}, {"flat": -500}, {"odds": -100}],
        "bad_increment": [{"flat": 1001}, {"odds": 5001}, {"odds": 50}],
        "above_maximum": [{"odds": 10100}, {"odds": 100000}],
    },
}
OPS = {"odds_limits": craps.odds_limits, "place_odds": craps.place_odds, "settle": settle}


@pytest.mark.parametrize("op_name", list(OPS))
def test_base_cases_are_valid(op_name):
    OPS[op_name](CONFIG, BASE[op_name])


@pytest.mark.parametrize(
    "op_name, code, fault",
    [(op, code, fault) for op, faults in FAULTS.items() for code, variants in faults.items() for fault in variants],
)
def test_every_code(op_name, code, fault):
    assert code_of(OPS[op_name], CONFIG, {**BASE[op_name], **fault}) == code


@pytest.mark.parametrize("op_name", list(OPS))
@pytest.mark.parametrize("case", [None, [], "case", 7, True, ["bet", "pass"]])
def test_case_not_an_object(op_name, case):
    assert code_of(OPS[op_name], CONFIG, case) == "invalid_request"


@pytest.mark.parametrize("op_name", list(OPS))
def test_every_missing_field(op_name):
    for name in BASE[op_name]:
        case = {k: v for k, v in BASE[op_name].items() if k != name}
        assert code_of(OPS[op_name], CONFIG, case) == "invalid_request", name


def _pairs(op_name):
    """Every pair of codes (earlier, later) of an op that can occur together in one case, as a
    case holding both faults on different fields."""
    faults = FAULTS[op_name]
    codes = [c for c in ORDER if c in faults]
    out = []
    for i, first in enumerate(codes):
        for second in codes[i + 1:]:
            for fa, fb in itertools.product(faults[first], faults[second]):
                if set(fa).isdisjoint(fb):
                    out.append((op_name, first, second, {**fa, **fb}))
                    break
    return out


# Two faults in one field's value: -150 is neither positive nor a multiple of the unit of 100.
SAME_FIELD_PAIRS = [
    ("odds_limits", "not_positive", "bad_increment", {"flat": -150}),
    ("place_odds", "not_positive", "bad_increment", {"odds": -150}),
    ("settle", "not_positive", "bad_increment", {"odds": -150}),
]
ALL_PAIRS = [p for op in OPS for p in _pairs(op)] + SAME_FIELD_PAIRS


@pytest.mark.parametrize("op_name, first, second, fault", ALL_PAIRS)
def test_order_first_fault_wins(op_name, first, second, fault):
    assert code_of(OPS[op_name], CONFIG, {**BASE[op_name], **fault}) == first


def test_order_pairs_cover_what_can_co_occur():
    # Every ordered pair of an op's codes is tested above, except invalid_point with no_point:
    # both are about the point field (a point of 7 is not "no point"), so they cannot co-occur.
    found = {(op, a, b) for op, a, b, _ in ALL_PAIRS}
    for op, faults in FAULTS.items():
        codes = [c for c in ORDER if c in faults]
        for i, a in enumerate(codes):
            for b in codes[i + 1:]:
                if (a, b) != ("invalid_point", "no_point"):
                    assert (op, a, b) in found, (op, a, b)


def test_order_explicit_pairs():
    # no_point before above_maximum: odds far above any limit on a bet with no point
    assert code_of(craps.place_odds, CONFIG, {"bet": "pass", "flat": 1000, "point": None, "odds": 10**9}) == "no_point"
    assert code_of(settle, CONFIG, {"bet": "pass", "flat": 1000, "point": None, "odds": 10**9, "dice": [1, 1]}) == "no_point"
    # no_point before not_positive on place_odds: odds of 0 asked for with no point
    assert code_of(craps.place_odds, CONFIG, {"bet": "pass", "flat": 1000, "point": None, "odds": 0}) == "no_point"
    # invalid_dice before no_point
    assert code_of(settle, CONFIG, {"bet": "pass", "flat": 1000, "point": None, "odds": 500, "dice": [7, 7]}) == "invalid_dice"
    # not_positive before bad_increment on the same field: -150 is neither positive nor a unit multiple
    assert code_of(craps.place_odds, CONFIG, {"bet": "pass", "flat": -150, "point": 6, "odds": 100}) == "not_positive"
    # bad_increment (whole-payout) before above_maximum: lay 100001 on 5
    assert code_of(craps.place_odds, CONFIG, {"bet": "dont_pass", "flat": 1000, "point": 5, "odds": 100100}) == "bad_increment"
    # invalid_request beats everything: a boolean flat with every other field wrong too
    assert code_of(settle, CONFIG, {"bet": "x", "flat": True, "point": 7, "odds": -1, "dice": [9]}) == "invalid_request"


def test_settle_odds_zero_and_negative():
    # odds 0 with no point: fine (come-out); odds 0 with a point: fine
    assert settle(CONFIG, {"bet": "pass", "flat": 1000, "point": None, "odds": 0, "dice": [3, 4]})["outcome"] == "win"
    assert settle(CONFIG, {"bet": "pass", "flat": 1000, "point": 6, "odds": 0, "dice": [3, 4]})["outcome"] == "lose"
    # negative odds: not_positive, with or without a point (only odds above 0 need a point)
    assert code_of(settle, CONFIG, {"bet": "pass", "flat": 1000, "point": None, "odds": -100, "dice": [3, 4]}) == "not_positive"
    assert code_of(settle, CONFIG, {"bet": "pass", "flat": 1000, "point": 6, "odds": -100, "dice": [3, 4]}) == "not_positive"
    # flat not a unit multiple with odds 0: bad_increment
    assert code_of(settle, CONFIG, {"bet": "pass", "flat": 1050, "point": None, "odds": 0, "dice": [3, 4]}) == "bad_increment"


def test_errors_carry_messages():
    with pytest.raises(CaseError) as info:
        craps.place_odds(CONFIG, {"bet": "pass", "flat": 1000, "point": 6, "odds": 10100})
    assert info.value.code == "above_maximum" and "10000" in info.value.message


# ------------------------------------------------------------------------------------------------
# Properties


@st.composite
def configs(draw, commission_rounding=None, max_rate_bp=500):
    unit = draw(st.sampled_from([1, 5, 25, 100, 500]))
    free = {str(p): draw(st.sampled_from(["0", "1", "1.5", "2", "3", "5", "10"])) for p in POINTS}
    extra = {str(p): draw(st.sampled_from(["0", "0.5", "1", "2", "7"])) for p in POINTS}
    top = {p: _dec(Fraction(free[p]) + Fraction(extra[p])) for p in free}
    rate_bp = draw(st.integers(0, max_rate_bp))  # basis points
    return parse_table_config({
        "unit": unit,
        "free_odds": free,
        "max_odds": top,
        "commission_rate": _dec(Fraction(rate_bp, 10000)),
        "commission_rounding": commission_rounding or draw(st.sampled_from(["down", "nearest", "up"])),
        "commission_unit": draw(st.sampled_from([1, 2, 5, 10, 25])),
        "payout_rounding": draw(st.sampled_from(["exact", "down"])),
        "bar": draw(st.sampled_from([12, 2])),
    })


def _dec(x: Fraction) -> str:
    """A Fraction with a denominator dividing 10**4 as a plain decimal string (test helper)."""
    scaled = x * 10000
    assert scaled.denominator == 1
    whole, frac = divmod(scaled.numerator, 10000)
    return f"{whole}.{frac:04d}".rstrip("0").rstrip(".") if frac else str(whole)


@st.composite
def odds_cases(draw, config_strategy=None):
    """A valid place_odds case: flat, point and an odds amount the config accepts."""
    config = draw(config_strategy if config_strategy is not None else configs())
    bet = draw(st.sampled_from(BETS))
    point = draw(st.sampled_from(POINTS))
    flat = config.unit * draw(st.integers(1, 60))
    top = craps.odds_limits(config, {"bet": bet, "flat": flat, "point": point})["max_odds"]
    assume(top >= config.unit)
    odds = config.unit * draw(st.integers(1, top // config.unit))
    ratio = PASS_RATIO[point] if bet in PASS_SIDE else DONT_RATIO[point]
    if config.payout_rounding == "exact":
        assume((odds * ratio).denominator == 1)
    return config, {"bet": bet, "flat": flat, "point": point, "odds": odds}, ratio


@settings(max_examples=300, deadline=None)
@given(odds_cases(configs(commission_rounding="down")))
def test_down_commission_never_above_five_percent(data):
    config, case, ratio = data
    free = craps.odds_limits(config, case)["free_odds"]
    excess = max(case["odds"] - free, 0)
    base = Fraction(excess) if case["bet"] in PASS_SIDE else excess * ratio
    fee = craps.place_odds(config, case)["commission"]
    assert 0 <= fee <= Fraction(5, 100) * base
    assert fee <= config.commission_rate * base


@settings(max_examples=300, deadline=None)
@given(odds_cases(), st.sampled_from(range(2, 13)))
def test_settle_pays_only_on_a_win_and_never_on_no_action(data, total):
    config, case, ratio = data
    result = settle(config, {**case, "dice": dice_for(total)})
    assert set(result) == {"outcome", "flat_win", "odds_win", "point"}
    assert all(type(result[k]) is int for k in ("flat_win", "odds_win"))
    if result["outcome"] != "win":
        assert result["flat_win"] == 0 and result["odds_win"] == 0
    if total not in (7, case["point"]):
        assert result == {"outcome": "no_action", "flat_win": 0, "odds_win": 0, "point": None}
    else:
        exact = case["odds"] * ratio
        if result["outcome"] == "win":
            assert result["flat_win"] == case["flat"]
            assert result["odds_win"] == exact.numerator // exact.denominator
            assert result["odds_win"] <= exact  # never above the true odds


@settings(max_examples=300, deadline=None)
@given(odds_cases())
def test_results_are_ints_and_roundings_are_ordered(data):
    config, case, ratio = data
    limits = craps.odds_limits(config, case)
    assert all(type(v) is int for v in limits.values())
    assert limits["free_odds"] <= limits["max_odds"]
    assert limits["free_odds"] % config.unit == 0 and limits["max_odds"] % config.unit == 0
    fees = {}
    for mode in ("down", "nearest", "up"):
        c = parse_table_config({**config.to_json(), "commission_rounding": mode})
        fee = craps.place_odds(c, case)["commission"]
        assert type(fee) is int and fee % config.commission_unit == 0
        fees[mode] = fee
    assert fees["down"] <= fees["nearest"] <= fees["up"] <= fees["down"] + config.commission_unit


@settings(max_examples=300, deadline=None)
@given(configs(), st.sampled_from(BETS), st.sampled_from(POINTS), st.integers(1, 200))
def test_limits_are_the_largest_allowed(config, bet, point, units):
    flat = units * config.unit
    limits = craps.odds_limits(config, {"bet": bet, "flat": flat, "point": point})
    ratio = PASS_RATIO[point] if bet in PASS_SIDE else DONT_RATIO[point]
    for key, multiple in (("free_odds", config.free_odds[point]), ("max_odds", config.max_odds[point])):
        limit = limits[key]
        # what the multiple caps: the wager itself (pass side) or its win (don't side)
        capped = (lambda amount: amount) if bet in PASS_SIDE else (lambda amount: amount * ratio)
        assert capped(limit) <= multiple * flat
        assert capped(limit + config.unit) > multiple * flat


@settings(max_examples=200, deadline=None)
@given(configs(), st.sampled_from(BETS), st.integers(1, 30), st.sampled_from(range(2, 13)))
def test_come_out_never_pays_odds(config, bet, units, total):
    result = settle(config, {"bet": bet, "flat": units * config.unit, "point": None, "odds": 0, "dice": dice_for(total)})
    assert result["odds_win"] == 0
    assert (result["point"] is not None) == (result["outcome"] == "point")
