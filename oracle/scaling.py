"""The reference vendor's scaling: raw 32-bit words of its generator to die faces, ranges and
shuffles, the one code path that deals (``rng.dice``, ``rng.shuffle``) and that ``rng.scale``
runs on the words a lab supplies (:mod:`tablecert.oracle.outcomes`).

* a value in ``0 .. k-1`` from one word by **rejection**: a word at or above
  ``2^32 - (2^32 mod k)`` is discarded and the next word taken, else ``word mod k`` (every value
  then has exactly ``floor(2^32 / k)`` words: exact);
* a die face is such a value with k = 6;
* a shuffle of n items is Fisher-Yates from the top: for i = n-1 down to 1, swap item i with item
  j, j a value in ``0 .. i`` as above.

Each function says how many words every outcome consumed; an outcome the words run out in the
middle of is not dealt (its words are left unconsumed).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _bounded(words: np.ndarray, start: int, k: int) -> tuple[int, int]:
    """(value, next word index), or (-1, len) when the words run out."""
    limit = (1 << 32) - ((1 << 32) % k)
    i = start
    while i < words.size:
        w = np.int64(words[i])
        i += 1
        if w < limit:
            return int(w % k), i
    return -1, words.size


@njit(cache=True)
def scale_values(words: np.ndarray, k: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Up to ``count`` values in 0..k-1 (as many as the words give; ``count`` < 0: all), and the
    words each consumed."""
    limit = words.size if count < 0 else count
    values = np.empty(words.size if count < 0 else count, dtype=np.int64)
    used = np.empty_like(values)
    i = made = 0
    while made < limit:
        v, nxt = _bounded(words, i, k)
        if v < 0:
            break
        values[made] = v
        used[made] = nxt - i
        i = nxt
        made += 1
    return values[:made], used[:made]


@njit(cache=True)
def shuffle(words: np.ndarray, n: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Up to ``count`` shuffles of ``0..n-1`` (``count`` < 0: as many as the words give), each
    row the items in dealing order, and the words each consumed."""
    limit = words.size if count < 0 else count
    decks = np.empty((max(limit, 0) if count >= 0 else words.size // max(n - 1, 1) + 1, n), dtype=np.int64)
    used = np.empty(decks.shape[0], dtype=np.int64)
    i = made = 0
    while made < limit and made < decks.shape[0]:
        deck = np.arange(n)
        start = i
        ok = True
        for top in range(n - 1, 0, -1):
            j, i = _bounded(words, i, top + 1)
            if j < 0:
                ok = False
                break
            deck[top], deck[j] = deck[j], deck[top]
        if not ok:
            break
        decks[made] = deck
        used[made] = i - start
        made += 1
    return decks[:made], used[:made]
