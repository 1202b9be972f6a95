"""Table configurations: parsing (ConfigError naming the field), regulatory findings, the exact
commission-rounding decision, the pai gow cap findings, and the shipped rule profiles."""

from __future__ import annotations

import ast
import hashlib
import inspect
from fractions import Fraction
from importlib import resources
from math import lcm

import pytest
from tables import raw_config
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecert.oracle import craps, craps_math, profiles, register, table_config
from tablecert.oracle.errors import ConfigError
from tablecert.oracle.profiles import (
    DEFAULT_PROFILE,
    ProfileError,
    list_profiles,
    load_profile,
    load_profile_file,
)
from tablecert.oracle.table_config import (
    TableConfig,
    first_commission_excess,
    format_decimal,
    paigow_findings,
    parse_decimal,
    parse_table_config,
    regulatory_findings,
    round_to_unit,
)

POINTS = ("4", "5", "6", "8", "9", "10")




def field_of(obj):
    with pytest.raises(ConfigError) as info:
        parse_table_config(obj)
    assert info.value.code == "invalid_config"
    return info.value.field


def ids(findings):
    return sorted((f.id, f.clause) for f in findings)


# ------------------------------------------------------------------------------------------------
# Parsing


def test_parse_valid():
    config = parse_table_config(raw_config())
    assert isinstance(config, TableConfig)
    assert config.unit == 100
    assert dict(config.free_odds) == {4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3}
    assert all(type(v) is Fraction for v in config.free_odds.values())
    assert config.max_odds[6] == Fraction(10)
    assert config.commission_rate == Fraction(1, 20) and type(config.commission_rate) is Fraction
    assert (config.commission_rounding, config.commission_unit, config.payout_rounding, config.bar) == ("down", 1, "exact", 12)
    assert config.to_json() == raw_config()
    assert parse_table_config(config.to_json()) == config
    hash(config)
    with pytest.raises(Exception):
        config.unit = 5  # frozen


def test_parse_decimal_multiples():
    config = parse_table_config(raw_config(free_odds={**raw_config()["free_odds"], "6": "2.5"},
                                           commission_rate="0.0125"))
    assert config.free_odds[6] == Fraction(5, 2)
    assert config.commission_rate == Fraction(1, 80)


def _with_point(key, point, value):
    table = dict(raw_config()[key])
    table[point] = value
    return raw_config(**{key: table})


def _without_point(key, point):
    table = {k: v for k, v in raw_config()[key].items() if k != point}
    return raw_config(**{key: table})


def _without(key):
    return {k: v for k, v in raw_config().items() if k != key}


BAD_DECIMALS = [3, 3.0, 0.05, True, None, "-1", "+1", "1e2", "1E2", "1.", ".5", " 1", "1 ", "05", "00.5", "1/2",
                "", "0x10", "\u0663", "1_000", "NaN", "inf", "1,5", "1" * 101, ["1"], {"v": "1"}]


@pytest.mark.parametrize(
    "obj, field",
    [
        ([], "config"),
        ("config", "config"),
        (None, "config"),
        (7, "config"),
        *[(_without(k), k) for k in table_config.CONFIG_KEYS],
        ({**raw_config(), "colour": "green"}, "colour"),
        ({**raw_config(), "Unit": 100}, "Unit"),
        (raw_config(unit=0), "unit"),
        (raw_config(unit=-100), "unit"),
        (raw_config(unit="100"), "unit"),
        (raw_config(unit=100.0), "unit"),
        (raw_config(unit=True), "unit"),
        (raw_config(unit=None), "unit"),
        (raw_config(free_odds="3"), "free_odds"),
        (raw_config(free_odds=["3"] * 6), "free_odds"),
        (raw_config(max_odds=None), "max_odds"),
        *[(_without_point("free_odds", p), f"free_odds.{p}") for p in POINTS],
        *[(_without_point("max_odds", p), f"max_odds.{p}") for p in POINTS],
        (_with_point("free_odds", "7", "1"), "free_odds.7"),
        (_with_point("max_odds", "11", "1"), "max_odds.11"),
        *[(_with_point("free_odds", "6", bad), "free_odds.6") for bad in BAD_DECIMALS],
        *[(_with_point("max_odds", "9", bad), "max_odds.9") for bad in BAD_DECIMALS],
        (_with_point("free_odds", "8", "10.5"), "free_odds.8"),  # above max_odds.8 = 10
        (raw_config(max_odds={p: "2" for p in POINTS}), "free_odds.4"),  # 3 > 2, the first such point
        *[(raw_config(commission_rate=bad), "commission_rate") for bad in BAD_DECIMALS],
        (raw_config(commission_rate="5%"), "commission_rate"),
        (raw_config(commission_rounding="ceil"), "commission_rounding"),
        (raw_config(commission_rounding="DOWN"), "commission_rounding"),
        (raw_config(commission_rounding=None), "commission_rounding"),
        (raw_config(commission_rounding="exact"), "commission_rounding"),
        (raw_config(commission_unit=0), "commission_unit"),
        (raw_config(commission_unit=True), "commission_unit"),
        (raw_config(commission_unit=1.0), "commission_unit"),
        (raw_config(commission_unit="1"), "commission_unit"),
        (raw_config(payout_rounding="nearest"), "payout_rounding"),
        (raw_config(payout_rounding="up"), "payout_rounding"),
        (raw_config(payout_rounding=True), "payout_rounding"),
        (raw_config(bar=7), "bar"),
        (raw_config(bar="12"), "bar"),
        (raw_config(bar=12.0), "bar"),
        (raw_config(bar=True), "bar"),
        (raw_config(bar=None), "bar"),
        (raw_config(bar=3), "bar"),
    ],
)
def test_malformed_names_the_field(obj, field):
    assert field_of(obj) == field


def test_malformed_order():
    # missing is reported before unknown, in the order of the keys
    obj = {k: v for k, v in raw_config(colour=1).items() if k not in ("bar", "unit")}
    assert field_of(obj) == "unit"
    # unknown before bad values
    assert field_of({**raw_config(unit=0), "zzz": 1}) == "zzz"
    # fields in key order: unit before free_odds before ... before bar
    assert field_of(raw_config(unit=0, bar=7)) == "unit"
    assert field_of(raw_config(commission_rate=0.05, bar=7)) == "commission_rate"
    assert field_of(_with_point("free_odds", "6", 3) | {"max_odds": None}) == "free_odds.6"
    # a missing point before an unknown one
    table = {k: v for k, v in raw_config()["free_odds"].items() if k != "10"} | {"7": "1"}
    assert field_of(raw_config(free_odds=table)) == "free_odds.10"


def test_config_error_message_is_readable():
    with pytest.raises(ConfigError) as info:
        parse_table_config(raw_config(commission_rate=0.05))
    assert "decimal string" in info.value.message and str(info.value).startswith("commission_rate:")


@pytest.mark.parametrize("text, value", [("0", Fraction(0)), ("3", Fraction(3)), ("0.05", Fraction(1, 20)),
                                         ("2.5", Fraction(5, 2)), ("100", Fraction(100)), ("0.0001", Fraction(1, 10000)),
                                         ("10.50", Fraction(21, 2)), ("1" * 100, Fraction(int("1" * 100)))])
def test_parse_decimal(text, value):
    assert parse_decimal(text, "f") == value


@pytest.mark.parametrize("value, text", [(Fraction(0), "0"), (Fraction(3), "3"), (Fraction(1, 20), "0.05"),
                                         (Fraction(5, 2), "2.5"), (Fraction(1, 80), "0.0125"), (Fraction(1001, 1000), "1.001")])
def test_format_decimal(value, text):
    assert format_decimal(value) == text
    assert parse_decimal(text, "f") == value


def test_format_decimal_refuses_non_decimals():
    with pytest.raises(ValueError):
        format_decimal(Fraction(2, 3))


@pytest.mark.parametrize(
    "x, unit, mode, expected",
    [
        (Fraction(5, 2), 1, "down", 2), (Fraction(5, 2), 1, "up", 3), (Fraction(5, 2), 1, "nearest", 3),
        (Fraction(7, 3), 1, "nearest", 2), (Fraction(8, 3), 1, "nearest", 3), (Fraction(3), 1, "up", 3),
        (Fraction(25), 10, "nearest", 30), (Fraction(24), 10, "nearest", 20), (Fraction(15), 10, "down", 10),
        (Fraction(0), 5, "up", 0), (Fraction(1, 1000), 5, "up", 5),
    ],
)
def test_round_to_unit(x, unit, mode, expected):
    assert round_to_unit(x, unit, mode) == expected


# ------------------------------------------------------------------------------------------------
# The exact commission-rounding decision, against brute force over a full period


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 40), st.integers(1, 50), st.integers(-80, 80), st.integers(-80, 80))
def test_floor_sum_matches_brute_force(n, m, a, b):
    assert table_config._floor_sum(n, m, a, b) == sum((a * i + b) // m for i in range(n))


def _brute_first_excess(base, rate, ceiling, unit, mode):
    """The first k whose commission exceeds ceiling x k x base, by trying k = 1..P, where P makes
    rate x P x base / unit and ceiling x P x base / unit both whole: then commission(k + P) =
    commission(k) + rate x P x base and the ceiling grows by ceiling x P x base >= that, so no
    k > P can exceed unless some k <= P does."""
    s, t = rate * base / unit, ceiling * base / unit
    period = lcm(s.denominator, t.denominator)
    for k in range(1, period + 1):
        if round_to_unit(rate * k * base, unit, mode) > ceiling * k * base:
            return k
    return None


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from([1, 2, 3, 5, 7, 10, 25, 60, 100, 600]),
    st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(2, 3), Fraction(5, 6)]),
    st.sampled_from([1, 2, 3, 5, 10, 25]),
    st.one_of(st.integers(0, 500).map(lambda bp: Fraction(bp, 10000)), st.just(Fraction(1, 20)),
              st.just(Fraction(499, 10000)), st.just(Fraction(4999, 100000))),
    st.sampled_from(["down", "nearest", "up"]),
)
def test_first_commission_excess_matches_brute_force(unit, ratio, cu, rate, mode):
    base = unit * ratio
    ceiling = Fraction(1, 20)
    s, t = rate * base / cu, ceiling * base / cu
    if lcm(s.denominator, t.denominator) > 5000:
        return  # brute force too long; the property below covers the logic
    assert first_commission_excess(base, rate, ceiling, cu, mode) == _brute_first_excess(base, rate, ceiling, cu, mode)


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 10**4), st.integers(0, 5 * 10**4), st.integers(1, 10**4))
def test_up_overcharges_exactly_when_no_whole_number_between_s_and_t(base_num, base_den, rate_num, cu):
    # Closed form for "up": ceil(k s) <= k t for every k >= 1 iff some integer N lies in [s, t]
    # (k = 1 needs one; k N then lies in [k s, k t] for every k).
    base = Fraction(base_num, base_den)
    rate = Fraction(rate_num, 10**6)  # at most 5%
    ceiling = Fraction(1, 20)
    s, t = rate * base / cu, ceiling * base / cu
    integer_between = -((-s.numerator) // s.denominator) <= t  # ceil(s) <= t
    k = first_commission_excess(base, rate, ceiling, cu, "up")
    assert (k is None) == integer_between
    if k is not None:
        assert k == 1


def test_first_commission_excess_huge_period():
    # rate 4.9999999999% on a base of 200/3 (a lay of $1 at 2 to 3) to the cent: the period of the
    # commission pattern is enormous, the decision is still immediate and exact.
    rate = Fraction(49999999999, 10**12)
    k = first_commission_excess(Fraction(200, 3), rate, Fraction(1, 20), 1, "nearest")
    assert k is not None
    base = k * Fraction(200, 3)
    assert round_to_unit(rate * base, 1, "nearest") > base / 20
    for j in range(1, k):
        assert round_to_unit(rate * j * Fraction(200, 3), 1, "nearest") <= j * Fraction(200, 3) / 20
    assert first_commission_excess(Fraction(200, 3), rate, Fraction(1, 20), 1, "down") is None


# ------------------------------------------------------------------------------------------------
# Regulatory findings


def test_compliant_config_has_no_findings():
    assert regulatory_findings(parse_table_config(raw_config())) == []


def test_rate_above_five_percent():
    findings = regulatory_findings(parse_table_config(raw_config(commission_rate="0.06")))
    assert ids(findings) == [("commission-rate.dont", "craps.sw.6"), ("commission-rate.pass", "craps.sw.5")]
    assert "0.06" in findings[0].message
    # 0.0500001 is above too; 0.05 exactly is not
    assert regulatory_findings(parse_table_config(raw_config(commission_rate="0.0500001")))
    assert not regulatory_findings(parse_table_config(raw_config(commission_rate="0.05")))


def test_rate_that_is_never_charged_is_no_finding():
    # max odds = free odds everywhere: no commission can be charged, whatever the rate says
    config = parse_table_config(raw_config(commission_rate="0.5", max_odds=raw_config()["free_odds"]))
    assert regulatory_findings(config) == []


def test_rounding_up():
    # rate 5%, unit 100, cent commissions. Pass side: bases 100k -> 5k cents, whole: no excess.
    # Don't side on 4/10: a lay of 100 could win 50; 5% = 2.5; up charges 3 > 2.5 (the smallest
    # overcharged base, which the message names). On 5/9: 200/3 -> 5% = 10/3 = 3.33, up charges 4.
    findings = regulatory_findings(parse_table_config(raw_config(commission_rounding="up")))
    assert ids(findings) == [("commission-rounding.dont", "craps.sw.6")]
    assert "charges 3" in findings[0].message and "could win 50" in findings[0].message
    # only 5 and 9 charge a commission: the witness is then a lay of 100 on 5 winning 200/3
    only_5_9 = {**raw_config()["free_odds"], "5": "4", "9": "4"}
    top = {**only_5_9, "5": "10", "9": "10"}
    findings = regulatory_findings(parse_table_config(raw_config(commission_rounding="up", max_odds=top)))
    assert ids(findings) == [("commission-rounding.dont", "craps.sw.6")]
    assert "charges 4" in findings[0].message and "200/3" in findings[0].message
    # unit 1 cent: pass base 1 cent -> 5% = 0.05 cent, up charges 1 cent
    findings = regulatory_findings(parse_table_config(raw_config(commission_rounding="up", unit=1)))
    assert ("commission-rounding.pass", "craps.sw.5") in ids(findings)


def test_rounding_up_below_five_percent_can_be_compliant():
    # rate 4%: pass base 100 -> s = 4, t = 5; don't 4/10 base 50 -> [2, 2.5] holds 2; 5/9 base 200/3
    # -> [8/3, 10/3] holds 3; 6/8 base 250/3 -> [10/3, 25/6] holds 4. An integer lies in [s, t]
    # everywhere, so ceil(k s) <= k t for every k: "up" never overcharges here.
    assert regulatory_findings(parse_table_config(raw_config(commission_rounding="up", commission_rate="0.04"))) == []
    for base in (Fraction(100), Fraction(50), Fraction(200, 3), Fraction(250, 3)):
        for k in range(1, 3001):
            assert round_to_unit(Fraction(4, 100) * k * base, 1, "up") <= k * base / 20


def test_rounding_nearest_base_whose_five_percent_is_not_whole():
    # Don't side on 4/10: a lay of 100 could win 50; 5% of 50 = 2.5; nearest (halves up) charges 3 > 2.5.
    findings = regulatory_findings(parse_table_config(raw_config(commission_rounding="nearest")))
    assert ids(findings) == [("commission-rounding.dont", "craps.sw.6")]
    assert "charges 3" in findings[0].message and "could win 50" in findings[0].message


def test_rounding_where_every_five_percent_is_whole_is_compliant():
    # unit 600: pass bases 600k (5% = 30k); don't bases 300k, 400k, 500k (5% = 15k, 20k, 25k): whole,
    # so neither up nor nearest ever rounds above.
    for mode in ("up", "nearest"):
        assert regulatory_findings(parse_table_config(raw_config(unit=600, commission_rounding=mode))) == []


def test_rounding_nearest_with_coarse_commission_unit():
    # commission_unit 10, pass base 100: 5% = 5 = half a unit -> nearest charges 10 > 5
    findings = regulatory_findings(parse_table_config(raw_config(commission_rounding="nearest", commission_unit=10)))
    assert ("commission-rounding.pass", "craps.sw.5") in ids(findings)


def test_rounding_down_is_always_compliant():
    for unit in (1, 3, 7, 100):
        for cu in (1, 10, 25):
            assert regulatory_findings(parse_table_config(raw_config(unit=unit, commission_unit=cu))) == []


def test_rounding_is_irrelevant_without_commission():
    assert regulatory_findings(parse_table_config(raw_config(commission_rounding="up", commission_rate="0"))) == []
    assert regulatory_findings(parse_table_config(raw_config(commission_rounding="up", max_odds=raw_config()["free_odds"]))) == []


def test_payout_rounding_down_pays_short():
    # unit 100: pass wins 200, 150, 120 per unit (whole); don't 50 (whole), 200/3 and 250/3 (not).
    findings = regulatory_findings(parse_table_config(raw_config(payout_rounding="down")))
    assert ids(findings) == [("payout-rounding.dont_come", "craps.sw.4"), ("payout-rounding.dont_pass", "craps.sw.2")]
    assert "5, 6, 8, 9" in findings[0].message
    # unit 1: pass side 3 to 2 and 6 to 5 are fractional too
    findings = regulatory_findings(parse_table_config(raw_config(payout_rounding="down", unit=1)))
    assert {f.id for f in findings} == {"payout-rounding.pass", "payout-rounding.come", "payout-rounding.dont_pass",
                                        "payout-rounding.dont_come"}
    # unit 600: every win is whole, down never floors anything
    assert regulatory_findings(parse_table_config(raw_config(payout_rounding="down", unit=600))) == []


def test_odds_denied_or_limited_below_the_flat_win():
    zero = raw_config(free_odds={p: "0" for p in POINTS}, max_odds={**{p: "1" for p in POINTS}, "6": "0"})
    findings = regulatory_findings(parse_table_config(zero))
    assert ids(findings) == [("dont-odds-below-flat-win.dont_come", "craps.sw.4"),
                             ("dont-odds-below-flat-win.dont_pass", "craps.sw.2"),
                             ("odds-denied.come", "craps.sw.3"), ("odds-denied.pass", "craps.sw.1")]
    half = raw_config(free_odds={p: "0.5" for p in POINTS}, max_odds={p: "0.5" for p in POINTS}, commission_rate="0")
    assert ids(regulatory_findings(parse_table_config(half))) == [
        ("dont-odds-below-flat-win.dont_come", "craps.sw.4"), ("dont-odds-below-flat-win.dont_pass", "craps.sw.2")]


# ------------------------------------------------------------------------------------------------
# Pai gow cap (njac.11.20.d)


def test_paigow_cap_findings():
    assert paigow_findings(4_000_000, 500) == []                 # 1,100 x 500 = 550,000 < 4,000,000
    (finding,) = paigow_findings(3_999_999, 500)                 # below $40,000
    assert (finding.id, finding.clause) == ("paigow-cap-below-minimum", "njac.11.20.d")
    assert "4000000" in finding.message
    (finding,) = paigow_findings(4_000_000, 4_000)               # 1,100 x 4,000 = 4,400,000 > cap
    assert "4400000" in finding.message
    assert paigow_findings(4_400_000, 4_000) == []
    assert paigow_findings(4_399_999, 4_000) != []
    assert paigow_findings(0, 1) != []
    for bad_cap, bad_min in ((-1, 500), (True, 500), (4_000_000.0, 500), (4_000_000, 0), (4_000_000, False)):
        with pytest.raises(ConfigError):
            paigow_findings(bad_cap, bad_min)


# ------------------------------------------------------------------------------------------------
# Profiles


REQUIRED = ["odds-1x", "odds-2x", "odds-3-4-5x", "odds-5x", "odds-10x", "odds-100x", "odds-3-4-5x-commission-10x",
            "dont-win-flat"]


def test_profiles_listed_sorted():
    names = list_profiles()
    assert names == sorted(names)
    assert set(REQUIRED) <= set(names)
    assert DEFAULT_PROFILE in names


@pytest.mark.parametrize("profile_id", list_profiles())
def test_each_shipped_profile_loads_and_is_compliant(profile_id):
    profile = load_profile(profile_id)
    assert profile.id == profile_id and profile.title and profile.description
    assert profile.table_config == parse_table_config(profile.craps)
    assert set(profile.craps) == set(table_config.CONFIG_KEYS)
    data = resources.files("tablecert.oracle").joinpath(f"profiles/{profile_id}.toml").read_bytes()
    assert profile.sha256 == hashlib.sha256(data).hexdigest()
    assert profile.findings() == []
    assert regulatory_findings(profile.table_config) == []
    assert paigow_findings(profile.paigow_cap, profile.paigow_min_wager) == []
    assert profile.paigow_cap >= max(4_000_000, 1_100 * profile.paigow_min_wager)
    copy = profile.craps_config()
    copy["unit"] = 1
    copy["free_odds"]["4"] = "0"
    assert profile.craps["unit"] == 100 and profile.craps["free_odds"]["4"] != "0"  # a copy


def test_profile_contents():
    three_four_five = {4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3}
    c = load_profile("odds-3-4-5x").table_config
    assert dict(c.free_odds) == three_four_five == dict(c.max_odds)
    c = load_profile("odds-3-4-5x-commission-10x").table_config
    assert dict(c.free_odds) == three_four_five and set(c.max_odds.values()) == {10}
    assert (c.commission_rate, c.commission_rounding) == (Fraction(1, 20), "down")
    for pid, m in (("odds-1x", 1), ("odds-2x", 2), ("odds-5x", 5), ("odds-10x", 10), ("odds-100x", 100), ("dont-win-flat", 1)):
        c = load_profile(pid).table_config
        assert set(c.free_odds.values()) == {m} and dict(c.free_odds) == dict(c.max_odds)
    for pid in list_profiles():
        p = load_profile(pid)
        c = p.table_config
        assert (c.unit, c.commission_unit, c.payout_rounding, c.bar) == (100, 1, "exact", 12)
        assert (p.paigow_cap, p.paigow_min_wager) == (4_000_000, 500)


def test_dont_win_flat_profile_caps_the_win_at_the_flat():
    c = load_profile("dont-win-flat").table_config
    for point, lay in ((4, 2000), (5, 1500), (6, 1200), (8, 1200), (9, 1500), (10, 2000)):
        # win <= 1000 (the flat): lay 2000 at 1:2, 1500 at 2:3, 1200 at 5:6
        limits = craps.odds_limits(c, {"bet": "dont_pass", "flat": 1000, "point": point})
        assert limits == {"free_odds": lay, "max_odds": lay}


def test_unknown_profile():
    with pytest.raises(ProfileError) as info:
        load_profile("no-such-profile")
    message = str(info.value)
    assert "\n" not in message
    assert all(pid in message for pid in list_profiles())
    assert isinstance(info.value, ValueError)
    for bad in ("../rules/craps", "", "ODDS-1X"):
        with pytest.raises(ProfileError):
            load_profile(bad)


def test_load_profile_file(tmp_path):
    text = resources.files("tablecert.oracle").joinpath("profiles/odds-2x.toml").read_bytes()
    path = tmp_path / "mine.toml"
    path.write_bytes(text)
    profile = load_profile_file(path)
    assert profile.id == "odds-2x" and profile.sha256 == hashlib.sha256(text).hexdigest()
    assert profile.table_config == load_profile("odds-2x").table_config


@pytest.mark.parametrize(
    "edit, needle",
    [
        (lambda t: t.replace('"6" = "2"', '"6" = 2', 1), "craps.free_odds.6"),
        (lambda t: t.replace("bar = 12", "bar = 7"), "craps.bar"),
        (lambda t: t.replace("cap = 4000000", "cap = -1"), "paigow.cap"),
        (lambda t: t.replace("min_wager = 500", "min_wager = 0"), "paigow.min_wager"),
        (lambda t: t.replace("min_wager = 500", "min_wager = 500\ncolour = 1"), "paigow.colour"),
        (lambda t: t.replace('id = "odds-2x"', ""), "'id'"),
        (lambda t: t.replace('id = "odds-2x"', 'id = "Odds 2x"'), "id"),
        (lambda t: t + "\nextra = 1\n", "extra"),
        (lambda t: t + "\n[[[", "TOML"),
    ],
)
def test_load_profile_file_refuses_malformed(tmp_path, edit, needle):
    text = resources.files("tablecert.oracle").joinpath("profiles/odds-2x.toml").read_text(encoding="utf-8")
    path = tmp_path / "bad.toml"
    path.write_text(edit(text), encoding="utf-8")
    with pytest.raises(ProfileError) as info:
        load_profile_file(path)
    assert needle in str(info.value)


def test_load_profile_file_missing(tmp_path):
    with pytest.raises(ProfileError):
        load_profile_file(tmp_path / "nope.toml")


def test_profile_with_findings_reports_them(tmp_path):
    text = resources.files("tablecert.oracle").joinpath("profiles/odds-3-4-5x-commission-10x.toml").read_text(encoding="utf-8")
    path = tmp_path / "x.toml"
    path.write_text(text.replace('commission_rate = "0.05"', 'commission_rate = "0.06"').replace("cap = 4000000", "cap = 3999999"),
                    encoding="utf-8")
    found = {(f.id, f.clause) for f in load_profile_file(path).findings()}
    assert found == {("commission-rate.pass", "craps.sw.5"), ("commission-rate.dont", "craps.sw.6"),
                     ("paigow-cap-below-minimum", "njac.11.20.d")}


# ------------------------------------------------------------------------------------------------
# No float anywhere in the exact modules


@pytest.mark.parametrize("module", [table_config, craps, craps_math, profiles])
def test_no_float_in_exact_modules(module):
    tree = ast.parse(inspect.getsource(module))
    for node in ast.walk(tree):
        assert not (isinstance(node, ast.Constant) and isinstance(node.value, float)), ast.dump(node)
        assert not (isinstance(node, ast.Name) and node.id in ("float", "round")), node.id
        assert not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and isinstance(node.right, ast.UnaryOp)), \
            "negative power"
        assert not (isinstance(node, ast.Attribute) and node.attr in ("sqrt", "log", "exp")), node.attr


# ------------------------------------------------------------------------------------------------
# Traceability: every clause and interpretation id cited exists in the registers


def test_cited_ids_exist():
    import re

    texts = [inspect.getsource(m) for m in (table_config, craps, craps_math, profiles)]
    texts.append(resources.files("tablecert.oracle").joinpath("rules/craps.toml").read_text(encoding="utf-8"))
    for pid in list_profiles():
        texts.append(resources.files("tablecert.oracle").joinpath(f"profiles/{pid}.toml").read_text(encoding="utf-8"))
    clauses, interpretations = register.clauses(), register.interpretations()
    for text in texts:
        for cid in re.findall(r"craps\.sw\.[0-9]+|njac\.[0-9a-z.]+[0-9a-z]", text):
            assert cid in clauses, cid
        for iid in re.findall(r"INT-[A-Z][A-Z-]*[A-Z]", text):
            assert iid in interpretations, iid
    assert register.check_registers() == []


def test_finding_clauses_exist():
    configs = [raw_config(commission_rate="0.06"), raw_config(commission_rounding="up", unit=1),
               raw_config(payout_rounding="down", unit=1),
               raw_config(free_odds={p: "0" for p in POINTS}, max_odds={p: "0" for p in POINTS})]
    clauses = register.clauses()
    seen = set()
    for raw in configs:
        for finding in regulatory_findings(parse_table_config(raw)):
            assert finding.clause in clauses
            seen.add(finding.clause)
    assert seen == {f"craps.sw.{i}" for i in range(1, 7)}
    assert all(f.clause in clauses for f in paigow_findings(0, 500))
