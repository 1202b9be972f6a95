"""The exact scaling analysis (tablecert.rng.scale_analysis) against scalers written here.

Expected probabilities are worked out by hand from the scaler's definition: 2^32 = 6 * 715827882 + 4,
so ``w % 6`` gives faces 0-3 715827883 words and faces 4-5 715827882 (deviation 2/(3 * 2^32)); the
multiply-shift boundaries ceil(j 2^32 / 6) give the counts 715827883, 715827883, 715827882,
715827883, 715827883, 715827882.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import raw_scalers as s

from tablecert.rng.scale_analysis import analyse

T = 1 << 32


def test_modulo_die_is_biased_exactly() -> None:
    result = analyse(s.as_scale(s.modulo), "die", 6, 32)
    assert result["decision"] == "fail" and result["models"] == ["w mod k"]
    assert result["probabilities"] == [str(Fraction(715827883, T))] * 4 + [str(Fraction(715827882, T))] * 2
    # faces 4-5 are short of 1/6 by (2^32 - 6 * 715827882) / (6 * 2^32) = 4 / (6 * 2^32)
    assert Fraction(result["max_deviation"]) == Fraction(1, 6) - Fraction(715827882, T) == Fraction(2, 3 * T)


def test_multiply_shift_die_is_biased_exactly() -> None:
    result = analyse(s.as_scale(s.multiply_shift), "die", 6, 32)
    assert result["decision"] == "fail" and result["models"] == ["multiply-shift floor(w k / 2^W)"]
    counts = [715827883, 715827883, 715827882, 715827883, 715827883, 715827882]
    assert result["probabilities"] == [str(Fraction(c, T)) for c in counts]


def test_float_die_is_the_multiply_shift_at_32_bits() -> None:
    """floor((w / 2^32) * 6) is exact in doubles at 32 bits: the same function, the same bias."""
    result = analyse(s.as_scale(s.floating), "die", 6, 32)
    assert result["decision"] == "fail"
    assert Fraction(result["max_deviation"]) == Fraction(2, 3 * T)


@pytest.mark.parametrize("scaler", [s.rejection, s.lemire])
def test_rejection_scalers_are_exact(scaler) -> None:
    result = analyse(s.as_scale(scaler), "die", 6, 32)
    assert result["decision"] == "pass" and result["max_deviation"] == "0"
    assert result["probabilities"] == ["1/6"] * 6


def test_range_with_large_modulus() -> None:
    """A range of 10^9: 2^32 = 4 * 10^9 + 294967296, so w mod 10^9 gives 5 words to the values
    below 294967296 and 4 to the rest: deviation 5/2^32 - 1/10^9."""
    result = analyse(s.as_scale(s.modulo), "range", 10**9, 32)
    assert Fraction(result["max_deviation"]) == Fraction(5, T) - Fraction(1, 10**9)
    assert analyse(s.as_scale(s.rejection), "range", 10**9, 32)["decision"] == "pass"


def test_scaler_skipping_a_word_fails() -> None:
    result = analyse(s.as_scale(s.rejection, skip=1), "die", 6, 32)
    assert result["decision"] == "fail" and not result["proved"]
    assert "consumed and discarded" in result["reason"]


def test_tolerance_is_the_labs() -> None:
    result = analyse(s.as_scale(s.modulo), "die", 6, 32, tolerance=Fraction(1, 10**9))
    assert result["decision"] == "pass" and result["tolerance"] == "1/1000000000"


def test_shuffle_with_rejection_is_exact() -> None:
    result = analyse(s.as_scale(shuffle_step=lambda w, k, swap: s.rejection(w, k)), "shuffle", 53, 32)
    assert result["decision"] == "pass", result
    assert result["structure"] == "Fisher-Yates from the top" and result["max_deviation"] == "0"


def test_fisher_yates_modulo_is_biased() -> None:
    result = analyse(s.as_scale(shuffle_step=lambda w, k, swap: s.modulo(w, k)), "shuffle", 53, 32)
    assert result["decision"] == "fail" and result["proved"]
    assert len(result["biased_swaps"]) == 52 - 5      # k = 2, 4, 8, 16, 32 divide 2^32: no bias there


def test_modulo_bias_on_one_position() -> None:
    """Swap 8 (0-based 7: top position 45, k = 46) uses w % 46: 2^32 mod 46 = 2^32 - 46 * 93368854 = 12,
    so 12 of its 46 positions get one word more."""
    result = analyse(s.as_scale(shuffle_step=s.biased_on_swap(7)), "shuffle", 53, 32)
    assert result["decision"] == "fail" and result["biased_swaps"] == [8]
    assert T % 46 == 12


def test_shuffle_reusing_words_fails() -> None:
    result = analyse(s.as_scale(shuffle_step=lambda w, k, swap: s.rejection(w, k), reuse=True), "shuffle", 53, 32)
    assert result["decision"] == "fail" and not result["proved"] and "reused" in result["reason"]
