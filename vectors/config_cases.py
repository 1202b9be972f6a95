"""The ``configs`` suite: the configuration space (``oracle/config_space.toml``) covered pairwise
by legal table configurations, each with a bounded bet domain built from its own boundaries, and
amounts at both ends of the range every vendor must handle (up to 2^53 - 1 minor units).

For each covering config (:func:`covering_configs`, deterministic) and every bet and point:

* ``craps.odds_limits`` at flats of 1, 7, 20 and 100 units, at flats just past 2^31 and 2^32, and at the
  largest flat whose limits and wins stay within 2^53 - 1;
* ``craps.place_odds`` on the ladder around the free and maximum limits (± one unit), on the
  commission rounding boundaries of this config, at the odds whose wins cross 2^31 and 2^32, and
  at the maximum odds behind the largest flat;
* ``craps.settle`` of the same amounts on the winning roll (and on the losing roll for the
  ladder behind one unit), and a roll of every come-out total (the bar number).

Pai gow: every boundary cap with rounds whose total win sits one unit under, on and over the cap
and wins crossing 2^31 and 2^32; and rare hands (straight flushes outside a suit's five highest
cards, the joker in a five-high straight flush).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from tablecert.oracle.config_space import CRAPS_FACTORS, config_space, is_legal
from tablecert.oracle.craps import is_dont, limits, odds_ratio
from tablecert.oracle.paigow import pay_tables
from tablecert.oracle.table_config import BETS, POINTS, TableConfig, parse_table_config
from tablecert.vectors.covering import covering_array
from tablecert.vectors.craps_cases import (COMMISSION_CLAUSE, DICE, PASS_CLAUSE, _odds_ladder, commission_boundaries,
                                           settle_case)
from tablecert.vectors.model import Vector, VectorGroup

CONFIG_FLAG = ("TableConfig",)
#: One roll of each come-out total, 2 to 12 (every dice pair of each is in the shipped profiles' domain).
COME_OUT = tuple({a + b: (a, b) for a, b in DICE}.values())
RANGE_FLAG = ("AmountRange",)


@cache
def covering_configs() -> tuple[dict[str, Any], ...]:
    """Legal table configs covering every pair of boundary values of the config space."""
    space = config_space()
    array = covering_array({f: space.values[f] for f in CRAPS_FACTORS}, lambda c: is_legal(space.craps_config(c)))
    return tuple(space.craps_config(row) for row in array.rows)


def _ceil_to(x: Any, unit: int) -> int:
    q = -((-x) // unit)
    return int(q) * unit


def _rolls(bet: str, point: int) -> tuple[list[int], list[int]]:
    """(a winning roll, a losing roll) for ``bet`` once ``point`` is set."""
    made = [point // 2, point - point // 2] if point != 4 else [1, 3]
    return ([3, 4], made) if is_dont(bet) else (made, [3, 4])


def _whole(cfg: TableConfig, bet: str, point: int, odds: int) -> bool:
    return cfg.payout_rounding == "down" or (odds * odds_ratio(bet, point)).denominator == 1


def crossing_bet(cfg: TableConfig, bet: str, point: int, width: int) -> tuple[int, int]:
    """(flat, odds): the smallest odds (placeable under this config) whose win exceeds ``width``,
    behind the smallest flat whose maximum allows it."""
    u, ratio = cfg.unit, odds_ratio(bet, point)
    odds = _ceil_to((width + 1) / ratio, u)
    while not _whole(cfg, bet, point, odds):
        odds += u
    share = ratio if is_dont(bet) else 1
    flat = max(u, _ceil_to(odds * share / cfg.max_odds[point], u))
    while limits(cfg, bet, flat, point)[1] < odds:
        flat += u
    return flat, odds


def largest_flat(cfg: TableConfig, point: int) -> int:
    """The largest flat behind which every limit, odds amount (the maximum plus one unit) and win
    stays within the largest amount: the maximum odds win at most twice ``max x flat``."""
    top = config_space().max_amount - cfg.unit
    return max(cfg.unit, top // (2 * max(cfg.max_odds[point], 1) + 1) // cfg.unit * cfg.unit)


def _craps_groups(raw: dict[str, Any], n: int) -> Iterator[VectorGroup]:
    cfg = parse_table_config(raw)
    u = cfg.unit
    widths = config_space().crossings
    label = f"covering config {n}"
    limit_v: list[Vector] = []
    place_v: list[Vector] = []
    settle_v: list[Vector] = []

    def add(bet: str, flat: int, point: int, odds: int, why: str, flags: tuple[str, ...], losing: bool = False) -> None:
        """place_odds of these odds, and settle on the winning roll (and the losing one if asked)."""
        place_v.append(Vector({"bet": bet, "flat": flat, "point": point, "odds": odds}, why, flags,
                              (COMMISSION_CLAUSE[bet], "craps.sw.7")))
        for roll in _rolls(bet, point)[:2 if losing else 1]:
            settle_v.append(Vector(settle_case(bet, flat, point, odds, roll),
                                   f"{why}, dice {roll[0]}+{roll[1]}", flags + ("PayoutRatio",), (PASS_CLAUSE[bet],)))

    for bet in BETS:
        for d in COME_OUT:
            settle_v.append(Vector(settle_case(bet, u, None, 0, list(d)),
                                   f"come-out {d[0]}+{d[1]}, bar {cfg.bar}", CONFIG_FLAG + ("ComeOut",), (PASS_CLAUSE[bet],)))
        for point in POINTS:
            big = largest_flat(cfg, point)
            wide = [crossing_bet(cfg, bet, point, w) for w in widths]
            for flat in (u, 7 * u, 20 * u, 100 * u, *(f for f, _ in wide), big):
                limit_v.append(Vector({"bet": bet, "flat": flat, "point": point}, f"limits behind {flat}",
                                      CONFIG_FLAG + ("FreeOddsLimit", "MaxOddsLimit"), (PASS_CLAUSE[bet], "craps.sw.7")))
            for flat in (u, 7 * u):
                for odds, why, flags in _odds_ladder(cfg, bet, flat, point):
                    add(bet, flat, point, odds, why, CONFIG_FLAG + flags, losing=flat == u)
                for odds, why in commission_boundaries(cfg, bet, 7 * u, point) if flat == 7 * u else ():
                    add(bet, flat, point, odds, why, CONFIG_FLAG + ("CommissionRounding",))
            for (flat, odds), width in zip(wide, widths):
                add(bet, flat, point, odds, f"odds win just past {width}", RANGE_FLAG)
            top = limits(cfg, bet, big, point)[1]
            for odds in (top - 2 * u, top - u, top, top + u):
                if odds > 0:
                    add(bet, big, point, odds, f"largest flat {big}, odds {odds} (maximum {top})", RANGE_FLAG)
            settle_v.append(Vector(settle_case(bet, big, point, 0, _rolls(bet, point)[0]),
                                   f"largest flat {big}, no odds", RANGE_FLAG + ("FlatPayout",), (PASS_CLAUSE[bet],)))
            off = limits(cfg, bet, u, point)[1]
            while off > 0 and not _whole(cfg, bet, point, off):
                off -= u
            for roll in (*_rolls(bet, point), [1, 1]):
                settle_v.append(Vector(settle_case(bet, u, point, off, roll, working=False),
                                       f"odds {off} off (come odds on a come-out roll), dice {roll[0]}+{roll[1]}",
                                       CONFIG_FLAG + ("OddsOff", "StakeDisposition"),
                                       (PASS_CLAUSE[bet], "INT-ODDS-WORKING")))
    top_flat = config_space().max_amount // u * u
    for bet in BETS:
        settle_v.append(Vector(settle_case(bet, top_flat, None, 0, [1, 1] if is_dont(bet) else [3, 4]),
                               f"flat {top_flat}, the largest multiple of the unit", RANGE_FLAG + ("FlatPayout",),
                               (PASS_CLAUSE[bet],)))
    yield VectorGroup("craps.odds_limits", raw, label, limit_v)
    yield VectorGroup("craps.place_odds", raw, label, place_v)
    yield VectorGroup("craps.settle", raw, label, settle_v)


#: Rare hands: straight flushes that are not among the five highest cards of their suit, and the
#: joker in five-high straight flushes.
RARE_HANDS = (
    (["2h", "3h", "4h", "5h", "6h", "Qh", "Kh"], "six-high straight flush under two higher hearts"),
    (["3s", "4s", "5s", "6s", "7s", "Js", "Ks"], "seven-high straight flush under two higher spades"),
    (["9d", "Td", "Jd", "Qd", "Kd", "2d", "Ad"], "king-high straight flush beside the ace of its suit"),
    (["Ah", "2h", "3h", "4h", "JK", "9c", "Kd"], "the joker as the five of a five-high straight flush"),
    (["2c", "3c", "4c", "5c", "JK", "9d", "Kh"], "the joker as the ace (or six) of a straight flush"),
    (["Ad", "2d", "3d", "5d", "JK", "Kd", "Qd"], "the joker as the four of a five-high straight flush, with a flush"),
    (["Ac", "3c", "4c", "5c", "JK", "Kc", "8c"], "the joker as the two of a five-high straight flush"),
    (["2s", "3s", "4s", "5s", "As", "Ks", "Qs"], "five-high straight flush in a seven-card flush"),
)


def _paigow_groups() -> Iterator[VectorGroup]:
    tables = pay_tables()
    five_aces = tables.player_bonus["five_aces"]
    seat = ["Ac", "Ad", "Ah", "As", "JK", "2c", "7d"]
    dealer = ["Kc", "Kd", "9h", "8s", "4c", "3d", "2h"]  # a pair: no banker bonus
    hands = [Vector({"cards": cards}, why, ("HandCategory", "JokerStraightFlush") if "JK" in cards else ("HandCategory",),
                    ("njac.11.19.c1",)) for cards, why in RARE_HANDS]
    yield VectorGroup("paigow.player_bonus", {"cap": tables.cap_minimum}, "rare straight flushes", hands)
    yield VectorGroup("paigow.banker_bonus", {"cap": tables.cap_minimum}, "rare straight flushes",
                      [Vector(v.case, v.comment, v.flags, ("njac.11.19.c2",)) for v in hands])
    for cap in config_space().paigow_caps:
        wagers = {max(1, cap // five_aces + k) for k in (-1, 0, 1)}
        wagers |= {w // five_aces + 1 for w in config_space().crossings if w < cap}
        wagers = {w for w in wagers if w * five_aces <= config_space().max_amount}
        rounds = [Vector({"dealer": dealer, "bank_seat": None, "seats": [{"seat": 1, "wager": w, "cards": seat}]},
                         f"five aces at {w}: {w * five_aces} against the cap {cap}",
                         ("CapAggregate", "FiveAces") + RANGE_FLAG, ("njac.11.20.d", "INT-BONUS-WAGER-RETURNED"))
                  for w in sorted(wagers)]
        yield VectorGroup("paigow.settle", {"cap": cap}, f"the cap at {cap}", rounds)


def config_groups() -> Iterator[VectorGroup]:
    """Every group of the ``configs`` suite."""
    for n, raw in enumerate(covering_configs(), 1):
        yield from _craps_groups(raw, n)
    yield from _paigow_groups()
