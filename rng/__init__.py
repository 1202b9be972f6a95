"""Evaluation of a vendor's random outcomes: the dice and the pai gow shuffles it deals.

Public API (kept light to import: the battery loads numba and scipy only when it runs):

* :func:`tablecert.rng.collect.collect` - ask a vendor, through any adapter, for rolls and decks
  (ops ``rng.dice`` and ``rng.shuffle`` of the contract), checked as they arrive;
* :func:`tablecert.rng.api.evaluate` - the dice and shuffle batteries, decided by the plan of
  :mod:`tablecert.rng.plan` (Holm at family-wise alpha 0.01, second-level uniformity tests);
* :func:`tablecert.rng.api.summary` and :func:`tablecert.rng.api.write_run` - ``summary.json``,
  the outcomes and their sha256, and ``rng-report.pdf``.
"""

DEFAULT_ROLLS = 1_000_000
"""Rolls of two dice asked for by default."""

DEFAULT_DECKS = 100_000
"""Decks asked for by default."""

MIN_ROLLS = 20_000
"""Fewest rolls the dice battery accepts (serial pairs need 5 expected in each of 36 x 36 cells)."""

MIN_DECKS = 1_000
"""Fewest decks the shuffle battery accepts."""


def check_sizes(rolls: int, decks: int) -> None:
    """ValueError unless the sample sizes are ones the battery accepts (0 skips a half)."""
    if rolls < 0 or 0 < rolls < MIN_ROLLS:
        raise ValueError(f"--rolls must be 0 or at least {MIN_ROLLS:,}")
    if decks < 0 or 0 < decks < MIN_DECKS:
        raise ValueError(f"--decks must be 0 or at least {MIN_DECKS:,}")
    if not rolls and not decks:
        raise ValueError("nothing to evaluate: --rolls and --decks are both 0")
