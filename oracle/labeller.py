"""Fast all-hands labeller: the player category and banker label of every 7-card hand.

The readable statement of the rules is :mod:`tablecert.oracle.hands`; this module computes the
same labels for each of the C(53,7) = 154,143,080 hands individually, with numba, in canonical
colex order (see :mod:`tablecert.oracle.cards`), and is tested against the reference evaluator.

How a hand is represented here
------------------------------
A hand without its joker is one integer ``w`` holding four 16-bit fields, one per suit
(clubs in bits 0..12, diamonds in 16..28, hearts in 32..44, spades in 48..60); bit ``r`` of a
suit's field is set when the hand holds the card of rank ``r`` (0 = 2 .. 12 = A) in that suit.
Whether the hand holds the joker is a separate flag. Adding a card is one OR with its bit
(:data:`CARD_BIT`; the joker's bit is 0), so the nested loops over ``c0 < c1 < ... < c6`` keep
one partial ``w`` per level.

:func:`_evaluate` is the per-hand evaluation shared by every kernel. It uses three lookup tables
over 13-bit rank masks, each computed at import from its definition:

* :data:`POPCOUNT` - number of ranks in the mask;
* :data:`STRAIGHT_HIGH` - highest rank of a straight the mask holds (3 for A-2-3-4-5, 12 for
  T-J-Q-K-A), or -1;
* :data:`STRAIGHT_HIGH_JOKER` - the same when the joker may add any one rank.

Kernels
-------
:func:`label_hands_with_top` materialises the labels of every hand whose highest card index is
``top`` (the streaming unit for exhaustive runs); :func:`census` counts every hand with a fused
kernel that calls the same :func:`_evaluate` per hand without storing the labels.

numba caches compiled code per source file and does not track what a kernel inlined from other
files: a cached kernel elsewhere that calls :func:`_evaluate` keeps the old evaluation after this
file changes until its own cache is cleared (delete the ``__pycache__/*.nbi``/``*.nbc`` files).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import comb

import numba
import numpy as np
from numba import njit, prange

from tablecert.oracle.cards import ACE, DECK_SIZE, HAND_COUNT, HAND_SIZE, JOKER, RANKS, SUITS, rank_of, suit_of
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_CATEGORIES

# ---------------------------------------------------------------------------------------------
# Codes and constants compiled into the kernels.
#
# numba's on-disk cache (cache=True) is keyed on THIS file only: a change to cards.py or hands.py
# would not recompile the kernels. So every definition the compiled code depends on is spelled
# out here and checked at import against the modules it mirrors; a mismatch stops the import
# instead of letting a stale cached kernel run.
# ---------------------------------------------------------------------------------------------

(FIVE_ACES, ROYAL_FLUSH, STRAIGHT_FLUSH, FOUR_OF_A_KIND, FULL_HOUSE, FLUSH, STRAIGHT,
 THREE_OF_A_KIND, TWO_PAIR, PAIR, HIGH_CARD) = range(11)
"""Player category codes: indices into PLAYER_CATEGORIES."""

NINE_HIGH, TEN_HIGH, JACK_HIGH, BANKER_NONE = range(4)
"""Banker label codes: indices into BANKER_LABELS."""

_KERNEL_CATEGORIES = ("five_aces", "royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
                      "straight", "three_of_a_kind", "two_pair", "pair", "high_card")
_KERNEL_BANKER_LABELS = ("nine_high", "ten_high", "jack_high", "none")
_KERNEL_DECK = ("23456789TJQKA", "cdhs", 52, 53)

if (PLAYER_CATEGORIES, BANKER_LABELS, (RANKS, SUITS, JOKER, DECK_SIZE)) != (
        _KERNEL_CATEGORIES, _KERNEL_BANKER_LABELS, _KERNEL_DECK):
    raise ImportError("labeller.py's compiled codes no longer match cards.py/hands.py: update labeller.py "
                      "(which also refreshes numba's cache)")

NINE, TEN, JACK = 7, 8, 9
"""Rank indices of the 9, the ten and the jack."""

ACE_BIT = 1 << ACE
RANK_MASK_SIZE = 1 << 13
"""Number of 13-bit rank masks (8192)."""

SUIT_FIELD_BITS = 16
"""Width of one suit's field in a hand word."""


# ---------------------------------------------------------------------------------------------
# Lookup tables, computed from their definitions (independently of the hands module's).
# ---------------------------------------------------------------------------------------------

_WHEEL = (1 << ACE) | 0b1111  # A-2-3-4-5


def _straight_high(mask: int) -> int:
    """Highest rank of a straight held by a 13-bit rank mask (A-2-3-4-5 is 5 high: 3), or -1."""
    for high in range(ACE, 3, -1):  # five consecutive ranks high-4 .. high, T-J-Q-K-A first
        run = 0b11111 << (high - 4)
        if mask & run == run:
            return high
    if mask & _WHEEL == _WHEEL:
        return 3
    return -1


POPCOUNT = np.array([bin(m).count("1") for m in range(RANK_MASK_SIZE)], dtype=np.int8)
STRAIGHT_HIGH = np.array([_straight_high(m) for m in range(RANK_MASK_SIZE)], dtype=np.int8)
STRAIGHT_HIGH_JOKER = np.array(
    [max(_straight_high(m | (1 << extra)) for extra in range(13)) for m in range(RANK_MASK_SIZE)],
    dtype=np.int8,
)


def card_bit(index: int) -> int:
    """The bit a card sets in a hand word (0 for the joker, which is a separate flag)."""
    if index == JOKER:
        return 0
    return 1 << (suit_of(index) * SUIT_FIELD_BITS + rank_of(index))


CARD_BIT = np.array([card_bit(i) for i in range(DECK_SIZE)], dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# The per-hand evaluation.
# ---------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _evaluate(w: int, joker: bool) -> tuple[int, int]:
    """Player category code and banker label code of one hand (word ``w`` plus joker flag)."""
    m = 0x1FFF
    c = w & m
    d = (w >> 16) & m
    h = (w >> 32) & m
    s = (w >> 48) & m
    nc = POPCOUNT[c]
    nd = POPCOUNT[d]
    nh = POPCOUNT[h]
    ns = POPCOUNT[s]

    # Ranks held at least once, twice, three times, four times (by the real cards).
    ge1 = c | d | h | s
    ge2 = (c & d) | (c & h) | (c & s) | (d & h) | (d & s) | (h & s)
    ge3 = (c & d & h) | (c & d & s) | (c & h & s) | (d & h & s)
    ge4 = c & d & h & s

    if joker:
        if ge4 & ACE_BIT:
            return FIVE_ACES, BANKER_NONE
        # Flush: four suited cards and the joker; straight flush: that suit's ranks plus any one.
        sf = -1
        flush = False
        if nc >= 4:
            flush = True
            sf = max(sf, STRAIGHT_HIGH_JOKER[c])
        if nd >= 4:
            flush = True
            sf = max(sf, STRAIGHT_HIGH_JOKER[d])
        if nh >= 4:
            flush = True
            sf = max(sf, STRAIGHT_HIGH_JOKER[h])
        if ns >= 4:
            flush = True
            sf = max(sf, STRAIGHT_HIGH_JOKER[s])
        straight = STRAIGHT_HIGH_JOKER[ge1] >= 0
        # For rank categories the joker is one more ace.
        if ge3 & ACE_BIT:
            ge4 |= ACE_BIT
        if ge2 & ACE_BIT:
            ge3 |= ACE_BIT
        if ge1 & ACE_BIT:
            ge2 |= ACE_BIT
        ge1 |= ACE_BIT
    else:
        sf = -1
        flush = False
        if nc >= 5:
            flush = True
            sf = max(sf, STRAIGHT_HIGH[c])
        if nd >= 5:
            flush = True
            sf = max(sf, STRAIGHT_HIGH[d])
        if nh >= 5:
            flush = True
            sf = max(sf, STRAIGHT_HIGH[h])
        if ns >= 5:
            flush = True
            sf = max(sf, STRAIGHT_HIGH[s])
        straight = STRAIGHT_HIGH[ge1] >= 0

    if sf == ACE:
        return ROYAL_FLUSH, BANKER_NONE
    if sf >= 0:
        return STRAIGHT_FLUSH, BANKER_NONE
    if ge4:
        return FOUR_OF_A_KIND, BANKER_NONE
    trips = POPCOUNT[ge3]
    pairs = POPCOUNT[ge2 & ~ge3]  # ranks held exactly twice
    if trips >= 2 or (trips == 1 and pairs >= 1):
        return FULL_HOUSE, BANKER_NONE
    if flush:
        return FLUSH, BANKER_NONE
    if straight:
        return STRAIGHT, BANKER_NONE
    if trips:
        return THREE_OF_A_KIND, BANKER_NONE
    if pairs >= 2:
        return TWO_PAIR, BANKER_NONE
    if pairs:
        return PAIR, BANKER_NONE
    # High card: seven different ranks, no straight, no flush. Joker hands have the ace bit set.
    if ge1 < (1 << (JACK + 1)):
        if ge1 >= (1 << JACK):
            return HIGH_CARD, JACK_HIGH
        if ge1 >= (1 << TEN):
            return HIGH_CARD, TEN_HIGH
        if ge1 >= (1 << NINE):
            return HIGH_CARD, NINE_HIGH
    return HIGH_CARD, BANKER_NONE


def label_hand_fast(cards: tuple[int, ...] | list[int]) -> tuple[int, int]:
    """Player category code and banker label code of one hand, by the fast evaluation.

    For tests and spot checks; the kernels below never go through Python per hand.

    >>> from tablecert.oracle.cards import parse_hand
    >>> p, b = label_hand_fast(parse_hand(["Ts", "Js", "Qs", "Ks", "7s", "8s", "JK"]))
    >>> PLAYER_CATEGORIES[p], BANKER_LABELS[b]
    ('royal_flush', 'none')
    """
    if len(cards) != HAND_SIZE or len(set(cards)) != HAND_SIZE:
        raise ValueError(f"a hand is 7 different cards, got {tuple(cards)}")
    w = 0
    for c in cards:
        w |= card_bit(c)
    p, b = _evaluate_py(w, JOKER in cards)
    return int(p), int(b)


@njit(cache=True)
def _evaluate_py(w: int, joker: bool) -> tuple[int, int]:
    return _evaluate(w, joker)


# ---------------------------------------------------------------------------------------------
# Kernels over all hands with a given highest card.
# ---------------------------------------------------------------------------------------------
#
# For a fixed top card c6 = top, the hands are the 6-subsets c0 < ... < c5 of range(top); their
# colex positions are comb(top, 7) + sum(comb(c_i, i + 1)). Nested loops with c5 outermost and c0
# innermost, each ascending, visit them in exactly that order. Work is split into tasks, one per
# pair (c5, c4); a task's hands are the consecutive positions starting at
# comb(c5, 6) + comb(c4, 5) within the block, comb(c4, 4) of them. Tasks are dealt round-robin to
# the threads so that each gets a fair share of small and large ones.


def _tasks(top: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(c5, c4, offset within the block) of every task of the block with highest card ``top``."""
    pairs = [(c5, c4) for c5 in range(5, top) for c4 in range(4, c5)]
    c5s = np.array([p[0] for p in pairs], dtype=np.int64)
    c4s = np.array([p[1] for p in pairs], dtype=np.int64)
    offsets = np.array([comb(c5, 6) + comb(c4, 5) for c5, c4 in pairs], dtype=np.int64)
    return c5s, c4s, offsets


@njit(cache=True, parallel=True)
def _label_block(top: int, c5s: np.ndarray, c4s: np.ndarray, offsets: np.ndarray,
                 out_player: np.ndarray, out_banker: np.ndarray, n_workers: int) -> None:
    joker = top == JOKER
    n_tasks = c5s.shape[0]
    for worker in prange(n_workers):
        for task in range(worker, n_tasks, n_workers):
            c4 = c4s[task]
            w4 = CARD_BIT[top] | CARD_BIT[c5s[task]] | CARD_BIT[c4]
            pos = offsets[task]
            for c3 in range(3, c4):
                w3 = w4 | CARD_BIT[c3]
                for c2 in range(2, c3):
                    w2 = w3 | CARD_BIT[c2]
                    for c1 in range(1, c2):
                        w1 = w2 | CARD_BIT[c1]
                        for c0 in range(c1):
                            p, b = _evaluate(w1 | CARD_BIT[c0], joker)
                            out_player[pos] = p
                            out_banker[pos] = b
                            pos += 1


@njit(cache=True, parallel=True)
def _count_block(top: int, c5s: np.ndarray, c4s: np.ndarray, n_workers: int) -> tuple[np.ndarray, np.ndarray]:
    joker = top == JOKER
    n_tasks = c5s.shape[0]
    player = np.zeros((n_workers, len(PLAYER_CATEGORIES)), dtype=np.int64)
    banker = np.zeros((n_workers, len(BANKER_LABELS)), dtype=np.int64)
    for worker in prange(n_workers):
        pc = np.zeros(len(PLAYER_CATEGORIES), dtype=np.int64)
        bc = np.zeros(len(BANKER_LABELS), dtype=np.int64)
        for task in range(worker, n_tasks, n_workers):
            c4 = c4s[task]
            w4 = CARD_BIT[top] | CARD_BIT[c5s[task]] | CARD_BIT[c4]
            for c3 in range(3, c4):
                w3 = w4 | CARD_BIT[c3]
                for c2 in range(2, c3):
                    w2 = w3 | CARD_BIT[c2]
                    for c1 in range(1, c2):
                        w1 = w2 | CARD_BIT[c1]
                        for c0 in range(c1):
                            p, b = _evaluate(w1 | CARD_BIT[c0], joker)
                            pc[p] += 1
                            bc[b] += 1
        player[worker, :] = pc
        banker[worker, :] = bc
    return player.sum(axis=0), banker.sum(axis=0)


def _check_top(top: int) -> None:
    if not (HAND_SIZE - 1 <= top < DECK_SIZE):
        raise ValueError(f"top card index {top} outside {HAND_SIZE - 1}..{DECK_SIZE - 1}")


def block_start(top: int) -> int:
    """Colex position of the first hand whose highest card index is ``top``: comb(top, 7)."""
    _check_top(top)
    return comb(top, HAND_SIZE)


def block_size(top: int) -> int:
    """Number of hands whose highest card index is ``top``: comb(top, 6)."""
    _check_top(top)
    return comb(top, HAND_SIZE - 1)


def label_hands_with_top(top: int) -> tuple[np.ndarray, np.ndarray]:
    """Player category codes and banker label codes (uint8 arrays, indices into
    PLAYER_CATEGORIES and BANKER_LABELS) of every hand whose highest card index is ``top``,
    in colex order: element ``i`` is the hand at position ``comb(top, 7) + i``.

    >>> p, b = label_hands_with_top(6)          # the single hand 2c 2d 2h 2s 3c 3d 3h
    >>> PLAYER_CATEGORIES[p[0]], BANKER_LABELS[b[0]]
    ('four_of_a_kind', 'none')
    """
    _check_top(top)
    n = block_size(top)
    out_player = np.empty(n, dtype=np.uint8)
    out_banker = np.empty(n, dtype=np.uint8)
    c5s, c4s, offsets = _tasks(top)
    _label_block(top, c5s, c4s, offsets, out_player, out_banker, numba.get_num_threads())
    return out_player, out_banker


@dataclass(frozen=True)
class LabelCount:
    """Hands carrying one label, split by whether they hold the joker."""

    no_joker: int
    joker: int

    @property
    def total(self) -> int:
        return self.no_joker + self.joker


@dataclass(frozen=True)
class Census:
    """Exact counts of every player category and banker label over all 7-card hands."""

    player: dict[str, LabelCount]  # by PLAYER_CATEGORIES, best first
    banker: dict[str, LabelCount]  # by BANKER_LABELS, best first
    total: int

    def player_labels(self) -> dict[str, LabelCount]:
        """Counts by player protocol label: categories below three of a kind merged into none."""
        labels: dict[str, LabelCount] = {}
        none = LabelCount(0, 0)
        for category, count in self.player.items():
            if category in ("two_pair", "pair", "high_card"):
                none = LabelCount(none.no_joker + count.no_joker, none.joker + count.joker)
            else:
                labels[category] = count
        labels["none"] = none
        return labels


def census(progress: Callable[[int, int], None] | None = None) -> Census:
    """Count every one of the 154,143,080 hands by player category and banker label.

    Each hand is evaluated individually (by the same per-hand evaluation as
    :func:`label_hands_with_top`), block by block of the highest card; ``progress`` is called
    with (hands done, hands in all) after each block.
    """
    n_categories, n_banker = len(PLAYER_CATEGORIES), len(BANKER_LABELS)
    player = {False: [0] * n_categories, True: [0] * n_categories}
    banker = {False: [0] * n_banker, True: [0] * n_banker}
    done = 0
    n_workers = numba.get_num_threads()
    for top in range(HAND_SIZE - 1, DECK_SIZE):
        c5s, c4s, _ = _tasks(top)
        p, b = _count_block(top, c5s, c4s, n_workers)
        joker = top == JOKER
        for i in range(n_categories):
            player[joker][i] += int(p[i])
        for i in range(n_banker):
            banker[joker][i] += int(b[i])
        if int(p.sum()) != block_size(top) or int(b.sum()) != block_size(top):
            raise AssertionError(f"block {top}: counted {int(p.sum())} hands, expected {block_size(top)}")
        done += block_size(top)
        if progress is not None:
            progress(done, HAND_COUNT)
    return Census(
        player={name: LabelCount(player[False][i], player[True][i]) for i, name in enumerate(PLAYER_CATEGORIES)},
        banker={name: LabelCount(banker[False][i], banker[True][i]) for i, name in enumerate(BANKER_LABELS)},
        total=done,
    )
