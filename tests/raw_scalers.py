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
