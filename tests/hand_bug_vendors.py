"""Vendors with one known pai gow hand-labelling bug each, for the failures-by-cause tests: the
reference vendor with the bug planted, run as a real subprocess (``python hand_bug_vendors.py BUG``).

* ``joker-no-straight``: the joker never completes a straight (such hands answer ``none``);
* ``reference-like``: no bug (the reference vendor, answering through this script);
* ``sf-top-five``: a straight flush is looked for only among the five highest cards of the flush
  suit (a straight flush lower in a 6- or 7-card flush answers ``flush``).
"""

from __future__ import annotations

import sys
from typing import Any

from tablecert.oracle.cards import JOKER, parse_hand, rank_of, suit_of
from tablecert.oracle.hands import STRAIGHTS
from tablecert.oracle.vendor import ReferenceVendor, serve


def natural_straight(cards: tuple[int, ...]) -> bool:
    ranks = {rank_of(c) for c in cards if c != JOKER}
    return any(s <= ranks for s in STRAIGHTS)


def top_five_straight_flush(cards: tuple[int, ...]) -> bool:
    """Whether the five highest cards of a suit holding five or more form a straight (flush)."""
    for suit in range(4):
        ranks = sorted((rank_of(c) for c in cards if c != JOKER and suit_of(c) == suit), reverse=True)
        if len(ranks) >= 5 and any(set(ranks[:5]) == s for s in STRAIGHTS):
            return True
    return False


def buggy(bug: str, cards: list[str], answer: dict[str, Any]) -> dict[str, Any]:
    hand = parse_hand(cards)
    label = answer.get("hand")
    if bug == "joker-no-straight" and label == "straight" and JOKER in hand and not natural_straight(hand):
        return {"hand": "none"}
    if bug == "sf-top-five" and label in ("straight_flush", "royal_flush") and JOKER not in hand \
            and not top_five_straight_flush(hand):
        return {"hand": "flush"}
    return answer


class BuggyVendor(ReferenceVendor):
    """The reference vendor with one bug planted in its player labels (a subclass: the JSON path)."""

    def __init__(self, bug: str) -> None:
        super().__init__()
        self.bug = bug

    def handle(self, request: Any) -> dict[str, Any]:
        answer = super().handle(request)
        if isinstance(request, dict) and request.get("op") == "paigow.player_bonus" and "results" in answer:
            answer["results"] = [buggy(self.bug, case["cards"], result)
                                 for case, result in zip(request["cases"], answer["results"])]
        return answer


def main() -> None:
    serve(sys.stdin, sys.stdout, BuggyVendor(sys.argv[1]))


if __name__ == "__main__":
    main()
