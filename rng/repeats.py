"""The repeats member of the raw battery: does the stream repeat itself?

A generator with a short period (or a state reset, or a replayed buffer) serves the same words
again; NIST's 15 tests, run sequence by sequence, see it only by accident. Here every 64-bit
window of the stream that starts at a word (two 32-bit words, four 16-bit, eight 8-bit words, one
64-bit word) is a key; two equal keys at windows i < j mean the stream at j repeats it at i.
:meth:`Repeats.found` gives the shortest distance between two equal windows, ``P`` (the stream
repeats after P words), where the first window repeating at P starts, and how many of the windows
compared after it repeat at P (a period repeats every one; a coincidence, one).

The member sees more words than the battery's NIST tests: after the battery's collection the
command collects the words it needs (:data:`DEFAULT_REACH`, ``--raw-repeat-words``) and only
this member reads them (:mod:`tablecert.rng.raw_api`).

Memory is bounded: a window is kept when the top ``log2 D`` bits of its Fibonacci hash (the key
times 2^64 / phi, modulo 2^64) are zero, D starting at 1 (every window kept) and doubling whenever
more than :data:`MOST_KEPT` windows are held (the windows already kept are thinned by the same
rule, so the rule stays one function of the window, and two equal windows are kept or dropped
together). Before the first thinning every window held is compared (:meth:`Repeats._compare`), so a
repeat whose later window arrives while D = 1 (the first 2^22 windows: the whole default battery
collection of 3,125,000 32-bit words) is found, every time, whatever its length and wherever it
starts. Past that, a period P in N words (from word t on, ``t + P <= N - w`` for a window of w
words) is missed only if every distinct window repeated is thinned away: probability
(1 - 1/D)^k for k distinct windows repeated, k = min(P, N - w + 1 - t - P) for a period whose
windows are distinct; at the default 2^25 + 1 windows D is 8 or 16: for 2^22 <= P <= 2^24 and
t <= 2^24 - 2^22, k >= 2^22: nil; a cycle of P < 2^22 words entered after the first 2^22
windows, (15/16)^P (below 10^-28 from P = 1,000). :meth:`Repeats.ruled_out` is the longest period the member rules out.

Under a correct generator two given windows are equal with probability 2^-64 (overlapping or not:
each equation w[a] = w[a + d] fixes one fresh word), so a chance repeat among M windows has
probability at most M (M - 1) / 2^65 (3.1 x 10^-5 at the default 2^25 + 1 windows). A period
repeats many windows at one distance; two windows that do not overlap, both repeating at the same
distance d, fix 2 x 64 bits (the equations w[a] = w[a + d] form a forest), so a correct stream shows
that with probability at most M x M (M - 1) / 2 x 2^-128 (5.6 x 10^-17 at the default). The
member's p-value is the first bound when one window (or only overlapping ones) repeats at P, the
second when two that do not overlap do, 1 when nothing repeats; Holm decides it with the family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tablecert.rng.plan import TestResult

TEST = "repeats"
TITLE = "Repeats: a 64-bit window of the stream seen twice"
MOST_KEPT = 1 << 22
"""Most windows held (16 bytes each: 64 MB at most)."""

DEFAULT_REACH = 1 << 25
"""The longest period the default collection shows in every window's repeat, in words: the member
sees ``DEFAULT_REACH + w`` words (w the words of a 64-bit window), 2^25 + 2 words of 32 bits, so a
period of up to 2^24 words repeats at least half the windows."""


def default_words(width: int) -> int:
    """Words the repeats member sees by default: 2^25 plus one 64-bit window, for words of ``width`` bits."""
    return DEFAULT_REACH + 64 // width


GOLDEN = np.uint64(0x9E3779B97F4A7C15)
"""Fibonacci hashing's multiplier (2^64 / phi, odd): the top bits of ``key * GOLDEN`` depend on
every bit of the key."""


def _kept(keys: np.ndarray, rate: int) -> np.ndarray:
    """The windows kept at 1 in ``rate`` (a power of two): the top log2(rate) bits of the key's
    Fibonacci hash all zero; every window at rate 1."""
    if rate == 1:
        return np.ones(keys.size, dtype=bool)
    return (keys * GOLDEN) >> np.uint64(64 - rate.bit_length() + 1) == 0


@dataclass(frozen=True)
class Found:
    """A repeat: the shortest distance ``period`` between two equal windows, the window ``first``
    where the first repeat at that distance starts, ``repeated`` windows held from ``first`` on that
    repeat ``period`` words later, out of ``compared`` held from ``first`` on whose window
    ``period`` words later was in the stream (a period: all of them), ``apart`` whether two of the
    repeated windows do not overlap, and the 1 in ``kept_one_in`` windows held when it was found."""

    period: int
    first: int
    repeated: int
    compared: int
    apart: bool
    kept_one_in: int


class Repeats:
    """64-bit windows of a stream of ``width``-bit words, fed as the packed big-endian bytes of
    each answer (:meth:`add_packed`), in order."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.size = width // 8
        self.per = 64 // width                          # words in a window
        self.carry = b""
        self.words = 0
        self.windows = 0
        self.rate = 1                               # D: a window kept when mix & (D - 1) == 0
        self.keys: list[np.ndarray] = []
        self.where: list[np.ndarray] = []
        self.kept = 0
        self.best: Found | None = None
        self.compared_at = -1                       # the windows seen when found() last compared them

    def add_packed(self, raw: bytes) -> None:
        data = np.frombuffer(self.carry + raw, dtype=np.uint8)
        first = self.words - len(self.carry) // self.size          # word index of data[0]
        self.words += len(raw) // self.size
        starts = (data.size - 8) // self.size + 1 if data.size >= 8 else 0
        if starts > 0:
            words = data[:data.size - data.size % self.size].view(f">u{self.size}").astype(np.uint64)
            key = np.zeros(starts, dtype=np.uint64)
            for j in range(self.per):
                key = (key << np.uint64(self.width % 64)) | words[j:j + starts] if self.per > 1 else words[:starts]
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
        keys, where = self._held()
        if self.rate == 1:                          # the last moment every window is held: compare them all
            self._note(keys, where)
        self.rate *= 2
        chosen = _kept(keys, self.rate)
        self.keys, self.where = [keys[chosen]], [where[chosen]]
        self.kept = int(chosen.sum())

    def _held(self) -> tuple[np.ndarray, np.ndarray]:
        """The windows held, as one array each (kept so: no second copy)."""
        keys = np.concatenate(self.keys) if self.keys else np.zeros(0, dtype=np.uint64)
        where = np.concatenate(self.where) if self.where else np.zeros(0, dtype=np.int64)
        self.keys, self.where = [keys], [where]
        return keys, where

    def _note(self, keys: np.ndarray, where: np.ndarray) -> None:
        """Compare the windows held; keep the shorter repeat (at equal length, the one starting first:
        a comparison made while every window was kept, which compared them all)."""
        found = self._compare(keys, where)
        if found is not None and (self.best is None or (found.period, found.first) < (self.best.period, self.best.first)):
            self.best = found

    def _compare(self, keys: np.ndarray, where: np.ndarray) -> Found | None:
        ranked = np.sort(keys)                              # the common case, no window twice: one plain sort
        if not (ranked[1:] == ranked[:-1]).any():
            return None
        del ranked
        order = np.argsort(keys, kind="stable")             # held in stream order: equal keys stay in it
        same = keys[order[1:]] == keys[order[:-1]]
        gaps = where[order[1:]] - where[order[:-1]]
        period = int(gaps[same].min())
        at = where[order[:-1][same & (gaps == period)]]     # the windows repeating `period` words later
        del order, gaps, same
        first = int(at.min())
        compared = int(np.count_nonzero((where >= first) & (where <= self.windows - 1 - period)))
        return Found(period, first, int(at.size), compared, bool(at.max() - first >= self.per), self.rate)

    def found(self) -> Found | None:
        """The shortest repeat seen, or None (the windows held compared once per state of the stream)."""
        if self.compared_at != self.windows:
            self._note(*self._held())
            self.compared_at = self.windows
        return self.best

    def ruled_out(self) -> int:
        """The longest period P ruled out when nothing repeats: every P up to the windows less one
        while every window was kept (every repeat compared); past thinning, P up to half the words
        (a period repeats at least N/2 - w + 1 windows, every distinct one thinned with probability
        1 - 1/D)."""
        return max(0, self.windows - 1) if self.rate == 1 else self.words // 2

    def p_value(self, found: Found | None) -> float:
        """The birthday bound of :mod:`this module <tablecert.rng.repeats>`: M (M - 1) / 2^65 for one
        repeat, M^2 (M - 1) / 2^129 for two windows apart at one distance, 1 for none."""
        m = self.windows
        if found is None:
            return 1.0
        return min(1.0, m * m * (m - 1) / 2 ** 129 if found.apart else m * (m - 1) / 2 ** 65)

    def member(self) -> TestResult:
        found = self.found()
        chart: dict[str, Any] = {"kind": "repeats", "words": self.words, "windows": self.windows, "kept_one_in": self.rate,
                 "period": found.period if found else 0, "repeated_windows": found.repeated if found else 0,
                 "first": found.first if found else None, "compared": found.compared if found else 0,
                 "compared_one_in": found.kept_one_in if found else self.rate,
                 "ruled_out": 0 if found else self.ruled_out()}
        return TestResult(f"raw.{TEST}.window", TITLE, "raw", "64-bit windows compared (birthday bound)",
                          float(chart["period"]), None, self.p_value(found), self.words, chart=chart)
