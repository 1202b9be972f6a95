"""The raw battery's decisions across sequences (tablecert.rng.raw_plan)."""

from __future__ import annotations

import numpy as np
import pytest
import raw_generators as g
from scipy import stats

from tablecert.rng import nist
from tablecert.rng.raw_plan import RawBattery, battery_rows

SEQUENCES = 12
WORDS = nist.SEQUENCE_BITS // 32


def battery(generator: g.Words, seed: int) -> RawBattery:
    words = generator(seed, SEQUENCES * WORDS)
    return RawBattery().add_all(g.bits(words).reshape(SEQUENCES, -1))


def test_good_generator_passes() -> None:
    results = battery(g.good, 2026).results()
    assert not [r.id for r in results if r.rejected]
    rows = battery_rows(results)
    assert [row["test"] for row in rows] == [*nist.TESTS, "bit_positions"]
    assert {row["decision"] for row in rows} <= {"pass"}
    # 148 templates, 8 + 18 excursion states (where enough cycles), 2 serial, 2 cusum
    counts = {row["test"]: row["statistics"] for row in rows}
    assert counts["non_overlapping_template"] == 148 and counts["serial"] == 2 and counts["cumulative_sums"] == 2


def test_lcg_low_bits_fail() -> None:
    results = battery(g.lcg_low_bits, 7).results()
    rejected = {r.id for r in results if r.rejected}
    assert "raw.rank.proportion" in rejected and len(rejected) > 20


def test_proportion_member_is_the_binomial_tail() -> None:
    """3 failing sequences of 12 at 0.01: P(X >= 3) for X ~ binomial(12, 0.01), computed here
    from the binomial sum, not by the code under test."""
    b = RawBattery()
    b.p_values["frequency"] = [0.001, 0.002, 0.005] + [0.5] * 9
    b.sequences = 12
    (member,) = [r for r in b.members() if r.id == "raw.frequency.proportion"]
    tail = sum(stats.binom.pmf(k, 12, 0.01) for k in range(3, 13))
    assert member.p_value == pytest.approx(tail, rel=1e-9)
    assert member.statistic == pytest.approx(9 / 12)
    assert not any(r.id.endswith("uniformity") for r in b.members())      # 12 < 55 sequences


def test_uniformity_member_follows_section_4_2_2() -> None:
    """Section 4.2.2: ten bins, chi-square = sum (F_i - s/10)^2 / (s/10), P-value_T = igamc(9/2, chi2/2).
    All 60 P-values in one bin: chi2 = (60 - 6)^2 / 6 + 9 * 6 = 540."""
    b = RawBattery()
    b.p_values["runs"] = [0.55] * 60
    (member,) = [r for r in b.members() if r.id == "raw.runs.uniformity"]
    assert member.statistic == pytest.approx(540.0)
    assert member.p_value < 1e-100
    assert np.isclose(nist.igamc(4.5, 540.0 / 2), member.p_value)
