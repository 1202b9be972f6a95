"""The raw battery (tablecert.rng.nist) against NIST SP 800-22 rev. 1a's own figures.

Every expected value here is printed in the publication (A. Rukhin et al., "A Statistical Test
Suite for Random and Pseudorandom Number Generators for Cryptographic Applications", NIST Special
Publication 800-22 Revision 1a, April 2010): the worked examples of each test (section 2.x.4
"Test Description" for the short ones, 2.x.8 "Example" for the long ones) and Appendix B's table
"Empirical results for sample data" (the P-values of every test on the first 10^6 bits of the
binary expansions of pi, e, sqrt 2 and sqrt 3). None is computed by the code under test.
"""

from __future__ import annotations

import nist_expansions
import numpy as np
import pytest

from tablecert.rng import nist

EPS100 = ("11001001000011111101101010100010001000010110100011"
          "00001000110100110001001100011001100010100010111000")
"""The 100-bit sequence of sections 2.1.8, 2.2.8, 2.3.8, 2.6.8, 2.12.8 and 2.13.8."""

EPS128 = ("11001100000101010110110001001100111000000000001001"
          "00110101010001000100111101011010000000110101111100"
          "1100111001101101100010110010")
"""The 128-bit sequence of section 2.4.8."""


@pytest.fixture(scope="module")
def expansions() -> dict[str, np.ndarray]:
    return {name: nist_expansions.load(name) for name in nist_expansions.NAMES}


def test_cached_expansions_are_the_constants() -> None:
    """The cached file holds the expansions: a prefix of each recomputed (mpmath, isqrt) and the
    leading bits as everyone knows them (pi = 3.243F6A88..., e = 2.B7E15162..., sqrt 2 =
    1.6A09E667..., sqrt 3 = 1.BB67AE85... in hexadecimal)."""
    for name, head in (("pi", "11" + "0010" "0100" "0011" "1111" "0110" "1010" "1000" "1000"),
                       ("e", "10" + "1011" "0111" "1110" "0001" "0101" "0001" "0110" "0010"),
                       ("sqrt2", "1" + "0110" "1010" "0000" "1001" "1110" "0110" "0110" "0111"),
                       ("sqrt3", "1" + "1011" "1011" "0110" "0111" "1010" "1110" "1000" "0101")):
        cached = nist_expansions.load(name)
        assert cached.size == 1_000_000
        assert "".join(map(str, cached[:len(head)])) == head, name
        assert np.array_equal(cached[:20_000], nist_expansions.compute(name, 20_000)), name


@pytest.mark.parametrize("test, args, text, expected", [
    (nist.frequency, {}, "1011010101", 0.527089),                  # 2.1.4
    (nist.frequency, {}, EPS100, 0.109599),                        # 2.1.8
    (nist.block_frequency, {"M": 3}, "0110011010", 0.801252),      # 2.2.4
    (nist.block_frequency, {"M": 10}, EPS100, 0.706438),           # 2.2.8
    (nist.runs, {}, "1001101011", 0.147232),                       # 2.3.4
    (nist.runs, {}, EPS100, 0.500798),                             # 2.3.8
    (nist.approximate_entropy, {"m": 3}, "0100110101", 0.261961),  # 2.12.4
    (nist.approximate_entropy, {"m": 2}, EPS100, 0.235301),        # 2.12.8
])
def test_worked_examples(test, args, text, expected) -> None:
    assert test(nist.bits_of(text), **args) == pytest.approx(expected, abs=1e-6)


def test_examples_the_publication_rounds() -> None:
    """2.4.8 prints chi-square 4.882605 and P-value 0.180609, but igamc(3/2, 4.882605/2) is 0.180598:
    the printed P-value is right to 1e-4 only. (The spectral test's short examples, 2.6.4 and
    2.6.8, are left out: they count N1 = 4 and 46 moduli under T where the transform of their
    own sequences has 5 and 48; the test is checked on the four 10^6-bit sequences of Appendix B.)"""
    assert nist.longest_run(nist.bits_of(EPS128)) == pytest.approx(0.180609, abs=1e-4)
    assert nist.igamc(3 / 2, 4.882605 / 2) == pytest.approx(0.180598, abs=1e-6)


def test_worked_examples_with_several_statistics() -> None:
    # 2.7.4: B = 001 in 10100100101110010110, N = 2 blocks
    p = nist.non_overlapping(nist.bits_of("10100100101110010110"), m=3, N=2, templates=(0b001,))
    assert p["001"] == pytest.approx(0.344154, abs=1e-6)
    # 2.11.4 (P-values as corrected in 2.11.6): m = 3 on 0011011101
    p = nist.serial(nist.bits_of("0011011101"), m=3)
    assert (p["1"], p["2"]) == (pytest.approx(0.808792, abs=1e-6), pytest.approx(0.670320, abs=1e-6))
    # 2.13.8: forward and backward
    p = nist.cumulative_sums(nist.bits_of(EPS100))
    assert (p["forward"], p["backward"]) == (pytest.approx(0.219194, abs=1e-6), pytest.approx(0.114866, abs=1e-6))


def test_long_examples_on_e(expansions) -> None:
    e = expansions["e"]
    assert nist.matrix_rank(e[:100_000]) == pytest.approx(0.532069, abs=1e-6)          # 2.5.8
    assert nist.overlapping(e, pi=nist.overlap_pi_formula()) == pytest.approx(0.110434, abs=1e-6)  # 2.8.8
    assert nist.linear_complexity(e, M=1000) == pytest.approx(0.845406, abs=1e-6)      # 2.10.8
    p = nist.serial(e, m=2)                                                             # 2.11.8
    assert (p["1"], p["2"]) == (pytest.approx(0.843764, abs=1e-6), pytest.approx(0.561915, abs=1e-6))
    # 2.14.8 (J = 1490): the states -4..-1 (the table's +1..+4 row does not match its own
    # chi-squares; Appendix B's +1 is checked below)
    p = nist.random_excursions(e)
    for state, expected in (("-4", 0.573306), ("-3", 0.197996), ("-2", 0.164011), ("-1", 0.007779)):
        assert p[state] == pytest.approx(expected, abs=1e-6), state
    # 2.15.8: every state -9..9
    p = nist.random_excursions_variant(e)
    published = (0.858946, 0.794755, 0.576249, 0.493417, 0.633873, 0.917283, 0.934708, 0.816012, 0.826009,
                 0.137861, 0.200642, 0.441254, 0.939291, 0.505683, 0.445935, 0.512207, 0.538635, 0.593930)
    for state, expected in zip(nist.VARIANT_STATES, published):
        assert p[f"{state:+d}"] == pytest.approx(expected, abs=1e-6), state


APPENDIX_B = {
    # test key in run_sequence: (pi, e, sqrt 2, sqrt 3) - Appendix B, "Empirical results for sample data"
    "frequency": (0.578211, 0.953749, 0.811881, 0.610051),
    "block_frequency": (0.380615, 0.211072, 0.833222, 0.473961),
    "cumulative_sums/forward": (0.628308, 0.669887, 0.879009, 0.917121),
    "cumulative_sums/backward": (0.663369, 0.724266, 0.957206, 0.689519),
    "runs": (0.419268, 0.561917, 0.313427, 0.261123),
    "longest_run": (0.024390, 0.718945, 0.012117, 0.446726),
    "rank": (0.083553, 0.306156, 0.823810, 0.314498),
    "fft": (0.010186, 0.847187, 0.581909, 0.776046),
    "non_overlapping_template/000000001": (0.165757, 0.078790, 0.569461, 0.532235),
    "overlapping_template": (0.296897, 0.110434, 0.791982, 0.082716),
    "universal": (0.669012, 0.282568, 0.130805, 0.165981),
    "approximate_entropy": (0.361595, 0.700073, 0.884740, 0.180481),
    "random_excursions/+1": (0.844143, 0.786868, 0.216235, 0.783283),
    "random_excursions_variant/-1": (0.760966, 0.826009, 0.566118, 0.155066),
    "linear_complexity": (0.255475, 0.826335, 0.317127, 0.346469),
    "serial/1": (0.143005, 0.766182, 0.861925, 0.157500),
}


@pytest.mark.parametrize("column, name", list(enumerate(nist_expansions.NAMES)))
def test_appendix_b(expansions, column, name) -> None:
    """All 15 tests (16 figures: cumulative sums forward and backward) on each expansion."""
    got = nist.run_sequence(expansions[name])
    # Appendix B's overlapping figures were computed with section 3.8's class probabilities, not
    # with the corrected ones the battery uses (nist.OVERLAP_PI)
    got["overlapping_template"] = nist.overlapping(expansions[name], pi=nist.overlap_pi_formula())
    wrong = {key: (got.get(key), row[column]) for key, row in APPENDIX_B.items()
             if got.get(key) is None or abs(got[key] - row[column]) > 1.5e-6}
    assert not wrong, f"{name}: (ours, published) {wrong}"


def test_overlap_probabilities() -> None:
    """Section 2.8.4's corrected probabilities and section 3.8's approximation (2.8.8 prints
    pi_0 = 0.367879 ... for the latter) each sum to 1."""
    assert sum(nist.OVERLAP_PI) == pytest.approx(1, abs=1e-6)
    assert nist.overlap_pi_formula()[:2] == (pytest.approx(0.367879, abs=1e-6), pytest.approx(0.183940, abs=1e-6))


def test_aperiodic_templates() -> None:
    """Section 2.7.2 / the reference code's templates9 file: 148 aperiodic templates of 9 bits."""
    assert len(nist.aperiodic_templates(9)) == 148
    assert nist.aperiodic_templates(9)[0] == 0b000000001
