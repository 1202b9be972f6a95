"""Hypothesis strategies for ``tablecert fuzz``: legal craps tables drawn around the boundary
values of the config space (``oracle/config_space.toml``) and anywhere in its ranges, cases around
each table's own limits and up to the largest amount a vendor must handle, pai gow hands biased
towards rare straight flushes and the joker, rounds around the cap; and now and then an invalid
config or case. Every expected answer comes from the oracle, never from here.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from tablecert.oracle.cards import card_code
from tablecert.oracle.config_space import CRAPS_FACTORS, config_space, is_legal
from tablecert.oracle.craps import limits
from tablecert.oracle.paigow import pay_tables
from tablecert.oracle.table_config import BETS, POINTS, TableConfig, format_decimal, parse_table_config
from tablecert.vectors.config_cases import largest_flat

#: One example: (op, config, cases).
Example = tuple[str, Any, list[Any]]
MAX_CASES = 16


def choose(draw: st.DrawFn, values: Any) -> Any:
    """One of ``values`` (a sequence); shrinks towards the first. Drawn through an integer, whose
    strategy hypothesis caches (a new ``sampled_from`` per draw costs more than the draw)."""
    return values[draw(st.integers(0, len(values) - 1))]


def _multiple(draw: st.DrawFn) -> Fraction:
    """A multiple from 0 to 1000x in hundredths, small ones likelier."""
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return Fraction(draw(st.integers(0, 20)))
    return Fraction(draw(st.integers(0, 1000 if kind == 1 else 100_000)), 100)


@st.composite
def craps_tables(draw: st.DrawFn) -> dict[str, Any]:
    """A legal craps table config: each factor a boundary value or any value in its range. A
    drawn table the regulation forbids is repaired (under payout rounding down a unit of 30
    minor units or a multiple; else commission rounding down, then payout rounding exact; max
    odds at least 1), so every draw is legal."""
    space = config_space()
    pick = {f: choose(draw, space.values[f]) for f in CRAPS_FACTORS}
    raw = space.craps_config(pick)
    if draw(st.booleans()):
        raw["unit"] = draw(st.integers(1, 10**6))
    if draw(st.booleans()):
        raw["commission_unit"] = draw(st.integers(1, 1000))
    if draw(st.booleans()):
        raw["commission_rate"] = format_decimal(Fraction(draw(st.integers(0, 500)), 10_000))
    if draw(st.booleans()):
        for point in POINTS:
            a, b = sorted((_multiple(draw), _multiple(draw)))
            raw["free_odds"][str(point)] = format_decimal(a)
            raw["max_odds"][str(point)] = format_decimal(max(b, Fraction(1)))
    if raw["payout_rounding"] == "down" and not is_legal(raw):
        raw["unit"] = 30 * max(1, raw["unit"] // 30)   # a unit whose wins are whole at every ratio
    for repair in ({"commission_rounding": "down"}, {"payout_rounding": "exact"}):
        if not is_legal(raw):
            raw.update(repair)
    assert is_legal(raw), raw
    return raw


@st.composite
def invalid_tables(draw: st.DrawFn) -> Any:
    """A malformed craps config (every case is then invalid_config)."""
    raw = draw(craps_tables())
    kind = choose(draw, ("missing", "unit", "rate", "rounding", "bar", "free-above-max", "not-object"))
    if kind == "missing":
        del raw[choose(draw, sorted(raw))]
    elif kind == "unit":
        raw["unit"] = choose(draw, (0, -1, True, 1.5, "100"))
    elif kind == "rate":
        raw["commission_rate"] = choose(draw, (0.05, "5%", "-0.01", ".05", "0.050."))
    elif kind == "rounding":
        raw["commission_rounding"] = choose(draw, ("half", "Down", None))
    elif kind == "bar":
        raw["bar"] = choose(draw, (3, 7, "12", 12.0))
    elif kind == "free-above-max":
        point = str(choose(draw, POINTS))
        raw["free_odds"][point] = format_decimal(Fraction(raw["max_odds"][point]) + 1)
    else:
        return choose(draw, ([], "config", None, 3))
    return raw


def _amount(draw: st.DrawFn, unit: int, around: list[int]) -> int:
    """An amount: one of ``around`` (a table's boundaries), a few units, any multiple of the unit
    up to the largest amount, or a small amount off the unit (or not positive)."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return choose(draw, [a for a in around if a > 0] or [unit])
    if kind == 1:
        return draw(st.integers(1, 20)) * unit
    if kind == 2:
        return draw(st.integers(1, max(1, config_space().max_amount // unit))) * unit
    return draw(st.integers(-unit, 3 * unit))


def craps_case(draw: st.DrawFn, cfg: TableConfig, op: str) -> dict[str, Any]:
    """One case of ``op`` on a legal table: amounts on the table's limits (± one unit), small,
    huge, or off the unit; rarely a bad field."""
    u = cfg.unit
    bet = choose(draw, BETS)
    point = choose(draw, POINTS)
    # within the amount range: every limit and win behind the flat stays within 2^53 - 1
    flat = min(_amount(draw, u, [u, 7 * u, 20 * u, 100 * u]), largest_flat(cfg, point))
    flat_for_limits = flat if flat > 0 and flat % u == 0 else u
    free, top = limits(cfg, bet, flat_for_limits, point)
    if draw(st.booleans()):   # just above the free limit: the commission's rounding boundaries repeat there
        odds = free + draw(st.integers(1, 120)) * u
    else:
        odds = _amount(draw, u, [free - u, free, free + u, top - u, top, top + u])
    odds = min(odds, top + u)
    case: dict[str, Any] = {"bet": bet, "flat": flat, "point": point}
    if op != "craps.odds_limits":
        case["odds"] = odds
    if op == "craps.settle":
        case["dice"] = [draw(st.integers(1, 6)), draw(st.integers(1, 6))]
        if draw(st.booleans()):   # the rolls that settle a point: the point made, or a seven
            case["dice"] = choose(draw, ([point // 2, point - point // 2], [3, 4]))
        case["odds_working"] = draw(st.integers(0, 3)) != 0   # odds off (come odds on a come-out) a quarter of the time
        if draw(st.integers(0, 3)) == 0:
            case.update(point=None, odds=choose(draw, (0, 0, u)))
            if draw(st.booleans()):   # the come-out totals that decide: craps, the bar numbers, naturals
                case["dice"] = list(choose(draw, ((1, 1), (6, 6), (1, 2), (3, 4), (5, 6))))
    if draw(st.integers(0, 15)) == 0:
        key = choose(draw, sorted(case))
        case[key] = choose(draw, (None, "x", True, 7, [3], 1.5, -u, 0))
    return case


def hand(draw: st.DrawFn, avoid: frozenset[int] = frozenset()) -> list[int]:
    """Seven distinct card indices (the joker is 52), often a straight flush run of one suit with
    the joker standing in, or a long flush."""
    free = [c for c in range(53) if c not in avoid]
    cards: list[int] = []
    if draw(st.booleans()):
        suit, low = draw(st.integers(0, 3)), draw(st.integers(-1, 8))   # low -1: the ace low
        run = [(12 if r < 0 else r) * 4 + suit for r in range(low, low + 5)]
        if draw(st.booleans()):
            run[draw(st.integers(0, 4))] = 52
        cards = [c for c in dict.fromkeys(run) if c in free]
    pool = [c for c in free if c not in cards]
    while len(cards) < 7:
        cards.append(pool.pop(draw(st.integers(0, len(pool) - 1))))
    return cards[:7]


def _codes(cards: list[int]) -> list[str]:
    return [card_code(c) for c in cards]


@st.composite
def paigow_example(draw: st.DrawFn, op: str, pinned_cap: int | None = None) -> tuple[Any, list[Any]]:
    """(config, cases) of a pai gow op: the pinned cap, or caps at the boundaries or anywhere
    legal (rarely a malformed config); hands; rounds."""
    tables = pay_tables()
    top = config_space().max_amount
    cap = (pinned_cap if pinned_cap is not None else choose(draw, config_space().paigow_caps) if draw(st.booleans())
           else draw(st.integers(tables.cap_minimum, top)))
    config: Any = {"cap": cap}
    if pinned_cap is None and draw(st.integers(0, 20)) == 0:
        config = choose(draw, ({"cap": -1}, {"cap": "4000000"}, {}, {"cap": cap, "x": 1}, [cap]))
    n = draw(st.integers(1, MAX_CASES))
    if op != "paigow.settle":
        return config, [{"cards": _codes(hand(draw))} for _ in range(n)]
    rounds = []
    for _ in range(n):
        dealer = hand(draw)
        seats, used = [], frozenset(dealer)
        for number in range(1, draw(st.integers(1, 3)) + 1):
            cards = hand(draw, used)
            used |= frozenset(cards)
            kind = draw(st.integers(0, 2))
            wager = (draw(st.integers(0, 10_000)) if kind == 0
                     else draw(st.integers(0, top // tables.top_round_win_multiple)) if kind == 1
                     else max(0, cap // tables.player_bonus["five_aces"] + draw(st.integers(-1, 1))))
            wager = min(wager, top // tables.top_round_win_multiple)   # every win within the range
            seats.append({"seat": number, "wager": wager, "cards": _codes(cards)})
        bank = choose(draw, [None] + [s["seat"] for s in seats])
        rounds.append({"dealer": _codes(dealer), "bank_seat": bank, "seats": seats})
    return config, rounds


@st.composite
def examples(draw: st.DrawFn, ops: tuple[str, ...], table: dict[str, Any] | None = None,
             cap: int | None = None) -> Example:
    """One example: an op, its config (``table`` or ``cap`` when pinned; else drawn, rarely
    malformed) and 1 to :data:`MAX_CASES` cases."""
    op = choose(draw, ops)
    if op.startswith("paigow."):
        config, cases = draw(paigow_example(op, cap))
        return op, config, cases
    if table is not None:
        raw: Any = {k: (dict(v) if isinstance(v, dict) else v) for k, v in table.items()}
    elif draw(st.integers(0, 20)) == 0:
        bad = draw(invalid_tables())
        return op, bad, [{"bet": "pass", "flat": 100, "point": 6, "odds": 100, "dice": [3, 3], "odds_working": True}]
    else:
        raw = draw(craps_tables())
    cfg = parse_table_config(raw)
    cases = [craps_case(draw, cfg, op) for _ in range(draw(st.integers(1, MAX_CASES)))]
    return op, raw, cases
