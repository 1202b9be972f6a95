"""The craps parts of the vector suites: curated edges (``edge``) and an exhaustive bounded domain
(``standard``), for the ops ``craps.odds_limits``, ``craps.place_odds`` and ``craps.settle``.

Generators yield :class:`~tablecert.vectors.model.VectorGroup` objects holding inputs only; the
writer asks the oracle for every expected answer. Boundary amounts (free and maximum limits,
commission rounding boundaries) are *found* with the oracle's limit and commission-base
functions, so the vectors sit exactly on the boundaries of the configuration they are sent with.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from tablecert.oracle.craps import commission_base, limits, odds_win_exact
from tablecert.oracle.table_config import BETS, POINTS, TableConfig, format_decimal, parse_table_config
from tablecert.vectors.model import Vector, VectorGroup

DICE = [(a, b) for a in range(1, 7) for b in range(1, 7)]
DONT = ("dont_pass", "dont_come")
PASS_CLAUSE = {"pass": "craps.sw.1", "dont_pass": "craps.sw.2", "come": "craps.sw.3", "dont_come": "craps.sw.4"}
COMMISSION_CLAUSE = {"pass": "craps.sw.5", "come": "craps.sw.5", "dont_pass": "craps.sw.6", "dont_come": "craps.sw.6"}


SETTLE_ONLY = ("dice", "odds_working")
"""Case fields only ``craps.settle`` reads."""


def settle_case(bet: str, flat: int, point: int | None, odds: int, dice: list[int],
                working: bool = True) -> dict[str, Any]:
    """A ``craps.settle`` case; the odds working unless said otherwise (INT-ODDS-WORKING)."""
    return {"bet": bet, "flat": flat, "point": point, "odds": odds, "dice": dice, "odds_working": working}


def _without(case: Any, fields: tuple[str, ...]) -> Any:
    """A case without some fields (a case that is not an object as it is)."""
    return {k: v for k, v in case.items() if k not in fields} if isinstance(case, dict) else case


def _bet_clauses(bet: str, *more: str) -> tuple[str, ...]:
    extra = ("INT-DONT-LIMIT-ON-WIN",) if bet in DONT and "craps.sw.7" in more else ()
    return (PASS_CLAUSE[bet], *more, *extra)


def variant(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of a protocol table config with some fields changed."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    out.update(changes)
    return out


def commission_variant(base: dict[str, Any]) -> dict[str, Any]:
    """The base config with a commission above the free odds: its own if it has one, else 5 per
    cent on odds up to twice the free odds."""
    cfg = parse_table_config(base)
    if cfg.commission_rate > 0 and any(cfg.max_odds[p] > cfg.free_odds[p] for p in POINTS):
        return variant(base)
    return variant(base, commission_rate="0.05",
                   max_odds={str(p): format_decimal(cfg.free_odds[p] * 2) for p in POINTS})


# --------------------------------------------------------------------------------------------
# edge


def _odds_ladder(cfg: TableConfig, bet: str, flat: int, point: int) -> list[tuple[int, str, tuple[str, ...]]]:
    """Odds amounts around every limit: (odds, comment, flags)."""
    free, top = limits(cfg, bet, flat, point)
    u = cfg.unit
    steps = [
        (u, "one unit of odds", ("FreeOddsLimit",)),
        (free - u, "one unit under the free-odds limit", ("FreeOddsLimit", "CommissionAtFree")),
        (free, "exactly at the free-odds limit: no commission", ("FreeOddsLimit", "CommissionAtFree")),
        (free + u, "one unit over the free-odds limit: commission on one unit", ("FreeOddsLimit", "CommissionAtFree", "CommissionBase")),
        (top - u, "one unit under the maximum", ("MaxOddsLimit", "CommissionBase")),
        (top, "exactly at the maximum odds", ("MaxOddsLimit", "CommissionBase")),
        (top + u, "one unit over the maximum: above_maximum", ("MaxOddsLimit",)),
    ]
    seen: set[int] = set()
    out = []
    for odds, comment, flags in steps:
        if odds > 0 and odds not in seen:
            seen.add(odds)
            if bet in DONT:
                flags = flags + ("DontLimitOnWin",)
            out.append((odds, f"{comment} (free {free}, max {top})", flags))
    return out


def _limits_vectors(cfg: TableConfig, flats: list[int]) -> Iterator[Vector]:
    for bet in BETS:
        for point in POINTS:
            for flat in flats:
                flags = ("FreeOddsLimit", "MaxOddsLimit") + (("DontLimitOnWin",) if bet in DONT else ())
                yield Vector({"bet": bet, "flat": flat, "point": point},
                             f"limits of {bet} odds behind {flat} on {point}", flags,
                             _bet_clauses(bet, "craps.sw.7"))


def _place_vectors(cfg: TableConfig, flats: list[int]) -> Iterator[Vector]:
    for bet in BETS:
        for point in POINTS:
            for flat in flats:
                for odds, comment, flags in _odds_ladder(cfg, bet, flat, point):
                    yield Vector({"bet": bet, "flat": flat, "point": point, "odds": odds},
                                 f"{bet} on {point}, flat {flat}, odds {odds}: {comment}", flags,
                                 _bet_clauses(bet, "craps.sw.7", COMMISSION_CLAUSE[bet]))


BOUNDARY_WINDOW = 480

_BOUNDARIES = (
    ("on a whole unit", lambda f: f == 0),
    ("just over a whole unit", lambda f: 0 < f < Fraction(1, 2)),
    ("just under a half", lambda f: 0 < f < Fraction(1, 2)),
    ("exactly a half (nearest rounds up)", lambda f: f == Fraction(1, 2)),
    ("just over a half", lambda f: f > Fraction(1, 2)),
    ("just under a whole unit", lambda f: f > Fraction(1, 2)),
)


def commission_boundaries(cfg: TableConfig, bet: str, flat: int, point: int) -> list[tuple[int, str]]:
    """Odds amounts (placeable under this config) whose exact commission, in commission units,
    has a fractional part on each rounding boundary: 0, the smallest above 0, the largest below
    1/2, exactly 1/2, the smallest above 1/2, the largest below 1."""
    free, top = limits(cfg, bet, flat, point)
    candidates: list[tuple[int, Fraction]] = []
    # The fractional part of the commission repeats with a period dividing the denominator of
    # rate x ratio x unit / commission_unit: 20 units on the pass side at 5 per cent, 40, 60 and
    # 120 on the don't side. A window of BOUNDARY_WINDOW units above the free limit holds every
    # fractional part that occurs for such rates; for rarer rates it may hold fewer boundaries
    # (fewer vectors, never wrong ones).
    for odds in range(free + cfg.unit, min(top, free + BOUNDARY_WINDOW * cfg.unit) + 1, cfg.unit):
        if cfg.payout_rounding == "exact" and odds_win_exact(bet, point, odds).denominator != 1:
            continue
        q = cfg.commission_rate * commission_base(cfg, bet, flat, point, odds) / cfg.commission_unit
        candidates.append((odds, q - (q.numerator // q.denominator)))
    picks: list[tuple[int, str]] = []
    chosen: set[int] = set()
    for i, (label, test) in enumerate(_BOUNDARIES):
        matching = [(frac, odds) for odds, frac in candidates if test(frac)]
        if not matching:
            continue
        # smallest fraction for "just over", largest for "just under"; first amount otherwise
        if label.startswith("just over"):
            frac, odds = min(matching)
        elif label.startswith("just under"):
            frac, odds = max(matching, key=lambda m: (m[0], -m[1]))
        else:
            frac, odds = min(matching, key=lambda m: m[1])
        if odds not in chosen:
            chosen.add(odds)
            picks.append((odds, f"commission fraction {frac} of a unit: {label}"))
    return picks


def _commission_groups(base: dict[str, Any]) -> Iterator[VectorGroup]:
    """Commission rounding boundaries in every rounding mode, both sides, both payout roundings.
    The unit is one minor unit here so that commissions fall between whole minor units."""
    comm = commission_variant(base)
    for payout in ("down", "exact"):
        for mode in ("down", "nearest", "up"):
            raw = variant(comm, unit=1, commission_rounding=mode, payout_rounding=payout)
            cfg = parse_table_config(raw)
            vectors = []
            for bet in BETS:
                for point in POINTS:
                    flat = 1000
                    for odds, why in commission_boundaries(cfg, bet, flat, point):
                        vectors.append(Vector({"bet": bet, "flat": flat, "point": point, "odds": odds},
                                              f"{bet} on {point}: {why}, rounded {mode}",
                                              ("CommissionRounding", "CommissionBase"),
                                              (COMMISSION_CLAUSE[bet], "INT-COMMISSION-BASE", "INT-COMMISSION-CAP")))
            yield VectorGroup("craps.place_odds", raw,
                              f"commission rounding '{mode}' at unit 1, payout rounding '{payout}'", vectors)


def _settle_point_vectors(cfg: TableConfig, flat: int, odds_choice: str, working: bool = True) -> Iterator[Vector]:
    """Every bet, point and dice pair with the odds at 0, the free or the maximum limit, working
    or not (INT-ODDS-WORKING: come odds are off on the come-out roll unless called working)."""
    state = () if working else ("OddsOff",)
    clauses = () if working else ("INT-ODDS-WORKING",)
    for bet in BETS:
        for point in POINTS:
            free, top = limits(cfg, bet, flat, point)
            odds = {"none": 0, "max": top, "free": free}[odds_choice]
            for d in DICE:
                total = sum(d)
                kind = "the point" if total == point else "seven" if total == 7 else "no action"
                flags = ("PayoutRatio", "FlatPayout", "StakeDisposition") if total in (point, 7) else ("NoAction",)
                yield Vector(settle_case(bet, flat, point, odds, list(d), working),
                             f"{bet} on {point} with odds {odds}{'' if working else ' off'}, "
                             f"dice {d[0]}+{d[1]} ({kind})",
                             flags + state, _bet_clauses(bet) + clauses)


def _settle_comeout_vectors(flat: int) -> Iterator[Vector]:
    for bet in BETS:
        for d in DICE:
            total = sum(d)
            flags = ("ComeOut",) + (("BarNumber",) if total in (2, 12) and bet in DONT else ()) + (
                ("PointSet",) if total in POINTS else ("StakeDisposition",))
            yield Vector(settle_case(bet, flat, None, 0, list(d)),
                         f"{bet} come-out roll {d[0]}+{d[1]} = {total}", flags, (PASS_CLAUSE[bet],))


def _payout_rounding_vectors(cfg: TableConfig) -> Iterator[Vector]:
    """Odds whose exact win is not a whole number of minor units (unit 1): refused under exact,
    floored under down; also settled on the winning roll."""
    flat = 1000
    for bet in BETS:
        for point in POINTS:
            free, top = limits(cfg, bet, flat, point)
            for odds in range(1, 40):
                if odds_win_exact(bet, point, odds).denominator != 1 and odds <= top:
                    win_roll = [point // 2, point - point // 2] if bet not in DONT else [3, 4]
                    yield Vector(settle_case(bet, flat, point, odds, win_roll),
                                 f"{bet} on {point}: odds {odds} win {odds_win_exact(bet, point, odds)}, not whole",
                                 ("PayoutRounding", "PayoutRatio"), (PASS_CLAUSE[bet],))
                    break


def _invalid_settle_vectors(unit: int) -> Iterator[Vector]:
    ok = {"bet": "pass", "flat": unit, "point": 6, "odds": unit, "dice": [3, 3], "odds_working": True}
    cases: list[tuple[Any, str, tuple[str, ...]]] = [
        ("not an object", "case is a string", ("InvalidInput",)),
        ([ok], "case is a list", ("InvalidInput",)),
        ({k: v for k, v in ok.items() if k != "dice"}, "missing dice", ("InvalidInput",)),
        ({k: v for k, v in ok.items() if k != "odds"}, "missing odds", ("InvalidInput",)),
        (dict(ok, flat=True), "flat is a JSON boolean", ("InvalidInput",)),
        (dict(ok, flat=float(unit)), "flat is a JSON number with a fraction part", ("InvalidInput",)),
        (dict(ok, odds="100"), "odds is a string", ("InvalidInput",)),
        (dict(ok, dice="33"), "dice is a string", ("InvalidInput",)),
        (dict(ok, point="6"), "point is a string", ("InvalidInput",)),
        (dict(ok, bet="field"), "unknown bet", ("InvalidInput",)),
        (dict(ok, bet="PASS"), "bet in capitals", ("InvalidInput",)),
        (dict(ok, point=7), "point 7", ("InvalidInput",)),
        (dict(ok, point=0), "point 0", ("InvalidInput",)),
        (dict(ok, dice=[0, 6]), "die 0", ("InvalidInput",)),
        (dict(ok, dice=[7, 1]), "die 7", ("InvalidInput",)),
        (dict(ok, dice=[3]), "one die", ("InvalidInput",)),
        (dict(ok, dice=[1, 2, 3]), "three dice", ("InvalidInput",)),
        (dict(ok, dice=[True, 2]), "a die that is a boolean", ("InvalidInput",)),
        (dict(ok, point=None), "odds on a bet with no point", ("InvalidInput",)),
        (dict(ok, flat=0), "flat 0", ("InvalidInput",)),
        (dict(ok, flat=-unit), "negative flat", ("InvalidInput",)),
        (dict(ok, odds=-unit), "negative odds", ("InvalidInput",)),
        (dict(ok, odds=0), "odds 0 are fine in settle", ("NoAction", "PayoutRatio")),
        (dict(ok, odds=unit * 5 * 10**5), "odds far above the maximum", ("MaxOddsLimit",)),
        (dict(ok, flat=unit + 1) if unit > 1 else dict(ok, flat=unit), "flat off the unit", ("Increment",)),
        (dict(ok, odds=unit + 1) if unit > 1 else dict(ok, odds=unit), "odds off the unit", ("Increment",)),
        (dict(ok, bet="field", point=7), "unknown bet and bad point: invalid_bet first", ("ErrorOrder",)),
        (dict(ok, point=7, dice=[9, 9]), "bad point and bad dice: invalid_point first", ("ErrorOrder",)),
        (dict(ok, dice=[9, 9], point=None), "bad dice and odds without point: invalid_dice first", ("ErrorOrder",)),
        (dict(ok, point=None, flat=0), "odds without point and flat 0: no_point first", ("ErrorOrder",)),
        (dict(ok, flat=0, odds=unit + 1 if unit > 1 else unit), "flat 0 and odds off the unit: not_positive first", ("ErrorOrder",)),
        (dict(ok, odds=10**9 + 1 if unit > 1 else 10**9), "odds off the unit and above the maximum: bad_increment first", ("ErrorOrder",)),
        (dict(ok, bet=None), "bet null: invalid_request before invalid_bet", ("ErrorOrder",)),
        ({k: v for k, v in ok.items() if k != "odds_working"}, "missing odds_working", ("InvalidInput", "OddsOff")),
        (dict(ok, odds_working="true"), "odds_working is a string", ("InvalidInput", "OddsOff")),
        (dict(ok, odds_working=1), "odds_working is the integer 1, not a JSON boolean", ("InvalidInput", "OddsOff")),
        (dict(ok, odds_working=None, bet="field"), "odds_working null and an unknown bet: invalid_request first",
         ("ErrorOrder", "OddsOff")),
    ]
    for case, why, flags in cases:
        yield Vector(case, why, flags, ("craps.sw.1",))


def _invalid_config_groups(base: dict[str, Any]) -> Iterator[VectorGroup]:
    case = {"bet": "pass", "flat": base["unit"], "point": 6}
    broken = [
        ({k: v for k, v in base.items() if k != "bar"}, "missing bar"),
        (variant(base, commission_rate=0.05), "commission rate as a JSON number, not a decimal string"),
        (variant(base, free_odds={k: v for k, v in base["free_odds"].items() if k != "6"}), "free odds without point 6"),
        (variant(base, free_odds=dict(base["free_odds"], **{"6": "1000"})), "free odds above max odds on 6"),
        (variant(base, commission_rounding="sideways"), "unknown commission rounding"),
        (variant(base, payout_rounding="up"), "unknown payout rounding"),
        (variant(base, bar=7), "bar 7"),
        (variant(base, unit=0), "unit 0"),
    ]
    for cfg, why in broken:
        yield VectorGroup("craps.odds_limits", cfg, f"malformed config: {why}",
                          [Vector(case, f"every case of a request with a malformed config ({why}) is invalid_config",
                                  ("InvalidConfig",), ("craps.sw.7",))])


def edge_groups(base: dict[str, Any]) -> Iterator[VectorGroup]:
    """The curated craps edges for one profile's table config (``base``)."""
    cfg = parse_table_config(base)
    comm_raw = commission_variant(base)
    comm = parse_table_config(comm_raw)
    u = cfg.unit
    flats = [u, 3 * u, 7 * u]
    for raw, parsed, why in ((base, cfg, "the profile's config"), (comm_raw, comm, "with commission above the free odds")):
        yield VectorGroup("craps.odds_limits", raw, f"limits, {why}", _limits_vectors(parsed, flats))
        yield VectorGroup("craps.place_odds", raw, f"odds ladders around every limit, {why}", _place_vectors(parsed, flats))
    yield from _commission_groups(base)
    for bar in (12, 2):
        yield VectorGroup("craps.settle", variant(base, bar=bar), f"every come-out roll, bar {bar}",
                          _settle_comeout_vectors(u))
    for odds_choice in ("none", "free", "max"):
        yield VectorGroup("craps.settle", base, f"every bet, point and dice pair, odds {odds_choice}",
                          _settle_point_vectors(cfg, 2 * u, odds_choice))
    for odds_choice in ("free", "max"):
        yield VectorGroup("craps.settle", base, f"odds off (come odds on a come-out roll unless called working), "
                          f"every bet, point and dice pair, odds {odds_choice}",
                          _settle_point_vectors(cfg, 2 * u, odds_choice, working=False))
    for payout in ("exact", "down"):
        raw = variant(comm_raw, unit=1, payout_rounding=payout)
        yield VectorGroup("craps.settle", raw, f"odds wins that are not whole, payout rounding '{payout}'",
                          _payout_rounding_vectors(parse_table_config(raw)))
        yield VectorGroup("craps.place_odds", raw, f"odds wins that are not whole, payout rounding '{payout}'",
                          (Vector(_without(vec.case, SETTLE_ONLY), vec.comment, vec.flags, vec.clauses)
                           for vec in _payout_rounding_vectors(parse_table_config(raw))))
    yield VectorGroup("craps.settle", base, "invalid cases and the order of error codes", _invalid_settle_vectors(u))
    yield VectorGroup("craps.place_odds", base, "invalid cases and the order of error codes",
                      (Vector(_without(vec.case, SETTLE_ONLY), vec.comment, vec.flags, vec.clauses)
                       for vec in _invalid_settle_vectors(u) if "odds_working" not in vec.comment))
    yield VectorGroup("craps.odds_limits", base, "invalid cases and the order of error codes",
                      (Vector(_without(vec.case, SETTLE_ONLY + ("odds",)), vec.comment, vec.flags, vec.clauses)
                       for vec in _invalid_settle_vectors(u) if "odds_working" not in vec.comment))
    yield from _invalid_config_groups(base)


# --------------------------------------------------------------------------------------------
# standard: a bounded exhaustive domain


STANDARD_FLAT_UNITS = (1, 2, 3)
WIDE_TABLE_MULTIPLE = 10  # above this max multiple, the domain keeps one flat amount to stay a few minutes' run


def domain_flats(cfg: TableConfig) -> tuple[int, ...]:
    """Flat amounts of the bounded domain: 1, 2 and 3 units; 1 unit on tables whose maximum odds
    exceed 10x (a 100x table has 100 times as many odds amounts per flat)."""
    if max(cfg.max_odds.values()) > WIDE_TABLE_MULTIPLE:
        return tuple(k * cfg.unit for k in STANDARD_FLAT_UNITS[:1])
    return tuple(k * cfg.unit for k in STANDARD_FLAT_UNITS)


def next_above_maximum(cfg: TableConfig, bet: str, flat: int, point: int) -> int:
    """The least odds above the maximum that are a multiple of the unit with a whole win under
    ``payout_rounding: exact`` (so that the maximum, not the increment, refuses them)."""
    odds = limits(cfg, bet, flat, point)[1] + cfg.unit
    while cfg.payout_rounding == "exact" and odds_win_exact(bet, point, odds).denominator != 1:
        odds += cfg.unit
    return odds


def domain_groups(base: dict[str, Any], label: str) -> Iterator[VectorGroup]:
    """Every bet x point x flat (:func:`domain_flats`) x every odds amount from 0 to one unit past
    the maximum x every dice pair (settle), odds off at the maximum (every dice pair) and just above
    it (:func:`next_above_maximum`, on the deciding rolls: refused like odds working), the same
    without dice (place_odds), and the limits of every bet x point x flat of 1 to 10 units."""
    cfg = parse_table_config(base)
    u = cfg.unit
    flats = domain_flats(cfg)

    def settle() -> Iterator[Vector]:
        for bet in BETS:
            for d in DICE:
                yield Vector(settle_case(bet, u, None, 0, list(d)),
                             "come-out", ("ComeOut",), (PASS_CLAUSE[bet],))
            for point in POINTS:
                for flat in flats:
                    _, top = limits(cfg, bet, flat, point)
                    for odds in range(0, top + 2 * u, u):
                        for d in DICE:
                            yield Vector(settle_case(bet, flat, point, odds, list(d)),
                                         "domain", ("PayoutRatio",), (PASS_CLAUSE[bet],))
                _, top = limits(cfg, bet, u, point)
                for d in DICE:
                    yield Vector(settle_case(bet, u, point, top, list(d), working=False),
                                 "domain, odds off (come odds on a come-out roll)", ("OddsOff", "StakeDisposition"),
                                 (PASS_CLAUSE[bet], "INT-ODDS-WORKING"))
                above = next_above_maximum(cfg, bet, u, point)
                for d in DICE:
                    if sum(d) in (point, 7):        # the rolls that would hand off odds back
                        yield Vector(settle_case(bet, u, point, above, list(d), working=False),
                                     "domain, odds off above the maximum: above_maximum like odds working",
                                     ("OddsOff", "MaxOddsLimit"), (PASS_CLAUSE[bet], "INT-ODDS-WORKING"))

    def place() -> Iterator[Vector]:
        for bet in BETS:
            for point in POINTS:
                for flat in flats:
                    _, top = limits(cfg, bet, flat, point)
                    for odds in range(u, top + 2 * u, u):
                        yield Vector({"bet": bet, "flat": flat, "point": point, "odds": odds},
                                     "domain", ("CommissionBase", "MaxOddsLimit"), (COMMISSION_CLAUSE[bet],))

    def limit_vectors() -> Iterator[Vector]:
        for bet in BETS:
            for point in POINTS:
                for k in range(1, 11):
                    yield Vector({"bet": bet, "flat": k * u, "point": point}, "domain",
                                 ("FreeOddsLimit", "MaxOddsLimit"), (PASS_CLAUSE[bet], "craps.sw.7"))

    yield VectorGroup("craps.odds_limits", base, f"bounded domain of {label}", limit_vectors())
    yield VectorGroup("craps.place_odds", base, f"bounded domain of {label}", place())
    yield VectorGroup("craps.settle", base, f"bounded domain of {label}", settle())
