"""The binary expansions of pi, e, sqrt 2 and sqrt 3 that NIST SP 800-22 rev. 1a's Appendix B
tests (its files data.pi, data.e, data.sqrt2, data.sqrt3): the first 10^6 bits of each, integer
part first (pi = 11.00100100..., e = 10.10110111..., sqrt 2 = 1.01101010..., sqrt 3 = 1.10111011...).

:func:`compute` derives them with mpmath (pi and e) and exact integer square roots; they are kept
in ``tests/data/nist_expansions.npz`` (bit-packed, 125,000 bytes each) because mpmath takes tens of
seconds for a million bits of pi. ``python tests/nist_expansions.py`` writes the file again;
``tests/test_rng_nist.py`` recomputes a prefix of each and compares.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data" / "nist_expansions.npz"
BITS = 1_000_000
NAMES = ("pi", "e", "sqrt2", "sqrt3")


def compute(name: str, bits: int) -> np.ndarray:
    """The first ``bits`` bits of the expansion, as uint8 0/1."""
    if name in ("sqrt2", "sqrt3"):
        value = math.isqrt(int(name[-1]) << (2 * (bits - 1)))       # floor(sqrt(k) * 2^(bits-1))
    else:
        import mpmath

        with mpmath.workprec(bits + 64):
            constant = mpmath.pi if name == "pi" else mpmath.e
            value = int(mpmath.floor(constant * mpmath.mpf(2) ** (bits - 2)))
    text = format(value, "b")
    assert len(text) == bits, (name, len(text))
    return np.frombuffer(text.encode("ascii"), dtype=np.uint8) - ord("0")


def load(name: str) -> np.ndarray:
    """The cached 10^6 bits of one expansion."""
    with np.load(DATA) as data:
        return np.unpackbits(data[name])[:BITS]


if __name__ == "__main__":
    packed = {}
    for constant in NAMES:
        packed[constant] = np.packbits(compute(constant, BITS))
        print(constant, "done", file=sys.stderr)
    DATA.parent.mkdir(exist_ok=True)
    np.savez(DATA, **packed)
