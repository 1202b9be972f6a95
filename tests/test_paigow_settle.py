"""Known answers for ``paigow.settle`` and the pai gow config, worked out by hand from
N.J.A.C. 13:69F-11.19/11.20 (pay tables: royal flush 200 to 1, nine high 100 to 1, jack high 5 to 1,
three of a kind 2 to 1) and the protocol's error order."""

from __future__ import annotations

import pytest

from tablecert.oracle import paigow
from tablecert.oracle.errors import CaseError, ConfigError

ROYAL = ["As", "Ks", "Qs", "Js", "Ts", "2c", "3d"]          # royal flush: 200 to 1
NINE_HIGH = ["9c", "8d", "7h", "6s", "4c", "3h", "2d"]      # no pair/straight/flush, 9 high: 100 to 1
JACK_HIGH = ["Jc", "9d", "8h", "7s", "5c", "4h", "3s"]      # J high: 5 to 1
NOTHING = ["Ad", "Kc", "Qh", "8s", "6d", "5h", "2s"]        # ace high, no bonus for anyone
TRIPS = ["Kd", "Kh", "Ks", "9s", "7c", "5d", "2h"]           # three of a kind: 2 to 1


def seat(n: int, wager: int, cards: list[str]) -> dict:
    return {"seat": n, "wager": wager, "cards": cards}


def test_player_and_banker_bonus_add_up():
    out = paigow.settle(4_000_000, {"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat(1, 500, ROYAL)]})
    # 500 x 200 = 100,000 and 500 x 100 = 50,000; total 150,000 under a $40,000 cap
    assert out == {"seats": [{"seat": 1, "player_bonus": "royal_flush", "player_bonus_win": 100_000,
                              "banker_bonus": "nine_high", "banker_bonus_win": 50_000,
                              "total_win": 150_000, "wager_lost": False, "wager_returned": 500}]}


@pytest.mark.parametrize("cap, total", [(150_000, 150_000), (149_999, 149_999), (150_001, 150_000), (0, 0)])
def test_cap_limits_the_aggregate(cap, total):
    # INT-CAP-AGGREGATE: the cap limits the sum, and the uncapped parts are still reported
    (result,) = paigow.settle(cap, {"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat(1, 500, ROYAL)]})["seats"]
    assert (result["player_bonus_win"], result["banker_bonus_win"], result["total_win"]) == (100_000, 50_000, total)
    assert result["wager_lost"] is False


def test_one_wager_loses_only_if_neither_pays():
    out = paigow.settle(4_000_000, {"dealer": JACK_HIGH, "bank_seat": None,
                                    "seats": [seat(3, 100, NOTHING), seat(4, 100, TRIPS)]})["seats"]
    # seat 3: no player bonus, but the dealer's jack high pays 5 to 1 -> wins 500, wager kept
    assert out[0] == {"seat": 3, "player_bonus": "none", "player_bonus_win": 0, "banker_bonus": "jack_high",
                      "banker_bonus_win": 500, "total_win": 500, "wager_lost": False, "wager_returned": 100}
    # seat 4: trips 2 to 1 = 200, plus jack high 500
    assert out[1]["total_win"] == 700


def test_wager_lost_when_neither_pays():
    (result,) = paigow.settle(4_000_000, {"dealer": ROYAL, "bank_seat": None, "seats": [seat(1, 100, NOTHING)]})["seats"]
    assert (result["player_bonus"], result["banker_bonus"], result["total_win"], result["wager_lost"]) == ("none", "none", 0, True)
    assert result["wager_returned"] == 0          # the lost wager is taken


def test_zero_wager_wins_and_loses_nothing():
    (result,) = paigow.settle(4_000_000, {"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat(1, 0, ROYAL)]})["seats"]
    assert result["player_bonus"] == "royal_flush" and result["total_win"] == 0 and result["wager_lost"] is False
    assert result["wager_returned"] == 0          # nothing was wagered, nothing comes back


def test_player_banked_round():
    # INT-BANK-SEAT: seat 5 banks; seat 6's banker bonus is judged on seat 5's hand (jack high, 5 to 1),
    # seat 5's own on the dealer's hand (nine high, 100 to 1).
    out = paigow.settle(4_000_000, {"dealer": NINE_HIGH, "bank_seat": 5,
                                    "seats": [seat(5, 100, JACK_HIGH), seat(6, 100, ["Ac", "Kd", "Qs", "8c", "6h", "5s", "2h"])]})["seats"]
    assert [s["seat"] for s in out] == [5, 6]
    assert (out[0]["banker_bonus"], out[0]["banker_bonus_win"]) == ("nine_high", 10_000)
    assert (out[1]["banker_bonus"], out[1]["banker_bonus_win"], out[1]["wager_lost"]) == ("jack_high", 500, False)


@pytest.mark.parametrize(
    "case, code",
    [
        ("not a case", "invalid_request"),
        ({"bank_seat": None, "seats": []}, "invalid_request"),
        ({"dealer": NINE_HIGH, "bank_seat": None}, "invalid_request"),
        ({"dealer": NINE_HIGH, "bank_seat": None, "seats": [{"seat": 1, "cards": ROYAL}]}, "invalid_request"),
        ({"dealer": NINE_HIGH, "bank_seat": None, "seats": ["x"]}, "invalid_request"),
        # a missing field outranks a bad hand
        ({"dealer": ["As"], "seats": []}, "invalid_request"),
        ({"dealer": NINE_HIGH[:6], "bank_seat": None, "seats": []}, "invalid_hand"),
        ({"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat(1, 1, ["JK", "JK", "2c", "3c", "4c", "5c", "6c"])]}, "invalid_hand"),
        # a bad hand outranks a bad round
        ({"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat(1, -1, ROYAL[:6] + ["Zz"])]}, "invalid_hand"),
        ({"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat(1, -1, ROYAL)]}, "invalid_round"),
        ({"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat(1, True, ROYAL)]}, "invalid_round"),
        ({"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat(1, 2.5, ROYAL)]}, "invalid_round"),
        ({"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat("1", 5, ROYAL)]}, "invalid_round"),
        ({"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat(1, 5, ROYAL), seat(1, 5, TRIPS)]}, "invalid_round"),
        ({"dealer": NINE_HIGH, "bank_seat": None, "seats": [seat(1, 5, ROYAL), seat(2, 5, ROYAL)]}, "invalid_round"),
        ({"dealer": ROYAL, "bank_seat": None, "seats": [seat(1, 5, ROYAL)]}, "invalid_round"),
        ({"dealer": NINE_HIGH, "bank_seat": 2, "seats": [seat(1, 5, ROYAL)]}, "invalid_round"),
        ({"dealer": NINE_HIGH, "bank_seat": "1", "seats": [seat(1, 5, ROYAL)]}, "invalid_round"),
        # the one joker of the deck dealt to two hands is a card dealt twice
        ({"dealer": ["JK"] + NINE_HIGH[:6], "bank_seat": None, "seats": [seat(1, 5, ["JK"] + ROYAL[:6])]}, "invalid_round"),
    ],
)
def test_settle_rejections_in_protocol_order(case, code):
    with pytest.raises(CaseError) as err:
        paigow.settle(4_000_000, case)
    assert err.value.code == code


@pytest.mark.parametrize("config, field", [(None, "config"), ({}, "cap"), ({"cap": -1}, "cap"),
                                           ({"cap": "100"}, "cap"), ({"cap": True}, "cap"), ({"cap": 1.0}, "cap"),
                                           ({"cap": 5, "extra": 1}, "extra")])
def test_malformed_paigow_config(config, field):
    with pytest.raises(ConfigError) as err:
        paigow.parse_paigow_config(config)
    assert err.value.field == field
