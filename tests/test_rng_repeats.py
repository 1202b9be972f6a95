"""The repeats member (tablecert.rng.repeats): a stream repeating itself is found with its period,
every time, at the default size; good streams are not.

The default since 1.2: the member sees 2^25 + 2 words of 32 bits (33,554,434: windows at words
0..33,554,432), the battery's 3,125,000 words then 30,429,434 more collected for it alone. A
period P from word 0 on repeats the 33,554,433 - P windows at words P..33,554,432; the member
holds 1 window in 8 or 16 past 2^22 (decided by the window's value, so equal windows are held
together), and before the first thinning compares every window held: a period of at most about
2^22 words is found there, every window after it checked. A period of 2^24 words repeats
16,777,217 windows with 2^24 distinct values: missed only if every one is thinned, (15/16)^(2^24).

Whole path (the command's collection through the Python adapter, an in-process periodic vendor,
10^7 bits for NIST's 10 sequences): periods 2^10 and 2^24 and a good generator; each costs about
6 s, so the other periods (2^12 .. 2^22 and 2^24 - 3) feed the member directly, at the same size
and in the same 262,144-word answers.
"""

from __future__ import annotations

import hashlib
import io
from typing import Any

import numpy as np
import pytest
from pypdf import PdfReader

from tablecert.harness.contract import SessionOptions
from tablecert.oracle import outcomes
from tablecert.oracle.vendor import ReferenceVendor
from tablecert.reports.rng_report import render_raw_report
from tablecert.rng import repeats
from tablecert.rng.raw_api import evaluate_raw
from tablecert.rng.raw_collect import MAX_WORDS
from tablecert.rng.repeats import Repeats, default_words

WORDS = 10 ** 8 // 32
DEFAULT = default_words(32)


def good(seed: int, words: int, width: int = 32) -> np.ndarray:
    return np.random.Generator(np.random.PCG64(seed)).integers(0, 1 << width, size=words, dtype=np.uint64)


def periodic(period: int, words: int, width: int = 32, seed: int = 1) -> np.ndarray:
    return np.resize(good(seed, period, width).astype(np.uint32 if width == 32 else np.uint64), words)


def feed(stream: np.ndarray, width: int = 32, chunk: int = MAX_WORDS) -> Repeats:
    r = Repeats(width)
    dtype = {8: ">u1", 16: ">u2", 32: ">u4", 64: ">u8"}[width]
    for at in range(0, stream.size, chunk):
        r.add_packed(stream[at:at + chunk].astype(dtype).tobytes())
    return r


def pair(r: Repeats) -> tuple[int, int]:
    found = r.found()
    return (found.period, found.repeated) if found else (0, 0)


class Periodic(ReferenceVendor):
    """rng.raw serves a PCG64 cycle of ``period`` words, over and over (the reference vendor for
    everything else); ``period`` 0: PCG64 itself."""

    period = 0

    def __init__(self) -> None:
        super().__init__()
        self.served = 0
        self.cycle = good(self.period or 0, self.period) if self.period else None
        self.rng = np.random.Generator(np.random.PCG64(4242))

    def results(self, op: str, config: object, cases: list[Any]) -> list[dict[str, Any]]:
        if op != "rng.raw":
            return super().results(op, config, cases)
        out = []
        for case in cases:
            n = case["words"]
            if self.cycle is None:
                words = self.rng.integers(0, 1 << 32, size=n, dtype=np.uint32)
            else:
                words = self.cycle[(np.arange(self.served, self.served + n) % self.period)]
            self.served += n
            out.append({"words": outcomes.encode_words(words)})
        return out


class Period1024(Periodic):
    period = 1 << 10


class Period16M(Periodic):
    period = 1 << 24


def whole_path(vendor: str) -> dict[str, Any]:
    return evaluate_raw("python", f"{__name__}:{vendor}", SessionOptions(timeout=600), 10 ** 7, False)


@pytest.mark.parametrize("vendor, period", [("Period1024", 1 << 10), ("Period16M", 1 << 24)])
def test_period_caught_through_the_command_path_at_the_default_size(vendor: str, period: int) -> None:
    """The summary of the real collection: the member saw 33,554,434 words (312,500 the battery's),
    the period exact, every window compared repeating at it, the member rejected by Holm."""
    s = whole_path(vendor)
    seen = s["raw"]["repeats"]
    assert (seen["words"], seen["battery_words"], seen["extra_words"]) == (DEFAULT, 312_500, DEFAULT - 312_500)
    assert seen["ruled_out"] == 0 and seen["sha256"] != s["raw"]["sha256"]
    row = next(t for t in s["raw"]["tests"] if t["test"] == "repeats")
    assert row["period"] == period and row["repeated_windows"] == row["compared"] > 1_000
    assert "raw.repeats.window" in s["raw"]["rejected"] and s["verdict"] == "fail"


def test_good_generator_through_the_command_path() -> None:
    """PCG64 at the default size: nothing repeats, every period up to half the 33,554,434 words is
    ruled out (past 2^22 windows one in D is held), the battery's sha256 covers its 312,500 words."""
    s = whole_path("Periodic")
    seen = s["raw"]["repeats"]
    assert seen["words"] == DEFAULT and seen["ruled_out"] == DEFAULT // 2 == (1 << 24) + 1
    assert s["raw"]["sha256_covers"] == "the 10,000,000 bits of the battery's collection, words 0 to 312,499"
    served = np.random.Generator(np.random.PCG64(4242)).integers(0, 1 << 32, size=DEFAULT, dtype=np.uint32).astype(">u4")
    assert s["raw"]["sha256"] == hashlib.sha256(served[:312_500].tobytes()).hexdigest()
    assert seen["sha256"] == hashlib.sha256(served.tobytes()).hexdigest()
    assert seen["sha256_covers"] == ("words 0 to 33,554,433: the battery's 312,500 then 33,241,934 more, read by the "
                                     "repeats member only")
    row = next(t for t in s["raw"]["tests"] if t["test"] == "repeats")
    assert row["period"] == 0 and row["p_value"] == 1.0 and "raw.repeats.window" not in s["raw"]["rejected"]
    s["collected"] = {"started": "2026-12-07T18:00:00+00:00", "finished": "2026-12-07T18:00:09+00:00"}
    page1 = " ".join(PdfReader(io.BytesIO(render_raw_report(s))).pages[0].extract_text().split())
    assert ("The stream does not repeat: no period up to 16,777,217 words in the 33,554,434 words the repeats test "
            "saw (the battery's 312,500, then 33,241,934 more read by that test alone)") in page1


@pytest.mark.parametrize("period", [1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, (1 << 24) - 3])
def test_period_found_every_time_at_the_default_size(period: int) -> None:
    r = feed(periodic(period, DEFAULT, seed=period))
    found = r.found()
    assert found is not None and found.period == period and found.repeated == found.compared > 1_000
    if period <= 1 << 21:               # compared while every window was held: from word 0, all of them to 2^22
        assert found.first == 0 and found.kept_one_in == 1 and found.compared >= (1 << 22) - period
    member = r.member()
    assert member.p_value < 1e-15 and member.chart["period"] == period and member.chart["ruled_out"] == 0


def test_a_tail_before_the_period() -> None:
    """rho shape: 10^6 words of PCG64, then a cycle of 2^24 words over and over: the first repeat is
    at word 10^6 + 2^24 (first window held from 10^6 on), the period exact."""
    tail = 1_000_000
    stream = np.concatenate([good(3, tail), periodic(1 << 24, DEFAULT - tail, seed=4)])
    found = feed(stream).found()
    assert found is not None and found.period == 1 << 24 and found.first >= tail
    assert found.repeated == found.compared > 1_000


@pytest.mark.parametrize("period, found", [(WORDS - 2, True), (WORDS - 1, False)])
def test_the_longest_period_the_battery_alone_reaches(period: int, found: bool) -> None:
    """``--raw-repeat-words 0``: the member sees the battery's 3,125,000 words; its windows start at
    words 0..3,124,998 (the last one is words 3,124,998 and 3,124,999): a period of 3,124,998
    words repeats exactly one window (the one at 3,124,998 is the one at 0); 3,124,999 repeats
    none, and every period up to 3,124,998 is ruled out."""
    stream = good(7, WORDS)
    stream[period:] = stream[:WORDS - period]
    r = feed(stream)
    assert pair(r) == ((period, 1) if found else (0, 0))
    assert r.member().chart["ruled_out"] == (0 if found else WORDS - 2)


def test_the_p_value_is_the_birthday_bound() -> None:
    """One window repeated: M (M - 1) / 2^65; two windows apart at one distance: M^2 (M - 1) / 2^129
    (M the windows), worked out here on 99,999 windows; nothing repeated: 1."""
    words = 100_000
    one = feed(np.concatenate([good(7, words - 2), good(7, 2)]))         # the last window is the first
    assert pair(one) == (words - 2, 1)
    assert one.member().p_value == pytest.approx(99_999 * 99_998 / 2 ** 65)
    two = feed(np.concatenate([good(8, words - 4), good(8, 4)]))         # the last three windows: two apart
    assert pair(two) == (words - 4, 3)
    assert two.member().p_value == pytest.approx(99_999 * 99_999 * 99_998 / 2 ** 129)
    assert feed(good(9, words)).member().p_value == 1.0


@pytest.mark.parametrize("width", [8, 16, 64])
def test_other_widths(width: int) -> None:
    """A 64-bit window is 8, 4 or 1 words; a period of 5,000 words is found at its length."""
    words = 40_000
    r = feed(periodic(5_000, words, width), width, chunk=997)
    assert pair(r) == (5_000, words - 64 // width - 5_000 + 1)
    assert feed(good(7, words, width), width, chunk=997).found() is None
    assert default_words(width) == (1 << 25) + 64 // width


def test_chunks_do_not_matter() -> None:
    stream = periodic(3_000, 50_000)
    assert pair(feed(stream, chunk=1)) == pair(feed(stream, chunk=50_000)) == (3_000, 50_000 - 1 - 3_000)


def test_memory_is_bounded_and_the_period_still_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """With at most 4,096 windows held, 200,000 words keep about 1 in 64; a period of 50,000 words
    repeats 149,999 windows, of which about 2,300 are held: found, each held one checked."""
    monkeypatch.setattr(repeats, "MOST_KEPT", 4_096)
    r = feed(periodic(50_000, 200_000), chunk=10_000)
    assert r.rate >= 32 and r.kept <= 4_096
    found = r.found()
    assert found is not None and found.period == 50_000 and found.repeated == found.compared > 1_000


def test_a_repeat_seen_before_thinning_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A constant stream's one window may be thinned away past MOST_KEPT (its hash decides): the
    windows compared before the first thinning still give the period, 1 word."""
    monkeypatch.setattr(repeats, "MOST_KEPT", 4_096)
    value = next(v for v in range(1, 100) if not repeats._kept(np.array([v << 32 | v], dtype=np.uint64), 2)[0])
    r = feed(np.full(50_000, value, dtype=np.uint64), chunk=1_000)
    assert r.rate > 1 and r.kept == 0
    found = r.found()
    assert found is not None and (found.period, found.first, found.kept_one_in) == (1, 0, 1)


def test_constant_stream_repeats_after_one_word() -> None:
    assert pair(feed(np.zeros(1000, dtype=np.uint64))) == (1, 998)
