"""The raw battery's word-level member: the frequency of ones at each bit position of the words.

NIST SP 800-22 sees the raw stream as one string of bits and is blind to where a word starts: a
bit stuck at 1 (or 0) in a share ``r`` of the words moves that position's frequency of ones from
1/2 to 1/2 + r/2 (the stuck bit was already 1 in half of those words) and nothing else. This
member counts, over every collected word, the ones at each of the ``w`` positions (``w`` the
width the vendor declares); under a correct generator each count is binomial (N, 1/2).

* each position: the exact two-sided binomial P-value, ``min(1, 2 min(P(X <= c), P(X >= c)))``;
* the member: the smallest of the ``w`` P-values times ``w`` (Bonferroni over the positions,
  capped at 1), one member of the raw battery's family, decided by Holm with the rest
  (:mod:`tablecert.rng.raw_plan`).

Power (:func:`stuck_rate_caught`, :func:`words_to_catch`): the count at the stuck position is
binomial (N, 1/2 + r/2), so its z-score is shifted by r sqrt(N) (normal approximation; N is in
the millions) with a standard deviation sqrt(1 - r^2) ~ 1. At Holm's first step, alpha/m, the
member fails whenever that position's two-sided P-value is below alpha / (m w). At the default
collection, 10^8 bits of 32-bit words (N = 3,125,000) and m = 377 members, the stuck share caught
with 99 % power is about 1 word in 240; a stuck bit in 1 word in 10^4 needs about 1.7 x 10^11
bits: no test sees it in 10^8 bits, since this count is the whole evidence the defect leaves.

A deep collection (``tablecert rng --raw BITS --raw-sequences N``) counts every word of the
stream here (:meth:`BitPositions.add_packed`, on the words as they arrive, packed: a compiled
kernel tallies each byte of the word by its value, and the tally gives the ones at each
position; nothing is unpacked to one byte a bit) while NIST's 15 tests run on the first N
sequences only: the stream's length is then set by the stuck share the lab wants caught (1.7 x
10^11 bits, 5 to 6.5 minutes from a subprocess vendor on this machine, caught a bit stuck in 1 word
in 10^4 and passed the reference vendor: docs/labs/rng.md, "Deep collections").
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy import stats

from tablecert.rng.plan import TestResult
from tablecert.rng.power import POWER

TEST = "bit_positions"
TITLE = "Frequency of ones at each bit position of the words"


class BitPositions:
    """Ones at each bit position, summed over the words of every sequence added."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.ones = np.zeros(width, dtype=np.int64)
        self.words = 0

    def add(self, bits: np.ndarray) -> None:
        """``bits``: whole words, each most significant bit first (as ``rng.raw`` is unpacked)."""
        whole = bits.size // self.width
        self.ones += bits[:whole * self.width].reshape(whole, self.width).sum(axis=0, dtype=np.int64)
        self.words += whole

    def add_packed(self, raw: bytes) -> None:
        """``raw``: whole words as ``rng.raw`` streams them (big-endian, so byte ``k`` of a word
        holds positions ``8k`` to ``8k + 7``, most significant first)."""
        size = self.width // 8
        tally = np.zeros((size, 256), dtype=np.int64)
        _tally_bytes(np.frombuffer(raw, dtype=np.uint8), size, tally)
        self.ones += (tally @ _BITS_OF_BYTE).reshape(self.width)
        self.words += len(raw) // size

    def p_values(self) -> np.ndarray:
        """Each position's exact two-sided binomial P-value (position 0: the most significant)."""
        n, c = self.words, self.ones
        low = stats.binom.cdf(c, n, 0.5)
        high = stats.binom.sf(c - 1, n, 0.5)
        return np.minimum(1.0, 2 * np.minimum(low, high))

    def member(self) -> TestResult:
        """The family's member: the most extreme position, Bonferroni over the ``w`` positions."""
        ps = self.p_values()
        worst = int(np.argmin(ps))
        share = self.ones / max(self.words, 1)
        chart = {"kind": "positions", "ones": self.ones.tolist(), "words": self.words, "worst_position": worst,
                 "worst_share": float(f"{share[worst]:.8f}")}
        return TestResult(f"raw.{TEST}.frequency", TITLE, "raw", f"binomial, Bonferroni over {self.width} positions",
                          float(share[worst]), None, float(min(1.0, self.width * ps[worst])), self.words, chart=chart)


_BITS_OF_BYTE = np.unpackbits(np.arange(256, dtype=np.uint8)).reshape(256, 8).astype(np.int64)
"""Row ``v``: the bits of the byte value ``v``, most significant first."""


@njit(cache=True, nogil=True)
def _tally_bytes(data: np.ndarray, size: int, tally: np.ndarray) -> None:
    """``tally[k, v]`` += the words whose byte ``k`` (of ``size``) has the value ``v``."""
    for start in range(0, data.size - size + 1, size):
        for k in range(size):
            tally[k, data[start + k]] += 1


def _z_needed(width: int, family: int, alpha: float, power: float) -> float:
    return float(stats.norm.isf(alpha / family / width / 2) + stats.norm.isf(1 - power))


def stuck_rate_caught(words: int, width: int, family: int, alpha: float, power: float = POWER) -> float:
    """The smallest share of words with one bit stuck that the member catches with ``power`` at
    Holm's first step alpha / ``family`` (normal approximation of the binomial count)."""
    return _z_needed(width, family, alpha, power) / math.sqrt(words)


def words_to_catch(rate: float, width: int, family: int, alpha: float, power: float = POWER) -> int:
    """Words to collect so that a bit stuck in a share ``rate`` of them is caught with ``power``."""
    return math.ceil((_z_needed(width, family, alpha, power) / rate) ** 2)
