"""The faulty vendors (tests/faulty_vendors.py) and the demo vendor each differ from the reference
exactly where their fault is: one hand-picked request per fault shows the fault is real and
reachable, and simple requests away from every fault are answered as the reference answers them.
The curated ``edge`` suite, run in process, catches every fault on a vector carrying its flag."""

from __future__ import annotations

import tomllib
from importlib import metadata, resources
from typing import Any

import pytest

from faulty_vendors import (
    FAULTY_VENDORS,
    BankSeatIgnored,
    BarAlwaysTwelve,
    CapNotApplied,
    CapPerBonus,
    CommissionAtFreeLimit,
    CommissionOnWholeOdds,
    CommissionRoundedUp,
    DiceCheckedBeforePoint,
    DontComeOddsPaidLikeCome,
    DontCommissionOnLay,
    DontLimitOnLay,
    DuplicateCardAccepted,
    ExactPayoutNotRefused,
    FiveNinePaysTwoToOne,
    FlatIncrementUnchecked,
    FreeOddsLimitUnitLow,
    JokerNoFlush,
    JokerTooWild,
    LongFlushMissed,
    MaxOddsUnitHigh,
    NineHighAsTenHigh,
    NoActionSettledAsLoss,
    PassComeOutElevenLoses,
    PassSixPaysSevenToSix,
    PayoutDownRoundsUp,
    RoyalJokerMiddleMissed,
    WagerLostUnlessPlayerPays,
    WheelMissed,
)
from tables import raw_config
from tablecert.harness.vendors.demo_vendor import DemoVendor
from tablecert.oracle.vendor import OPS, PROTOCOL, ReferenceVendor
from tablecert.oracle.protocol import v1_result

CFG = raw_config()  # 3-4-5x free, 10x max, 5% commission rounded down, unit 100, exact, bar 12
UNIT1 = raw_config(unit=1)
CAP = {"cap": 4_000_000}
ROYAL = ["As", "Ks", "Qs", "Js", "Ts", "5c", "2d"]
NINE_HIGH = ["9c", "8d", "7h", "6s", "4c", "3d", "2h"]
JACK_HIGH = ["Jd", "9h", "8c", "6d", "4s", "3c", "2s"]
ACE_HIGH = ["Ah", "Kd", "Qc", "Th", "7c", "5d", "3s"]
THREE_QUEENS = ["Qd", "Qh", "Qs", "9s", "8h", "5h", "2d"]


def settle(bet: str, point: int | None, dice: list[int], flat: int = 1000, odds: int = 0) -> dict[str, Any]:
    return {"bet": bet, "flat": flat, "point": point, "odds": odds, "dice": dice, "odds_working": True}


def place(bet: str, point: int, odds: int, flat: int = 1000) -> dict[str, Any]:
    return {"bet": bet, "flat": flat, "point": point, "odds": odds}


def one_seat(wager: int, cards: list[str], dealer: list[str] = NINE_HIGH) -> dict[str, Any]:
    return {"dealer": dealer, "bank_seat": None, "seats": [{"seat": 1, "wager": wager, "cards": cards}]}


CAP_ROUND = one_seat(500, ROYAL)  # royal 500 x 200 = 100,000 + dealer nine high 500 x 100 = 50,000
BANKED_ROUND = {"dealer": NINE_HIGH, "bank_seat": 1, "seats": [
    {"seat": 1, "wager": 100, "cards": JACK_HIGH}, {"seat": 2, "wager": 100, "cards": ACE_HIGH}]}

# class -> (op, config, case, the faulty answer): one request where the fault shows.
DIFFERING: dict[type, tuple[str, Any, Any, Any]] = {
    PassSixPaysSevenToSix: ("craps.settle", CFG, settle("pass", 6, [3, 3], odds=5000),
                            {"outcome": "win", "flat_win": 1000, "odds_win": 5833, "point": None}),
    FiveNinePaysTwoToOne: ("craps.settle", CFG, settle("come", 9, [4, 5], odds=2000),
                           {"outcome": "win", "flat_win": 1000, "odds_win": 4000, "point": None}),
    DontComeOddsPaidLikeCome: ("craps.settle", CFG, settle("dont_come", 4, [3, 4], odds=2000),
                               {"outcome": "win", "flat_win": 1000, "odds_win": 4000, "point": None}),
    PassComeOutElevenLoses: ("craps.settle", CFG, settle("pass", None, [5, 6]),
                             {"outcome": "lose", "flat_win": 0, "odds_win": 0, "point": None}),
    BarAlwaysTwelve: ("craps.settle", raw_config(bar=2), settle("dont_pass", None, [1, 1]),
                      {"outcome": "win", "flat_win": 1000, "odds_win": 0, "point": None}),
    NoActionSettledAsLoss: ("craps.settle", CFG, settle("pass", 6, [2, 2], odds=1000),
                            {"outcome": "lose", "flat_win": 0, "odds_win": 0, "point": None}),
    PayoutDownRoundsUp: ("craps.settle", raw_config(unit=1, payout_rounding="down"), settle("pass", 6, [3, 3], odds=1),
                         {"outcome": "win", "flat_win": 1000, "odds_win": 2, "point": None}),
    ExactPayoutNotRefused: ("craps.place_odds", UNIT1, place("pass", 6, 1), {"commission": 0}),
    DontLimitOnLay: ("craps.odds_limits", CFG, {"bet": "dont_pass", "flat": 1000, "point": 4},
                     {"free_odds": 3000, "max_odds": 10000}),
    FreeOddsLimitUnitLow: ("craps.odds_limits", CFG, {"bet": "pass", "flat": 1000, "point": 4},
                           {"free_odds": 2900, "max_odds": 10000}),
    MaxOddsUnitHigh: ("craps.place_odds", CFG, place("pass", 4, 10100), {"commission": 355}),
    FlatIncrementUnchecked: ("craps.odds_limits", CFG, {"bet": "pass", "flat": 150, "point": 4},
                             {"free_odds": 400, "max_odds": 1500}),
    CommissionRoundedUp: ("craps.place_odds", UNIT1, place("pass", 4, 3001), {"commission": 1}),
    CommissionOnWholeOdds: ("craps.place_odds", CFG, place("pass", 4, 3100), {"commission": 155}),
    CommissionAtFreeLimit: ("craps.place_odds", CFG, place("pass", 4, 3000), {"commission": 5}),
    DontCommissionOnLay: ("craps.place_odds", CFG, place("dont_pass", 4, 6200), {"commission": 10}),
    DiceCheckedBeforePoint: ("craps.settle", CFG, settle("pass", 7, [9, 9]), "invalid_dice"),
    JokerTooWild: ("paigow.player_bonus", CAP, {"cards": ["Ks", "Kh", "Kd", "JK", "2c", "5d", "9h"]},
                   {"hand": "four_of_a_kind"}),
    JokerNoFlush: ("paigow.player_bonus", CAP, {"cards": ["2h", "5h", "7h", "9h", "JK", "Kc", "Qd"]}, {"hand": "none"}),
    WheelMissed: ("paigow.player_bonus", CAP, {"cards": ["Ac", "2d", "3h", "4s", "5c", "9d", "Kh"]}, {"hand": "none"}),
    LongFlushMissed: ("paigow.player_bonus", CAP, {"cards": ["2h", "5h", "7h", "9h", "Jh", "Kh", "3c"]}, {"hand": "none"}),
    RoyalJokerMiddleMissed: ("paigow.player_bonus", CAP, {"cards": ["Ah", "Kh", "Qh", "Th", "JK", "4c", "7d"]},
                             {"hand": "straight_flush"}),
    NineHighAsTenHigh: ("paigow.banker_bonus", CAP, {"cards": NINE_HIGH}, {"hand": "ten_high"}),
    DuplicateCardAccepted: ("paigow.player_bonus", CAP, {"cards": ["As", "Ks", "Qs", "Js", "Ts", "9s", "As"]},
                            {"hand": "royal_flush"}),
    CapPerBonus: ("paigow.settle", {"cap": 149_999}, CAP_ROUND, None),
    CapNotApplied: ("paigow.settle", {"cap": 100_000}, CAP_ROUND, None),
    BankSeatIgnored: ("paigow.settle", CAP, BANKED_ROUND, None),
    WagerLostUnlessPlayerPays: ("paigow.settle", CAP, one_seat(100, ACE_HIGH), None),
}

# Settlement answers are checked field by field: class -> (seat index, field, faulty value).
SETTLE_FAULT = {
    CapPerBonus: (0, "total_win", 150_000),
    CapNotApplied: (0, "total_win", 150_000),
    BankSeatIgnored: (1, "banker_bonus", "nine_high"),
    WagerLostUnlessPlayerPays: (0, "wager_lost", True),
}

DEMO_DIFFERING = {
    "commission rounded to nearest, not down": (
        "craps.place_odds", UNIT1, place("pass", 4, 3010), {"commission": 1}),  # 5% of 10 = 0.5
    "the joker does not complete the wheel": (
        "paigow.player_bonus", CAP, {"cards": ["Ac", "3d", "4h", "5s", "JK", "9d", "Kh"]}, {"hand": "none"}),
    "the cap applied per bonus": ("paigow.settle", {"cap": 149_999}, CAP_ROUND, None),
}

# Requests no fault touches: come-out 7, a 7-out, odds within the free limit, a plain trips hand,
# a banker jack high, a dealer-banked round without any cap in play, request-level errors.
NEUTRAL: list[dict[str, Any]] = [
    {"op": "craps.settle", "config": CFG, "cases": [settle("pass", None, [3, 4]), settle("dont_pass", None, [5, 6]),
                                                    settle("pass", 8, [3, 4], odds=2000)]},
    {"op": "craps.place_odds", "config": CFG, "cases": [place("pass", 4, 1000)]},
    {"op": "paigow.player_bonus", "config": CAP, "cases": [{"cards": ["7c", "7d", "7h", "Ks", "9c", "4d", "2h"]}]},
    {"op": "paigow.banker_bonus", "config": CAP, "cases": [{"cards": JACK_HIGH}]},
    {"op": "paigow.settle", "config": CAP, "cases": [one_seat(100, THREE_QUEENS, dealer=ACE_HIGH)]},
    {"op": "craps.settle", "config": {**CFG, "bar": 7}, "cases": [settle("pass", None, [3, 4])]},
    {"op": "craps.teleport", "config": CFG, "cases": []},
    {"op": "paigow.settle", "config": CAP, "cases": "nope"},
]

FAULTY_IDS = [cls.__name__ for cls, _, _ in FAULTY_VENDORS]


def ask(vendor: ReferenceVendor, op: str, config: Any, case: Any) -> dict[str, Any]:
    response = vendor.handle({"id": 7, "op": op, "config": config, "cases": [case]})
    assert response["id"] == 7 and len(response["results"]) == 1
    return response["results"][0]


def check_difference(vendor: ReferenceVendor, op: str, config: Any, case: Any, faulty: Any, fault: tuple | None):
    reference = ask(ReferenceVendor(), op, config, case)
    answer = ask(vendor, op, config, case)
    assert answer != reference
    if isinstance(faulty, str):  # an error code
        assert answer["error"]["code"] == faulty != reference.get("error", {}).get("code")
    elif faulty is not None:
        assert v1_result(op, answer) == faulty    # the faulty part (the v2 stake keys follow the outcome)
    if fault is not None:
        seat, field, value = fault
        assert answer["seats"][seat][field] == value != reference["seats"][seat][field]


def test_the_list_of_faulty_vendors():
    notes = tomllib.loads(resources.files("tablecert.vectors").joinpath("notes.toml").read_text(encoding="utf-8"))
    assert len(FAULTY_VENDORS) >= 22
    assert len({cls for cls, _, _ in FAULTY_VENDORS}) == len(FAULTY_VENDORS)
    for cls, fault, flag in FAULTY_VENDORS:
        assert issubclass(cls, ReferenceVendor) and cls is not ReferenceVendor
        assert fault and flag in notes, (cls.__name__, flag)
        assert cls.__doc__ and "Fault:" in cls.__doc__ and f"Flag: {flag}" in cls.__doc__, cls.__name__
    assert set(DIFFERING) == {cls for cls, _, _ in FAULTY_VENDORS}


@pytest.mark.parametrize("cls", [cls for cls, _, _ in FAULTY_VENDORS], ids=FAULTY_IDS)
def test_each_fault_is_real_and_reachable(cls):
    op, config, case, faulty = DIFFERING[cls]
    check_difference(cls(), op, config, case, faulty, SETTLE_FAULT.get(cls))


@pytest.mark.parametrize("cls", [cls for cls, _, _ in FAULTY_VENDORS] + [DemoVendor], ids=FAULTY_IDS + ["DemoVendor"])
def test_unrelated_requests_are_answered_as_the_reference_does(cls):
    vendor, reference = cls(), ReferenceVendor()
    for i, request in enumerate(NEUTRAL):
        assert vendor.handle({"id": i, **request}) == reference.handle({"id": i, **request}), request
    hello = {"id": 0, "op": "hello", "protocol": PROTOCOL}
    if cls is not DemoVendor:
        assert vendor.handle(hello) == reference.handle(hello)
    assert vendor.handle({"id": 9, "op": "bye"}) == {"id": 9}


@pytest.mark.parametrize("bug", list(DEMO_DIFFERING))
def test_each_demo_bug_is_real_and_reachable(bug):
    op, config, case, faulty = DEMO_DIFFERING[bug]
    check_difference(DemoVendor(), op, config, case, faulty, (0, "total_win", 150_000) if op == "paigow.settle" else None)


def test_demo_hello_and_registration():
    answer = DemoVendor().handle({"id": 0, "op": "hello", "protocol": PROTOCOL})
    assert answer["implementation"]["name"] == "Demo Craps & Pai Gow"
    assert answer["implementation"]["version"] and answer["implementation"]["build"]
    assert answer["ops"] == list(OPS)
    assert len(answer["ops"]) == 7          # the six single-bet ops and craps.round (issue 24)
    assert all(word in DemoVendor.__doc__ for word in ("NEAREST", "wheel", "cap"))
    (entry,) = [ep for ep in metadata.entry_points(group="tablecert.vendors") if ep.name == "demo"]
    assert entry.load() is DemoVendor


# --------------------------------------------------------------------------------------------
# The edge suite, run in process (the default profile): every fault is caught on a vector that
# carries its flag, the demo on each of its three bug classes.


@pytest.fixture(scope="module")
def edge_run():
    from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
    from tablecert.vectors import craps_cases, paigow_cases

    profile = load_profile(DEFAULT_PROFILE)
    groups = [(g, list(g.vectors)) for g in (*craps_cases.edge_groups(profile.craps),
                                             *paigow_cases.edge_groups(profile.paigow_cap))]

    def answers(vendor: ReferenceVendor) -> list[list[Any]]:
        out = []
        for group, vectors in groups:
            results = vendor.handle({"id": 1, "op": group.op, "config": group.config,
                                     "cases": [v.case for v in vectors]})["results"]
            out.append([r["error"]["code"] if "error" in r else r for r in results])
        return out

    expected = answers(ReferenceVendor())

    def failing_flags(vendor: ReferenceVendor) -> set[str]:
        flags: set[str] = set()
        for (_, vectors), got, want in zip(groups, answers(vendor), expected):
            flags.update(f for v, a, b in zip(vectors, got, want) if a != b for f in v.flags)
        return flags

    return failing_flags


@pytest.mark.parametrize("cls,flag", [(cls, flag) for cls, _, flag in FAULTY_VENDORS], ids=FAULTY_IDS)
def test_the_edge_suite_catches_each_fault_under_its_flag(edge_run, cls, flag):
    assert flag in edge_run(cls())


def test_the_edge_suite_catches_each_demo_bug(edge_run):
    assert {"CommissionRounding", "JokerStraight", "CapAggregate"} <= edge_run(DemoVendor())
