"""Cards of the 53-card pai gow deck: codes, indices, parsing, and the canonical hand order.

A card code is a rank character from ``23456789TJQKA`` followed by a suit character from
``cdhs`` (``As``, ``Td``, ``7h``); the joker is ``JK``.

The documented card order gives every card an index::

    index = rank_index * 4 + suit_index      (rank_index 0..12 for 2..A, suit_index 0..3 for c,d,h,s)
    joker = 52

so ``2c`` is 0, ``2d`` is 1, ``As`` is 51 and the joker is 52.

A hand is the set of its 7 card indices. The canonical order of all C(53,7) = 154,143,080 hands
is colexicographic: with the indices sorted ``c0 < c1 < ... < c6`` a hand's position is
``sum(comb(c_i, i + 1) for i in range(7))``. Every hand holding the joker has ``c6 == 52``, so
those are exactly the last C(52,6) = 20,358,520 positions.

>>> parse_hand(["As", "JK", "2c", "Td", "7h", "Kc", "3s"])
(0, 7, 22, 33, 44, 51, 52)
>>> [card_code(i) for i in (0, 1, 51, 52)]
['2c', '2d', 'As', 'JK']
>>> colex_rank((0, 1, 2, 3, 4, 5, 6)), colex_unrank(0)
(0, (0, 1, 2, 3, 4, 5, 6))
>>> colex_unrank(HAND_COUNT - 1)
(46, 47, 48, 49, 50, 51, 52)
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Any

from tablecert.oracle.errors import CaseError

RANKS = "23456789TJQKA"
"""Rank characters, lowest first; a card's rank index is its position here (2 -> 0, A -> 12)."""

SUITS = "cdhs"
"""Suit characters; a card's suit index is its position here (clubs 0 .. spades 3)."""

JOKER = 52
"""Index of the joker."""

JOKER_CODE = "JK"
"""Card code of the joker."""

DECK_SIZE = 53
"""52 ranked cards plus one joker."""

HAND_SIZE = 7
"""Cards in a pai gow hand."""

HAND_COUNT = comb(DECK_SIZE, HAND_SIZE)
"""Number of distinct 7-card hands from the 53-card deck: 154,143,080."""

ACE = RANKS.index("A")
"""Rank index of the ace (12)."""


def card_index(code: str) -> int:
    """Index of the card with this code (``"2c"`` -> 0, ``"As"`` -> 51, ``"JK"`` -> 52).

    Raises :class:`ValueError` for anything that is not a card code.

    >>> card_index("2c"), card_index("Td"), card_index("As"), card_index("JK")
    (0, 33, 51, 52)
    """
    if not isinstance(code, str):
        raise ValueError(f"card code must be a string, got {type(code).__name__}")
    if code == JOKER_CODE:
        return JOKER
    if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise ValueError(f"unknown card code {code!r}")
    return RANKS.index(code[0]) * 4 + SUITS.index(code[1])


def card_code(index: int) -> str:
    """Code of the card with this index (0 -> ``"2c"``, 51 -> ``"As"``, 52 -> ``"JK"``).

    >>> card_code(0), card_code(33), card_code(51), card_code(52)
    ('2c', 'Td', 'As', 'JK')
    """
    if not 0 <= index < DECK_SIZE:
        raise ValueError(f"card index {index} outside 0..{DECK_SIZE - 1}")
    if index == JOKER:
        return JOKER_CODE
    return RANKS[index // 4] + SUITS[index % 4]


def rank_of(index: int) -> int:
    """Rank index (0 for a 2 .. 12 for an ace) of a card that is not the joker."""
    return index // 4


def suit_of(index: int) -> int:
    """Suit index (0 clubs, 1 diamonds, 2 hearts, 3 spades) of a card that is not the joker."""
    return index % 4


def parse_hand(value: Any) -> tuple[int, ...]:
    """The 7 card indices, sorted ascending, of a hand given as its protocol JSON value.

    The value must be a list of exactly 7 strings, each a card code, all different, with at most
    one joker (the deck has one). Anything else raises ``CaseError("invalid_hand", reason)``
    with a one-line reason naming the card and its position (0-based).

    >>> parse_hand(["2c", "2d", "2h", "2s", "3c", "3d", "3h"])
    (0, 1, 2, 3, 4, 5, 6)
    >>> parse_hand(["As", "As", "2h", "2s", "3c", "3d", "3h"])
    Traceback (most recent call last):
    ...
    tablecert.oracle.errors.CaseError: invalid_hand: card 1 'As' repeats card 0
    """
    if not isinstance(value, list):
        raise CaseError("invalid_hand", f"hand must be a list of {HAND_SIZE} card codes, got {type(value).__name__}")
    if len(value) != HAND_SIZE:
        raise CaseError("invalid_hand", f"hand must hold exactly {HAND_SIZE} cards, got {len(value)}")
    seen: dict[int, int] = {}
    for position, code in enumerate(value):
        if not isinstance(code, str):
            raise CaseError("invalid_hand", f"card {position} must be a string card code, got {type(code).__name__}")
        try:
            index = card_index(code)
        except ValueError:
            raise CaseError("invalid_hand", f"card {position} {code!r} is not a card code") from None
        if index in seen:
            what = "is a second joker (the deck has one)" if index == JOKER else f"repeats card {seen[index]}"
            raise CaseError("invalid_hand", f"card {position} {code!r} {what}")
        seen[index] = position
    return tuple(sorted(seen))


def colex_rank(cards: Sequence[int]) -> int:
    """Position of a hand in the canonical (colexicographic) order; ``cards`` sorted ascending.

    >>> colex_rank((0, 1, 2, 3, 4, 5, 7))
    1
    >>> colex_rank((46, 47, 48, 49, 50, 51, 52)) == HAND_COUNT - 1
    True
    """
    if any(a >= b for a, b in zip(cards, cards[1:])):
        raise ValueError(f"cards must be strictly ascending: {tuple(cards)}")
    if cards and not (0 <= cards[0] and cards[-1] < DECK_SIZE):
        raise ValueError(f"card index outside 0..{DECK_SIZE - 1}: {tuple(cards)}")
    return sum(comb(c, i + 1) for i, c in enumerate(cards))


def colex_unrank(position: int, k: int = HAND_SIZE) -> tuple[int, ...]:
    """The sorted ``k`` card indices of the hand at this colex position (inverse of colex_rank).

    >>> colex_unrank(1)
    (0, 1, 2, 3, 4, 5, 7)
    >>> colex_rank(colex_unrank(123_456_789)) == 123_456_789
    True
    """
    if not 0 <= position < comb(DECK_SIZE, k):
        raise ValueError(f"position {position} outside 0..C({DECK_SIZE},{k})-1")
    cards = []
    c = DECK_SIZE
    for i in range(k, 0, -1):
        # the i-th card (1-based) is the largest c with comb(c, i) <= what is left of position;
        # it is below the card found before it, so one downward scan serves all k cards
        c -= 1
        while comb(c, i) > position:
            c -= 1
        cards.append(c)
        position -= comb(c, i)
    return tuple(reversed(cards))


def hand_codes(cards: Sequence[int]) -> list[str]:
    """Card codes of a hand, in the given order.

    >>> hand_codes((0, 51, 52))
    ['2c', 'As', 'JK']
    """
    return [card_code(c) for c in cards]
