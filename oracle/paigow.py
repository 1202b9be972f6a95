"""The Imperial pai gow bonus wager: the three protocol ops ``paigow.player_bonus``,
``paigow.banker_bonus`` and ``paigow.settle``.

Hand labels come from :mod:`tablecert.oracle.hands` (the readable reference evaluator); the pay
tables and the cap's legal minimum come from ``rules/paigow.toml``. Settlement follows
N.J.A.C. 13:69F-11.19(c) and 11.20 with the readings INT-ONE-WAGER, INT-CAP-AGGREGATE and
INT-BANK-SEAT of the interpretation register. All amounts are integers in minor units.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from tablecert.oracle.cards import card_code, parse_hand
from tablecert.oracle.errors import CaseError, ConfigError
from tablecert.oracle.hands import banker_label, player_label
from tablecert.oracle.register import load_data


@dataclass(frozen=True)
class PayTables:
    """Payout odds ("N to 1") per label; labels absent from a table pay nothing."""

    player_bonus: dict[str, int]
    banker_bonus: dict[str, int]
    cap_minimum: int

    @property
    def top_round_win_multiple(self) -> int:
        """The most one seat can win per unit wagered in one round: top player plus top banker bonus."""
        return max(self.player_bonus.values()) + max(self.banker_bonus.values())


@cache
def pay_tables() -> PayTables:
    raw = load_data("rules/paigow.toml")
    return PayTables(
        player_bonus=dict(raw["player_bonus"]["odds"]),
        banker_bonus=dict(raw["banker_bonus"]["odds"]),
        cap_minimum=int(raw["cap"]["minimum_minor_units"]),
    )


def is_int(value: object) -> bool:
    """A JSON integer: ``int`` but not ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def parse_paigow_config(config: object) -> int:
    """The payout cap of a pai gow request's config; a malformed config raises ConfigError."""
    if not isinstance(config, dict):
        raise ConfigError("config", "must be an object holding 'cap'")
    if "cap" not in config:
        raise ConfigError("cap", "missing")
    cap = config["cap"]
    if not is_int(cap) or cap < 0:
        raise ConfigError("cap", f"must be a non-negative integer of minor units, got {cap!r}")
    extra = sorted(set(config) - {"cap"})
    if extra:
        raise ConfigError(extra[0], "unknown field")
    return cap


def _cards_of(case: object) -> object:
    if not isinstance(case, dict):
        raise CaseError("invalid_request", "case must be an object")
    if "cards" not in case:
        raise CaseError("invalid_request", "missing field 'cards'")
    return case["cards"]


def player_bonus(cap: int, case: object) -> dict[str, Any]:
    """``paigow.player_bonus``: the player hand bonus label of seven cards (11.19(c)1)."""
    return {"hand": player_label(parse_hand(_cards_of(case)))}


def banker_bonus(cap: int, case: object) -> dict[str, Any]:
    """``paigow.banker_bonus``: the banker hand bonus label of seven cards (11.19(c)2)."""
    return {"hand": banker_label(parse_hand(_cards_of(case)))}


_ROUND_FIELDS = ("dealer", "bank_seat", "seats")
_SEAT_FIELDS = ("seat", "wager", "cards")


def _check_round_shape(case: object) -> list[dict[str, Any]]:
    """invalid_request checks: the case and every seat are objects holding every field."""
    if not isinstance(case, dict):
        raise CaseError("invalid_request", "case must be an object")
    for name in _ROUND_FIELDS:
        if name not in case:
            raise CaseError("invalid_request", f"missing field '{name}'")
    seats = case["seats"]
    if not isinstance(seats, list):
        raise CaseError("invalid_request", "'seats' must be a list")
    for i, seat in enumerate(seats):
        if not isinstance(seat, dict):
            raise CaseError("invalid_request", f"seats[{i}] must be an object")
        for name in _SEAT_FIELDS:
            if name not in seat:
                raise CaseError("invalid_request", f"seats[{i}] missing field '{name}'")
    return seats


def _parse_hand_at(value: object, where: str) -> tuple[int, ...]:
    try:
        return parse_hand(value)
    except CaseError as err:
        raise CaseError(err.code, f"{where}: {err.message}") from None


def settle(cap: int, case: object) -> dict[str, Any]:
    """``paigow.settle``: settle every seat's imperial bonus wager for one round.

    Checks in the protocol's order: ``invalid_request`` (shape), ``invalid_hand`` (each hand),
    ``invalid_round`` (wagers, seat numbers, a card dealt twice, a seat twice, a bank seat with
    no hand). Each seat's player bonus is judged on its own cards; its banker bonus on the
    dealer's hand, or, when ``bank_seat`` is set, on the bank seat's hand (the bank's own on the
    dealer's). ``total_win`` is the sum of both wins limited to ``cap``; the wager is lost only
    when neither bonus pays, else it is handed back with the win (``wager_returned``,
    INT-BONUS-WAGER-RETURNED); a seat with wager 0 wins, loses and gets back nothing.
    """
    seats = _check_round_shape(case)
    assert isinstance(case, dict)
    dealer = _parse_hand_at(case["dealer"], "dealer")
    hands = [_parse_hand_at(seat["cards"], f"seats[{i}].cards") for i, seat in enumerate(seats)]

    seen_seats: set[int] = set()
    for i, seat in enumerate(seats):
        number, wager = seat["seat"], seat["wager"]
        if not is_int(number):
            raise CaseError("invalid_round", f"seats[{i}].seat must be an integer, got {number!r}")
        if not is_int(wager) or wager < 0:
            raise CaseError("invalid_round", f"seats[{i}].wager must be an integer of 0 or more, got {wager!r}")
        if number in seen_seats:
            raise CaseError("invalid_round", f"seat {number} listed twice")
        seen_seats.add(number)
    bank_seat = case["bank_seat"]
    if bank_seat is not None:
        if not is_int(bank_seat):
            raise CaseError("invalid_round", f"bank_seat must be an integer or null, got {bank_seat!r}")
        if bank_seat not in seen_seats:
            raise CaseError("invalid_round", f"bank seat {bank_seat} has no hand in 'seats'")
    dealt: dict[int, str] = {card: "dealer" for card in dealer}
    for i, hand in enumerate(hands):
        for card in hand:
            if card in dealt:
                raise CaseError("invalid_round", f"card {card_code(card)} dealt twice ({dealt[card]} and seats[{i}])")
            dealt[card] = f"seats[{i}]"

    tables = pay_tables()
    bank_hand = None
    if bank_seat is not None:
        bank_hand = next(hand for seat, hand in zip(seats, hands) if seat["seat"] == bank_seat)
    results = []
    for seat, hand in zip(seats, hands):
        wager = seat["wager"]
        p_label = player_label(hand)
        judged_on = dealer if bank_hand is None or seat["seat"] == bank_seat else bank_hand
        b_label = banker_label(judged_on)
        p_win = wager * tables.player_bonus.get(p_label, 0)
        b_win = wager * tables.banker_bonus.get(b_label, 0)
        pays = p_label in tables.player_bonus or b_label in tables.banker_bonus
        results.append(
            {
                "seat": seat["seat"],
                "player_bonus": p_label,
                "player_bonus_win": p_win,
                "banker_bonus": b_label,
                "banker_bonus_win": b_win,
                "total_win": min(cap, p_win + b_win),
                "wager_lost": wager > 0 and not pays,
                "wager_returned": wager if pays else 0,
            }
        )
    return {"seats": results}
