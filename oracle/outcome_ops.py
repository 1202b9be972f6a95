"""The reference vendor's random-outcome ops as its hello declares them, apart from the generator.

The names of the ops, the width of the raw words and the statement on ``rng.scale`` (hello's
``rng``: the contract's "Random outcomes"). The generator that deals them,
:mod:`tablecert.oracle.outcomes`, needs numpy; a vendor greets without it: the reference vendor,
started again after every power cut of a live run, loads numpy only when it first deals
(:func:`tablecert.oracle.vendor.run_op`; benchmarks/bench_cut_cost.py measures its start).
"""

from __future__ import annotations

OUTCOME_OPS = ("rng.dice", "rng.shuffle", "rng.raw", "rng.scale", "rng.paired")
"""The random-outcome ops, in the order hello lists them (:data:`tablecert.oracle.outcomes.RNG_OPS` answers each)."""

WORD_BITS = 32
"""Width of the reference generator's raw words (its scaling, :mod:`tablecert.oracle.scaling`, takes 32-bit words)."""

SCALE_STATEMENT = ("rng.scale runs tablecert.oracle.scaling, the functions rng.dice and rng.shuffle deal with, "
                   "on the words given")

HELLO_RNG = {"raw_bits": WORD_BITS, "scale": SCALE_STATEMENT}
"""The hello's ``rng`` declaration: the raw word width and the vendor's statement on rng.scale."""
