"""The raw battery: NIST SP 800-22 rev. 1a's 15 tests on one sequence of bits.

Input: a ``uint8`` array of 0/1 (first bit first). :func:`run_sequence` gives every P-value of the
battery for one sequence, keyed ``test`` or ``test/statistic`` (the tests with several statistics:
serial, cumulative sums, each of the 148 aperiodic 9-bit templates, each state of the random
excursions and of their variant); each P-value is computed as the publication defines it
(section 2.x.4 "Test Description" and 2.x.5): erfc and the regularised upper incomplete gamma
``igamc`` of scipy.special, the chi-square class probabilities it states. The parameters are those
of its Appendix B ("Empirical results for sample data"), for sequences of 10^6 bits: block
frequency M = 128, longest run M = 10^4, templates m = 9 (non-overlapping in 8 blocks,
overlapping B = 1^9 in blocks of 1032), universal L = 7, Q = 1280, linear complexity M = 500,
serial m = 16, approximate entropy m = 10. Where the publication's own figures were computed with
class probabilities other than those printed in its text (overlapping templates, linear
complexity: the reference code's), :data:`OVERLAP_PI` and :data:`LINEAR_PI` say which the battery
uses and why.

A statistic that does not apply to a sequence (random excursions with fewer than 500 cycles)
is absent from its result; the decisions across sequences (:mod:`tablecert.rng.raw_plan`) count
the sequences each statistic applied to.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from scipy import fft, special, stats

from tablecert.rng import nist_kernels as k

SEQUENCE_BITS = 1_000_000
"""Bits of one sequence of the battery (Appendix B's length)."""

BLOCK_FREQUENCY_M = 128
TEMPLATE_M = 9
TEMPLATE_BLOCKS = 8
OVERLAP_BLOCK = 1032
LINEAR_M = 500
SERIAL_M = 16
ENTROPY_M = 10

OVERLAP_PI = (0.364091, 0.185659, 0.139381, 0.100571, 0.0704323, 0.139865)
"""Classes 0, 1, 2, 3, 4, >= 5 overlapping matches of 1^9 in 1032 bits, as section 2.8.4 prints
them (Hamano and Kaneko's corrected values): what the battery uses."""


@cache
def overlap_pi_formula(m: int = 9, M: int = 1032) -> tuple[float, ...]:
    """The same classes by the approximation of section 3.8 (eta = (M - m + 1) / 2^(m+1)), which
    the reference code computes and with which sections 2.8.8's and Appendix B's figures were
    obtained (they are reproduced with these, not with :data:`OVERLAP_PI`)."""
    eta = (M - m + 1) / 2 ** m / 2

    def pr(u: int) -> float:
        if u == 0:
            return math.exp(-eta)
        return sum(math.exp(-eta - u * math.log(2) + j * math.log(eta) - math.lgamma(j + 1) + math.lgamma(u)
                            - math.lgamma(j) - math.lgamma(u - j + 1)) for j in range(1, u + 1))

    pi = [pr(u) for u in range(5)]
    return (*pi, 1 - sum(pi))


LINEAR_PI = (0.01047, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833)
"""Classes of T of the linear complexity test (section 2.10.4 step 6; the first as in the
reference code, 0.01047, with which section 2.10.8's and Appendix B's figures were computed)."""

LONGEST_RUN = {  # n at least: (M, class edges lowest..highest, probabilities) - section 2.4.4
    750_000: (10_000, (10, 16), (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727)),
    6_272: (128, (4, 9), (0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124)),
    128: (8, (1, 4), (0.2148, 0.3672, 0.2305, 0.1875)),
}

UNIVERSAL = {6: (5.2177052, 2.954), 7: (6.1962507, 3.125), 8: (7.1836656, 3.238), 9: (8.1764248, 3.311),
             10: (9.1723243, 3.356)}
"""L: (expected value, variance) of section 2.9.4's table."""

EXCURSION_STATES = (-4, -3, -2, -1, 1, 2, 3, 4)
VARIANT_STATES = tuple(x for x in range(-9, 10) if x)
MIN_CYCLES = 500


def igamc(a: float, x: float) -> float:
    return float(special.gammaincc(a, x))


def erfc(x: float) -> float:
    return float(special.erfc(x))


def frequency(bits: np.ndarray) -> float:
    """2.1: the balance of ones and zeros."""
    s = 2 * int(bits.sum()) - bits.size
    return erfc(abs(s) / math.sqrt(bits.size) / math.sqrt(2))


def block_frequency(bits: np.ndarray, M: int = BLOCK_FREQUENCY_M) -> float:
    """2.2: the proportion of ones in each M-bit block."""
    N = bits.size // M
    pi = bits[:N * M].reshape(N, M).sum(axis=1) / M
    chi2 = 4.0 * M * float(((pi - 0.5) ** 2).sum())
    return igamc(N / 2, chi2 / 2)


def runs(bits: np.ndarray) -> float:
    """2.3: the number of runs (uninterrupted sequences of identical bits)."""
    n = bits.size
    pi = float(bits.sum()) / n
    if abs(pi - 0.5) >= 2 / math.sqrt(n):
        return 0.0
    v = 1 + int(np.count_nonzero(bits[1:] != bits[:-1]))
    return erfc(abs(v - 2 * n * pi * (1 - pi)) / (2 * math.sqrt(2 * n) * pi * (1 - pi)))


def longest_run(bits: np.ndarray) -> float:
    """2.4: the longest run of ones within M-bit blocks."""
    n = bits.size
    M, (low, high), pi = next(v for least, v in LONGEST_RUN.items() if n >= least)
    N = n // M
    longest = np.clip(k.block_longest_runs(bits, M, N), low, high)
    v = np.bincount(longest - low, minlength=high - low + 1)
    expected = N * np.asarray(pi)
    chi2 = float(((v - expected) ** 2 / expected).sum())
    return igamc((len(pi) - 1) / 2, chi2 / 2)


@cache
def rank_probabilities(m: int = 32) -> tuple[float, float, float]:
    """P(rank m), P(rank m - 1), P(less) of a random m x m matrix over GF(2) (section 2.5 and 3.5)."""
    def p(r: int) -> float:
        prod = 1.0
        for i in range(r):
            prod *= (1 - 2.0 ** (i - m)) ** 2 / (1 - 2.0 ** (i - r))
        return 2.0 ** (r * (2 * m - r) - m * m) * prod
    full, less1 = p(m), p(m - 1)
    return full, less1, 1 - full - less1


def matrix_rank(bits: np.ndarray) -> float:
    """2.5: the rank of disjoint 32 x 32 matrices over GF(2)."""
    N = bits.size // 1024
    rows = np.packbits(bits[:N * 1024].reshape(N * 32, 32), axis=1, bitorder="big").view(">u4").astype(np.uint32)
    ranks = k.gf2_ranks(rows.reshape(N, 32))
    observed = np.array([np.count_nonzero(ranks == 32), np.count_nonzero(ranks == 31), 0])
    observed[2] = N - observed[0] - observed[1]
    expected = N * np.asarray(rank_probabilities())
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    return math.exp(-chi2 / 2)


def spectral(bits: np.ndarray) -> float:
    """2.6: peaks in the discrete Fourier transform of the +-1 sequence."""
    n = bits.size
    x = 2.0 * bits - 1.0
    moduli = np.abs(fft.rfft(x)[:n // 2])
    threshold = math.sqrt(math.log(1 / 0.05) * n)
    n0 = 0.95 * n / 2
    n1 = int(np.count_nonzero(moduli < threshold))
    d = (n1 - n0) / math.sqrt(n * 0.95 * 0.05 / 4)
    return erfc(abs(d) / math.sqrt(2))


@cache
def aperiodic_templates(m: int = TEMPLATE_M) -> tuple[int, ...]:
    """The m-bit templates no proper shift of which overlaps itself (148 for m = 9), ascending."""
    out = []
    for t in range(1 << m):
        s = format(t, f"0{m}b")
        if all(s[j:] != s[:m - j] for j in range(1, m)):
            out.append(t)
    return tuple(out)


def non_overlapping(bits: np.ndarray, values: np.ndarray | None = None, m: int = TEMPLATE_M,
                    N: int = TEMPLATE_BLOCKS, templates: tuple[int, ...] | None = None) -> dict[str, float]:
    """2.7: each template's non-overlapping occurrences in N blocks (keys: the template; by
    default every aperiodic 9-bit template in 8 blocks)."""
    M = bits.size // N
    templates = aperiodic_templates(m) if templates is None else templates
    index = np.full(1 << m, -1, dtype=np.int64)
    index[list(templates)] = np.arange(len(templates))
    values = k.windows(bits, m, False) if values is None else values
    counts = k.template_counts(values, index, len(templates), m, M, N)
    mu = (M - m + 1) / 2 ** m
    var = M * (1 / 2 ** m - (2 * m - 1) / 2 ** (2 * m))
    chi2 = ((counts - mu) ** 2 / var).sum(axis=1)
    p = special.gammaincc(N / 2, chi2 / 2)
    return {format(t, f"0{m}b"): float(v) for t, v in zip(templates, p)}


def overlapping(bits: np.ndarray, values: np.ndarray | None = None, pi: tuple[float, ...] = OVERLAP_PI) -> float:
    """2.8: overlapping occurrences of 1^9 in blocks of 1032 bits (class probabilities ``pi``)."""
    m, M = TEMPLATE_M, OVERLAP_BLOCK
    N = bits.size // M
    values = k.windows(bits, m, False) if values is None else values
    counts = np.minimum(k.overlapping_counts(values, (1 << m) - 1, m, M, N), 5)
    v = np.bincount(counts, minlength=6)
    expected = N * np.asarray(pi)
    chi2 = float(((v - expected) ** 2 / expected).sum())
    return igamc(5 / 2, chi2 / 2)


def universal(bits: np.ndarray) -> float:
    """2.9: Maurer's universal statistical test (compressibility)."""
    n = bits.size
    L = 10 if n >= 6_225_920 else 9 if n >= 2_841_600 else 8 if n >= 2_068_480 else 7 if n >= 904_960 else 6
    Q = 10 * 2 ** L
    K = n // L - Q
    expected, variance = UNIVERSAL[L]
    fn = k.universal_sum(bits, L, Q, K) / K
    c = 0.7 - 0.8 / L + (4 + 32 / L) * K ** (-3 / L) / 15
    sigma = c * math.sqrt(variance / K)
    return erfc(abs(fn - expected) / (math.sqrt(2) * sigma))


def linear_complexity(bits: np.ndarray, M: int = LINEAR_M) -> float:
    """2.10: the length of the shortest LFSR generating each M-bit block (Berlekamp-Massey)."""
    N = bits.size // M
    L = k.linear_complexities(bits, M, N).astype(np.float64)
    mu = M / 2 + (9 + (-1) ** (M + 1)) / 36 - (M / 3 + 2 / 9) / 2 ** M
    T = (-1) ** M * (L - mu) + 2 / 9
    classes = np.digitize(T, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], right=True)
    v = np.bincount(classes, minlength=7)
    expected = N * np.asarray(LINEAR_PI)
    chi2 = float(((v - expected) ** 2 / expected).sum())
    return igamc(3, chi2 / 2)


def pattern_counts(bits: np.ndarray, m: int) -> np.ndarray:
    """Occurrences of every m-bit pattern among the n overlapping windows of the sequence with its
    first m - 1 bits appended (sections 2.11 and 2.12), indexed by the pattern's value."""
    return np.bincount(k.windows(bits, m, True), minlength=1 << m)


def fold_counts(counts: np.ndarray, m: int) -> np.ndarray:
    """:func:`pattern_counts` of a shorter ``m`` from those of a longer one: the m-bit window at
    each position is the top m bits of the longer window there (the appended bits cover both)."""
    return counts.reshape(1 << m, -1).sum(axis=1)


def _psi2(n: int, counts: np.ndarray, m: int) -> float:
    if m <= 0:
        return 0.0
    c = fold_counts(counts, m).astype(np.float64)
    return (2 ** m / n) * float((c ** 2).sum()) - n


def serial(bits: np.ndarray, m: int = SERIAL_M, counts: np.ndarray | None = None) -> dict[str, float]:
    """2.11: the frequency of every overlapping m-bit pattern (two statistics); ``counts``: the
    :func:`pattern_counts` of some length >= m, where the caller has them."""
    counts = pattern_counts(bits, m) if counts is None else counts
    psi = [_psi2(bits.size, counts, m - d) for d in range(3)]
    del1 = psi[0] - psi[1]
    del2 = psi[0] - 2 * psi[1] + psi[2]
    return {"1": igamc(2 ** (m - 2), del1 / 2), "2": igamc(2 ** (m - 3), del2 / 2)}


def approximate_entropy(bits: np.ndarray, m: int = ENTROPY_M, counts: np.ndarray | None = None) -> float:
    """2.12: overlapping m- and (m+1)-bit patterns against a random sequence's (``counts`` as for
    :func:`serial`, of a length >= m + 1)."""
    n = bits.size
    counts = pattern_counts(bits, m + 1) if counts is None else counts

    def phi(size: int) -> float:
        c = fold_counts(counts, size) / n
        c = c[c > 0]
        return float((c * np.log(c)).sum())

    apen = phi(m) - phi(m + 1)
    chi2 = 2 * n * (math.log(2) - apen)
    return igamc(2 ** (m - 1), chi2 / 2)


def _trunc_div(a: int, b: int) -> int:
    """C's integer division (toward zero), as the reference code's sums are bounded."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cusum_p(n: int, z: int) -> float:
    sqn = math.sqrt(n)
    phi = stats.norm.cdf
    lo1, hi = _trunc_div(_trunc_div(-n, z) + 1, 4), _trunc_div(_trunc_div(n, z) - 1, 4)
    ks = np.arange(lo1, hi + 1)
    s1 = float((phi((4 * ks + 1) * z / sqn) - phi((4 * ks - 1) * z / sqn)).sum())
    lo2 = _trunc_div(_trunc_div(-n, z) - 3, 4)
    ks = np.arange(lo2, hi + 1)
    s2 = float((phi((4 * ks + 3) * z / sqn) - phi((4 * ks + 1) * z / sqn)).sum())
    return 1 - s1 + s2


def cumulative_sums(bits: np.ndarray, walk: tuple[np.ndarray, np.ndarray, int] | None = None) -> dict[str, float]:
    """2.13: the largest excursion of the random walk, forward and backward. The backward walk's
    partial sums are the total less the forward ones: S'_k = S_n - S_(n-k), k = 1..n (S_0 = 0)."""
    s = (walk or _walk(bits))[0]
    total = int(s[-1])
    forward = int(np.abs(s).max())
    backward = max(abs(total), int(np.abs(total - s[:-1]).max()) if s.size > 1 else 0)
    return {"forward": _cusum_p(bits.size, forward), "backward": _cusum_p(bits.size, backward)}


def _walk(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    s = np.cumsum(2 * bits.astype(np.int32) - 1, dtype=np.int32 if bits.size < 1 << 31 else np.int64)
    zero = s == 0
    cycle = np.cumsum(zero) - zero          # the cycle each step belongs to (a zero closes it)
    J = int(zero.sum()) + (0 if zero[-1] else 1)
    return s, cycle, J


def excursion_probabilities(x: int) -> np.ndarray:
    """pi_k(x), k = 0..5 (5: five or more visits) of section 2.14.4 / 3.14."""
    a = 1 - 1 / (2 * abs(x))
    p = [1 - 1 / (2 * abs(x))] + [1 / (4 * x * x) * a ** (j - 1) for j in range(1, 5)] + [1 / (2 * abs(x)) * a ** 4]
    return np.array(p)


def random_excursions(bits: np.ndarray, walk: tuple[np.ndarray, np.ndarray, int] | None = None) -> dict[str, float]:
    """2.14: the number of visits to each state -4..4 within a cycle of the walk (absent when the
    walk has fewer than 500 cycles)."""
    s, cycle, J = walk or _walk(bits)
    if J < max(MIN_CYCLES, 0.005 * math.sqrt(bits.size)):
        return {}
    out = {}
    for x in EXCURSION_STATES:
        visits = np.minimum(np.bincount(cycle[s == x], minlength=J), 5)
        v = np.bincount(visits, minlength=6)
        expected = J * excursion_probabilities(x)
        chi2 = float(((v - expected) ** 2 / expected).sum())
        out[f"{x:+d}"] = igamc(5 / 2, chi2 / 2)
    return out


def random_excursions_variant(bits: np.ndarray,
                              walk: tuple[np.ndarray, np.ndarray, int] | None = None) -> dict[str, float]:
    """2.15: the total visits to each state -9..9 over all cycles (absent under 500 cycles)."""
    s, _, J = walk or _walk(bits)
    if J < max(MIN_CYCLES, 0.005 * math.sqrt(bits.size)):
        return {}
    near = s[(s >= -9) & (s <= 9)]
    counts = np.bincount(near + 9, minlength=19)
    return {f"{x:+d}": erfc(abs(int(counts[x + 9]) - J) / math.sqrt(2 * J * (4 * abs(x) - 2)))
            for x in VARIANT_STATES}


TESTS = ("frequency", "block_frequency", "cumulative_sums", "runs", "longest_run", "rank", "fft",
         "non_overlapping_template", "overlapping_template", "universal", "approximate_entropy",
         "random_excursions", "random_excursions_variant", "serial", "linear_complexity")
"""The 15 tests, in the order of the reference code's final report."""

TITLES = {"frequency": "Frequency (monobit)", "block_frequency": "Frequency within a block (M = 128)",
          "cumulative_sums": "Cumulative sums", "runs": "Runs", "longest_run": "Longest run of ones in a block",
          "rank": "Binary matrix rank (32 x 32)", "fft": "Discrete Fourier transform (spectral)",
          "non_overlapping_template": "Non-overlapping template matching (148 templates, m = 9)",
          "overlapping_template": "Overlapping template matching (m = 9)",
          "universal": "Maurer's universal statistical test (L = 7, Q = 1280)",
          "approximate_entropy": "Approximate entropy (m = 10)", "random_excursions": "Random excursions",
          "random_excursions_variant": "Random excursions variant", "serial": "Serial (m = 16)",
          "linear_complexity": "Linear complexity (M = 500)"}


def run_sequence(bits: np.ndarray) -> dict[str, float]:
    """Every P-value of the 15 tests on one sequence, keyed ``test`` or ``test/statistic``."""
    bits = np.ascontiguousarray(bits, dtype=np.uint8)
    out: dict[str, float] = {}

    def add(name: str, value: float | dict[str, float]) -> None:
        if isinstance(value, dict):
            out.update({f"{name}/{key}": v for key, v in value.items()})
        else:
            out[name] = value

    values = k.windows(bits, TEMPLATE_M, False)
    walk = _walk(bits)
    patterns = pattern_counts(bits, max(SERIAL_M, ENTROPY_M + 1))
    add("frequency", frequency(bits))
    add("block_frequency", block_frequency(bits))
    add("cumulative_sums", cumulative_sums(bits, walk))
    add("runs", runs(bits))
    add("longest_run", longest_run(bits))
    add("rank", matrix_rank(bits))
    add("fft", spectral(bits))
    add("non_overlapping_template", non_overlapping(bits, values))
    add("overlapping_template", overlapping(bits, values))
    add("universal", universal(bits))
    add("approximate_entropy", approximate_entropy(bits, counts=patterns))
    add("random_excursions", random_excursions(bits, walk))
    add("random_excursions_variant", random_excursions_variant(bits, walk))
    add("serial", serial(bits, counts=patterns))
    add("linear_complexity", linear_complexity(bits))
    return out


def bits_of(text: str) -> np.ndarray:
    """A string of ``0``/``1`` (spaces ignored) as the battery's input."""
    return np.frombuffer("".join(text.split()).encode("ascii"), dtype=np.uint8) - ord("0")
