"""The significance plan of the RNG battery, and the test results it decides.

The plan (stated again, with the numbers of the run, in the report):

* Every first-level test yields one p-value that is uniform (or conservative) when the outcomes
  come from a correct generator: chi-square goodness of fit against exact probabilities (dice
  faces, pairs, totals 1/36..6/36, label probabilities from the census), chi-square with the
  covariance of a permutation accounted for (card x position, card x seat, which card follows
  which), normal tests of counts and sums whose exact mean and variance are known (each face's
  proportion, repeats, the joker in each seat, runs up and down, serial correlation, inversions,
  cut checks), the worst card by seat with a Bonferroni factor, and an exact Poisson tail for
  duplicate decks.
* Where a test is run on disjoint sub-samples (blocks of rolls, blocks of decks, disjoint card
  groups of the permutation test), the sub-sample p-values are independent and uniform under a
  correct generator; a **second-level** Kolmogorov-Smirnov test of their uniformity is one more
  member of the family.
* The family (every first- and second-level test of the run) is controlled by **Holm-Bonferroni**
  at overall alpha = 0.01: sorted p-values p(1) <= ... <= p(m) are compared with alpha/(m - i + 1)
  until the first that is not below; it and all larger ones pass. Holm is valid under any
  dependence between the tests, so a correct generator fails the battery with probability at most
  0.01 (the family-wise error rate). ``benchmarks/bench_rng.py`` measures the observed rate.

The battery passes when no test is rejected. Each result also states its power: the smallest bias
of the kind it is aimed at that it catches with 99% probability at alpha/m
(:mod:`tablecert.rng.power`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy import stats

from tablecert.rng.power import Alternative

ALPHA = 0.01
"""Family-wise error rate of the whole battery."""


@dataclass(frozen=True)
class TestResult:
    """One member of the family: what was tested, the statistic and its p-value, the decision."""

    id: str
    title: str
    group: str                 # "dice" or "decks"
    method: str                # "chi-square", "normal", "KS", "Poisson", ...
    statistic: float
    df: float | None
    p_value: float
    n: int                     # sample size the test saw (rolls, decks, pairs, blocks)
    threshold: float = 0.0     # the Holm level this p-value was compared with
    rejected: bool = False
    chart: dict[str, Any] = field(default_factory=dict, compare=False)
    alternative: Alternative | None = field(default=None, compare=False, repr=False)
    power: dict[str, Any] = field(default_factory=dict, compare=False)   # filled by :func:`holm`

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "group": self.group, "method": self.method,
                "statistic": round(float(self.statistic), 6),
                "df": None if self.df is None else round(float(self.df), 3),
                "p_value": float(f"{self.p_value:.6g}"), "n": int(self.n),
                "threshold": float(f"{self.threshold:.6g}"), "decision": "fail" if self.rejected else "pass",
                "power": self.power}


def chi_square(test_id: str, title: str, group: str, observed: np.ndarray, expected_p: np.ndarray,
               scale: float = 1.0, df: float | None = None, chart: dict[str, Any] | None = None,
               alternative: Alternative | None = None) -> TestResult:
    """Pearson chi-square of ``observed`` counts against probabilities ``expected_p``; the
    statistic is multiplied by ``scale`` and referred to chi-square with ``df`` (default cells - 1)."""
    observed = np.asarray(observed, dtype=np.float64).ravel()
    n = float(observed.sum())
    expected = n * np.asarray(expected_p, dtype=np.float64).ravel()
    stat = float(((observed - expected) ** 2 / expected).sum()) * scale
    dof = float(observed.size - 1) if df is None else float(df)
    return TestResult(test_id, title, group, "chi-square", stat, dof, float(stats.chi2.sf(stat, dof)), int(n),
                      chart=chart or {}, alternative=alternative)


def chi_square_p(observed: np.ndarray, expected_p: np.ndarray) -> float:
    """The p-value alone (for sub-sample tests)."""
    return chi_square("", "", "", observed, expected_p).p_value


def normal(test_id: str, title: str, group: str, total: float, mean: float, variance: float, n: int,
           upper_only: bool = False, alternative: Alternative | None = None) -> TestResult:
    """A sum with known null mean and variance, as a z-score; two-sided unless ``upper_only``."""
    z = (total - mean) / np.sqrt(variance)
    p = float(stats.norm.sf(z)) if upper_only else float(2 * stats.norm.sf(abs(z)))
    return TestResult(test_id, title, group, "normal" + (" (upper)" if upper_only else ""), float(z), None, p, n,
                      alternative=alternative)


def uniformity(test_id: str, title: str, group: str, p_values: Sequence[float],
               alternative: Alternative | None = None) -> TestResult:
    """Second level: Kolmogorov-Smirnov test that independent sub-sample p-values are uniform."""
    ps = np.sort(np.asarray(p_values, dtype=np.float64))
    result = stats.kstest(ps, "uniform", method="exact")
    return TestResult(test_id, title, group, "KS (2nd level)", float(result.statistic), None, float(result.pvalue),
                      len(ps), chart={"kind": "phist", "p_values": [float(f"{p:.6g}") for p in ps]},
                      alternative=alternative)


def merge_rare(counts: np.ndarray, probs: np.ndarray, n: int, minimum: float = 5.0) -> tuple[np.ndarray, np.ndarray]:
    """Cells folded into their successor (in the given order) until each expects ``minimum``."""
    out_c: list[float] = []
    out_p: list[float] = []
    acc_c = acc_p = 0.0
    for c, p in zip(counts, probs):
        acc_c, acc_p = acc_c + float(c), acc_p + float(p)
        if acc_p * n >= minimum:
            out_c.append(acc_c)
            out_p.append(acc_p)
            acc_c = acc_p = 0.0
    if acc_p and out_c:
        out_c[-1] += acc_c
        out_p[-1] += acc_p
    return np.array(out_c), np.array(out_p)


def holm(results: Sequence[TestResult], alpha: float = ALPHA, power: bool = True) -> list[TestResult]:
    """The results with Holm's threshold and decision filled in (same order as given), and (unless
    ``power`` is False) each test's power statement at alpha/m, Holm's first step
    (:mod:`tablecert.rng.power`); the statements never change a decision."""
    m = len(results)
    order = sorted(range(m), key=lambda i: (results[i].p_value, results[i].id))
    decided: dict[int, TestResult] = {}
    stopped = False
    for rank, i in enumerate(order):
        threshold = alpha / (m - rank)
        rejected = not stopped and results[i].p_value < threshold
        stopped = stopped or not rejected
        alt = results[i].alternative
        decided[i] = replace(results[i], threshold=threshold, rejected=rejected,
                             power=alt.statement(alpha / m) if alt and power else {})
    return [decided[i] for i in range(m)]
