"""The raw battery's two error rates, whole, at the default plan.

The plan (tablecert.rng.raw_plan): 100 sequences of 10^6 bits (10^8 bits, the command's default);
for each of NIST SP 800-22's 188 statistics a proportion member and a uniformity member, and the
bit-position member (tablecert.rng.bit_positions): 377 members, decided by Holm at family-wise
alpha 0.01, so a correct generator fails with probability at most 0.01.

Measured with ``python benchmarks/bench_rng_raw.py rates`` (whole battery, default plan, one
PCG64 / defect stream a seed, seeds 35000 on; 2 workers), on this machine on 2026-12-03
(its summary lines: ``rates lcg-low-bits ... 10/10``, ``rates stuck-bit-1e-4 ... 0/10``) and,
for the good generator, on 2026-12-06 (``rates --generators good --good-runs 500``, stopped
after 453 seeds, 35000-35452, load 2-10):

* good generator (PCG64): failed 1/453 collections, 0.0022 (95 % interval 0.00006 to 0.0122;
  seed 35101: one non-overlapping template's uniformity member), within the plan's bound, 0.01
  (at 0.01 a generator fails at most once in 453 with probability 0.059);
* LCG low bytes: failed 10/10 collections (95 % interval 0.692 to 1.000): the proportion and
  uniformity members of frequency, block frequency, cumulative sums, rank, FFT, templates ...;
* bit 31 stuck at 1 in 1 word in 10^4: failed 0/10 collections (95 % interval 0.000 to 0.308). The bit-position member is the whole
  evidence this defect leaves (its count is shifted by 0.18 sigma in 10^8 bits): the battery
  states that at 10^8 bits it catches a stuck bit with 99 % power from 1 word in about 240, and
  that 1 word in 10^4 needs about 1.7 x 10^11 bits (tests/test_rng_bit_positions.py checks both
  statements by simulation): a deep collection (``tablecert rng --raw 170000000000 --raw-sequences
  100``, the bit positions over every word) caught it, and the reference vendor passed the same
  (docs/labs/rng.md; tests/test_rng_raw_deep.py checks the deep member on a cheaper share).

The tests below run the same battery on a cheap configuration (12 sequences: 189 proportion
members and the bit-position member, no uniformity member under 55 sequences) and assert what
must hold there.
"""

from __future__ import annotations

import numpy as np
import pytest
import raw_generators as g

from tablecert.rng import nist
from tablecert.rng.raw_plan import RawBattery

SEQUENCES = 12
WORDS = nist.SEQUENCE_BITS // 32


def rejected(generator: g.Words, seed: int) -> list[str]:
    stream = generator(seed, SEQUENCES * WORDS)
    battery = RawBattery(32).add_all(g.bits(stream).reshape(SEQUENCES, -1))
    return [r.id for r in battery.results() if r.rejected]


def test_the_default_plan_has_377_members() -> None:
    """188 NIST statistics (148 templates, 8 + 18 excursion states, 2 serial, 2 cumulative sums, 10
    single tests), each a proportion and a uniformity member at 100 sequences, and the bit-position
    member: the m of the power statements."""
    one = nist.run_sequence(g.bits(g.good(1, WORDS)))
    battery = RawBattery(32)
    for seed in range(100):
        battery.add_p_values({key: (p + seed / 100) % 1 for key, p in one.items()})
    battery.positions.add(g.bits(g.good(2, WORDS)))
    assert len(one) == 188 and len(battery.members()) == 377


@pytest.mark.parametrize("seed", [35_000, 35_001])
def test_good_generator_is_not_rejected(seed: int) -> None:
    assert rejected(g.good, seed) == []


@pytest.mark.parametrize("seed", [35_000, 35_001])
def test_lcg_low_bits_are_rejected_by_many_members(seed: int) -> None:
    found = rejected(g.lcg_low_bits, seed)
    assert len(found) > 20 and "raw.rank.proportion" in found


def test_a_stuck_bit_in_one_word_in_50_is_rejected_by_the_bit_positions_alone() -> None:
    assert rejected(g.stuck_bit_at(1 / 50), 35_000) == ["raw.bit_positions.frequency"]


def test_the_p_values_of_a_good_generator_spread_evenly() -> None:
    """Not a decision: the P-values of 12 good sequences (162 statistics each, 188 where the walk
    has the 500 cycles of the excursion tests) fill the ten bins of section 4.2.2 evenly: each bin
    10 % within 2 points (about 2,000 P-values: a binomial standard error of 0.7 point)."""
    battery = RawBattery(32).add_all(g.bits(g.good(9, SEQUENCES * WORDS)).reshape(SEQUENCES, -1))
    ps = np.concatenate([np.asarray(v) for v in battery.p_values.values()])
    share = np.histogram(ps, bins=10, range=(0, 1))[0] / ps.size
    assert ps.size >= 12 * 162 and np.all(np.abs(share - 0.1) < 0.02)
