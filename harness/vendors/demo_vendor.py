"""A demonstration vendor that FAILS certification: what a lab sees when an implementation is wrong.

:class:`DemoVendor` is a plausible craps and pai gow implementation, "Demo Craps & Pai Gow", that
ships three realistic bugs. It is registered as the Python plugin ``demo`` (entry-point group
``tablecert.vendors``), so ``tablecert`` can certify it like any outside vendor and produce a
failing report. It is built on the reference vendor (through
:class:`~tablecert.harness.vendors.vendor_kit.PaigowVendor`): every answer is the oracle's except where
one of the bugs below changes it (nothing of the oracle is patched).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from tablecert.harness.vendors.vendor_kit import PaigowVendor, of_a_kind
from tablecert.oracle import craps
from tablecert.oracle.cards import ACE, JOKER, rank_of, suit_of
from tablecert.oracle.hands import PLAYER_CATEGORIES, PLAYER_LABELS, STRAIGHTS, player_category
from tablecert.oracle.vendor import OPS

WHEEL = frozenset({ACE, 0, 1, 2, 3})
"""A-2-3-4-5 as rank indices."""


def _straight(ranks: set[int], joker: bool) -> bool:
    """A straight as the demo sees it: the joker fills a gap of any straight but the wheel."""
    return any(not (s - ranks) or (joker and len(s - ranks) == 1 and s != WHEEL) for s in STRAIGHTS)


def _of_a_kind(cards: tuple[int, ...]) -> str:
    """The category the ranks alone make, the joker as an ace."""
    return of_a_kind(Counter(rank_of(c) if c != JOKER else ACE for c in cards))


def demo_player_label(cards: tuple[int, ...]) -> str:
    """The demo's player bonus label: the reference's, except that a straight or straight flush
    the joker completes only as the wheel (A-2-3-4-5) is not seen (bug 2)."""
    category = player_category(cards)
    real = [c for c in cards if c != JOKER]
    joker = len(real) < len(cards)
    if joker and category == "straight_flush":
        suit, _ = Counter(suit_of(c) for c in real).most_common(1)[0]
        if not _straight({rank_of(c) for c in real if suit_of(c) == suit}, joker):
            category = min(_of_a_kind(cards), "flush", key=PLAYER_CATEGORIES.index)
    elif joker and category == "straight" and not _straight({rank_of(c) for c in real}, joker):
        category = _of_a_kind(cards)
    return category if category in PLAYER_LABELS else "none"


class DemoVendor(PaigowVendor):
    """Demo Craps & Pai Gow 3.2.0: a vendor with three bugs, for the lab's eyes.

    1. Craps commission (``craps.place_odds``): a table configured with ``commission_rounding:
       down`` gets its commission rounded to the NEAREST unit (halves up) instead of down, so a
       commission of 2.5 cents is charged 3 (CommissionRounding; above five per cent on small
       excesses).
    2. Pai gow player bonus: the joker does not complete the A-2-3-4-5 wheel. A-3-4-5 + joker or
       A-2-3-4 + joker is not a straight (it falls to a pair of aces), suited A-2-3-5 + joker
       is only a flush (JokerStraight, JokerStraightFlush). Also in ``paigow.settle``.
    3. Pai gow settlement: the payout cap is applied to each bonus win separately instead of to
       their sum, so a seat whose player and banker bonus wins together exceed the cap is paid
       above it (CapAggregate).

    Everything else, validation and error codes included, is right.
    """

    name = "Demo Craps & Pai Gow"
    version = "3.2.0"
    build = "3.2.0+demo.20250611.a41c9e2"

    def hello(self) -> dict[str, Any]:
        return {"implementation": {"name": self.name, "version": self.version, "build": self.build},
                "ops": list(OPS)}

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if "error" not in result and op == "craps.place_odds" and config.commission_rounding == "down":  # bug 1
            nearest = replace(config, commission_rounding="nearest")
            return {"commission": craps.commission(nearest, case["bet"], case["flat"], case["point"], case["odds"])}
        return super().answer(op, config, case, result)

    def player_label(self, cards: tuple[int, ...]) -> str:  # bug 2 (player bonus and settlement)
        return demo_player_label(cards)

    def total_win(self, player_win: int, banker_win: int, cap: int) -> int:  # bug 3
        return min(cap, player_win) + min(cap, banker_win)
