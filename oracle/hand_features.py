"""What a 7-card hand *is*, in the terms the Imperial pai gow bonus rules turn on: the joker's role
(completing a straight at its low end, its high end or inside; a flush, a straight flush, a royal,
five aces; or playing as an ace), 6- and 7-card flushes, a straight flush outside the five highest
cards of its suit, the wheel, Q-K-A-2-3 (no wrap-around), a pair beside a straight.

The catalogue (ids, titles, interpretation entries, clauses, weights, and the specificity order)
is data, ``hand_features.toml``; this module decides membership, for many hands at once, in a
compiled kernel: :func:`hand_features` maps an ``n x 7`` array of card indices to one bit mask
per hand (bit ``i`` = the catalogue's feature ``i``). :func:`cause_and_simplicity` turns masks into
the most specific feature (the *cause*; :data:`PLAIN` when none) and a simplicity score (the sum
of the features' weights: lower is a plainer hand, a better example).

The definitions are independent of :mod:`tablecert.oracle.hands` (tests check them against it).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
from numba import njit

from tablecert.oracle.cards import colex_unrank

KERNEL_IDS = ("five-aces", "joker-royal", "joker-straight-flush", "sf-not-top-five", "joker-flush",
              "joker-straight-low", "joker-straight-high", "joker-straight-inside", "flush-7", "flush-6",
              "no-wrap", "wheel", "pair-beside-straight", "joker-ace")
"""The bit order the kernel writes (checked against the catalogue)."""

PLAIN = len(KERNEL_IDS)
"""The cause code of a hand with none of the features."""


@dataclass(frozen=True)
class Feature:
    id: str
    title: str
    interpretation: str
    clause: str
    weight: int


@cache
def catalogue() -> tuple[Feature, ...]:
    """The features, most specific first, in the kernel's bit order."""
    data = tomllib.loads(resources.files("tablecert.oracle").joinpath("hand_features.toml").read_text("utf-8"))
    out = tuple(Feature(f["id"], f["title"], f["interpretation"], f["clause"], int(f["weight"]))
                for f in data["feature"])
    if tuple(f.id for f in out) != KERNEL_IDS:
        raise ImportError("hand_features.toml lists other features (or another order) than hand_features.py computes")
    return out


def cause_feature(code: int) -> Feature:
    """The feature of a cause code (PLAIN: a hand with none of them)."""
    if code == PLAIN:
        return Feature("plain", "none of the special features (an ordinary hand)", "", "njac.11.19.c1", 0)
    return catalogue()[code]


# Windows of five consecutive ranks, lowest first (0: the wheel A-2-3-4-5 as A,2,3,4,5).
_WINDOWS = np.array([[12, 0, 1, 2, 3]] + [[lo + i for i in range(5)] for lo in range(9)], dtype=np.int64)


@njit(cache=True, nogil=True)
def _best_window(mask: int, joker: bool, windows: np.ndarray) -> tuple[int, int]:
    """(highest window held, the missing position the joker fills or -1); (-1, -1) if none."""
    for w in range(windows.shape[0] - 1, -1, -1):
        missing = -1
        n_missing = 0
        for i in range(5):
            if not (mask >> windows[w, i]) & 1:
                n_missing += 1
                missing = i
        if n_missing == 0:
            return w, -1
        if joker and n_missing == 1:
            return w, missing
    return -1, -1


@njit(cache=True, nogil=True)
def _features(cards: np.ndarray, windows: np.ndarray, out: np.ndarray) -> None:
    for k in range(cards.shape[0]):
        joker = False
        rank_mask = 0
        suit_mask = np.zeros(4, dtype=np.int64)
        rank_count = np.zeros(13, dtype=np.int64)
        for j in range(7):
            c = cards[k, j]
            if c == 52:
                joker = True
                continue
            r, s = c // 4, c % 4
            rank_mask |= 1 << r
            suit_mask[s] |= 1 << r
            rank_count[r] += 1
        bits = 0
        # five aces
        five_aces = joker and rank_count[12] == 4
        if five_aces:
            bits |= 1 << 0
        # straight flushes, per suit
        joker_sf = False
        for s in range(4):
            n_suited = 0
            for r in range(13):
                n_suited += (suit_mask[s] >> r) & 1
            nat, _ = _best_window(suit_mask[s], False, windows)
            if joker:
                jw, miss = _best_window(suit_mask[s], True, windows)
                if jw > nat and miss >= 0:
                    joker_sf = True
                    bits |= 1 << (1 if jw == windows.shape[0] - 1 else 2)
            if nat >= 0 and n_suited >= 6:
                top = 0                          # the five highest ranks of the suit (ace high)
                taken = 0
                for r in range(12, -1, -1):
                    if (suit_mask[s] >> r) & 1 and taken < 5:
                        top |= 1 << r
                        taken += 1
                window = 0
                for i in range(5):
                    window |= 1 << windows[nat, i]
                if window != top:
                    bits |= 1 << 3
        # flushes
        most = 0
        for s in range(4):
            n_suited = 0
            for r in range(13):
                n_suited += (suit_mask[s] >> r) & 1
            most = max(most, n_suited)
        joker_flush = joker and most == 4
        if joker_flush:
            bits |= 1 << 4
        if most == 7:
            bits |= 1 << 8
        elif most == 6:
            bits |= 1 << 9
        # straights
        nat, _ = _best_window(rank_mask, False, windows)
        best = nat
        joker_straight = False
        if joker:
            jw, miss = _best_window(rank_mask, True, windows)
            if jw > nat and miss >= 0:
                joker_straight = True
                best = jw
                bits |= 1 << (5 if miss == 0 else 6 if miss == 4 else 7)
        if best < 0:
            held = 0
            for r in (10, 11, 12, 0, 1):
                held += (rank_mask >> r) & 1
            if held + (1 if joker else 0) >= 5:
                bits |= 1 << 10
        if best == 0:
            bits |= 1 << 11
        if best >= 0:
            paired = False
            for r in range(13):
                if rank_count[r] >= 2:
                    paired = True
            if paired:
                bits |= 1 << 12
        if joker and not (five_aces or joker_sf or joker_flush or joker_straight):
            bits |= 1 << 13
        out[k] = bits


def hand_features(cards: np.ndarray) -> np.ndarray:
    """One feature mask (uint32, bit i = KERNEL_IDS[i]) per hand of ``cards`` (n x 7 card indices)."""
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    out = np.zeros(cards.shape[0], dtype=np.uint32)
    if cards.shape[0]:
        _features(cards, _WINDOWS, out)
    return out


@cache
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """Per feature bit: its cause code and its weight."""
    return np.arange(len(KERNEL_IDS), dtype=np.int64), np.array([f.weight for f in catalogue()], dtype=np.int64)


def cause_and_simplicity(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per mask: the most specific feature present (its code; PLAIN if none) and the sum of the
    weights of all features present (lower = a plainer hand)."""
    _, weights = _tables()
    masks = masks.astype(np.int64)
    bits = (masks[:, None] >> np.arange(len(KERNEL_IDS))[None, :]) & 1
    simplicity = bits @ weights
    cause = np.where(bits.any(axis=1), bits.argmax(axis=1), PLAIN)
    return cause.astype(np.int64), simplicity.astype(np.int64)


def features_of_positions(positions: np.ndarray, first_position: int = 0) -> np.ndarray:
    """Feature masks of the hands at canonical positions ``first_position + positions``."""
    cards = np.array([colex_unrank(first_position + int(p)) for p in positions], dtype=np.int64).reshape(-1, 7)
    return hand_features(cards)


def feature_ids(mask: int) -> list[str]:
    """The ids of the features in a mask, most specific first."""
    return [fid for i, fid in enumerate(KERNEL_IDS) if (int(mask) >> i) & 1]
