"""Faulty round vendors: each is the reference vendor playing ``craps.round`` on a table with
EXACTLY ONE of the bugs that ship in craps engines (issue 24's bug classes), for proving that the
``rounds`` suite and the stateful fuzz catch every one.

Each table is a subclass of the oracle's :class:`~tablecert.oracle.craps_round.Table` that changes
one hook (nothing of the oracle is patched); :class:`RoundVendor` answers ``craps.round`` with it
and every other op as the reference does. :data:`ROUND_FAULTY_VENDORS` lists ``(class, fault,
flag)``: the flag (``vectors/notes.toml``) whose vectors should catch it.

This is a test helper module, not a test file (``tests/test_round_vendors.py`` uses it).
"""

from __future__ import annotations

from typing import Any

from tablecert.harness.vendors.vendor_kit import PatchedVendor
from tablecert.oracle import craps
from tablecert.oracle.craps_round import BOX_BETS, Bet, Table, play
from tablecert.oracle.errors import CaseError
from tablecert.oracle.vendor import error


class RoundVendor(PatchedVendor):
    """The reference vendor whose ``craps.round`` answers are played on :attr:`table`."""

    table: type[Table] = Table

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if op != "craps.round" or "error" in result:
            return result
        try:
            return play(config, case, self.table)
        except CaseError as err:
            return error(err.code, err.message)


def _settled_on(table: Table, bet: Bet, dice: list[int], point: int | None) -> dict[str, Any]:
    """The event of ``bet`` settled as if its point were ``point`` (the table's, for a box bet)."""
    result = craps.settle(table.cfg, {"bet": bet.kind, "flat": bet.flat, "point": point, "odds": bet.odds,
                                      "dice": dice, "odds_working": True})
    return {"bet": bet.bet_id, **result, "commission_taken": 0, "commission_returned": 0}


class TravelsToTablePoint(Table):
    def apply_event(self, bet: Bet, event: dict[str, Any]) -> None:
        if bet.kind in BOX_BETS and event["outcome"] == "point" and self.point is not None:
            event = dict(event, point=self.point)
        super().apply_event(bet, event)


class ComeLikePass(Table):
    def event(self, bet: Bet, dice: list[int], come_out: bool) -> dict[str, Any]:
        if bet.kind in BOX_BETS and bet.point is None and not come_out and sum(dice) == self.point:
            return _settled_on(self, bet, dice, self.point)
        return super().event(bet, dice, come_out)


class BoxLostOnSevenOut(Table):
    def event(self, bet: Bet, dice: list[int], come_out: bool) -> dict[str, Any]:
        if bet.kind in BOX_BETS and bet.point is None and not come_out and sum(dice) == craps.SEVEN:
            return _settled_on(self, bet, dice, self.point)
        return super().event(bet, dice, come_out)


class ComeOddsAlwaysWork(Table):
    def working(self, bet: Bet, come_out: bool) -> bool:
        return True if bet.kind == "come" and bet.call is None else super().working(bet, come_out)


class DontComeOddsOff(Table):
    def working(self, bet: Bet, come_out: bool) -> bool:
        if bet.kind == "dont_come" and come_out and bet.call is None:
            return False
        return super().working(bet, come_out)


class CallIgnored(Table):
    def call(self, bet_id: str, working: bool) -> list[dict[str, Any]]:
        super().call(bet_id, working)
        self.bets[bet_id].call = None
        return []


class CallLastsTooLong(Table):
    def lapse_calls(self) -> None:
        pass


class OddsLeftBehind(Table):
    """Odds returned with a decided bet stay on the layout (a bet with a flat of 0 that nothing
    settles again)."""

    def event(self, bet: Bet, dice: list[int], come_out: bool) -> dict[str, Any]:
        if bet.flat == 0:
            return {"bet": bet.bet_id, "outcome": "no_action", "flat_win": 0, "odds_win": 0, "point": None,
                    "flat_stake": "none", "odds_stake": "in_action", "flat_returned": 0, "odds_returned": 0,
                    "commission_taken": 0, "commission_returned": 0}
        return super().event(bet, dice, come_out)

    def apply_event(self, bet: Bet, event: dict[str, Any]) -> None:
        if bet.flat == 0:
            return
        if event["odds_stake"] == craps.RETURNED and event["flat_stake"] != craps.IN_ACTION:
            event.update(odds_stake=craps.IN_ACTION, odds_returned=0, commission_returned=0)
            left = Bet(bet.kind, bet.point, 0, bet.odds, bet.commission)
            bet.odds = bet.commission = 0
            super().apply_event(bet, event)
            self.bets[left.bet_id] = left
            return
        super().apply_event(bet, event)


class EarlyOdds(Table):
    def set_odds(self, bet_id: str, amount: int) -> list[dict[str, Any]]:
        bet = self._find(bet_id)
        if self.own_point(bet) is None:
            return []           # accepted, and nothing happens
        return super().set_odds(bet_id, amount)


class LimitFromPassLine(Table):
    def odds_basis(self, bet: Bet) -> tuple[str, int, int | None]:
        line = self.bets.get("pass")
        if bet.kind == "come" and bet.point is not None and line is not None and self.point is not None:
            return "come", line.flat, self.point
        return super().odds_basis(bet)


class ContractTakenDown(Table):
    def removable(self, bet: Bet) -> bool:
        return True


class BarPushLost(Table):
    def event(self, bet: Bet, dice: list[int], come_out: bool) -> dict[str, Any]:
        event = super().event(bet, dice, come_out)
        if event["outcome"] == "push":
            event.update(outcome="lose", flat_stake=craps.TAKEN, flat_returned=0)
        return event


class PointMadeComeStays(Table):
    def event(self, bet: Bet, dice: list[int], come_out: bool) -> dict[str, Any]:
        if bet.kind in BOX_BETS and bet.point is None and not come_out and sum(dice) == self.point:
            return {"bet": bet.bet_id, "outcome": "no_action", "flat_win": 0, "odds_win": 0, "point": None,
                    "flat_stake": craps.IN_ACTION, "odds_stake": craps.NONE, "flat_returned": 0,
                    "odds_returned": 0, "commission_taken": 0, "commission_returned": 0}
        return super().event(bet, dice, come_out)


class StakeTwice(Table):
    """A win reported as stake plus win (``flat_win`` including the flat), the stake handed back
    besides."""

    def event(self, bet: Bet, dice: list[int], come_out: bool) -> dict[str, Any]:
        event = super().event(bet, dice, come_out)
        if event["flat_stake"] == craps.WON:
            event["flat_win"] += bet.flat
        return event


class CommissionOnReturned(Table):
    def event(self, bet: Bet, dice: list[int], come_out: bool) -> dict[str, Any]:
        event = super().event(bet, dice, come_out)
        if event["commission_returned"]:
            event["commission_taken"], event["commission_returned"] = event["commission_returned"], 0
        return event


def round_vendor(table: type[Table], module: str = __name__) -> type[RoundVendor]:
    """The round vendor playing on ``table``, named after it and loadable as ``module:NAME``."""
    return type(f"{table.__name__}Vendor", (RoundVendor,), {"table": table, "__doc__": table.__doc__,
                                                             "__module__": module})


ROUND_FAULTY_VENDORS: list[tuple[type[RoundVendor], str, str]] = [
    (round_vendor(TravelsToTablePoint), "a come bet travels to the table's point", "PlayComeTravel"),
    (round_vendor(ComeLikePass), "a come bet made on the roll that makes the point is settled like the pass line",
     "PlayComeOnPointRoll"),
    (round_vendor(BoxLostOnSevenOut), "a come bet in the box loses on a seven-out (a don't come bet wins)",
     "PlayComeSevenOut"),
    (round_vendor(ComeOddsAlwaysWork), "come odds paid or lost on a come-out roll", "PlayComeOddsComeOut"),
    (round_vendor(DontComeOddsOff), "don't come odds off on the come-out against the house rule",
     "PlayDontComeOddsComeOut"),
    (round_vendor(CallIgnored), "a working call ignored", "PlayWorkingCall"),
    (round_vendor(CallLastsTooLong), "a working call lasting past its roll", "PlayWorkingCall"),
    (round_vendor(OddsLeftBehind), "odds left on the layout after their base bet is decided", "PlayOrphanOdds"),
    (round_vendor(EarlyOdds), "odds accepted before a point or before a come bet travelled", "PlayEarlyOdds"),
    (round_vendor(LimitFromPassLine), "come odds limited by the pass line's flat and point", "PlayOddsLimitBase"),
    (round_vendor(ContractTakenDown), "a pass or travelled come bet taken down after the point", "PlayContractTakeDown"),
    (round_vendor(BarPushLost), "the bar-12 push lost", "PlayBarPush"),
    (round_vendor(PointMadeComeStays), "the point made without the come bet in the box travelling", "PlayPointAndCome"),
    (round_vendor(StakeTwice), "the stake paid back on top of a payout that already includes it", "PlayStakeTwice"),
    (round_vendor(CommissionOnReturned), "commission kept on odds that were returned", "PlayCommissionReturned"),
]
globals().update({cls.__name__: cls for cls, _, _ in ROUND_FAULTY_VENDORS})   # loadable as module:ClassName
