"""Decisions of the raw battery across sequences, under the family-wise plan of the outcome battery.

The raw stream is cut into sequences of :data:`~tablecert.rng.nist.SEQUENCE_BITS` bits; each
sequence gives the P-values of :func:`tablecert.rng.nist.run_sequence` (188 statistics: 148 of
them the non-overlapping templates, 8 random excursions states, 18 variant states, 2 serial, 2
cumulative sums, one each for the other tests) and only those P-values are kept
(:class:`RawBattery`: memory does not grow with the stream). For each statistic NIST SP 800-22
rev. 1a section 4.2 makes two decisions across the sequences it applied to, and each is one member
of the family here:

* **proportion of passing sequences** (4.2.1): a sequence passes a statistic at its
  P-value >= 0.01; under a correct generator the number failing is binomial (s, 0.01). The member's
  p-value is the exact binomial upper tail P(X >= failures) (NIST draws a 3-sigma interval
  around 0.99 instead; the tail is what Holm needs);
* **uniformity of P-values** (4.2.2): the P-values in ten bins [0, 0.1) ... [0.9, 1], chi-square
  with 9 degrees of freedom, P-value_T = igamc(9/2, chi2/2) (NIST asks P-value_T >= 0.0001);
  only where at least :data:`MIN_UNIFORMITY` sequences applied (4.2.2 asks 55).

A 189th statistic is the words' own (:mod:`tablecert.rng.bit_positions`): the frequency of ones
at each bit position of the words, which NIST's bit-string tests cannot see (a bit stuck in a
share of the words); it is one member, Bonferroni over the word's positions inside it. A 190th,
the repeats member (:mod:`tablecert.rng.repeats`): a 64-bit window of the whole collection seen
twice (a period shorter than the collection), one member, fed every word by the collector, and
*since 1.2* the words collected past the battery's for it alone (2^25 + 2 words of 32 bits by default).

The family (both members of every statistic, and the bit-position member) is decided with :func:`tablecert.rng.plan.holm`
at family-wise alpha = 0.01, as the outcome battery: a correct generator fails the raw battery
with probability at most 0.01 (Holm is valid under any dependence between the statistics, and
the 148 templates are far from independent). ``benchmarks/bench_rng_raw.py`` measures the
observed rate and the power against named defects.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np
from scipy import special, stats

from tablecert.rng import bit_positions, nist, repeats
from tablecert.rng.plan import ALPHA, TestResult, holm

SEQUENCE_ALPHA = 0.01
"""Level at which one sequence passes one statistic (section 4.2.1)."""

MIN_UNIFORMITY = 55
"""Fewest sequences for the uniformity decision (section 4.2.2)."""

MIN_SEQUENCES = 10
"""Fewest sequences the raw battery accepts."""

BINS = 10


class RawBattery:
    """P-values of every statistic, sequence by sequence (:meth:`add`), then the decisions
    (:meth:`results`)."""

    def __init__(self, width: int = 32) -> None:
        self.p_values: dict[str, list[float]] = defaultdict(list)
        self.sequences = 0
        self.positions = bit_positions.BitPositions(width)
        self.repeats = repeats.Repeats(width)

    def add(self, bits: np.ndarray) -> None:
        """One sequence: whole words of the declared width, each most significant bit first."""
        self.add_p_values(nist.run_sequence(bits))
        self.positions.add(bits)

    def add_p_values(self, p_values: dict[str, float]) -> None:
        """One sequence's P-values (:func:`tablecert.rng.nist.run_sequence`), computed elsewhere."""
        for key, p in p_values.items():
            self.p_values[key].append(p)
        self.sequences += 1

    def add_all(self, sequences: Iterable[np.ndarray]) -> RawBattery:
        for bits in sequences:
            self.add(bits)
        return self

    def members(self) -> list[TestResult]:
        """The family's members before Holm: a proportion and (where enough sequences applied) a
        uniformity test for every statistic, in the order of :data:`~tablecert.rng.nist.TESTS`, then
        the bit-position member (once words were added)."""
        out: list[TestResult] = []
        order = {name: i for i, name in enumerate(nist.TESTS)}
        for key in sorted(self.p_values, key=lambda key: (order[key.split("/")[0]], key)):
            ps = np.asarray(self.p_values[key])
            s = ps.size
            failures = int(np.count_nonzero(ps < SEQUENCE_ALPHA))
            title = nist.TITLES[key.split("/")[0]] + (f" [{key.split('/', 1)[1]}]" if "/" in key else "")
            histogram = np.histogram(ps, bins=BINS, range=(0.0, 1.0))[0]
            chart = {"kind": "counts", "histogram": histogram.tolist(), "sequences": s, "passed": s - failures}
            tail = float(stats.binom.sf(failures - 1, s, SEQUENCE_ALPHA)) if failures else 1.0
            out.append(TestResult(f"raw.{key}.proportion", title, "raw", "binomial (proportion)",
                                  (s - failures) / s, None, tail, s, chart=chart))
            if s >= MIN_UNIFORMITY:
                expected = s / BINS
                chi2 = float(((histogram - expected) ** 2 / expected).sum())
                out.append(TestResult(f"raw.{key}.uniformity", title, "raw", "chi-square (uniformity)", chi2,
                                      BINS - 1, float(special.gammaincc((BINS - 1) / 2, chi2 / 2)), s, chart=chart))
        if self.positions.words:
            out.append(self.positions.member())
        if self.repeats.windows:
            out.append(self.repeats.member())
        return out

    def results(self, alpha: float = ALPHA) -> list[TestResult]:
        """Every member decided by Holm at family-wise ``alpha``."""
        return holm(self.members(), alpha, power=False)


def battery_rows(results: list[TestResult]) -> list[dict[str, object]]:
    """One row per test of the 15 (then the repeats member's, then the bit-position member's, last)
    for the report: its statistics, the smallest proportion of passing sequences among them, the
    smallest uniformity P-value, the P-value histogram of all its statistics together, and whether
    any member was rejected."""
    rows = []
    for name in nist.TESTS:
        mine = [r for r in results if r.id.startswith(f"raw.{name}.") or r.id.startswith(f"raw.{name}/")]
        if not mine:
            rows.append({"test": name, "title": nist.TITLES[name], "statistics": 0, "decision": "not applicable"})
            continue
        proportions = [r for r in mine if r.id.endswith(".proportion")]
        uniform = [r for r in mine if r.id.endswith(".uniformity")]
        histogram = np.sum([r.chart["histogram"] for r in proportions], axis=0).tolist()
        worst = min(proportions, key=lambda r: r.statistic)
        rows.append({"test": name, "title": nist.TITLES[name], "statistics": len(proportions),
                     "sequences": worst.n, "passed": worst.chart["passed"],
                     "min_proportion": round(worst.statistic, 4),
                     "min_uniformity_p": float(f"{min(r.p_value for r in uniform):.4g}") if uniform else None,
                     "histogram": histogram, "decision": "fail" if any(r.rejected for r in mine) else "pass"})
    for r in results:
        if r.id.startswith(f"raw.{repeats.TEST}."):
            rows.append({"test": repeats.TEST, "title": r.title, "statistics": 1, **r.chart,
                         "p_value": float(f"{r.p_value:.4g}"), "decision": "fail" if r.rejected else "pass"})
    for r in results:
        if r.id.startswith(f"raw.{bit_positions.TEST}."):
            rows.append({"test": bit_positions.TEST, "title": r.title, "statistics": 1, "words": r.n,
                         "positions": len(r.chart["ones"]), "worst_position": r.chart["worst_position"],
                         "worst_share": r.chart["worst_share"], "p_value": float(f"{r.p_value:.4g}"),
                         "decision": "fail" if r.rejected else "pass"})
    return rows
