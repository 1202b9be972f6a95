"""Faulty vendors that are right on the eight shipped profiles and wrong on other legal tables,
on large amounts or on rare hands: each misreads one field of the config space
(``oracle/config_space.toml``), computes in a narrow or inexact number type, or misses a rare
hand. :data:`CONFIG_FAULTY_VENDORS` lists ``(class, fault)``.

Built like tests/faulty_vendors.py on the reference vendor (nothing of the oracle is patched):
:class:`MisreadConfig` answers every craps request as the reference answers the table the vendor
*believes* it was sent; :class:`~tablecert.harness.vendors.vendor_kit.PatchedVendor` rewrites single
answers. This is a test helper module (tests/test_config_space.py uses it).
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from tablecert.harness.vendors.vendor_kit import PaigowVendor, PatchedVendor
from tablecert.oracle import craps, hands
from tablecert.oracle.cards import JOKER, rank_of, suit_of
from tablecert.oracle.errors import ConfigError
from tablecert.oracle.table_config import format_decimal, parse_table_config
from tablecert.oracle.vendor import ReferenceVendor, run_op

MULTIPLES = ("free_odds", "max_odds")


class MisreadConfig(ReferenceVendor):
    """The reference's answers to the craps table :meth:`believed` (the identity here)."""

    def believed(self, config: dict[str, Any]) -> dict[str, Any]:
        return config

    def handle(self, request: object) -> dict[str, Any]:
        if (isinstance(request, dict) and str(request.get("op", "")).startswith("craps.")
                and isinstance(request.get("cases"), list) and isinstance(request.get("id"), int)):
            try:
                parse_table_config(request.get("config"))
            except ConfigError:
                return super().handle(request)
            config = {k: (dict(v) if isinstance(v, dict) else v) for k, v in request["config"].items()}
            return {"id": request["id"], "results": run_op(request["op"], self.believed(config), request["cases"])}
        return super().handle(request)


def _each_multiple(config: dict[str, Any], change: Any) -> dict[str, Any]:
    for key in MULTIPLES:
        config[key] = {p: change(p, v, config) for p, v in config[key].items()}
    return config


class FractionalMultiplesTruncated(MisreadConfig):
    """Odds multiples read as integers: 2.5x odds are 2x, 1.5x free odds 1x."""

    def believed(self, config):
        return _each_multiple(config, lambda p, v, c: v.split(".")[0])


class PointMultiplesMirrored(MisreadConfig):
    """Per-point multiples assumed symmetric: 10 takes the 4's, 9 the 5's, 8 the 6's."""

    def believed(self, config):
        mirror = {"10": "4", "9": "5", "8": "6"}
        for key in MULTIPLES:
            config[key] = {p: config[key][mirror.get(p, p)] for p in config[key]}
        return config


class DollarUnitAssumed(MisreadConfig):
    """The unit hard-coded to 100 minor units (one dollar): increments and limits in dollars."""

    def believed(self, config):
        return dict(config, unit=100)


class CommissionUnitIgnored(MisreadConfig):
    """The commission rounded to one minor unit, whatever ``commission_unit`` says."""

    def believed(self, config):
        return dict(config, commission_unit=1)


class RateReadToCents(MisreadConfig):
    """The commission rate kept to two decimal places (0.0499 is charged as 0.05, 0.025 as 0.02)."""

    def believed(self, config):
        rate = Decimal(config["commission_rate"]).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
        return dict(config, commission_rate=format_decimal(Fraction(rate)))


class UpRoundedDown(MisreadConfig):
    """Commission rounding ``up`` applied as ``down``."""

    def believed(self, config):
        return dict(config, commission_rounding="down" if config["commission_rounding"] == "up" else config["commission_rounding"])


class FreeZeroMeansNoLimit(MisreadConfig):
    """A free-odds multiple of 0 read as "no free-odds limit": all odds up to the maximum are free."""

    def believed(self, config):
        config["free_odds"] = {p: (config["max_odds"][p] if v == "0" else v) for p, v in config["free_odds"].items()}
        return config


class NearestMisrounded(PatchedVendor):
    """Commission rounding ``nearest`` with :meth:`units` in place of halves up."""

    def units(self, q: Fraction) -> int:
        raise NotImplementedError

    def answer(self, op, config, case, result):
        if op == "craps.place_odds" and "commission" in result and config.commission_rounding == "nearest":
            q = config.commission_rate * craps.commission_base(config, case["bet"], case["flat"], case["point"],
                                                                case["odds"]) / config.commission_unit
            return {"commission": self.units(q) * config.commission_unit}
        return result


class NearestRoundsHalfDown(NearestMisrounded):
    """Commission rounding ``nearest`` rounds halves down instead of up."""

    def units(self, q):
        h = q - Fraction(1, 2)
        return -((-h.numerator) // h.denominator)


class NearestIsBankers(NearestMisrounded):
    """Commission rounding ``nearest`` rounds halves to even (Python's ``round``)."""

    def units(self, q):
        return round(q)


class BarTwoBarsTwelveToo(PatchedVendor):
    """On a bar-2 table the don't side pushes on both 2 and 12 on the come-out."""

    def answer(self, op, config, case, result):
        if (op == "craps.settle" and result.get("outcome") in ("win", "lose") and config.bar == 2
                and case["point"] is None and craps.is_dont(case["bet"]) and sum(case["dice"]) == 12):
            return {**result, "outcome": "push", "flat_win": 0, "flat_stake": "returned", "flat_returned": case["flat"]}
        return result


class FlooredToUnit(PatchedVendor):
    """Under ``payout_rounding: down`` odds wins are floored to a multiple of the unit, not to
    whole minor units."""

    def answer(self, op, config, case, result):
        if op == "craps.settle" and result.get("odds_win") and config.payout_rounding == "down":
            return {**result, "odds_win": result["odds_win"] // config.unit * config.unit}
        return result


class FloatMultiples(PatchedVendor):
    """Odds limits computed in binary floating point: ``floor(float(multiple) * flat / unit)``
    units (1.15 x 100 is 114.99999999999999, which floors to 114)."""

    def answer(self, op, config, case, result):
        if op == "craps.odds_limits" and "free_odds" in result:
            bet, flat, point = case["bet"], case["flat"], case["point"]
            share = 1 / float(craps.odds_ratio(bet, point)) if craps.is_dont(bet) else 1.0
            return {key: math.floor(float(m[point]) * flat * share / config.unit) * config.unit
                    for key, m in (("free_odds", config.free_odds), ("max_odds", config.max_odds))}
        return result


def _int32(x: int) -> int:
    return (x + 2**31) % 2**32 - 2**31


class Int32Wins(PatchedVendor):
    """Flat and odds wins held in signed 32-bit integers (they wrap past 2^31 - 1)."""

    def answer(self, op, config, case, result):
        if op == "craps.settle" and "flat_win" in result:
            return {**result, "flat_win": _int32(result["flat_win"]), "odds_win": _int32(result["odds_win"])}
        return result


class UInt32Limits(PatchedVendor):
    """Odds limits held in unsigned 32-bit integers (they wrap past 2^32 - 1)."""

    def answer(self, op, config, case, result):
        if op == "craps.odds_limits" and "free_odds" in result:
            return {k: v % 2**32 for k, v in result.items()}
        return result


class CapFixedAtMinimum(PaigowVendor):
    """The pai gow bonus cap hard-coded at the regulatory minimum ($40,000), whatever the config."""

    def total_win(self, player_win, banker_win, cap):
        return min(4_000_000, player_win + banker_win)


def _suited_ranks(cards: tuple[int, ...]) -> list[set[int]]:
    suits: list[set[int]] = [set(), set(), set(), set()]
    for c in cards:
        if c != JOKER:
            suits[suit_of(c)].add(rank_of(c))
    return suits


class StraightFlushInTopFive(PaigowVendor):
    """A straight flush looked for only among the five highest cards of the flush suit (hands
    without the joker): 2-6 of hearts beside the queen and king of hearts is called a flush."""

    def player_label(self, cards):
        label = hands.player_label(cards)
        if label == "straight_flush" and JOKER not in cards:
            for ranks in _suited_ranks(cards):
                if len(ranks) >= 5:
                    top = set(sorted(ranks)[-5:])
                    if hands._straight_ranks(top, False) is None:
                        return "flush"
        return label


class JokerMissesWheelFlush(PaigowVendor):
    """The joker does not complete a five-high (A-2-3-4-5) straight flush: such hands are called
    a flush."""

    def player_label(self, cards):
        label = hands.player_label(cards)
        if label == "straight_flush" and JOKER in cards:
            wheel = hands.STRAIGHTS[-1]
            others = hands.STRAIGHTS[:-1]
            suited = _suited_ranks(cards)
            if any(len(wheel - r) == 1 for r in suited) and not any(
                    len(s - r) <= 1 for r in suited if len(r) >= 4 for s in others):
                return "flush"
        return label


CONFIG_FAULTY_VENDORS: list[tuple[type[ReferenceVendor], str]] = [
    (FractionalMultiplesTruncated, "fractional odds multiples truncated to whole ones"),
    (PointMultiplesMirrored, "per-point multiples assumed symmetric (10 as 4, 9 as 5, 8 as 6)"),
    (DollarUnitAssumed, "the unit hard-coded to one dollar"),
    (CommissionUnitIgnored, "commission rounded to one minor unit, not the commission unit"),
    (RateReadToCents, "commission rate kept to two decimals"),
    (UpRoundedDown, "commission rounding 'up' applied as 'down'"),
    (FreeZeroMeansNoLimit, "free odds multiple 0 read as no free-odds limit"),
    (NearestRoundsHalfDown, "commission rounding 'nearest' rounds halves down"),
    (NearestIsBankers, "commission rounding 'nearest' rounds halves to even"),
    (BarTwoBarsTwelveToo, "bar 2 tables push on 12 as well"),
    (FlooredToUnit, "payout rounding 'down' floors odds wins to the unit"),
    (FloatMultiples, "odds limits in binary floating point"),
    (Int32Wins, "wins in signed 32-bit integers"),
    (UInt32Limits, "odds limits in unsigned 32-bit integers"),
    (CapFixedAtMinimum, "pai gow cap fixed at $40,000"),
    (StraightFlushInTopFive, "straight flush looked for only in the five highest cards of the suit"),
    (JokerMissesWheelFlush, "the joker does not complete a five-high straight flush"),
]
