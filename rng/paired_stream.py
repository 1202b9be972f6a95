"""The dealt stream is the tested stream: the words ``rng.paired`` says the game dealt from, tested
as a raw stream of their own.

The pairing check (:func:`tablecert.rng.raw_collect.check_pairs`) proves that each dealt outcome is
``rng.scale`` of its words; it says nothing of where the words came from. A vendor may serve a good
generator on ``rng.raw`` and deal from another. The contract has no op that replays the production
generator from a seed, so nothing ties the dealt words to the raw stream word for word; what can be
done is to test them: every paired word, in the order dealt, is one sequence of bits through the
tests of NIST SP 800-22 whose single-sequence P-value is calibrated at this length (frequency,
block frequency, cumulative sums, runs, binary matrix rank, serial, approximate entropy, and from
10^6 bits the longest run and linear complexity: the template and excursion tests, whose
approximations are checked across many sequences, are left to the raw battery), plus the raw
battery's bit-position and repeats members, decided by Holm at family-wise alpha 0.01.

Power: the frequency member at Holm's first step catches a share of ones off 1/2 by
:func:`frequency_caught` (99 % power); the rank member catches a linear generator of 32 bits of
state (xorshift32: every 32 x 32 matrix of consecutive words has full rank, where a fair stream
has it in 28.9 % of matrices) from a few hundred matrices. ``benchmarks/bench_rng_raw.py paired``
measures the false-failure rate on a correct generator.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from tablecert.rng import nist
from tablecert.rng.bit_positions import BitPositions
from tablecert.rng.plan import ALPHA, TestResult, holm
from tablecert.rng.power import POWER
from tablecert.rng.repeats import Repeats

MIN_BITS = 38_912
"""Fewest bits tested: the rank test's 38 matrices of 32 x 32 (section 2.5.7)."""

LONG_BITS = 1_000_000
"""From here the longest run (M = 10^4) and linear complexity (M = 500) apply."""


def _p_values(bits: np.ndarray) -> dict[str, float]:
    """NIST SP 800-22's parameters, the pattern lengths cut to what the length supports (section
    2.11.7: m < log2 n - 2 for the serial test; 2.12.7: m < log2 n - 5 for approximate entropy):
    at the default pairing's 2.3 x 10^6 bits they are Appendix B's, 16 and 10."""
    log2n = int(math.log2(bits.size))
    out: dict[str, float] = {"frequency": nist.frequency(bits), "block_frequency": nist.block_frequency(bits),
                             "runs": nist.runs(bits), "rank": nist.matrix_rank(bits),
                             "approximate_entropy": nist.approximate_entropy(bits, min(nist.ENTROPY_M, log2n - 6))}
    out.update({f"cumulative_sums/{k}": v for k, v in nist.cumulative_sums(bits).items()})
    out.update({f"serial/{k}": v for k, v in nist.serial(bits, min(nist.SERIAL_M, log2n - 3)).items()})
    if bits.size >= LONG_BITS:
        out["longest_run"] = nist.longest_run(bits)
        out["linear_complexity"] = nist.linear_complexity(bits)
    return out


def frequency_caught(bits: int, family: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest |share of ones - 1/2| the frequency member catches with ``power`` at Holm's
    first step alpha / ``family`` (normal approximation)."""
    z = stats.norm.isf(alpha / family / 2) + stats.norm.isf(1 - power)
    return float(z * 0.5 / math.sqrt(bits))


def stream_verdict(raw: bytes, width: int) -> dict[str, Any]:
    """The paired words (packed big-endian bytes, in the order dealt) tested as one stream."""
    bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8))
    words = len(raw) * 8 // width
    if bits.size < MIN_BITS:
        return {"words": words, "bits": int(bits.size), "tested": False,
                "why": f"{bits.size:,} bits: fewer than the {MIN_BITS:,} the stream tests need", "decision": "pass",
                "rejected": []}
    members = [TestResult(f"paired.{key}", nist.TITLES[key.split("/")[0]] + (f" [{key.split('/')[1]}]" if "/" in key else ""),
                          "paired", "NIST SP 800-22, one sequence", p, None, p, int(bits.size))
               for key, p in _p_values(bits).items()]
    positions = BitPositions(width)
    positions.add(bits[:words * width])
    repeats = Repeats(width)
    repeats.add_packed(raw)
    members += [positions.member(), repeats.member()]
    results = holm(members, ALPHA, power=False)
    found = repeats.found()
    return {"words": words, "bits": int(bits.size), "tested": True, "alpha": ALPHA, "family_size": len(results),
            "rejected": [r.id for r in results if r.rejected],
            "smallest_p": {"id": min(results, key=lambda r: r.p_value).id,
                           "p_value": float(f"{min(r.p_value for r in results):.4g}")},
            "frequency_caught": float(f"{frequency_caught(int(bits.size), len(results)):.3g}"), "power": POWER,
            "period": found.period if found else 0, "repeated_windows": found.repeated if found else 0,
            "decision": "fail" if any(r.rejected for r in results) else "pass"}
