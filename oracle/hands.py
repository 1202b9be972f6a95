"""Reference hand evaluator for the Imperial pai gow bonus (N.J.A.C. 13:69F-11.19 / 11.20).

This module is the readable statement of what the oracle calls each 7-card hand. It is plain
Python written to be checked line by line against the rules; the fast all-hands labeller
(:mod:`tablecert.oracle.labeller`) is tested against it.

The deck is 52 cards plus one joker. The joker plays as an ACE unless it completes a straight,
a flush, a straight flush or five aces (interpretation INT-JOKER-ACE). Therefore:

* for pairs, three and four of a kind and full houses the joker is one more ace
  (A-A-A + joker is four aces; K-K-K + joker is three kings and an ace, never four kings);
* A-A-A-A + joker is five aces;
* a straight exists if the ranks of the other cards plus ANY one rank hold five consecutive
  ranks (A-2-3-4-5 and T-J-Q-K-A included);
* a flush exists if some suit holds at least four cards (the joker is the fifth);
* a straight flush exists if one suit's ranks plus any one rank hold a straight, and it is a
  royal flush if that straight can be T-J-Q-K-A (so suited 7-8-T-J-Q-K + joker is a royal:
  the joker as the ace beats the joker as the nine, INT-ROYAL-JOKER).

Without the joker the categories are ordinary poker's, the best five of the seven cards: a
flush is five or more cards of one suit, a straight flush five consecutive suited ranks, and a
royal flush T-J-Q-K-A suited. Two sets of three of a kind are a full house; four of a kind with
three of a kind is four of a kind.

The banker hand bonus pays on a hand with no joker, no pair, no straight and no flush whose
highest card is a 9, T or J (a joker hand is never one: the joker plays as an ace).

>>> from tablecert.oracle.cards import parse_hand
>>> player_category(parse_hand(["As", "Ah", "Ad", "Ac", "JK", "2c", "7d"]))
'five_aces'
>>> player_label(parse_hand(["Ks", "Kh", "Kd", "JK", "2c", "7d", "9h"]))
'three_of_a_kind'
>>> banker_label(parse_hand(["9s", "8h", "7d", "5c", "4c", "3d", "2h"]))
'nine_high'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tablecert.oracle.cards import ACE, JOKER, RANKS, SUITS, rank_of, suit_of

PLAYER_CATEGORIES: tuple[str, ...] = (
    "five_aces",
    "royal_flush",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
    "flush",
    "straight",
    "three_of_a_kind",
    "two_pair",
    "pair",
    "high_card",
)
"""Every 7-card hand category, best first."""

PLAYER_LABELS: tuple[str, ...] = PLAYER_CATEGORIES[: PLAYER_CATEGORIES.index("three_of_a_kind") + 1] + ("none",)
"""Player hand bonus labels of the vendor protocol, best first: three of a kind or better, else none."""

BANKER_LABELS: tuple[str, ...] = ("nine_high", "ten_high", "jack_high", "none")
"""Banker hand bonus labels of the vendor protocol, best first."""

NINE, TEN, JACK = RANKS.index("9"), RANKS.index("T"), RANKS.index("J")
_BANKER_LABEL_BY_HIGH_CARD = {NINE: "nine_high", TEN: "ten_high", JACK: "jack_high"}

ROYAL_RANKS = frozenset(RANKS.index(r) for r in "TJQKA")
"""Ranks of a royal flush: T-J-Q-K-A."""

STRAIGHTS: tuple[frozenset[int], ...] = tuple(
    frozenset(range(low, low + 5)) for low in range(len(RANKS) - 5, -1, -1)
) + (frozenset({ACE, 0, 1, 2, 3}),)
"""The ten straights as rank sets, highest first: T-J-Q-K-A, 9-T-J-Q-K, ..., 2-3-4-5-6, A-2-3-4-5."""


def _straight_ranks(ranks: set[int], joker: bool) -> frozenset[int] | None:
    """The highest straight that these ranks hold, the joker (if any) standing for one missing
    rank; None if there is none."""
    for straight in STRAIGHTS:
        missing = len(straight - ranks)
        if missing == 0 or (joker and missing == 1):
            return straight
    return None


def _real_cards(cards: Sequence[int]) -> tuple[list[int], bool]:
    """The cards other than the joker, and whether the hand holds the joker."""
    if len(cards) != 7 or len(set(cards)) != 7:
        raise ValueError(f"a hand is 7 different cards, got {tuple(cards)}")
    real = [c for c in cards if c != JOKER]
    return real, len(real) == 6


def player_category(cards: Sequence[int]) -> str:
    """The best category (a name in PLAYER_CATEGORIES) of a 7-card hand of card indices.

    >>> from tablecert.oracle.cards import parse_hand as h
    >>> player_category(h(["Ts", "Js", "Qs", "Ks", "JK", "2c", "3d"]))
    'royal_flush'
    >>> player_category(h(["7s", "8s", "Ts", "Js", "Qs", "Ks", "JK"]))
    'royal_flush'
    >>> player_category(h(["Ah", "Ad", "JK", "Kc", "Kd", "2s", "7h"]))
    'full_house'
    >>> player_category(h(["2c", "3d", "4h", "5s", "JK", "9c", "Qd"]))
    'straight'
    >>> player_category(h(["2c", "2d", "4h", "5s", "8c", "9c", "Qd"]))
    'pair'
    """
    real, joker = _real_cards(cards)
    real_ranks = {rank_of(c) for c in real}  # for straights the joker may be any rank

    # Rank multiplicities with the joker playing as an ace.
    counts = Counter(rank_of(c) for c in real)
    if joker:
        counts[ACE] += 1
    multiplicities = sorted(counts.values(), reverse=True)

    # Per-suit rank sets; the joker may be any card of any suit for flushes and straights.
    suited: dict[int, set[int]] = {s: set() for s in range(len(SUITS))}
    for c in real:
        suited[suit_of(c)].add(rank_of(c))
    flush_size = 4 if joker else 5  # cards of one suit needed besides the joker

    if joker and counts[ACE] == 5:
        return "five_aces"

    straight_flushes = [
        _straight_ranks(ranks, joker) for ranks in suited.values() if len(ranks) >= flush_size
    ]
    straight_flushes = [s for s in straight_flushes if s is not None]
    if any(s == ROYAL_RANKS for s in straight_flushes):
        return "royal_flush"
    if straight_flushes:
        return "straight_flush"

    if multiplicities[0] >= 4:
        return "four_of_a_kind"
    if multiplicities[0] == 3 and multiplicities[1] >= 2:
        return "full_house"
    if any(len(ranks) >= flush_size for ranks in suited.values()):
        return "flush"
    if _straight_ranks(real_ranks, joker) is not None:
        return "straight"
    if multiplicities[0] == 3:
        return "three_of_a_kind"
    if multiplicities[0] == 2 and multiplicities[1] == 2:
        return "two_pair"
    if multiplicities[0] == 2:
        return "pair"
    return "high_card"


def player_label(cards: Sequence[int]) -> str:
    """The player hand bonus label (a name in PLAYER_LABELS): the category if it is three of a
    kind or better, else ``"none"``.

    >>> from tablecert.oracle.cards import parse_hand as h
    >>> player_label(h(["Ac", "Ad", "Ah", "JK", "2s", "7h", "9d"]))
    'four_of_a_kind'
    >>> player_label(h(["Ac", "Ad", "Kh", "Ks", "2s", "7h", "9d"]))
    'none'
    """
    category = player_category(cards)
    return category if category in PLAYER_LABELS else "none"


def banker_label(cards: Sequence[int]) -> str:
    """The banker hand bonus label (a name in BANKER_LABELS) of a 7-card hand of card indices.

    ``nine_high``, ``ten_high`` or ``jack_high`` when the hand has no joker, no pair, no
    straight and no flush and its highest card is a 9, T or J; otherwise ``"none"``.

    >>> from tablecert.oracle.cards import parse_hand as h
    >>> banker_label(h(["Jd", "9h", "8c", "6d", "4s", "3c", "2h"]))
    'jack_high'
    >>> banker_label(h(["Jd", "9h", "8c", "6d", "4s", "3c", "JK"]))
    'none'
    """
    real, joker = _real_cards(cards)
    if joker:
        return "none"  # the joker plays as an ace, so the hand is ace high or better
    ranks = [rank_of(c) for c in real]
    if len(set(ranks)) < len(ranks):
        return "none"  # a pair (or more)
    if _straight_ranks(set(ranks), joker=False) is not None:
        return "none"  # a straight
    if max(Counter(suit_of(c) for c in real).values()) >= 5:
        return "none"  # a flush
    high_card = max(ranks)
    return _BANKER_LABEL_BY_HIGH_CARD.get(high_card, "none")
