"""Steps of ``craps.round`` scripts for hypothesis: each drawn from the table as the oracle has it
so far (the bets on the layout, their points and odds limits), so most are legal and the illegal
ones are the near misses (odds one unit above the maximum, odds before a point, a contract bet
taken down, an unknown bet id). Used by the property tests and by the stateful fuzz
(:mod:`tablecert.fuzz.round_machine`); every expected answer still comes from the oracle.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tablecert.oracle import craps
from tablecert.oracle.craps_round import BET_IDS, DICE_OF_TOTAL, HOUSE_RULES, KINDS, Table, apply_step
from tablecert.oracle.table_config import POINTS



def choose(draw: st.DrawFn, values: Any) -> Any:
    return values[draw(st.integers(0, len(values) - 1))]


@st.composite
def house_rules(draw: st.DrawFn) -> dict[str, Any]:
    """A set of house rules: each the default (likelier) or any allowed value."""
    return {name: (default if draw(st.booleans()) else choose(draw, allowed))
            for name, (allowed, default, _) in HOUSE_RULES.items()}


def odds_amount(draw: st.DrawFn, table: Table, bet_id: str) -> int:
    """An odds total for ``bet_id``: around its free and max limits, a few units, or 0 (removed)."""
    bet = table.bets.get(bet_id)
    u = table.cfg.unit
    point = table.own_point(bet) if bet is not None else None
    if bet is None or point is None:
        return draw(st.integers(1, 5)) * u
    free, top = craps.limits(table.cfg, bet.kind, bet.flat, point)
    return max(0, choose(draw, (free, top, top + u, free + u, u, 2 * u, 0, free - u, top - u)))


def step(draw: st.DrawFn, table: Table) -> dict[str, Any]:
    """One step on ``table`` (not applied): a roll about half the time (a total that matters more
    often), else an action on a bet on the layout or one that could be."""
    u = table.cfg.unit
    kind = draw(st.integers(0, 11))
    if kind <= 3:
        if table.point is not None and draw(st.booleans()):
            total = choose(draw, (table.point, craps.SEVEN, *POINTS))
        else:
            total = draw(st.integers(2, 12))
        return {"act": "roll", "dice": list(DICE_OF_TOTAL[total])}
    on_layout = sorted(table.bets, key=BET_IDS.index)
    with_point = [b for b in on_layout if table.own_point(table.bets[b]) is not None]
    pool = with_point if with_point and draw(st.integers(0, 3)) else on_layout
    some_bet = choose(draw, pool) if pool and draw(st.integers(0, 7)) else choose(draw, BET_IDS)
    if kind <= 6 or (not with_point and draw(st.integers(0, 7))):
        wanted = [k for k in KINDS if k not in table.bets and (k in ("pass", "dont_pass")) == (table.point is None)]
        bet = choose(draw, wanted) if wanted and draw(st.integers(0, 7)) else choose(draw, KINDS)
        amount = 5 * u if draw(st.integers(0, 7)) else choose(draw, (u, 25 * u, u // 2 or 2 * u, 0))
        return {"act": "bet", "bet": bet, "amount": amount}
    if kind <= 9:
        return {"act": "odds", "bet": some_bet, "amount": odds_amount(draw, table, some_bet)}
    if kind == 10:
        return {"act": "working", "bet": some_bet, "working": draw(st.booleans())}
    return {"act": "take_down", "bet": some_bet}


@st.composite
def round_cases(draw: st.DrawFn, config: Any, max_steps: int = 24) -> dict[str, Any]:
    """A ``craps.round`` case on a parsed round config: a rack and a script built step by step
    against the oracle's table."""
    rack = 100_000 * config.table.unit if draw(st.integers(0, 7)) else choose(draw, (10 * config.table.unit, 0))
    table = Table(config, rack)
    steps = []
    for _ in range(draw(st.integers(1, max_steps))):
        s = step(draw, table)
        apply_step(table, s)
        steps.append(s)
    return {"rack": rack, "steps": steps}
