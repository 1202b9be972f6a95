"""The dealt words tested as a stream (tablecert.rng.paired_stream): a linear generator dealing
fails, a correct one passes; too few words are said to be untested."""

from __future__ import annotations

import numpy as np
import pytest
from raw_vendor import xorshift32

from tablecert.rng.paired_stream import MIN_BITS, frequency_caught, stream_verdict

WORDS = 72_000
"""About the words of the default pairing: 10,000 die outcomes, 1,000 decks of 52 swaps, 10,000 of a range."""


def packed(words: list[int] | np.ndarray) -> bytes:
    return np.asarray(words, dtype=np.uint64).astype(">u4").tobytes()


def test_xorshift32_fails_the_rank_member() -> None:
    """Every 32 consecutive xorshift32 words make a full-rank 32 x 32 matrix over GF(2) (the state
    update is an invertible linear map with a primitive polynomial), where a fair stream gives full
    rank in 28.9 % of matrices: the rank member is rejected."""
    verdict = stream_verdict(packed(xorshift32(2463534242, WORDS)), 32)
    assert verdict["decision"] == "fail" and "paired.rank" in verdict["rejected"]


@pytest.mark.parametrize("seed", range(3))
def test_a_correct_generator_passes(seed: int) -> None:
    words = np.random.Generator(np.random.PCG64(4000 + seed)).integers(0, 1 << 32, size=WORDS, dtype=np.uint64)
    verdict = stream_verdict(packed(words), 32)
    assert verdict["decision"] == "pass" and verdict["tested"] and verdict["words"] == WORDS
    assert verdict["family_size"] == 13 and verdict["period"] == 0


def test_a_repeating_dealt_stream_fails() -> None:
    words = np.resize(np.random.Generator(np.random.PCG64(1)).integers(0, 1 << 32, size=4_096, dtype=np.uint64), WORDS)
    verdict = stream_verdict(packed(words), 32)
    assert verdict["decision"] == "fail" and verdict["period"] == 4_096


def test_too_few_words_are_not_tested() -> None:
    verdict = stream_verdict(packed(list(range(100))), 32)
    assert not verdict["tested"] and f"{MIN_BITS:,}" in verdict["why"]


def test_power_statement() -> None:
    """At 2.3 x 10^6 bits and 13 members (11 NIST statistics, bit positions, repeats), z = 3.36 (0.01 / 13 / 2) + 2.33 (99 %): 5.69 x 0.5 /
    sqrt(2,304,000) = 0.00187."""
    assert frequency_caught(2_304_000, 13) == pytest.approx(0.00187, rel=0.01)
