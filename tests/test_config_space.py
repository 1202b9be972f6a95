"""The configuration space and its coverage: the space file states every boundary the issue
names; the covering configs are legal and hold every pair of values some legal table can hold
(checked here by brute force over every table of the space); the configs suite spans the amount
range at both ends; and the faulty vendors of tests/config_faulty_vendors.py, right on the
shipped profiles, are each failed by the configs part of `standard`, which the reference passes."""

from __future__ import annotations

import random
import shutil
from itertools import combinations, product
from pathlib import Path

import pytest

from config_faulty_vendors import CONFIG_FAULTY_VENDORS
from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.run.runner import Runner
from tablecert.oracle.cards import card_code
from tablecert.oracle.config_space import CRAPS_FACTORS, config_space, is_legal
from tablecert.oracle.profiles import list_profiles, load_profile
from tablecert.oracle.vendor import ReferenceVendor
from tablecert.vectors.config_cases import config_groups, covering_configs
from tablecert.vectors.suites import build_manifest, generate
from tablecert.vectors.writer import WrittenFile

JSON_SAFE = 2**53 - 1


def test_space_holds_the_boundaries_the_issue_names():
    s = config_space()
    v = s.values
    assert s.max_amount == JSON_SAFE and set(s.crossings) == {2**31 - 1, 2**32 - 1}
    assert 1 in v["unit"] and max(v["unit"]) >= 1000 and {500, 2500} <= set(v["unit"])   # $5, $25
    assert 1 in v["commission_unit"] and 25 in v["commission_unit"]
    assert {"0", "0.05", "0.0499"} <= set(v["commission_rate"])
    assert set(v["commission_rounding"]) == {"down", "nearest", "up"}
    assert set(v["payout_rounding"]) == {"exact", "down"} and set(v["bar"]) == {2, 12}
    shapes = s.odds_shapes
    assert any(f == m for f, m in shapes.values()) and any(f != m for f, m in shapes.values())
    assert any("." in x for f, _ in shapes.values() for x in f.values())                # fractional
    assert any(len(set(f.values())) > 1 for f, _ in shapes.values())                     # per point
    assert any(float(x) >= 1000 for _, m in shapes.values() for x in m.values())         # very large
    assert min(s.paigow_caps) == 4_000_000 and any(c > 4_000_000 for c in s.paigow_caps)
    assert JSON_SAFE in s.paigow_caps


def test_covering_configs_are_legal_and_cover_every_feasible_pair():
    space = config_space()
    names = list(CRAPS_FACTORS)
    rows = [dict(zip(names, r)) for r in product(*(space.values[n] for n in names))]
    legal = [r for r in rows if is_legal(space.craps_config(r))]
    configs = covering_configs()
    assert configs == covering_configs.__wrapped__()          # deterministic
    assert all(is_legal(c) for c in configs)
    chosen = [{n: r[n] for n in names} for r in rows if space.craps_config(r) in configs]
    assert len(chosen) == len(configs)
    for a, b in combinations(names, 2):
        feasible = {(r[a], r[b]) for r in legal}
        covered = {(r[a], r[b]) for r in chosen}
        assert feasible <= covered, (a, b, sorted(feasible - covered, key=str)[:3])
    # a legal table can be a 1 minor unit table with 'up' rounding at 5 per cent, and one is covered
    assert any(c["commission_rounding"] == "up" and c["commission_rate"] == "0.05" for c in configs)
    assert len(configs) < len(legal) // 50


def _ints(x):
    if isinstance(x, bool):
        return
    if isinstance(x, int):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _ints(v)
    elif isinstance(x, list):
        for v in x:
            yield from _ints(v)


def test_configs_amounts_span_the_range():
    from tablecert.vectors.writer import expected_answer
    from tablecert.oracle.vendor import OPS

    wins, largest = [], 0
    for group in config_groups():
        if group.op != "craps.settle":
            continue
        parse, handle = OPS[group.op]
        cfg = parse(group.config)
        for v in group.vectors:
            answer = expected_answer(handle, cfg, v.case)
            largest = max(largest, *_ints(v.case), *_ints(answer))
            if "result" in answer:
                wins.append(answer["result"]["odds_win"])
    assert largest <= JSON_SAFE and largest > JSON_SAFE - 10**6
    for width in (2**31 - 1, 2**32 - 1):
        assert any(width < w <= 2 * width for w in wins), width
    assert max(wins) > 2**52


def _sample_case(rng: random.Random, op: str, cfg) -> dict:
    u = cfg.unit
    flat = u * rng.randint(1, 10)
    case = {"bet": rng.choice(["pass", "dont_pass", "come", "dont_come"]), "flat": flat,
            "point": rng.choice([4, 5, 6, 8, 9, 10])}
    if op != "craps.odds_limits":
        case["odds"] = u * rng.randint(0 if op == "craps.settle" else 1, 12 * 10 * 2)
    if op == "craps.settle":
        case["dice"] = [rng.randint(1, 6), rng.randint(1, 6)]
        if rng.random() < 0.2:
            case.update(point=None, odds=0)
    return case


@pytest.mark.parametrize("cls", [c for c, _ in CONFIG_FAULTY_VENDORS], ids=lambda c: c.__name__)
def test_faulty_vendor_is_right_on_the_shipped_profiles(cls):
    """Each faulty vendor answers like the reference on every shipped table (sampled bets of up to
    ten units, odds up to 240 units, every op) and on everyday hands at the $40,000 cap."""
    rng = random.Random(11)
    ref, vendor = ReferenceVendor(), cls()
    for pid in list_profiles():
        profile = load_profile(pid)
        cfg = profile.table_config
        for op in ("craps.odds_limits", "craps.place_odds", "craps.settle"):
            request = {"id": 1, "op": op, "config": profile.craps,
                       "cases": [_sample_case(rng, op, cfg) for _ in range(150)]}
            assert vendor.handle(request) == ref.handle(request), (pid, op)
    deck = list(range(53))
    rounds, hands = [], []
    for _ in range(150):
        rng.shuffle(deck)
        hands.append({"cards": [card_code(c) for c in deck[:7]]})
        rounds.append({"dealer": [card_code(c) for c in deck[7:14]], "bank_seat": None,
                       "seats": [{"seat": 1, "wager": rng.randint(0, 5000), "cards": [card_code(c) for c in deck[14:21]]}]})
    for op, cases in (("paigow.player_bonus", hands), ("paigow.settle", rounds)):
        request = {"id": 2, "op": op, "config": {"cap": 4_000_000}, "cases": cases}
        assert vendor.handle(request) == ref.handle(request), op


@pytest.fixture(scope="module")
def configs_suite(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("configs")
    generate("configs", out)
    return out


def _one_op(suite: Path, op: str, out: Path) -> Path:
    """The configs suite restricted to one op's files (a suite folder of its own)."""
    import json

    manifest = json.loads((suite / "manifest.json").read_text())
    written = []
    for f in manifest["files"]:
        if f["op"] == op:
            (out / f["view"]).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(suite / f["path"], out / f["path"])
            written.append(WrittenFile(f["path"], f["view"], op, f["profile"], f["numberOfTests"], 0))
    sub = build_manifest("configs", manifest["profile"]["id"], manifest["profile"]["sha256"],
                         tuple(manifest["views"]), out, written)
    (out / "manifest.json").write_text(json.dumps(sub))
    return out


#: The op each faulty vendor's fault shows in first (the test runs that op's part only).
FAULT_OP = {"CapFixedAtMinimum": "paigow.settle", "StraightFlushInTopFive": "paigow.player_bonus",
            "JokerMissesWheelFlush": "paigow.player_bonus", "FlooredToUnit": "craps.settle",
            "FloatCommission": "craps.place_odds", "Int32Wins": "craps.settle", "BarTwoBarsTwelveToo": "craps.settle",
            "NearestRoundsHalfDown": "craps.place_odds", "NearestIsBankers": "craps.place_odds",
            "UpRoundedDown": "craps.place_odds", "CommissionUnitIgnored": "craps.place_odds",
            "RateReadToCents": "craps.place_odds"}


def _run(spec: str, suite: Path, out: Path, **kw):
    adapter = PythonAdapter()
    return Runner(lambda: adapter.open(spec, SessionOptions(timeout=60)), suite, out, batch_size=1000, **kw).run()


@pytest.mark.slow
def test_configs_part_of_standard_fails_every_config_faulty_vendor(configs_suite, tmp_path, capsys):
    assert len(CONFIG_FAULTY_VENDORS) >= 15
    reference = _run("reference", configs_suite, tmp_path / "reference")
    assert reference.verdict == "pass" and reference.totals["fail"] == 0 and reference.totals["pass"] > 75_000
    escaped = []
    for cls, fault in CONFIG_FAULTY_VENDORS:
        op = FAULT_OP.get(cls.__name__, "craps.odds_limits")
        suite = _one_op(configs_suite, op, tmp_path / f"suite-{cls.__name__}")
        result = _run(f"config_faulty_vendors:{cls.__name__}", suite, tmp_path / cls.__name__, stop_after_failures=1)
        if result.verdict != "fail":
            escaped.append(f"{cls.__name__} ({fault}) on {op}: {result.verdict}")
    with capsys.disabled():
        print(f"\nconfigs part of standard: {len(CONFIG_FAULTY_VENDORS) - len(escaped)}/{len(CONFIG_FAULTY_VENDORS)} "
              "config-space faulty vendors caught")
    assert escaped == []
