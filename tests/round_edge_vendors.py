"""Faulty vendors at the edges of a change of a bet (issue #38 item 4): each is the reference vendor
with EXACTLY ONE of the bugs the held-out round vendor showed ``rounds`` and ``standard`` could
miss, for proving that the group of :mod:`tablecert.vectors.round_edges` now catches each.

The round ones are subclasses of the oracle's :class:`~tablecert.oracle.craps_round.Table` that
change one hook, as in ``tests/round_faulty_vendors.py``; :class:`OffOddsSettleUncheckedVendor`
patches ``craps.settle`` (the same bug in the single-roll op, where ``standard``'s domain now has
odds off above the maximum). :data:`ROUND_EDGE_VENDORS` lists ``(class, fault, flag)``: the flag
(``vectors/round_notes.toml``, ``notes.toml``) whose vectors should catch it.

This is a test helper module, not a test file (``tests/test_round_edges.py`` uses it).
"""

from __future__ import annotations

from typing import Any

from round_faulty_vendors import RoundVendor, round_vendor
from tablecert.harness.vendors.vendor_kit import PatchedVendor
from tablecert.oracle import craps
from tablecert.oracle.craps_round import Refused, Table
from tablecert.oracle.errors import CaseError
from tablecert.oracle.round_refusals import reasons


def _priced(table: Table, bet_id: str, amount: int) -> tuple[int, int] | None:
    """(odds limit's maximum, commission on ``amount``) behind a bet with a point, or None."""
    bet = table.bets.get(bet_id)
    if bet is None or table.own_point(bet) is None or amount <= 0:
        return None
    kind, flat, point = table.odds_basis(bet)
    assert point is not None
    return craps.limits(table.cfg, kind, flat, point)[1], craps.commission(table.cfg, kind, flat, point, amount)


class WholeOddsFunds(Table):
    """A raise of the odds checked against the rack for the whole new odds and their whole
    commission, not for the difference."""

    def set_odds(self, bet_id: str, amount: int) -> list[dict[str, Any]]:
        priced = _priced(self, bet_id, amount)
        if priced is not None and amount <= priced[0] and amount + priced[1] > self.rack:
            raise Refused("insufficient_funds")
        return super().set_odds(bet_id, amount)


class IncrementCommission(Table):
    """A raise charged the commission of the increment priced alone (as if it were new odds), added
    to what the odds held, instead of the commission recomputed on the whole odds."""

    def set_odds(self, bet_id: str, amount: int) -> list[dict[str, Any]]:
        bet = self.bets.get(bet_id)
        if bet is None or not bet.odds or amount <= bet.odds or _priced(self, bet_id, amount) is None:
            return super().set_odds(bet_id, amount)
        kind, flat, point = self.odds_basis(bet)
        try:
            self.config.single(craps.place_odds, bet=kind, flat=flat, point=point, odds=amount)
            extra = self.config.single(craps.place_odds, bet=kind, flat=flat, point=point,
                                       odds=amount - bet.odds)["commission"]
        except CaseError as err:
            raise Refused(err.code) from None
        self._spend(amount - bet.odds + extra)
        bet.odds, bet.commission = amount, bet.commission + extra
        return []


class NegativeOddsCredited(Table):
    """Odds below 0 accepted, and their amount credited to the rack."""

    def set_odds(self, bet_id: str, amount: int) -> list[dict[str, Any]]:
        if amount < 0 and bet_id in self.bets:
            self.rack -= amount
            return []
        return super().set_odds(bet_id, amount)

    def check_conservation(self) -> None:
        pass            # the credit is money from nowhere: the oracle's own check would stop it


class RefusalsReordered(Table):
    """A step refused for several reasons answered with the last the contract lists (the checks
    written in the other order)."""

    def _check(self, step: dict[str, Any]) -> None:
        found = reasons(self, step)
        if len(found) > 1:
            raise Refused(found[-1])

    def place(self, kind: str, amount: int) -> list[dict[str, Any]]:
        self._check({"act": "bet", "bet": kind, "amount": amount})
        return super().place(kind, amount)

    def set_odds(self, bet_id: str, amount: int) -> list[dict[str, Any]]:
        self._check({"act": "odds", "bet": bet_id, "amount": amount})
        return super().set_odds(bet_id, amount)

    def call(self, bet_id: str, working: bool) -> list[dict[str, Any]]:
        self._check({"act": "working", "bet": bet_id, "working": working})
        return super().call(bet_id, working)

    def take_down(self, bet_id: str) -> list[dict[str, Any]]:
        self._check({"act": "take_down", "bet": bet_id})
        return super().take_down(bet_id)


class FundsFirst(Table):
    """The rack checked before everything else on a flat bet and on odds (an engine that reserves
    the chips first): ``insufficient_funds`` wins over every other reason."""

    def place(self, kind: str, amount: int) -> list[dict[str, Any]]:
        if amount > self.rack:
            raise Refused("insufficient_funds")
        return super().place(kind, amount)

    def set_odds(self, bet_id: str, amount: int) -> list[dict[str, Any]]:
        if "insufficient_funds" in reasons(self, {"act": "odds", "bet": bet_id, "amount": amount}):
            raise Refused("insufficient_funds")
        return super().set_odds(bet_id, amount)


class AmountFirst(Table):
    """The amount checked before the bet (an engine that validates the request's fields first):
    ``not_positive`` and ``bad_increment`` win over the bet's and the point's reasons."""

    def _amount(self, amount: int, least: int) -> None:
        if amount < least:
            raise Refused("not_positive")
        if amount % self.cfg.unit:
            raise Refused("bad_increment")

    def place(self, kind: str, amount: int) -> list[dict[str, Any]]:
        self._amount(amount, 1)
        return super().place(kind, amount)

    def set_odds(self, bet_id: str, amount: int) -> list[dict[str, Any]]:
        self._amount(amount, 0)       # odds of 0 remove the odds
        return super().set_odds(bet_id, amount)


class OffOddsUnchecked(Table):
    """Odds that are off when they are set (come odds on a come-out roll, odds called off) never
    checked against the maximum."""

    def set_odds(self, bet_id: str, amount: int) -> list[dict[str, Any]]:
        bet, priced = self.bets.get(bet_id), _priced(self, bet_id, amount)
        if bet is None or priced is None or amount <= priced[0] or self.working(bet, self.point is None):
            return super().set_odds(bet_id, amount)
        self._spend(amount - bet.odds + priced[1] - bet.commission)
        bet.odds, bet.commission = amount, priced[1]
        return []


class OffOddsSettleUncheckedVendor(PatchedVendor):
    """``craps.settle`` of odds that are off (``odds_working`` false) never checks them against the
    maximum: above it, they are settled as off odds are (returned on a deciding roll)."""

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if op != "craps.settle" or result.get("error", {}).get("code") != "above_maximum" or case["odds_working"]:
            return result
        _, top = craps.limits(config, case["bet"], case["flat"], case["point"])
        within = craps.settle(config, dict(case, odds=top))
        return dict(within, odds_returned=case["odds"] if within["odds_returned"] else 0)


ROUND_EDGE_VENDORS: list[tuple[type[PatchedVendor], str, str]] = [
    (round_vendor(WholeOddsFunds, __name__), "a raise's funds checked against the whole new odds", "PlayOddsFunds"),
    (round_vendor(IncrementCommission, __name__), "a raise charged the increment's commission alone",
     "PlayOddsCommissionRecomputed"),
    (round_vendor(NegativeOddsCredited, __name__), "odds below 0 accepted and credited", "PlayOddsNotPositive"),
    (round_vendor(RefusalsReordered, __name__), "refusals checked in the reverse of the contract's order",
     "PlayRefusalOrder"),
    (round_vendor(FundsFirst, __name__), "insufficient_funds checked before every other refusal", "PlayRefusalOrder"),
    (round_vendor(AmountFirst, __name__), "the amount checked before the bet and its point", "PlayRefusalOrder"),
    (round_vendor(OffOddsUnchecked, __name__), "odds that are off never checked against the maximum",
     "PlayOffOddsLimit"),
    (OffOddsSettleUncheckedVendor, "craps.settle of odds off never checked against the maximum", "OddsOff"),
]
globals().update({cls.__name__: cls for cls, _, _ in ROUND_EDGE_VENDORS})   # loadable as module:ClassName
