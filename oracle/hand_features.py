"""What a 7-card hand *is*, in the terms the Imperial pai gow bonus rules turn on: the joker's role
(completing a straight at its low end, its high end or inside; a flush, a straight flush, a royal,
five aces; or playing as an ace), 6- and 7-card flushes, a straight flush outside the five highest
cards of its suit, the wheel, Q-K-A-2-3 (no wrap-around), a pair beside a straight.

The catalogue (ids, titles, interpretation entries, clauses, weights, and the specificity order)
is data, ``hand_features.toml``; this module decides membership, for many hands at once, in a
compiled kernel (:mod:`tablecert.oracle.hand_feature_kernel`, imported on first use: numba is slow to import): :func:`hand_features` maps an ``n x 7`` array of card indices to one bit mask
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


def hand_features(cards: np.ndarray) -> np.ndarray:
    """One feature mask (uint32, bit i = KERNEL_IDS[i]) per hand of ``cards`` (n x 7 card indices)."""
    from tablecert.oracle.hand_feature_kernel import WINDOWS, features  # lazy: numba, 976 ms of certify's imports (bench_startup.py, load 4)

    cards = np.ascontiguousarray(cards, dtype=np.int64)
    out = np.zeros(cards.shape[0], dtype=np.uint32)
    if cards.shape[0]:
        features(cards, WINDOWS, out)
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
