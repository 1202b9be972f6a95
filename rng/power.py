"""What each test of the RNG battery would have caught: the smallest bias of its kind detected with
99% power at the family's level, at the sample actually taken.

Every first-level test carries an :class:`Alternative`: a one-parameter family of biased
generators of the kind the test aims at (a face more likely, a roll that sticks, the joker moved
into one seat, decks cut instead of reshuffled, ...), with the distribution of the test's
statistic under that bias:

* chi-square tests: noncentral chi-square with the test's df and noncentrality
  lambda = n * sum (p_i - p0_i)^2 / p0_i (times the test's scale, for the permutation tables);
* normal tests: the z-score is normal with the bias's mean shift and the ratio of its standard
  deviation to the null one;
* second-level KS tests: the same bias in every block, the block p-values drawn from the
  noncentral chi-square (a fixed-seed simulation of 4,000 batteries, common random numbers);
* duplicate decks: Poisson, with a generator that can deal only N orders.

The level is alpha/m, Holm's first step: whatever the other tests do, the battery fails whenever
one p-value is below it, so the power stated is a lower bound of the battery's power against
that bias. ``benchmarks/bench_rng.py`` checks the stated figures by simulation of the outcomes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from scipy import optimize, stats

POWER = 0.99
"""The power at which the detectable bias is stated."""

KS_BATTERIES = 4_000
"""Simulated second-level tests per power evaluation (fixed seed: the same figure every run)."""


@dataclass(frozen=True)
class Alternative:
    """A bias of size ``delta`` (a fraction: 0.005 is 0.5%) and the statistic's law under it.

    ``kind`` is one of ``"chi2"`` (``lam(delta)`` the noncentrality, ``df``), ``"normal"``
    (``shift(delta)`` the z-score's mean, ``spread(delta)`` its standard deviation; two-sided
    unless ``upper``), ``"ks"`` (``lam(delta)`` each block's noncentrality, ``df`` the blocks'
    df, ``blocks``) or ``"poisson"`` (``lam(delta)`` the expected duplicates). ``words`` turns the
    bias found into the sentence a lab signs; ``hi`` bounds the search."""

    kind: str
    words: Callable[[float], str]
    lam: Callable[[float], float] | None = None
    df: float = 1.0
    shift: Callable[[float], float] | None = None
    spread: Callable[[float], float] = lambda d: 1.0
    upper: bool = False
    blocks: int = 0
    hi: float = 1.0
    lo: float = 0.0                 # bottom of the search (default hi * 1e-9)
    bonferroni: int = 1             # the test is the smallest of this many p-values, times this many

    def power(self, delta: float, level: float) -> float:
        """Probability that the test's p-value is below ``level`` when the bias is ``delta``."""
        level /= self.bonferroni
        if self.kind == "chi2":
            assert self.lam is not None
            return float(stats.ncx2.sf(stats.chi2.isf(level, self.df), self.df, max(self.lam(delta), 1e-12)))
        if self.kind == "normal":
            assert self.shift is not None
            mu, sd = self.shift(delta), self.spread(delta)
            if self.upper:
                return float(stats.norm.sf((stats.norm.isf(level) - mu) / sd))
            z = stats.norm.isf(level / 2)
            return float(stats.norm.sf((z - mu) / sd) + stats.norm.cdf((-z - mu) / sd))
        if self.kind == "ks":
            assert self.lam is not None
            return ks_power(self.lam(delta), self.df, self.blocks, level)
        assert self.lam is not None
        return float(-math.expm1(-self.lam(delta)))       # any duplicate at all is rejected

    def detectable(self, level: float) -> float | None:
        """The smallest bias caught with POWER at ``level`` (None: not even at ``hi``)."""
        if self.power(self.hi, level) < POWER:
            return None
        lo = self.lo or self.hi * 1e-9
        if self.power(lo, level) >= POWER:
            return lo
        return float(optimize.brentq(lambda d: self.power(d, level) - POWER, lo, self.hi, xtol=lo, rtol=1e-6))

    def statement(self, level: float) -> dict[str, Any]:
        """``summary.json``'s ``power`` entry of the test: the bias and the words."""
        delta = self.detectable(level)
        basis = {"chi2": "noncentral chi-square", "normal": "normal", "ks": "simulated second level (4,000 runs)",
                 "poisson": "Poisson"}[self.kind]
        if delta is None:
            return {"power": POWER, "level": float(f"{level:.6g}"), "basis": basis, "bias": None,
                    "words": f"no bias of this kind within the range searched reaches {POWER:.0%} power at this sample"}
        return {"power": POWER, "level": float(f"{level:.6g}"), "basis": basis, "bias": float(f"{delta:.6g}"),
                "words": self.words(delta)}


def percent(delta: float) -> str:
    """A bias as a percentage with two significant figures (0.0031 -> '0.31%')."""
    value = 100 * delta
    return f"{value:.2g}%" if value < 10 else f"{value:.0f}%"


def cell_bias(n: float, p0: float, df: float, words: Callable[[float], str], scale: float = 1.0) -> Alternative:
    """One cell of probability ``p0`` made (1 + delta) times as likely, the others proportionally
    less: lambda = scale * n * delta^2 * p0 / (1 - p0)."""
    c = scale * n * p0 / (1 - p0)
    return Alternative("chi2", words, lam=lambda d: c * d * d, df=df, hi=max(1.0 / p0 - 1, 1.0) * 0.999)


def proportion_bias(n: float, p0: float, words: Callable[[float], str], towards: float | None = None,
                    upper: bool = False) -> Alternative:
    """A count of n Bernoulli(p0) events tested as a z-score. The bias: p = p0 (1 + delta)
    (``towards`` None), or a share delta of the trials forced to the event with probability
    ``towards`` (p = p0 + delta (towards - p0): a sticky roll, the joker moved into a seat)."""
    sd0 = math.sqrt(p0 * (1 - p0))

    def p(d: float) -> float:
        return p0 * (1 + d) if towards is None else p0 + d * (towards - p0)

    hi = min(1 / p0 - 1, 1.0) * 0.999 if towards is None else 0.999
    return Alternative("normal", words, shift=lambda d: math.sqrt(n) * (p(d) - p0) / sd0,
                       spread=lambda d: math.sqrt(p(d) * (1 - p(d))) / sd0, upper=upper, hi=hi)


def mean_bias(n: float, mean: float, variance: float, words: Callable[[float], str], upper: bool = False,
              hi: float = 1.0) -> Alternative:
    """A sum of null ``mean`` and ``variance`` (over the whole sample of n) whose mean moves by a
    fraction delta of itself (variance kept)."""
    sd = math.sqrt(variance)
    return Alternative("normal", words, shift=lambda d: d * mean / sd, upper=upper, hi=hi)


@lru_cache(maxsize=256)
def _ks_draws(df: float, blocks: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261201)
    z = rng.standard_normal((KS_BATTERIES, blocks))
    rest = rng.chisquare(df - 1, (KS_BATTERIES, blocks)) if df > 1 else np.zeros((KS_BATTERIES, blocks))
    return z, rest


def ks_power(lam: float, df: float, blocks: int, level: float) -> float:
    """Power of the exact KS test of ``blocks`` p-values, each from a chi-square(df) with
    noncentrality ``lam`` (noncentral chi-square = (Z + sqrt(lam))^2 + chi-square(df - 1))."""
    z, rest = _ks_draws(df, blocks)
    p = np.sort(stats.chi2.sf((z + math.sqrt(max(lam, 0.0))) ** 2 + rest, df), axis=1)
    i = np.arange(1, blocks + 1)
    d = np.maximum((i / blocks - p).max(axis=1), (p - (i - 1) / blocks).max(axis=1))
    return float(np.mean(d > stats.kstwo.isf(level, blocks)))
