"""Evaluation of a vendor's random outcomes: the dice and the pai gow shuffles it deals.

Public API (kept light to import: the battery loads numba and scipy only when it runs):

* :func:`tablecert.rng.collect.collect` - ask a vendor, through any adapter, for rolls and decks
  (ops ``rng.dice`` and ``rng.shuffle`` of the contract), checked as they arrive;
* :func:`tablecert.rng.api.evaluate` - the dice and shuffle batteries, decided by the plan of
  :mod:`tablecert.rng.plan` (Holm at family-wise alpha 0.01, second-level uniformity tests);
* :func:`tablecert.rng.api.summary` and :func:`tablecert.rng.api.write_run` - ``summary.json``,
  the outcomes and their sha256, and ``rng-report.pdf``;
* :mod:`tablecert.rng.power` - what each test would have caught (99% power), and
  :mod:`tablecert.rng.detect` - the sample that catches a bias of a given size.
"""

DEFAULT_ROLLS = 10_000_000
"""Rolls of two dice asked for by default: a face of one die 0.5% more likely than 1/6 is caught
with 99% power from 7.46 million rolls (per-face proportion test at alpha/m); 100 s of collection
at 100,000 rolls a second."""

DEFAULT_DECKS = 200_000
"""Decks asked for by default: the joker moved into the first seven cards in 1% of decks is caught
with 99% power from 59,000 decks (joker in seat 1 at alpha/m), 0.5% from 230,000; 2 s of
collection at 100,000 decks a second."""

REFERENCE_RATE = 100_000
"""Outcomes (rolls or decks) a second of the vendor the defaults are sized against."""

DICE_TESTS = 29
"""Members of the family from the dice battery."""

DECK_TESTS = 33
"""Members of the family from the shuffle battery."""

MIN_ROLLS = 20_000
"""Fewest rolls the dice battery accepts (serial pairs need 5 expected in each of 36 x 36 cells)."""

MIN_DECKS = 1_000
"""Fewest decks the shuffle battery accepts."""


def collection_seconds(rolls: int, decks: int) -> float:
    """Seconds of collection at :data:`REFERENCE_RATE`."""
    return (rolls + decks) / REFERENCE_RATE


def check_sizes(rolls: int, decks: int) -> None:
    """ValueError unless the sample sizes are ones the battery accepts (0 skips a half)."""
    if rolls < 0 or 0 < rolls < MIN_ROLLS:
        raise ValueError(f"--rolls must be 0 or at least {MIN_ROLLS:,}")
    if decks < 0 or 0 < decks < MIN_DECKS:
        raise ValueError(f"--decks must be 0 or at least {MIN_DECKS:,}")
    if not rolls and not decks:
        raise ValueError("nothing to evaluate: --rolls and --decks are both 0")
