"""Raw word streams for measuring the raw battery's two error rates: a correct generator and the
defects issue #35 names. Each is ``f(seed, words) -> uint32 words``; :func:`bits` turns words into
the battery's bits (big-endian, most significant bit first, as ``rng.raw`` streams them). Used by
tests/test_rng_raw*.py and benchmarks/bench_rng_raw.py.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

Words = Callable[[int, int], np.ndarray]


def good(seed: int, words: int) -> np.ndarray:
    """numpy's PCG64: a correct generator."""
    return np.random.Generator(np.random.PCG64(seed)).integers(0, 1 << 32, size=words, dtype=np.uint32)


def mt19937(seed: int, words: int) -> np.ndarray:
    """numpy's MT19937 (the Mersenne Twister): the other correct generator the battery must pass."""
    return np.random.Generator(np.random.MT19937(seed)).integers(0, 1 << 32, size=words, dtype=np.uint32)


@njit(cache=True)
def _lcg(seed: int, words: int) -> np.ndarray:
    out = np.empty(words, dtype=np.uint32)
    x = np.uint32(seed)
    for i in range(words):
        x = np.uint32(1664525) * x + np.uint32(1013904223)      # Numerical Recipes' 32-bit LCG
        out[i] = x
    return out


def lcg_low_bits(seed: int, words: int) -> np.ndarray:
    """Four words of a 32-bit LCG's low bytes packed into one (the low k bits of a power-of-two
    LCG have period 2^k): a defect of many shipped generators."""
    low = _lcg(seed, 4 * words) & 0xFF
    return (low.reshape(words, 4).astype(np.uint32) << np.array([24, 16, 8, 0], dtype=np.uint32)).sum(
        axis=1, dtype=np.uint32)


def stuck_bit(seed: int, words: int, rate: float = 1e-4, bit: int = 31) -> np.ndarray:
    """A good stream with one bit stuck at 1 in a share ``rate`` of the words (1 in 10^4)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    out = rng.integers(0, 1 << 32, size=words, dtype=np.uint32)
    out[rng.random(words) < rate] |= np.uint32(1 << bit)
    return out


DTYPES = {8: ">u1", 16: ">u2", 32: ">u4", 64: ">u8"}


def good_at(width: int, seed: int, words: int) -> np.ndarray:
    """PCG64 words of ``width`` bits (8, 16, 32 or 64), as uint64 values."""
    return np.random.Generator(np.random.PCG64(seed)).integers(0, 1 << width, size=words, dtype=np.uint64)


def bits(words: np.ndarray) -> np.ndarray:
    """The words' bits, each word most significant bit first."""
    return np.unpackbits(words.astype(">u4").view(np.uint8))


def stuck_bit_at(rate: float) -> Words:
    """:func:`stuck_bit` at another share of the words."""
    return lambda seed, words: stuck_bit(seed, words, rate)


GENERATORS: dict[str, Words] = {"good": good, "mt19937": mt19937, "lcg-low-bits": lcg_low_bits, "stuck-bit-1e-4": stuck_bit,
                                "stuck-bit-1/200": stuck_bit_at(1 / 200), "stuck-bit-1/400": stuck_bit_at(1 / 400)}
"""The two good generators (PCG64, MT19937) and the named defects: an LCG's low bytes; bit 31 stuck at 1 in 1 word in
10^4 (issue #35's defect), in 1 word in 200 (a larger share than the 1 in about 240 the battery
states it catches with 99 % power at 10^8 bits) and in 1 word in 400 (a smaller one: about 30 %
at Holm's first step)."""
