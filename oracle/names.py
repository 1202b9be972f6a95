"""The names every layer shares, defined once: the ops of the vendor contract, the hand-stream
suites and the names their batches carry.

Everything above the oracle (vector generation, the harness, reports, the fuzzer, the command
line) takes these from here instead of typing them out.
"""

from __future__ import annotations

ODDS_LIMITS = "craps.odds_limits"
PLACE_ODDS = "craps.place_odds"
CRAPS_SETTLE = "craps.settle"
CRAPS_ROUND = "craps.round"
"""A scripted round of the craps table (a state machine; New in ``tablecert-vendor/2``)."""
PLAYER_BONUS = "paigow.player_bonus"
BANKER_BONUS = "paigow.banker_bonus"
PAIGOW_SETTLE = "paigow.settle"

OPS = (ODDS_LIMITS, PLACE_ODDS, CRAPS_SETTLE, CRAPS_ROUND, PLAYER_BONUS, BANKER_BONUS, PAIGOW_SETTLE)
"""Every op of a vector suite, in the contract's order (``Hello.ops`` keeps those of them a vendor
lists)."""

HAND_OPS = (PLAYER_BONUS, BANKER_BONUS)
"""The two label ops a hand-stream suite sends every hand to, in the order they are sent."""
SUITE_NAMES = ("edge", "configs", "standard", "rounds", "live", "joker", "exhaustive")
"""The release's suites, by name (:data:`tablecert.vectors.suites.SUITES` describes each): for
checking a ``--suite`` before anything heavy is imported."""
HAND_SUITES = ("joker", "exhaustive")
"""The hand-stream suites: every hand of a range of the canonical order, not vector files."""
HAND_FILE = "paigow.hands"
"""The ``file`` of every hand-suite batch in the run database (and its manifest entry)."""
HAND_FLAGS = ("Exhaustive",)
"""The flags of every hand-suite vector."""
HAND_CLAUSES = {PLAYER_BONUS: ["njac.11.19.c1", "njac.11.20.b"], BANKER_BONUS: ["njac.11.19.c2", "njac.11.20.c"]}
"""The rule clauses every hand-suite vector of each op checks."""
