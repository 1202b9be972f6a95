"""The repeats member of the raw battery: does the stream repeat itself within the collection?

A generator with a short period (or a state reset, or a replayed buffer) serves the same words
again; NIST's 15 tests, run sequence by sequence, see it only by accident. Here every 64-bit
window of the stream that starts at a word (two 32-bit words, eight 8-bit words, one 64-bit word)
is a key; two equal keys at words i < j mean the stream at j repeats it at i. :meth:`Repeats.member`
reports the shortest distance found, ``P`` (the stream repeats after P words), and how many windows
repeat at exactly that distance (a period repeats every window after it; a coincidence, one).

Memory is bounded: a window is kept when the top ``log2 D`` bits of its Fibonacci hash (the key
times 2^64 / phi, modulo 2^64) are zero, D starting at 1 (every window kept) and doubling whenever more than
:data:`MOST_KEPT` windows are held (the windows already kept are thinned by the same rule, so the
rule stays one function of the window). A period P inside a collection of N words repeats N - P
windows, each kept with probability 1/D: at the default 10^8 bits (3,125,000 32-bit words, D = 1)
every repeat is found, every time; past ``MOST_KEPT`` windows a period is missed with
probability (1 - 1/D)^(N - P).

Under a correct generator the member fails only if two of the M windows kept are equal by
chance: at most M (M - 1) / 2^65 (the birthday bound: 2.6 x 10^-7 for the 3,124,999 windows of
the default 32-bit collection, 4.2 x 10^-6 for the 12,499,993 of 8-bit words); that bound is the
member's p-value when a repeat is found (1 when none is), decided with the rest of the family by
Holm.
"""

from __future__ import annotations

import numpy as np

from tablecert.rng.plan import TestResult

TEST = "repeats"
TITLE = "Repeats: a 64-bit window of the stream seen twice"
MOST_KEPT = 1 << 22
"""Most windows held (16 bytes each: 64 MB at most)."""


GOLDEN = np.uint64(0x9E3779B97F4A7C15)
"""Fibonacci hashing's multiplier (2^64 / phi, odd): the top bits of ``key * GOLDEN`` depend on
every bit of the key."""


def _kept(keys: np.ndarray, rate: int) -> np.ndarray:
    """The windows kept at 1 in ``rate`` (a power of two): the top log2(rate) bits of the key's
    Fibonacci hash all zero; every window at rate 1."""
    if rate == 1:
        return np.ones(keys.size, dtype=bool)
    return (keys * GOLDEN) >> np.uint64(64 - rate.bit_length() + 1) == 0


class Repeats:
    """64-bit windows of a stream of ``width``-bit words, fed as the packed big-endian bytes of
    each answer (:meth:`add_packed`), in order."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.size = width // 8
        self.carry = b""
        self.words = 0
        self.windows = 0
        self.rate = 1                               # D: a window kept when mix & (D - 1) == 0
        self.keys: list[np.ndarray] = []
        self.where: list[np.ndarray] = []
        self.kept = 0

    def add_packed(self, raw: bytes) -> None:
        data = np.frombuffer(self.carry + raw, dtype=np.uint8)
        first = self.words - len(self.carry) // self.size          # word index of data[0]
        self.words += len(raw) // self.size
        starts = (data.size - 8) // self.size + 1 if data.size >= 8 else 0
        if starts > 0:
            words = data[:data.size - data.size % self.size].view(f">u{self.size}").astype(np.uint64)
            per = 8 // self.size                                    # words in a window
            key = np.zeros(starts, dtype=np.uint64)
            for j in range(per):
                key = (key << np.uint64(self.width % 64)) | words[j:j + starts] if per > 1 else words[:starts]
            self.windows += starts
            if self.rate == 1:
                self.keys.append(key.copy())
                self.where.append(np.arange(first, first + starts, dtype=np.int64))
            else:
                at = np.flatnonzero(_kept(key, self.rate))
                self.keys.append(key[at])
                self.where.append(at + first)
            self.kept += self.keys[-1].size
            while self.kept > MOST_KEPT:
                self._thin()
        self.carry = data[starts * self.size:].tobytes() if starts else data.tobytes()   # the next windows' first words

    def _thin(self) -> None:
        self.rate *= 2
        keys, where = np.concatenate(self.keys), np.concatenate(self.where)
        chosen = _kept(keys, self.rate)
        self.keys, self.where = [keys[chosen]], [where[chosen]]
        self.kept = int(chosen.sum())

    def found(self) -> tuple[int, int]:
        """(the shortest distance P between two equal windows, how many windows repeat at P), or (0, 0)."""
        if not self.keys:
            return 0, 0
        keys, where = np.concatenate(self.keys), np.concatenate(self.where)
        order = np.argsort(keys, kind="stable")             # kept in stream order: equal keys stay in it
        keys, where = keys[order], where[order]
        same = keys[1:] == keys[:-1]
        if not same.any():
            return 0, 0
        gaps = (where[1:] - where[:-1])[same]
        period = int(gaps.min())
        return period, int(np.count_nonzero(gaps == period))

    def member(self) -> TestResult:
        period, support = self.found()
        kept = sum(k.size for k in self.keys)
        bound = min(1.0, kept * (kept - 1) / 2 ** 65) if period else 1.0
        chart = {"kind": "repeats", "words": self.words, "windows": self.windows, "kept_one_in": self.rate,
                 "period": period, "repeated_windows": support}
        return TestResult(f"raw.{TEST}.window", TITLE, "raw", "64-bit windows compared (birthday bound)",
                          float(period), None, bound, self.words, chart=chart)
