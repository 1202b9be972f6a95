"""Craps table configurations: parsing, the payout rules they are read against, and the
regulatory findings for configurations the regulation does not allow.

A table configuration is the ``config`` object of every craps request of the vendor protocol
(``tablecert-vendor/1``)::

    {"unit": 100,
     "free_odds": {"4": "3", "5": "4", "6": "5", "8": "5", "9": "4", "10": "3"},
     "max_odds":  {"4": "10", ...},
     "commission_rate": "0.05", "commission_rounding": "down", "commission_unit": 1,
     "payout_rounding": "exact", "bar": 12}

:func:`parse_table_config` turns it into a :class:`TableConfig` or raises
:class:`~tablecert.oracle.errors.ConfigError` naming the field at fault (the protocol answers every
case of such a request ``invalid_config``). A *well-formed* configuration may still be one the
regulation does not allow; :func:`regulatory_findings` says why (commission rate or rounding above
five per cent, craps.sw.5/craps.sw.6; odds denied or limited below the don't side's floor,
craps.sw.1-4; payouts floored below the stated odds, craps.sw.1-4). :func:`paigow_findings` does
the same for the pai gow bonus cap (njac.11.20.d).

Money is integers of minor units; multiples and rates are :class:`fractions.Fraction` parsed from
decimal strings. No float is used anywhere in this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import cache
from types import MappingProxyType
from typing import Any, Mapping

from tablecert.oracle.errors import ConfigError
from tablecert.oracle.exact_text import format_percent
from tablecert.oracle.register import load_data
from tablecert.oracle.paigow import pay_tables

#: The point numbers, in the order the protocol lists them.
POINTS: tuple[int, ...] = (4, 5, 6, 8, 9, 10)
#: The four bets of the protocol.
BETS: tuple[str, ...] = ("pass", "dont_pass", "come", "dont_come")
COMMISSION_ROUNDINGS: tuple[str, ...] = ("down", "nearest", "up")
PAYOUT_ROUNDINGS: tuple[str, ...] = ("exact", "down")
BARS: tuple[int, ...] = (12, 2)
#: The keys of a table configuration, in the order they are checked.
CONFIG_KEYS: tuple[str, ...] = (
    "unit",
    "free_odds",
    "max_odds",
    "commission_rate",
    "commission_rounding",
    "commission_unit",
    "payout_rounding",
    "bar",
)
#: Longest decimal string accepted for a multiple or a rate (a guard, far above any real table).
MAX_DECIMAL_CHARS = 100

_DECIMAL = re.compile(r"(0|[1-9][0-9]*)(\.[0-9]+)?")
_ODDS = re.compile(r"([1-9][0-9]*) to ([1-9][0-9]*)")


def is_int(value: object) -> bool:
    """A JSON integer: an ``int`` that is not a ``bool`` (a JSON boolean is not an integer)."""
    return isinstance(value, int) and not isinstance(value, bool)


# --------------------------------------------------------------------------------------------
# The rules (rules/craps.toml)


@dataclass(frozen=True)
class CrapsRules:
    """The payout odds and the commission ceiling of ``rules/craps.toml``, as exact fractions.

    ``side_of`` maps each bet to ``"pass"`` (pass/come) or ``"dont_pass"`` (don't pass/don't come);
    ``odds[side][point]`` is the win per unit of odds wagered (2 to 1 -> 2, 1 to 2 -> 1/2);
    ``clauses[...]`` the clause ids each part implements."""

    flat: Fraction
    odds: Mapping[str, Mapping[int, Fraction]]
    side_of: Mapping[str, str]
    max_commission_rate: Fraction
    clauses: Mapping[str, tuple[str, ...]]

    def ratio(self, bet: str, point: int) -> Fraction:
        """Win per unit of odds wagered for ``bet`` at ``point`` (craps.sw.1-4)."""
        return self.odds[self.side_of[bet]][point]


def _parse_odds(text: object, where: str) -> Fraction:
    if not isinstance(text, str) or not _ODDS.fullmatch(text):
        raise ValueError(f"rules/craps.toml: {where} must read 'W to S', got {text!r}")
    win, stake = text.split(" to ")
    return Fraction(int(win), int(stake))


@cache
def craps_rules() -> CrapsRules:
    """Read ``rules/craps.toml`` (package data; never anything outside the package)."""
    raw = load_data("rules/craps.toml")
    odds: dict[str, Mapping[int, Fraction]] = {}
    side_of: dict[str, str] = {}
    clauses: dict[str, tuple[str, ...]] = {"flat": tuple(raw["flat"]["clauses"])}
    for side in ("pass", "dont_pass"):
        entry = raw["odds"][side]
        pays = entry["pays"]
        if sorted(pays, key=int) != [str(p) for p in POINTS]:
            raise ValueError(f"rules/craps.toml: odds.{side}.pays must name exactly the points {POINTS}")
        odds[side] = MappingProxyType({p: _parse_odds(pays[str(p)], f"odds.{side}.pays.{p}") for p in POINTS})
        clauses[side] = tuple(entry["clauses"])
        for bet in entry["bets"]:
            side_of[bet] = side
    if sorted(side_of) != sorted(BETS):
        raise ValueError("rules/craps.toml: the odds tables must cover exactly the four bets")
    clauses["commission"] = tuple(raw["commission"]["clauses"])
    return CrapsRules(
        flat=_parse_odds(raw["flat"]["pays"], "flat.pays"),
        odds=MappingProxyType(odds),
        side_of=MappingProxyType(side_of),
        max_commission_rate=parse_decimal(raw["commission"]["max_rate"], "commission.max_rate"),
        clauses=MappingProxyType(clauses),
    )


# --------------------------------------------------------------------------------------------
# Parsing


@dataclass(frozen=True)
class TableConfig:
    """A well-formed craps table configuration (see the module docstring).

    ``free_odds`` and ``max_odds`` map each point (int) to its multiple; on the pass side the odds
    wager may be up to ``multiple x flat``, on the don't side as large as lets its *win* reach
    ``multiple x flat`` (INT-DONT-LIMIT-ON-WIN)."""

    unit: int
    free_odds: Mapping[int, Fraction] = field(hash=False)
    max_odds: Mapping[int, Fraction] = field(hash=False)
    commission_rate: Fraction
    commission_rounding: str
    commission_unit: int
    payout_rounding: str
    bar: int

    def to_json(self) -> dict[str, Any]:
        """The protocol's JSON form (decimal strings in canonical form)."""
        return {
            "unit": self.unit,
            "free_odds": {str(p): format_decimal(self.free_odds[p]) for p in POINTS},
            "max_odds": {str(p): format_decimal(self.max_odds[p]) for p in POINTS},
            "commission_rate": format_decimal(self.commission_rate),
            "commission_rounding": self.commission_rounding,
            "commission_unit": self.commission_unit,
            "payout_rounding": self.payout_rounding,
            "bar": self.bar,
        }


def parse_decimal(text: object, field_name: str) -> Fraction:
    """A plain non-negative decimal string (``"3"``, ``"0.05"``, ``"2.5"``) as an exact Fraction.

    Refused (ConfigError naming ``field_name``): anything but a string (a JSON number such as
    ``0.05`` or ``3`` included), a sign, an exponent, a leading or trailing point, leading zeros
    (``"05"``), whitespace, non-ASCII digits, more than :data:`MAX_DECIMAL_CHARS` characters."""
    if not isinstance(text, str):
        raise ConfigError(field_name, f"must be a decimal string such as \"2.5\", got {type(text).__name__} {text!r}")
    if len(text) > MAX_DECIMAL_CHARS:
        raise ConfigError(field_name, f"decimal string longer than {MAX_DECIMAL_CHARS} characters")
    if not _DECIMAL.fullmatch(text):
        raise ConfigError(field_name, f"must be a plain non-negative decimal string such as \"2.5\", got {text!r}")
    # Decimal of a plain decimal string is exact, and Fraction(Decimal) is exact.
    return Fraction(Decimal(text))


def format_decimal(value: Fraction) -> str:
    """The plain decimal string of a Fraction whose denominator has no prime factor but 2 and 5."""
    if value < 0:
        raise ValueError("negative values have no plain decimal form here")
    den, twos, fives = value.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    if den != 1:
        raise ValueError(f"{value} has no finite decimal form")
    places = max(twos, fives)
    scaled = value * 10**places
    assert scaled.denominator == 1
    digits = str(scaled.numerator).rjust(places + 1, "0")
    if places == 0:
        return digits
    return f"{digits[:-places]}.{digits[-places:]}"


def _positive_int(obj: Mapping[str, Any], key: str) -> int:
    value = obj[key]
    if not is_int(value):
        raise ConfigError(key, f"must be a positive integer of minor units, got {type(value).__name__} {value!r}")
    if value <= 0:
        raise ConfigError(key, f"must be a positive integer of minor units, got {value}")
    return value


def _multiples(obj: Mapping[str, Any], key: str) -> Mapping[int, Fraction]:
    table = obj[key]
    if not isinstance(table, dict):
        raise ConfigError(key, f"must be an object keyed \"4\"..\"10\", got {type(table).__name__}")
    for point in POINTS:
        if str(point) not in table:
            raise ConfigError(f"{key}.{point}", "missing point")
    extra = sorted(str(k) for k in table if k not in {str(p) for p in POINTS})
    if extra:
        raise ConfigError(f"{key}.{extra[0]}", "not a point (the points are 4, 5, 6, 8, 9, 10)")
    return MappingProxyType({p: parse_decimal(table[str(p)], f"{key}.{p}") for p in POINTS})


def _choice(obj: Mapping[str, Any], key: str, allowed: tuple[Any, ...]) -> Any:
    value = obj[key]
    ok = any(type(value) is type(a) and value == a for a in allowed)
    if not ok:
        raise ConfigError(key, f"must be one of {', '.join(repr(a) for a in allowed)}, got {value!r}")
    return value


def parse_table_config(obj: object) -> TableConfig:
    """Parse and check a protocol table configuration; ConfigError(field, message) if malformed.

    Checked in this order, the first fault wins: the config is an object; every key of
    :data:`CONFIG_KEYS` is present (the first missing in that order is named); no other key (the
    first unknown in sorted order is named); then each field in the order of :data:`CONFIG_KEYS`:
    ``unit`` a positive integer; ``free_odds`` and ``max_odds`` objects holding exactly the points
    "4".."10" (``free_odds.6`` names a missing point or a bad multiple), each a plain
    non-negative decimal string; ``free_odds.P`` not above ``max_odds.P``; ``commission_rate`` a
    decimal string; ``commission_rounding`` one of down/nearest/up; ``commission_unit`` a positive
    integer; ``payout_rounding`` exact/down; ``bar`` 12 or 2. A JSON boolean is never an integer.
    Whether the regulation allows a well-formed config is :func:`regulatory_findings`' question.
    """
    if not isinstance(obj, dict):
        raise ConfigError("config", f"must be an object, got {type(obj).__name__}")
    for key in CONFIG_KEYS:
        if key not in obj:
            raise ConfigError(key, "missing")
    extra = sorted(str(k) for k in obj if k not in CONFIG_KEYS)
    if extra:
        raise ConfigError(extra[0], "unknown field")
    unit = _positive_int(obj, "unit")
    free_odds = _multiples(obj, "free_odds")
    max_odds = _multiples(obj, "max_odds")
    for point in POINTS:
        if free_odds[point] > max_odds[point]:
            raise ConfigError(
                f"free_odds.{point}",
                f"free odds {obj['free_odds'][str(point)]} above max_odds.{point} {obj['max_odds'][str(point)]}",
            )
    rate = parse_decimal(obj["commission_rate"], "commission_rate")
    commission_rounding = _choice(obj, "commission_rounding", COMMISSION_ROUNDINGS)
    commission_unit = _positive_int(obj, "commission_unit")
    payout_rounding = _choice(obj, "payout_rounding", PAYOUT_ROUNDINGS)
    bar = _choice(obj, "bar", BARS)
    return TableConfig(
        unit=unit,
        free_odds=free_odds,
        max_odds=max_odds,
        commission_rate=rate,
        commission_rounding=commission_rounding,
        commission_unit=commission_unit,
        payout_rounding=payout_rounding,
        bar=bar,
    )


# --------------------------------------------------------------------------------------------
# Rounding


def floor_div(x: Fraction, unit: int) -> int:
    """floor(x / unit) for an exact x."""
    q = x / unit
    return q.numerator // q.denominator


def round_to_unit(x: Fraction, unit: int, mode: str) -> int:
    """``x`` rounded to a multiple of ``unit``: ``down`` floors, ``up`` ceils, ``nearest`` rounds
    halves up (the protocol: "Commission rounding nearest rounds halves up")."""
    q = Fraction(x) / unit
    if mode == "down":
        n = q.numerator // q.denominator
    elif mode == "up":
        n = -((-q.numerator) // q.denominator)
    elif mode == "nearest":
        h = q + Fraction(1, 2)
        n = h.numerator // h.denominator
    else:
        raise ValueError(f"unknown rounding {mode!r}")
    return n * unit


# --------------------------------------------------------------------------------------------
# Exact decision: can a rounding rule push a commission above the ceiling?


def _floor_sum(n: int, m: int, a: int, b: int) -> int:
    """sum(floor((a*i + b) / m) for i in range(n)), m > 0, any integers a, b; O(log) steps.

    The classical Euclid-like reduction (as in AtCoder Library's ``floor_sum``)."""
    if n <= 0:
        return 0
    total = 0
    if a < 0 or a >= m:
        total += n * (n - 1) // 2 * (a // m)
        a %= m
    if b < 0 or b >= m:
        total += n * (b // m)
        b %= m
    while True:
        if a >= m:
            total += n * (n - 1) // 2 * (a // m)
            a %= m
        if b >= m:
            total += n * (b // m)
            b %= m
        y_max = a * n + b
        if y_max < m:
            return total
        n, b = divmod(y_max, m)
        m, a = a, m


def _sum_floor(k_max: int, num: int, off: int, den: int) -> int:
    """sum(floor((num*k + off) / den) for k in 1..k_max)."""
    return _floor_sum(k_max + 1, den, num, off) - off // den


def first_commission_excess(base: Fraction, rate: Fraction, ceiling: Fraction, unit: int, mode: str) -> int | None:
    """The smallest k >= 1 for which the commission on a base of ``k x base`` exceeds
    ``ceiling x k x base``, or None if no k does. Exact, for every k at once (no sampling).

    The commission on ``B = k x base`` is ``unit x R(k s)`` with ``s = rate x base / unit`` and R
    the rounding to integers (ceil for ``up``, floor(y + 1/2) for ``nearest``, floor for ``down``);
    the ceiling is ``unit x k t`` with ``t = ceiling x base / unit``. Requires ``rate <= ceiling``
    (so ``d = t - s >= 0``); a higher rate is its own finding.

    * ``down``: floor(ks) <= ks <= kt, never above. None.
    * ``up``: ceil(ks) > kt  <=>  ceil(ks) > floor(kt)  <=>  ks > floor(kt)  <=>  {kt} > k d
      ({y} the fractional part). As {kt} < 1, only k < 1/d can exceed.
    * ``nearest``: floor(ks + 1/2) > kt  <=>  floor(ks + 1/2) >= floor(kt) + 1  <=>
      ks - floor(kt) >= 1/2  <=>  {kt} - k d >= 1/2. Only k < 1/(2d) can exceed.
    * When d = 0 (rate = ceiling), {kt} repeats with period P = denominator of t, and so does the
      condition: k <= P suffices.

    So the k to check are 1..K with K = P if d = 0, else the largest k below 1/d (up) or
    1/(2d) (nearest). Within that range the excess indicator
    ``delta_k = R(ks) - floor(kt)`` is 0 or 1 (up: ceil(ks) >= ks > kt - 1 when kd < 1, and
    ceil(ks) <= ceil(kt) <= floor(kt) + 1; nearest: ks + 1/2 > kt when kd < 1/2, and
    floor(ks + 1/2) <= floor(kt) + 1), so the number of exceeding k in 1..K is the difference of
    two sums of floors of linear functions, each computed exactly by :func:`_floor_sum` in
    O(log) steps however large K is (rates with many decimals make K huge). The first exceeding k
    is then found by bisection on that count.
    """
    if mode == "down" or base <= 0:
        return None
    if rate > ceiling:
        raise ValueError("rate above the ceiling: a finding of its own")
    s = rate * base / unit
    t = ceiling * base / unit
    d = t - s
    if d == 0:
        k_max = t.denominator
    else:
        bound = 1 / d if mode == "up" else 1 / (2 * d)
        k_max = -((-bound.numerator) // bound.denominator) - 1  # the largest k < bound
    if k_max < 1:
        return None

    sn, sd, tn, td = s.numerator, s.denominator, t.numerator, t.denominator

    def count(k: int) -> int:
        floors_t = _sum_floor(k, tn, 0, td)
        if mode == "up":
            rounded = -_sum_floor(k, -sn, 0, sd)
        elif mode == "nearest":
            rounded = _sum_floor(k, 2 * sn, sd, 2 * sd)
        else:
            raise ValueError(f"unknown rounding {mode!r}")
        return rounded - floors_t

    if count(k_max) == 0:
        return None
    lo, hi = 1, k_max  # count(hi) >= 1; find the least k with count(k) >= 1
    while lo < hi:
        mid = (lo + hi) // 2
        if count(mid) >= 1:
            hi = mid
        else:
            lo = mid + 1
    return lo


# --------------------------------------------------------------------------------------------
# Regulatory findings


@dataclass(frozen=True)
class Finding:
    """Why a well-formed configuration is not allowed: a stable id, the clause it breaks, and a
    one-line explanation with a concrete witness where there is one."""

    id: str
    clause: str
    message: str


def _fmt(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _percent(x: Fraction) -> str:
    return format_percent(x)


def _commission_points(config: TableConfig) -> list[int]:
    """Points where a commission can be charged at all: max odds above free odds. (For a flat
    large enough, the max limit then exceeds the free limit by any number of units.)"""
    return [p for p in POINTS if config.max_odds[p] > config.free_odds[p]]


def regulatory_findings(config: TableConfig) -> list[Finding]:
    """What the regulation does not allow in a well-formed table configuration (empty if allowed).

    * ``commission-rate.pass`` / ``.dont`` (craps.sw.5 / craps.sw.6): a rate above five per cent
      where a commission can be charged (some point with max odds above free odds).
    * ``commission-rounding.pass`` / ``.dont`` (craps.sw.5 / craps.sw.6, INT-COMMISSION-CAP,
      INT-COMMISSION-ROUNDING-BASES): a rounding that charges more than five per cent of some
      base. Pass side, the bases are ``k x unit`` (k >= 1, the excess over the free limit, both
      multiples of unit); don't side, the exact win of ``k x unit`` laid at 1 to 2, 2 to 3 or 5 to 6
      on the points where a commission can be charged. Decided exactly for every k by
      :func:`first_commission_excess`; the message gives the smallest base that is overcharged.
      ``down`` never overcharges; checked only when the rate itself is within five per cent.
    * ``odds-denied.pass`` / ``.come`` (craps.sw.1 / craps.sw.3, INT-ODDS-RIGHT): a max odds
      multiple of 0 on some point takes away the right to the supplemental wager.
    * ``dont-odds-below-flat-win.dont_pass`` / ``.dont_come`` (craps.sw.2 / craps.sw.4,
      INT-ODDS-RIGHT): a max odds multiple below 1 limits the don't-side odds more than to
      "winnings not in excess of the amount originally wagered".
    * ``payout-rounding.<bet>`` (craps.sw.1-4, INT-PAYOUT-WHOLE): ``payout_rounding: down`` while
      an accepted odds wager can win a fraction of a minor unit, which is then paid short of the
      stated odds. An odds wager of one unit is accepted at a large enough flat on any point whose
      max multiple is above 0; every wager is a whole number of units, so the wins are whole for
      all accepted wagers exactly when ``unit x ratio`` is whole.
    """
    rules = craps_rules()
    ceiling = rules.max_commission_rate
    findings: list[Finding] = []
    charged = _commission_points(config)
    sides = (("pass", "craps.sw.5", "the amount above the free odds"),
             ("dont_pass", "craps.sw.6", "what the amount above the free odds could win"))
    short = {"pass": "pass", "dont_pass": "dont"}

    if charged and config.commission_rate > ceiling:
        for side, clause, base_text in sides:
            findings.append(Finding(
                f"commission-rate.{short[side]}", clause,
                f"commission rate {format_decimal(config.commission_rate)} is above the "
                f"{format_decimal(ceiling)} allowed on {base_text} (points "
                f"{', '.join(map(str, charged))} charge a commission)"))
    elif charged and config.commission_rate > 0 and config.commission_rounding != "down":
        for side, clause, base_text in sides:
            worst: tuple[int, int, Fraction, Fraction] | None = None  # (point, k, base, commission)
            for point in charged:
                beta = Fraction(config.unit) if side == "pass" else config.unit * rules.odds[side][point]
                k = first_commission_excess(beta, config.commission_rate, ceiling,
                                            config.commission_unit, config.commission_rounding)
                if k is not None:
                    base = k * beta
                    fee = round_to_unit(config.commission_rate * base, config.commission_unit,
                                        config.commission_rounding)
                    if worst is None or base < worst[2]:
                        worst = (point, k, base, Fraction(fee))
                    if side == "pass":
                        break  # the same base on every point
            if worst is not None:
                point, k, base, fee = worst
                where = (f"an excess of {_fmt(base)} ({k} unit(s) above the free odds)" if side == "pass"
                         else f"{k} unit(s) laid on {point} above the free odds, which could win {_fmt(base)}")
                findings.append(Finding(
                    f"commission-rounding.{short[side]}", clause,
                    f"commission rounding '{config.commission_rounding}' to {config.commission_unit} "
                    f"charges {_fmt(fee)} on {where}, above {format_decimal(ceiling)} x {_fmt(base)} = "
                    f"{_fmt(ceiling * base)} ({_percent(fee / base)} of {base_text})"))

    denied = [p for p in POINTS if config.max_odds[p] == 0]
    if denied:
        for bet, clause in (("pass", "craps.sw.1"), ("come", "craps.sw.3")):
            findings.append(Finding(
                f"odds-denied.{bet}", clause,
                f"max odds 0 on point(s) {', '.join(map(str, denied))}: no supplemental wager "
                f"can back a {bet} bet there"))
    below = [p for p in POINTS if config.max_odds[p] < 1]
    if below:
        for bet, clause in (("dont_pass", "craps.sw.2"), ("dont_come", "craps.sw.4")):
            findings.append(Finding(
                f"dont-odds-below-flat-win.{bet}", clause,
                f"max odds below 1 on point(s) {', '.join(map(str, below))}: the {bet} odds may be "
                f"limited only to winnings not in excess of the flat wager, not further"))

    if config.payout_rounding == "down":
        for bet, clause in (("pass", "craps.sw.1"), ("come", "craps.sw.3"),
                            ("dont_pass", "craps.sw.2"), ("dont_come", "craps.sw.4")):
            side = rules.side_of[bet]
            short_points = [p for p in POINTS
                            if config.max_odds[p] > 0 and (config.unit * rules.odds[side][p]).denominator != 1]
            if short_points:
                p = short_points[0]
                ratio = rules.odds[side][p]
                findings.append(Finding(
                    f"payout-rounding.{bet}", clause,
                    f"payout rounding 'down' pays {bet} odds short on point(s) "
                    f"{', '.join(map(str, short_points))}: e.g. {config.unit} on {p} wins "
                    f"{_fmt(config.unit * ratio)}, paid {floor_div(config.unit * ratio, 1)}"))
    return findings


def paigow_findings(cap: int, min_wager: int) -> list[Finding]:
    """Why a pai gow bonus payout cap is not allowed (njac.11.20.d, INT-CAP-MINIMUM): the cap must be
    at least the greater of $40,000 (4,000,000 minor units) and the most one player can win in a
    round at the minimum wager (1,100 x min_wager: five aces 1000 to 1 plus nine high 100 to 1).
    Both figures come from ``rules/paigow.toml``. ``cap`` and ``min_wager`` are integers of minor
    units (``cap >= 0``, ``min_wager > 0``); anything else raises ConfigError."""
    if not is_int(cap) or cap < 0:
        raise ConfigError("paigow.cap", f"must be a non-negative integer of minor units, got {cap!r}")
    if not is_int(min_wager) or min_wager <= 0:
        raise ConfigError("paigow.min_wager", f"must be a positive integer of minor units, got {min_wager!r}")
    tables = pay_tables()
    multiple = tables.top_round_win_multiple
    floor = max(tables.cap_minimum, multiple * min_wager)
    if cap >= floor:
        return []
    which = (f"{multiple} x minimum wager {min_wager} = {multiple * min_wager}"
             if multiple * min_wager > tables.cap_minimum else f"the fixed minimum {tables.cap_minimum}")
    return [Finding(
        "paigow-cap-below-minimum", "njac.11.20.d",
        f"payout cap {cap} is below {floor}, the greater of {tables.cap_minimum} and "
        f"{multiple} x minimum wager {min_wager} (here {which})")]
