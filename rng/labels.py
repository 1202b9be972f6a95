"""The game-level check only tablecert can do: the pai gow labels of the hands a shuffle deals.

Each deck deals seven seats of seven cards (seat 1 the first seven cards, seat s the cards at
positions 7(s-1) .. 7s-1). Every hand is labelled by the oracle's own per-hand evaluation (the
player category and the banker label of :mod:`tablecert.oracle.labeller`, compiled with numba,
millions of hands a second), and the counts are compared with the exact label probabilities: the
census's published counts (``oracle/published_counts.toml``) over C(53,7) hands. A hand dealt from
a uniformly shuffled deck is a uniformly random 7-card hand, so those are its exact probabilities.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit, prange

from tablecert.oracle.census import published_counts
from tablecert.oracle.cards import HAND_SIZE, JOKER
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_CATEGORIES
from tablecert.oracle.label_batch import LABELLER_SHA256
from tablecert.oracle.labeller import CARD_BIT, _evaluate

SEATS = 7
"""Hands dealt from one deck."""


_LABELLER_STAMP = int(LABELLER_SHA256[:15], 16)
"""Frozen into the cached kernel, which inlines labeller.py's evaluation: a kernel cached against
another labeller.py returns another stamp and is recompiled (as oracle/label_batch.py does)."""


@njit(parallel=True, cache=True)
def _label_seats(decks: np.ndarray, card_bit: np.ndarray, stamp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    stamp[0] = _LABELLER_STAMP
    n = decks.shape[0]
    player = np.empty((n, 7), dtype=np.int8)
    banker = np.empty((n, 7), dtype=np.int8)
    for d in prange(n):
        for s in range(7):
            w = 0
            joker = False
            for k in range(7):
                c = decks[d, 7 * s + k]
                w |= card_bit[c]
                if c == 52:
                    joker = True
            p, b = _evaluate(w, joker)
            player[d, s] = p
            banker[d, s] = b
    return player, banker


def seat_labels(decks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Player category codes and banker label codes, ``(n, 7)`` each, of every seat's hand."""
    assert SEATS * HAND_SIZE <= decks.shape[1] and JOKER == 52
    decks = np.ascontiguousarray(decks, dtype=np.uint8)
    stamp = np.zeros(1, dtype=np.int64)
    player, banker = _label_seats(decks, CARD_BIT, stamp)
    if stamp[0] != _LABELLER_STAMP:
        _label_seats.recompile()
        player, banker = _label_seats(decks, CARD_BIT, stamp)
        if stamp[0] != _LABELLER_STAMP:
            raise RuntimeError("the seat-label kernel does not track labeller.py")
    return player, banker


@cache
def label_probabilities() -> tuple[np.ndarray, np.ndarray]:
    """Exact probabilities of the player categories (PLAYER_CATEGORIES order) and banker labels
    (BANKER_LABELS order, ``none`` last) of a uniformly random hand, from the published counts."""
    pub = published_counts()
    player = np.array([pub.player[c] for c in PLAYER_CATEGORIES], dtype=np.float64) / pub.total
    paying = [pub.banker[b] for b in BANKER_LABELS[:-1]]
    banker = np.array(paying + [pub.total - sum(paying)], dtype=np.float64) / pub.total
    return player, banker
