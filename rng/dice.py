"""The dice battery: is a sequence of rolls of two dice what fair, independent dice give?

Input: an ``(n, 2)`` array of faces 0..5 (die A, die B), in the order rolled. Every test returns a
:class:`~tablecert.rng.plan.TestResult` whose p-value is uniform under fair dice (see
:mod:`tablecert.rng.plan`); everything is vectorised with numpy (10 million rolls in seconds).

Tests: each die's faces, as one chi-square and as six proportions (each face against 1/6, the
test aimed at one face more likely); the 36 ordered pairs; the totals against their exact
1/36..6/36; serial pairs (consecutive non-overlapping rolls as one of 36 x 36 outcomes); repeats:
a roll repeating the previous one (exactly 1/36) and each die showing its previous face (exactly
1/6; a sticky die), the indicators pairwise independent; runs up and down of the rolls made
continuous by a seeded uniform jitter (iid continuous, so the Levene-Wolfowitz mean (2n-1)/3 and
variance (16n-29)/90 hold exactly); gaps between occurrences of a total (geometric); serial
correlation of totals at several lags (known mean 7 and variance 35/6); and the totals of
disjoint blocks, whose p-values go to a second-level uniformity test. Each test carries the bias
it is aimed at (:mod:`tablecert.rng.power`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy import stats

from tablecert.rng import MIN_ROLLS
from tablecert.rng.plan import TestResult, chi_square, chi_square_p, merge_rare, normal, uniformity
from tablecert.rng.power import Alternative, cell_bias, mean_bias, percent, proportion_bias

TOTAL_WAYS = np.array([1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1], dtype=np.float64)
TOTAL_P = TOTAL_WAYS / 36.0
"""Exact probabilities of the totals 2..12."""

TOTAL_VARIANCE = Fraction(35, 6)
"""Variance of the total of two fair dice (mean 7)."""

LAGS = (1, 2, 3, 5, 8)
GAP_TOTALS = (7, 2)
BLOCKS = 20


def _bars(labels: list[str], observed: np.ndarray, expected: np.ndarray) -> dict[str, object]:
    return {"kind": "bars", "labels": labels, "observed": [int(v) for v in observed],
            "expected": [float(f"{v:.6g}") for v in expected]}


def face_alternative(n: int, die: str) -> Alternative:
    """A face of one die (1 + delta)/6 likely, seen by that face's proportion test."""
    return proportion_bias(n, 1 / 6, lambda d: f"a face of die {die} at least {percent(d)} more (or less) likely "
                           "than 1/6 would have been caught")


def sticky_alternative(n: int, p0: float, what: str) -> Alternative:
    """A share delta of the rolls that repeat the previous outcome (probability ``p0``) for certain."""
    return proportion_bias(n, p0, lambda d: f"{what} in at least {percent(d)} of the rolls, beyond chance, "
                           "would have been caught", towards=1.0)


def face_tests(faces: np.ndarray) -> list[TestResult]:
    n = len(faces)
    table = np.bincount(faces[:, 0] * np.uint8(6) + faces[:, 1], minlength=36).reshape(6, 6)   # one pass
    out = []
    for d, name in ((0, "A"), (1, "B")):
        counts = table.sum(axis=1 - d)
        words = lambda x, name=name: (f"a face of die {name} at least {percent(x)} more likely than 1/6 (the other "  # noqa: E731
                                      "five equally less likely) would have been caught")
        out.append(chi_square(f"dice.faces_{name.lower()}", f"Die {name}: faces 1-6 equally likely", "dice", counts,
                              np.full(6, 1 / 6), chart=_bars(list("123456"), counts, np.full(6, n / 6)),
                              alternative=cell_bias(n, 1 / 6, 5, words)))
        for face in range(6):
            out.append(normal(f"dice.face_{name.lower()}{face + 1}", f"Die {name}: face {face + 1} one time in six",
                              "dice", float(counts[face]), n / 6, n * 5 / 36, n, alternative=face_alternative(n, name)))
    counts = table.ravel()
    out.append(chi_square("dice.pairs", "The 36 ordered pairs (A, B) equally likely", "dice", counts,
                          np.full(36, 1 / 36), chart={"kind": "heat", "row_name": "die A", "col_name": "die B",
                                                       "rows": list("123456"), "cols": list("123456"),
                                                       "matrix": counts.reshape(6, 6).tolist(), "expected": n / 36},
                          alternative=cell_bias(n, 1 / 36, 35, lambda x: f"one of the 36 pairs at least {percent(x)} "
                                                "more likely than 1/36 would have been caught")))
    totals = np.bincount(np.add.outer(np.arange(6), np.arange(6)).ravel(), weights=counts, minlength=11).astype(np.int64)
    out.append(chi_square("dice.totals", "Totals 2-12 against their exact 1/36 ... 6/36", "dice", totals, TOTAL_P,
                          chart=_bars([str(t) for t in range(2, 13)], totals, n * TOTAL_P),
                          alternative=cell_bias(n, 1 / 6, 10, seven_words)))
    return out


def seven_words(d: float) -> str:
    return f"a total of 7 at least {percent(d)} more likely than 6/36 (the others proportionally less) would have been caught"


def repeat_tests(faces: np.ndarray) -> list[TestResult]:
    """A roll repeating the previous one, and each die showing its previous face (a sticky die)."""
    n = len(faces)
    pair = faces[:, 0].astype(np.int64) * 6 + faces[:, 1]
    out = []
    for test_id, title, same, p, what in (
            ("dice.repeats", "A roll repeating the previous one (exactly 1/36)", pair[1:] == pair[:-1], 1 / 36,
             "a roll that sticks (repeats the previous roll)"),
            ("dice.repeats_a", "Die A showing its previous face (exactly 1/6)", faces[1:, 0] == faces[:-1, 0], 1 / 6,
             "die A sticking (showing its previous face)"),
            ("dice.repeats_b", "Die B showing its previous face (exactly 1/6)", faces[1:, 1] == faces[:-1, 1], 1 / 6,
             "die B sticking (showing its previous face)")):
        out.append(normal(test_id, title, "dice", int(np.count_nonzero(same)), (n - 1) * p, (n - 1) * p * (1 - p),
                          n - 1, alternative=sticky_alternative(n - 1, p, what)))
    return out


def serial_tests(faces: np.ndarray, jitter: np.random.Generator) -> list[TestResult]:
    n = len(faces)
    pair = faces[:, 0].astype(np.int64) * 6 + faces[:, 1]
    half = n // 2
    serial = np.bincount(pair[0:2 * half:2] * 36 + pair[1:2 * half:2], minlength=36 * 36)
    out = [chi_square("dice.serial_pairs", "Serial pairs: consecutive rolls as one of 36 x 36", "dice", serial,
                      np.full(36 * 36, 1 / 1296),
                      alternative=cell_bias(half, 1 / 1296, 1295, lambda x: "one of the 1,296 pairs of consecutive rolls "
                                            f"at least {percent(x)} more likely than 1/1,296 would have been caught"))]
    y = pair + jitter.random(n)
    up = y[1:] > y[:-1]
    runs = 1 + int(np.count_nonzero(up[1:] != up[:-1]))
    out.append(normal("dice.runs_up_down", "Runs up and down (rolls with a seeded jitter)", "dice", runs,
                      (2 * n - 1) / 3, (16 * n - 29) / 90, n,
                      alternative=mean_bias(n, (2 * n - 1) / 3, (16 * n - 29) / 90, lambda x: "runs up and down at "
                                            f"least {percent(x)} more or fewer than (2n - 1)/3 (rolls that trend or "
                                            "alternate) would have been caught")))
    totals = faces.sum(axis=1).astype(np.int64) + 2
    for total in GAP_TOTALS:
        out.append(gap_test(totals, total))
    x = totals - 7
    var = float(TOTAL_VARIANCE) ** 2
    for lag in LAGS:
        s = float(np.dot(x[:-lag], x[lag:]))
        words = lambda r, lag=lag: (f"a correlation of at least {r:.2g} (either sign) between totals {lag} roll"  # noqa: E731
                                     f"{'s' if lag > 1 else ''} apart would have been caught")
        out.append(normal(f"dice.serial_corr_{lag}", f"Serial correlation of totals at lag {lag}", "dice", s, 0.0,
                          (n - lag) * var, n - lag,
                          alternative=Alternative("normal", words, shift=lambda r, k=n - lag: r * np.sqrt(k), hi=0.5)))
    return out


def gap_test(totals: np.ndarray, total: int) -> TestResult:
    """Gaps (rolls in between) between occurrences of ``total``: geometric with p = P(total)."""
    p = float(TOTAL_P[total - 2])
    where = np.flatnonzero(totals == total)
    gaps = np.diff(where) - 1
    q = np.log1p(-p)
    edges = np.unique(np.ceil(np.log1p(-np.arange(1, BLOCKS) / BLOCKS) / q).astype(np.int64))
    edges = edges[edges > 0]
    lo = np.concatenate([[0], edges])
    probs = np.exp(lo * q) - np.concatenate([np.exp(edges * q), [0.0]])
    counts = np.bincount(np.searchsorted(edges, gaps, side="right"), minlength=len(lo))
    merged, probs = merge_rare(counts, probs, len(gaps))
    if len(merged) < 2:   # so few occurrences that the gaps cannot be binned: how likely is that?
        n = len(totals)
        return TestResult(f"dice.gaps_{total}", f"Gaps between totals of {total}: too few to bin", "dice",
                          "binomial (lower)", float(len(where)), None, float(stats.binom.cdf(len(where), n, p)), n)
    return chi_square(f"dice.gaps_{total}", f"Gaps between totals of {total} (geometric)", "dice", merged, probs,
                      alternative=gap_alternative(len(totals), p, total, edges, len(gaps)))


def gap_alternative(n: int, p: float, total: int, edges: np.ndarray, gaps: int) -> Alternative:
    """The total (1 + delta) times as likely: its gaps geometric with that probability, binned and
    merged like the test's."""
    lo = np.concatenate([[0], edges])

    def bins(q: float) -> np.ndarray:
        lq = np.log1p(-q)
        return np.exp(lo * lq) - np.concatenate([np.exp(edges * lq), [0.0]])

    p0 = bins(p)
    cells = len(merge_rare(p0, p0, gaps)[0])

    def lam(d: float) -> float:
        q = min(p * (1 + d), 0.999)
        p1, m0 = merge_rare(bins(q), p0, gaps)
        return float(n * q * (((p1 - m0) ** 2) / m0).sum())

    words = lambda d: (f"a total of {total} at least {percent(d)} more likely than {TOTAL_WAYS[total - 2]:.0f}/36, "  # noqa: E731
                       "its gaps shorter, would have been caught")
    return Alternative("chi2", words, lam=lam, df=cells - 1, hi=min(1 / p - 1, 1.0) * 0.99)


def block_test(faces: np.ndarray) -> TestResult:
    """Totals in each of 20 disjoint blocks; second level: are the 20 p-values uniform?"""
    size = len(faces) // BLOCKS
    totals = faces[:BLOCKS * size].sum(axis=1).astype(np.int64).reshape(BLOCKS, size)
    counts = np.bincount((np.arange(BLOCKS)[:, None] * 11 + totals).ravel(), minlength=BLOCKS * 11).reshape(BLOCKS, 11)
    ps = [chi_square_p(row, TOTAL_P) for row in counts]
    c = size * (1 / 6) / (5 / 6)
    words = lambda d: (f"a total of 7 at least {percent(d)} more likely than 6/36 in every block of 1/{BLOCKS} of "  # noqa: E731
                       "the rolls would have been caught (this test is aimed at a bias that comes and goes)")
    return uniformity("dice.totals_blocks", f"Totals in {BLOCKS} blocks: p-values uniform", "dice", ps,
                      alternative=Alternative("ks", words, lam=lambda d: c * d * d, df=10, blocks=BLOCKS, hi=1.0))


def dice_battery(faces: np.ndarray, seed: int) -> list[TestResult]:
    """Every dice test on ``faces`` (``(n, 2)`` of 0..5, n >= MIN_ROLLS); ``seed`` drives the jitter."""
    if len(faces) < MIN_ROLLS:
        raise ValueError(f"the dice battery needs at least {MIN_ROLLS:,} rolls, got {len(faces):,}")
    faces = np.ascontiguousarray(faces, dtype=np.uint8)
    jitter = np.random.Generator(np.random.PCG64(seed))
    return face_tests(faces) + repeat_tests(faces) + serial_tests(faces, jitter) + [block_test(faces)]
