"""Generators for measuring the RNG battery's two error rates: a correct one, and biased ones, each
a bug that has shipped in real games. Vectorised (numpy, numba for the one sequential recurrence).

The small biases (a face 0.5% more likely, a roll sticking 0.2% of the time, the joker moved into
the first seven cards in 1% of decks) are caught only at the default sizes: bench_rng's ``power``
runs them there. Each generator is ``f(rng, n) -> outcomes``: dice ``(n, 2)`` faces 0..5 or decks
``(n, 53)`` card indices, driven by the seeded ``numpy.random.Generator`` it is given. Used by
tests/test_rng*.py and benchmarks/bench_rng.py.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

K = 53
Generator = Callable[[np.random.Generator, int], np.ndarray]


def fair_dice(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 6, size=(n, 2), dtype=np.uint8)


def fair_decks(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.permuted(np.tile(np.arange(K, dtype=np.uint8), (n, 1)), axis=1)


# --- biased dice ---------------------------------------------------------------------------------

def dice_modulo_byte(rng: np.random.Generator, n: int) -> np.ndarray:
    """A die as ``byte % 6`` of an 8-bit source: faces 1-4 get 43/256, 5-6 get 42/256."""
    return (rng.integers(0, 256, size=(n, 2)) % 6).astype(np.uint8)


def dice_favoured_face(rng: np.random.Generator, n: int) -> np.ndarray:
    """The six comes up 1/6 + 0.003 of the time (a mis-scaled table)."""
    p = np.full(6, (1 - (1 / 6 + 0.003)) / 5)
    p[5] = 1 / 6 + 0.003
    return rng.choice(6, size=(n, 2), p=p).astype(np.uint8)


def dice_sticky(rng: np.random.Generator, n: int, rate: float = 0.003) -> np.ndarray:
    """A roll repeats the previous one 0.3% (``rate``) of the time beyond chance (a stale buffer)."""
    fresh = fair_dice(rng, n)
    repeat = rng.random(n) < rate
    repeat[0] = False
    idx = np.maximum.accumulate(np.where(repeat, 0, np.arange(n)))
    return fresh[idx]


def dice_sticky_small(rng: np.random.Generator, n: int) -> np.ndarray:
    """A roll repeats the previous one 0.2% of the time beyond chance."""
    return dice_sticky(rng, n, 0.002)


def dice_face_relative(rng: np.random.Generator, n: int, delta: float = 0.005, die: int = 0) -> np.ndarray:
    """Die A's six (1 + delta)/6 likely, the other five equally less (a six forced in delta/5 of the
    rolls); die B fair."""
    faces = fair_dice(rng, n)
    faces[rng.random(n) < delta / 5, die] = 5
    return faces


@njit(cache=True)
def _lcg_faces(seed: int, count: int) -> np.ndarray:
    out = np.empty(count, dtype=np.uint8)
    state = np.uint32(seed)
    for i in range(count):
        state = np.uint32(np.uint32(1103515245) * state + np.uint32(12345))
        out[i] = state % 6
    return out


def dice_lcg_low_bits(rng: np.random.Generator, n: int) -> np.ndarray:
    """Each die is the state of the C library's LCG (mod 2^32) taken % 6: its low bit alternates."""
    return _lcg_faces(int(rng.integers(0, 2**32)), 2 * n).reshape(n, 2)


# --- biased shuffles -----------------------------------------------------------------------------

def _swap(decks: np.ndarray, i: np.ndarray | int, j: np.ndarray) -> None:
    rows = np.arange(len(decks))
    a = decks[rows, i].copy()
    decks[rows, i] = decks[rows, j]
    decks[rows, j] = a


def decks_swap_any(rng: np.random.Generator, n: int) -> np.ndarray:
    """The naive shuffle: swap each position with *any* position (53^53 paths onto 53! orders)."""
    decks = np.tile(np.arange(K, dtype=np.uint8), (n, 1))
    for i in range(K):
        _swap(decks, i, rng.integers(0, K, size=n))
    return decks


def decks_modulo_fisher_yates(rng: np.random.Generator, n: int) -> np.ndarray:
    """Fisher-Yates with ``byte % (i + 1)``: modulo bias from an 8-bit random source."""
    decks = np.tile(np.arange(K, dtype=np.uint8), (n, 1))
    for i in range(K - 1, 0, -1):
        _swap(decks, i, rng.integers(0, 256, size=n) % (i + 1))
    return decks


def decks_short_key_sort(rng: np.random.Generator, n: int) -> np.ndarray:
    """Sort the cards by an 8-bit random key (ties keep the new-deck order)."""
    keys = rng.integers(0, 256, size=(n, K))
    return np.argsort(keys, axis=1, kind="stable").astype(np.uint8)


def decks_cut_sometimes(rng: np.random.Generator, n: int, share: float = 0.02) -> np.ndarray:
    """2% (``share``) of the time the previous deck is only cut, not reshuffled."""
    fresh = fair_decks(rng, n)
    cut = rng.random(n) < share
    cut[0] = False
    shift = np.where(cut, rng.integers(1, K, size=n), 0)
    idx = np.maximum.accumulate(np.where(cut, 0, np.arange(n)))
    total = np.cumsum(shift)
    offset = (total - total[idx]) % K
    return np.take_along_axis(fresh[idx], (np.arange(K) + offset[:, None]) % K, axis=1)


def decks_joker_modulo(rng: np.random.Generator, n: int) -> np.ndarray:
    """The 52 cards shuffled correctly, the joker inserted at ``byte % 53`` (positions 1-44 favoured)."""
    base = rng.permuted(np.tile(np.arange(K - 1, dtype=np.uint8), (n, 1)), axis=1)
    where = (rng.integers(0, 256, size=n) % K)[:, None]
    pos = np.arange(K)[None, :]
    src = np.clip(np.where(pos < where, pos, pos - 1), 0, K - 2)
    return np.where(pos == where, K - 1, np.take_along_axis(base, src, axis=1)).astype(np.uint8)


def decks_joker_first_seven(rng: np.random.Generator, n: int, share: float = 0.01, first: int = 7) -> np.ndarray:
    """In 1% (``share``) of the decks the joker is swapped into the first seven (``first``) cards, a
    random one of them: seat 1's joker share rises from 7/53 to 7/53 + share * 46/53."""
    decks = fair_decks(rng, n)
    moved = np.flatnonzero(rng.random(n) < share)
    sub, rows = decks[moved], np.arange(len(moved))
    where, target = np.argmax(sub == K - 1, axis=1), rng.integers(0, first, size=len(moved))
    sub[rows, where] = sub[rows, target]
    sub[rows, target] = K - 1
    decks[moved] = sub
    return decks


def decks_small_seed(rng: np.random.Generator, n: int) -> np.ndarray:
    """Each deck from a generator reseeded with a 16-bit seed: only 65,536 decks can ever appear."""
    table = fair_decks(np.random.default_rng(20261130), 1 << 16)
    return table[rng.integers(0, 1 << 16, size=n)]


BIASED_DICE: dict[str, Generator] = {
    "modulo bias (byte % 6)": dice_modulo_byte,
    "a face favoured (+0.3 points)": dice_favoured_face,
    "a roll repeats the previous (+0.3%)": dice_sticky,
    "LCG low bits (% 6)": dice_lcg_low_bits,
}
BIASED_DECKS: dict[str, Generator] = {
    "swap with any position": decks_swap_any,
    "Fisher-Yates, byte % (i + 1)": decks_modulo_fisher_yates,
    "sort by an 8-bit key": decks_short_key_sort,
    "cut, not reshuffled (2%)": decks_cut_sometimes,
    "joker at byte % 53": decks_joker_modulo,
    "16-bit seed per deck": decks_small_seed,
}
