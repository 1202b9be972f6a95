"""Exact returns of the Imperial pai gow bonus: the player hand bonus alone, the banker hand bonus
alone, and the imperial wager as the one wager it is.

Returns are per unit wagered, as exact fractions (negative: the house's edge). The marginal
figures come from the census (every hand counted); the joint probability that both hands qualify
comes from :mod:`tablecert.oracle.imperial_math`. The cap (11.20(d)) never binds at the minimum
wager, so it plays no part here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from tablecert.oracle.census import JointCount
from tablecert.oracle.paigow import pay_tables
from tablecert.oracle.register import load_data

if TYPE_CHECKING:                      # numba's modules: imported when the figures are computed, not read
    from tablecert.oracle.labeller import Census


@dataclass(frozen=True)
class PaigowReturns:
    player_bonus_alone: Fraction       # E[win] of a wager paid only by the player hand bonus
    banker_bonus_alone: Fraction       # E[win] of a wager paid only by the banker hand bonus
    imperial: Fraction                 # the one wager with both ways to win
    p_player_qualifies: Fraction
    p_banker_qualifies: Fraction
    p_both_qualify: Fraction
    joint: JointCount


def _alone(counts: dict[str, int], odds: dict[str, int], total: int) -> tuple[Fraction, Fraction]:
    """(expected win per unit, probability of qualifying) of a wager paid by one pay table."""
    paid = sum(counts[label] * pay for label, pay in odds.items())
    qualifying = sum(counts[label] for label in odds)
    return Fraction(paid - (total - qualifying), total), Fraction(qualifying, total)


def committed_returns() -> PaigowReturns:
    """The figures kept in ``paigow_exact.toml`` (recomputed and compared by the tests), for
    callers that must not spend half a minute recomputing them (reports)."""
    raw = load_data("paigow_exact.toml")
    f = {k: Fraction(v) for k, v in raw.items() if isinstance(v, str)}
    joint = JointCount(raw["both_qualify_pairs"], raw["disjoint_pairs"], 0)
    return PaigowReturns(-f["player_bonus_house_edge"], -f["banker_bonus_house_edge"], -f["imperial_house_edge"],
                         f["p_player_qualifies"], f["p_banker_qualifies"], f["p_both_qualify"], joint)


def paigow_returns(census: Census, progress: Callable[[int, int], None] | None = None) -> PaigowReturns:
    tables = pay_tables()
    player_counts = {label: c.total for label, c in census.player_labels().items()}
    banker_counts = {label: c.total for label, c in census.banker.items()}
    player_alone, p_player = _alone(player_counts, tables.player_bonus, census.total)
    banker_alone, p_banker = _alone(banker_counts, tables.banker_bonus, census.total)
    from tablecert.oracle.imperial_math import count_both_qualify  # lazy: numba, 1,138 ms of the report step's game math (bench_startup.py, load 4)

    joint = count_both_qualify(progress)
    p_both = joint.probability
    # E[W] = E[player win] + E[banker win] - P(neither); E[x win] = alone + (1 - P(x qualifies))
    p_neither = 1 - p_player - p_banker + p_both
    imperial = (player_alone + 1 - p_player) + (banker_alone + 1 - p_banker) - p_neither
    return PaigowReturns(player_alone, banker_alone, imperial, p_player, p_banker, p_both, joint)
