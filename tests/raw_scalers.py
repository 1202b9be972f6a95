"""Scalers for the exact scaling analysis, as a vendor's ``rng.scale`` would run them on 32-bit
words: correct ones and the faults of issue #35. Each one-value scaler is ``f(w) -> value | None``
(None: the word is rejected); :func:`as_scale` turns scalers into the ``scale(kind, n, words)`` of
:mod:`tablecert.rng.scale_analysis`. Used by tests/test_rng_scaling.py and the faulty vendors of
tests/raw_vendor.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

T = 1 << 32
Value = Callable[[int, int], "int | None"]       # (word, k) -> value in 0..k-1, or None: rejected


def modulo(w: int, k: int) -> int | None:
    return w % k


def multiply_shift(w: int, k: int) -> int | None:
    return (w * k) >> 32


def floating(w: int, k: int) -> int | None:
    return math.floor((w / T) * k)


def rejection(w: int, k: int) -> int | None:
    return w % k if w < T - T % k else None


def lemire(w: int, k: int) -> int | None:
    m = w * k
    return None if (m & (T - 1)) < T % k else m >> 32


def values(f: Value, k: int, words: Sequence[int], skip: int = 0) -> tuple[list[Any], list[int]]:
    """As many values as the words give; ``skip`` words discarded after each value."""
    outs: list[Any] = []
    used: list[int] = []
    i = 0
    while i < len(words):
        start = i
        while i < len(words):
            v = f(words[i], k)
            i += 1
            if v is not None:
                break
        else:
            break
        if i + skip > len(words):
            break
        i += skip
        outs.append(v)
        used.append(i - start)
    return outs, used


def fisher_yates(words: Sequence[int], n: int, step: Callable[[int, int, int], "int | None"],
                 reuse: bool = False) -> tuple[list[Any], list[int]]:
    """Fisher-Yates from the top; ``step(word, k, swap)`` scales swap ``swap``'s word to 0..k-1;
    ``reuse``: one word serves two swaps (the fault)."""
    decks: list[Any] = []
    used: list[int] = []
    i = 0
    while True:
        deck = list(range(n))
        start = i
        ok = True
        kept: int | None = None
        for swap, top in enumerate(range(n - 1, 0, -1)):
            if reuse and kept is not None:
                j, kept = kept % (top + 1), None
            else:
                j = None
                while j is None:
                    if i >= len(words):
                        ok = False
                        break
                    w = words[i]
                    i += 1
                    j = step(w, top + 1, swap)
                    if reuse:
                        kept = w >> 16
                if not ok:
                    break
            deck[top], deck[j] = deck[j], deck[top]
        if not ok:
            return decks, used
        decks.append(deck)
        used.append(i - start)


def as_scale(die: Value | None = None, shuffle_step: Callable[[int, int, int], "int | None"] | None = None,
             skip: int = 0, reuse: bool = False) -> Callable[[str, int, Sequence[int]], tuple[list[Any], list[int]]]:
    def scale(kind: str, n: int, words: Sequence[int]) -> tuple[list[Any], list[int]]:
        if kind == "shuffle":
            assert shuffle_step is not None
            return fisher_yates(words, n, shuffle_step, reuse)
        assert die is not None
        return values(die, n, words, skip)
    return scale


def biased_on_swap(bad: int) -> Callable[[int, int, int], "int | None"]:
    """Rejection on every swap but ``bad`` (0-based), where ``w % k`` is used."""
    return lambda w, k, swap: modulo(w, k) if swap == bad else rejection(w, k)


# The held-out faults of issue #51, each on 32-bit words unless it takes ``width``.

def high_half(w: int, k: int) -> int | None:
    """(w >> 16) % k: the word's top half only, by modulo."""
    return (w >> 16) % k


def float32(w: int, k: int) -> int | None:
    """floor(u k) with u = w / 2^32 in single precision: words from 2^32 - 128 round to 1.0 (face k)."""
    import numpy as np
    return int(np.floor(np.float32(w) / np.float32(T) * np.float32(k)))


def limit_one_high(w: int, k: int) -> int | None:
    """Rejection at 2^32 - (2^32 mod k) + 1: one word too many accepted."""
    return w % k if w < T - T % k + 1 else None


def byte_limit(w: int, k: int) -> int | None:
    """Rejection at 2^32 - (2^8 mod k): the limit worked out for bytes."""
    return w % k if w < T - 256 % k else None


def rounded(width: int = 32) -> Value:
    """round(u (k - 1)), u = w / 2^W, instead of floor(u k) (half up, in doubles: exact here)."""
    return lambda w, k: math.floor(w / (1 << width) * (k - 1) + 0.5)


def short_top(w: int, k: int) -> int | None:
    """A value in 0..k-2: rejection to k - 1 values (the top value never comes)."""
    return rejection(w, k - 1)


def signed16(w: int, k: int) -> int | None:
    """C's signed % on a 16-bit word read as int16: truncation toward zero, so -5..5."""
    s = w - (1 << 16) if w >= 1 << 15 else w
    r = abs(s) % k
    return -r if s < 0 else r


def faces_from_one(width: int = 32) -> Value:
    """Rejection on W-bit words, then 1 + w mod k: faces 1..k, not 0..k-1."""
    top = 1 << width
    return lambda w, k: 1 + w % k if w < top - top % k else None


def bad_at(word: int, outcome: Any) -> Value:
    """Rejection, except that ``word`` gives ``outcome`` (a malformed one)."""
    return lambda w, k: outcome if w == word else rejection(w, k)


def naive(n: int) -> Callable[[int, int, int], "int | None"]:
    """The naive shuffle's swap of an n-card deck: any of the n positions (rejection to n), whatever the swap."""
    return lambda w, k, swap: rejection(w, n)


def sattolo(w: int, k: int, swap: int) -> int | None:
    """Sattolo's swap: a position strictly below the top (rejection to k - 1)."""
    return rejection(w, k - 1)
