"""Exact house edges of the craps line bets, alone and with a profile's odds, from the table config
and ``rules/craps.toml`` (no float anywhere: Fractions, and percentages formatted with integers).

Conventions (stated in each figure's ``note`` too):

* **House edge** is the player's expected loss divided by a stake measure: *per unit wagered*
  divides by the expected total amount wagered on the bet (the flat plus the odds, which are
  placed only when a point is set); *per unit flat* divides by the flat wager alone.
* **Pushes count as bets made.** The don't side's bar-number push on the come-out is a bet that
  was wagered and returned, so it stays in the denominator. This is the convention of the
  commonly published figures: don't pass 3/220 = 1.364% (pass 7/495 = 1.414%). The figure per
  *resolved* bet (the push left out), 27/1925 = 1.403%, is given as well, named so.
* **Odds at the maximum on every point**: whenever a point is set the player backs the flat with
  odds at the profile's ``max_odds`` multiple, taken exactly (``multiple x flat`` on the pass side;
  on the don't side the lay whose win is ``multiple x flat``, INT-DONT-LIMIT-ON-WIN). Limits are not
  floored to the unit, because the figures are per unit of flat and hold for flats at which the
  multiples are whole amounts.
* **Commission**, where a profile charges one, is a cost paid when the odds are placed:
  ``commission_rate`` times the odds above the free multiple (pass side, craps.sw.5) or times what
  that excess could win (don't side, craps.sw.6), taken exactly (not rounded to
  ``commission_unit``); it is added to the expected loss, not to the amount wagered.
* A come bet is a pass bet and a don't come a don't pass from the roll after it is placed, so
  their figures are the same; they are listed for completeness.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from tablecert.oracle.craps import CRAPS, NATURALS, SEVEN
from tablecert.oracle.exact_text import format_percent
from tablecert.oracle.table_config import BETS, POINTS, TableConfig, craps_rules

#: Number of ways (of 36) to roll each total with two dice.
WAYS: dict[int, int] = {total: sum(1 for a in range(1, 7) for b in range(1, 7) if a + b == total)
                        for total in range(2, 13)}
ROLLS = 36

class Profiled(Protocol):
    """Anything that carries a craps table configuration (a rule profile)."""

    table_config: TableConfig


@dataclass(frozen=True)
class ReturnFigure:
    """One exact figure: a stable ``name``, the exact ``value``, ``percent`` (value x 100 to three
    decimals, rounded half away from zero, with a % sign) and a ``note`` saying what it measures."""

    name: str
    value: Fraction
    percent: str
    note: str


@dataclass(frozen=True)
class BetReturn:
    """The expectations of one line bet (per unit of flat): the player's expected loss, the
    expected total wagered (flat + odds), and the probability the flat bet pushes."""

    expected_loss: Fraction
    expected_wagered: Fraction
    push_probability: Fraction

    @property
    def edge_per_wagered(self) -> Fraction:
        return self.expected_loss / self.expected_wagered

    @property
    def edge_per_flat(self) -> Fraction:
        return self.expected_loss

    @property
    def edge_per_resolved(self) -> Fraction:
        return self.expected_loss / (1 - self.push_probability)


def line_bet_return(config: TableConfig, bet: str, *, odds: bool, commission: bool) -> BetReturn:
    """Exact expectations of ``bet`` with a flat of 1: with ``odds`` the max odds on every point,
    with ``commission`` the commission on the part above the free odds paid when they are placed.

    Come-out: pass/come win on 7 or 11 and lose on 2, 3, 12; don't pass/don't come lose on 7 or 11,
    push on the bar number and win on the other craps numbers. A point p (w ways of 36) is then
    made before a seven with probability w / (w + 6)."""
    rules = craps_rules()
    side = rules.side_of[bet]
    dont = side == "dont_pass"
    flat_pays = rules.flat
    net = Fraction(0)        # expected net result for the player (win positive)
    wagered = Fraction(1)    # the flat
    cost = Fraction(0)       # expected commission
    push = Fraction(0)
    for total, ways in WAYS.items():
        p = Fraction(ways, ROLLS)
        if total in POINTS:
            make = Fraction(ways, ways + WAYS[SEVEN])
            win = 1 - make if dont else make
            net += p * (win * flat_pays - (1 - win))
            if odds:
                ratio = rules.odds[side][total]
                multiple = config.max_odds[total]
                stake = multiple / ratio if dont else multiple  # don't: lay whose win is multiple
                net += p * stake * (win * ratio - (1 - win))
                wagered += p * stake
                if commission:
                    # pass side: the excess amount, (max - free) x flat; don't side: what the excess
                    # lay, (max - free) x flat / ratio, could win: (max - free) x flat again.
                    base = multiple - config.free_odds[total]
                    cost += p * config.commission_rate * base
        elif dont and total == config.bar:
            push += p
        elif (total in NATURALS) != dont:
            net += p * flat_pays
        else:
            assert total in NATURALS or total in CRAPS
            net -= p
    return BetReturn(expected_loss=cost - net, expected_wagered=wagered, push_probability=push)


def _figure(name: str, value: Fraction, note: str) -> ReturnFigure:
    return ReturnFigure(name, value, format_percent(value), note)


def craps_returns(profile: Profiled | TableConfig) -> list[ReturnFigure]:
    """Every house-edge figure of a profile (or a bare TableConfig), for each of the four bets:

    * ``<bet>.flat``: the flat bet alone (per unit wagered = per unit flat; pushes count as bets);
    * ``<bet>.flat.per_resolved`` (don't side only): the same per resolved bet, the push left out;
    * ``<bet>.max_odds.per_wagered`` / ``.per_flat``: with the max odds on every point, no
      commission counted;
    * ``<bet>.max_odds_commission.per_wagered`` / ``.per_flat``: the same with the commission on
      the odds above the free odds counted as a cost (equal to the previous when the profile
      charges none).
    """
    config = profile if isinstance(profile, TableConfig) else profile.table_config
    rules = craps_rules()
    out: list[ReturnFigure] = []
    for bet in BETS:
        dont = rules.side_of[bet] == "dont_pass"
        alone = line_bet_return(config, bet, odds=False, commission=False)
        out.append(_figure(f"{bet}.flat", alone.edge_per_wagered,
                           f"{bet} alone: expected loss per unit wagered"
                           + (f", the bar-{config.bar} push counted as a bet made" if dont else "")))
        if dont:
            out.append(_figure(f"{bet}.flat.per_resolved", alone.edge_per_resolved,
                               f"{bet} alone: expected loss per resolved bet (the bar-{config.bar} push left out)"))
        for key, with_commission, label in (("max_odds", False, "no commission counted"),
                                            ("max_odds_commission", True, "commission on the odds above the free odds counted as a cost")):
            r = line_bet_return(config, bet, odds=True, commission=with_commission)
            odds_text = ("odds laid to win max_odds x flat" if dont else "odds of max_odds x flat") + " on every point"
            out.append(_figure(f"{bet}.{key}.per_wagered", r.edge_per_wagered,
                               f"{bet} with {odds_text}, {label}: expected loss per unit of expected total wagered"))
            out.append(_figure(f"{bet}.{key}.per_flat", r.edge_per_flat,
                               f"{bet} with {odds_text}, {label}: expected loss per unit of flat"))
    return out


def returns_by_name(profile: Profiled | TableConfig) -> dict[str, ReturnFigure]:
    """:func:`craps_returns` keyed by figure name."""
    return {f.name: f for f in craps_returns(profile)}
