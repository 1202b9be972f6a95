"""The repeats member (tablecert.rng.repeats): a stream repeating itself within the collection is
found with its period, every time, at the default size; good streams are not.

The default collection is 10^8 bits: 3,125,000 words of 32 bits (2^21.6), fed as the command feeds
it, answers of 262,144 words. A period P leaves 3,124,999 - P repeated windows (windows at words
0..3,124,998; the one at i >= P equals the one at i - P). Periods of 2^22 words and more do not fit
twice in 10^8 bits: no test at that size can see them (5.4 x 10^8 bits are needed for 2^24).
"""

from __future__ import annotations

import numpy as np
import pytest

from tablecert.rng import repeats
from tablecert.rng.raw_collect import MAX_WORDS
from tablecert.rng.repeats import Repeats

WORDS = 10 ** 8 // 32


def good(seed: int, words: int, width: int = 32) -> np.ndarray:
    return np.random.Generator(np.random.PCG64(seed)).integers(0, 1 << width, size=words, dtype=np.uint64)


def periodic(period: int, words: int, width: int = 32, seed: int = 1) -> np.ndarray:
    return np.resize(good(seed, period, width), words)


def feed(stream: np.ndarray, width: int = 32, chunk: int = MAX_WORDS) -> Repeats:
    r = Repeats(width)
    dtype = {8: ">u1", 16: ">u2", 32: ">u4", 64: ">u8"}[width]
    raw = stream.astype(dtype).tobytes()
    step = chunk * width // 8
    for at in range(0, len(raw), step):
        r.add_packed(raw[at:at + step])
    return r


@pytest.mark.parametrize("period, found", [(WORDS - 2, True), (WORDS - 1, False)])
def test_the_longest_period_the_default_size_reaches(period: int, found: bool) -> None:
    """The default's windows start at words 0..3,124,998 (the last one is words 3,124,998 and
    3,124,999): a period of 3,124,998 words repeats exactly one window (the one at 3,124,998 is
    the one at 0), the longest period 10^8 bits can show; 3,124,999 repeats none."""
    stream = good(7, WORDS)
    stream[period:] = stream[:WORDS - period]
    r = feed(stream)
    assert r.found() == ((period, 1) if found else (0, 0))


@pytest.mark.parametrize("log2", range(10, 22))
def test_period_found_every_time_at_the_default_size(log2: int) -> None:
    period = 1 << log2
    r = feed(periodic(period, WORDS, seed=log2))
    assert r.found() == (period, WORDS - 1 - period)
    member = r.member()
    assert member.p_value < 1e-6 and member.chart["period"] == period


@pytest.mark.parametrize("seed", range(3))
def test_good_streams_do_not_repeat(seed: int) -> None:
    """PCG64 at the default size: no 64-bit window twice (the birthday bound, 3,124,999^2 / 2^65 =
    2.6 x 10^-7, is the chance a correct generator fails here)."""
    r = feed(good(1000 + seed, WORDS))
    assert r.found() == (0, 0) and r.member().p_value == 1.0 and r.windows == WORDS - 1


@pytest.mark.parametrize("width", [8, 16, 64])
def test_other_widths(width: int) -> None:
    """A 64-bit window is 8, 4 or 1 words; a period of 5,000 words is found at its length."""
    words = 40_000
    r = feed(periodic(5_000, words, width), width, chunk=997)
    assert r.found() == (5_000, words - 64 // width - 5_000 + 1)
    assert feed(good(7, words, width), width, chunk=997).found() == (0, 0)


def test_chunks_do_not_matter() -> None:
    stream = periodic(3_000, 50_000)
    assert feed(stream, chunk=1).found() == feed(stream, chunk=50_000).found() == (3_000, 50_000 - 1 - 3_000)


def test_memory_is_bounded_and_the_period_still_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """With at most 4,096 windows held, 200,000 words keep about 1 in 64; a period of 50,000 words
    repeats 149,999 windows, of which about 2,300 are kept: found."""
    monkeypatch.setattr(repeats, "MOST_KEPT", 4_096)
    r = feed(periodic(50_000, 200_000), chunk=10_000)
    assert r.rate >= 32 and r.kept <= 4_096
    period, support = r.found()
    assert period == 50_000 and support > 1_000


def test_constant_stream_repeats_after_one_word() -> None:
    assert feed(np.zeros(1000, dtype=np.uint64)).found() == (1, 998)
