"""The bulk judge never passes what the strict path fails: the same answers, in every formatting
and with every kind of defect, judged both ways; and whole runs through the bulk path record
exactly what the strict path records."""

from __future__ import annotations

import json
import shlex
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablecert.harness.answers import bulk as bulk_judge
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.answers.bulk import Expected, confirms_line, confirms_values
from tablecert.harness.contract import SessionOptions, VendorFault
from tablecert.harness.answers.envelope import check_batch_answer, decode_answer
from tablecert.harness.answers.compare import passes
from tablecert.harness.run.runner import Runner

RID = 17

# Expected answers written out by hand (hand labels; craps and pai gow settle results; rejections).
HANDS = ("paigow.player_bonus", [{"result": {"hand": h}} for h in
                                 ("none", "four_of_a_kind", "royal_flush", "none", "straight_flush", "five_aces")])
CRAPS = ("craps.settle", [
    {"result": {"outcome": "win", "flat_win": 1000, "odds_win": 1500, "point": None}},
    {"result": {"outcome": "point", "flat_win": 0, "odds_win": 0, "point": 6}},
    {"error": "not_positive"},
    {"result": {"outcome": "lose", "flat_win": 0, "odds_win": 0, "point": None}},
])
PAIGOW = ("paigow.settle", [
    {"result": {"seats": [{"seat": 1, "player_bonus": "straight", "player_bonus_win": 200, "banker_bonus": "none",
                           "banker_bonus_win": 0, "total_win": 200, "wager_lost": False},
                          {"seat": 3, "player_bonus": "none", "player_bonus_win": 0, "banker_bonus": "none",
                           "banker_bonus_win": 0, "total_win": 0, "wager_lost": True}]}},
    {"error": "invalid_request"},
])
SAMPLES = {"hands": HANDS, "craps": CRAPS, "paigow": PAIGOW}


def expected_of(name: str) -> Expected:
    op, expected = SAMPLES[name]
    if name == "hands":
        return Expected.hand_labels(len(expected), json.dumps([e["result"] for e in expected],
                                                              separators=(",", ":")).encode())
    return Expected.of(expected)


def correct_answer(name: str) -> dict[str, Any]:
    _, expected = SAMPLES[name]
    results = [e["result"] if "result" in e else {"error": {"code": e["error"], "message": "refused: see rule 4"}}
               for e in expected]
    return {"id": RID, "results": results}


def strict_outcome(name: str, line: bytes) -> str:
    """What the strict path says of a whole answer line: pass, fail, or the fault."""
    op, expected = SAMPLES[name]
    try:
        results = check_batch_answer(decode_answer(line), RID, len(expected), op)
    except (ValueError, RecursionError):
        return "malformed"
    except VendorFault as fault:
        return fault.kind.value
    return "pass" if all(passes(e, r) for e, r in zip(expected, results)) else "fail"


def outcome(name: str, line: bytes) -> str:
    """What a run decides: a pass confirmed in bulk, else the strict path."""
    op, _ = SAMPLES[name]
    return "pass" if confirms_line(line, RID, op, expected_of(name)) else strict_outcome(name, line)


def spaced(value: Any) -> bytes:
    """``json.dumps`` as Python, Java and C# serializers write it: spaces, keys in reverse order."""
    def reverse(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: reverse(v[k]) for k in reversed(list(v))}
        return [reverse(x) for x in v] if isinstance(v, list) else v
    return json.dumps(reverse(value)).encode()


CASES = [
    # (sample, answer line, strict outcome, confirmed in bulk)
    ("hands", spaced(correct_answer("hands")), "pass", True),
    ("craps", spaced(correct_answer("craps")), "pass", True),
    ("paigow", spaced(correct_answer("paigow")), "pass", True),
    ("hands", json.dumps(correct_answer("hands"), separators=(",", ":")).encode(), "pass", True),
    ("hands", b'{"results": [{"hand": "\\u006eone"}, {"hand": "four_of_a_kind"}, {"hand": "royal_flush"}, '
              b'{"hand": "none"}, {"hand": "straight_flush"}, {"hand": "five_aces"}], "id": 17}', "pass", True),
    ("craps", spaced(correct_answer("craps")).replace(b'"win"', b'"\\u0077in"'), "pass", True),
    ("craps", spaced(correct_answer("craps")).replace(b'see rule', b'see\\u003a rule'), "pass", True),
    ("craps", spaced(correct_answer("craps")).replace(b'"point": 6', b'"point": 6, "p\\u006fint": 6'), "malformed",
     False),
    ("craps", spaced(correct_answer("craps")).replace(b'see rule', b'see\\u003a rule').replace(
        b'"point": 6', b'"point": 6, "point": 6'), "malformed", False),
    ("hands", spaced(correct_answer("hands")).replace(b'{"hand": "none"}', b'{"hand": "none", "hand": "none"}', 1),
     "malformed", False),
    ("hands", spaced(correct_answer("hands")).replace(b'"id": 17', b'"id": 17, "id": 17'), "malformed", False),
    ("craps", spaced(correct_answer("craps")).replace(b'"point": 6', b'"point": 6, "point": 6'), "malformed", False),
    ("craps", spaced(correct_answer("craps")).replace(b'"flat_win": 1000', b'"flat_win": 1000.0'), "fail", False),
    ("craps", spaced(correct_answer("craps")).replace(b'"point": 6', b'"point": 6.0'), "fail", False),
    ("paigow", spaced(correct_answer("paigow")).replace(b'"wager_lost": true', b'"wager_lost": 1'), "fail", False),
    ("paigow", spaced(correct_answer("paigow")).replace(b'"wager_lost": false', b'"wager_lost": 0'), "fail", False),
    ("craps", spaced(correct_answer("craps")).replace(b'"odds_win": 1500', b'"odds_win": 1500, "bonus": 0'), "fail",
     False),
    ("craps", spaced(correct_answer("craps")).replace(b'"odds_win": 1500, ', b''), "fail", False),
    ("hands", spaced(correct_answer("hands")).replace(b'"royal_flush"', b'"straight_flush"'), "fail", False),
    ("craps", spaced(correct_answer("craps")).replace(b'"not_positive"', b'"invalid_bet"'), "fail", False),
    ("hands", spaced(correct_answer("hands")).replace(b'"id": 17', b'"id": 17.0'), "wrong_id", False),
    ("hands", spaced(correct_answer("hands")).replace(b'"id": 17', b'"id": 18'), "wrong_id", False),
    ("hands", spaced(correct_answer("hands")).replace(b'"id": 17', b'"id": 17, "op": "paigow.banker_bonus"'),
     "wrong_op", False),
    ("hands", spaced(correct_answer("hands")).replace(b'"id": 17', b'"id": 17, "op": "paigow.player_bonus"'),
     "pass", True),
    ("hands", spaced(correct_answer("hands")).replace(b', {"hand": "five_aces"}', b''), "wrong_count", False),
    ("hands", spaced(correct_answer("hands")).replace(b'"id": 17', b'"id": 17, "error": "busy"'), "pass", False),
    ("hands", spaced(correct_answer("hands")) + b"x", "malformed", False),
    ("craps", spaced(correct_answer("craps")).replace(b"1000", b"NaN"), "malformed", False),
]


@pytest.mark.parametrize("name, line, strict, bulk", CASES)
def test_each_kind_of_answer_gets_the_strict_outcome(name: str, line: bytes, strict: str, bulk: bool) -> None:
    assert strict_outcome(name, line) == strict
    op, _ = SAMPLES[name]
    assert confirms_line(line, RID, op, expected_of(name)) is bulk
    assert outcome(name, line) == strict


# -- mutated answers, written in random formattings -----------------------------------------------

WHITESPACE = st.sampled_from(["", "", " ", "  ", "\t", "\r\n", "\n "])


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with at most a few defects: a changed leaf, a type changed (1 -> 1.0, 1 -> true,
    false -> 0), a key dropped or added."""
    if isinstance(value, dict):
        out = {k: draw(mutated(v)) if draw(st.integers(0, 9)) == 0 else v for k, v in value.items()}
        roll = draw(st.integers(0, 19))
        if roll == 0 and out:
            out.pop(draw(st.sampled_from(sorted(out))))
        elif roll == 1:
            out[draw(st.sampled_from(["extra", "hand", "code", "point", "id"]))] = draw(st.sampled_from([0, "none", None]))
        return out
    if isinstance(value, list):
        return [draw(mutated(v)) if draw(st.integers(0, 5)) == 0 else v for v in value]
    if isinstance(value, bool):
        return draw(st.sampled_from([not value, int(value), str(value).lower()]))
    if isinstance(value, int):
        return draw(st.sampled_from([value + 1, float(value), value == 1, -value, str(value)]))
    if isinstance(value, str):
        return draw(st.sampled_from([value + "x", value.upper(), value[:-1], 0, None]))
    return draw(st.sampled_from([0, False, "null", {}]))


@st.composite
def written(draw: st.DrawFn, value: Any) -> str:
    """``value`` as JSON text in a random formatting: whitespace, key order, escaped characters,
    integers written as floats, and now and then a repeated key."""
    ws = lambda: draw(WHITESPACE)  # noqa: E731
    if isinstance(value, dict):
        items = draw(st.permutations(list(value.items())))
        if items and draw(st.integers(0, 15)) == 0:          # a repeated key, same or other value
            k, v = draw(st.sampled_from(items))
            items.insert(draw(st.integers(0, len(items))), (k, draw(st.sampled_from([v, 0, "none", None]))))
        body = ("," + ws()).join(f"{draw(written(k))}{ws()}:{ws()}{draw(written(v))}" for k, v in items)
        return "{" + ws() + body + ws() + "}"
    if isinstance(value, list):
        return "[" + ws() + ("," + ws()).join(draw(written(v)) for v in value) + ws() + "]"
    if isinstance(value, str):
        chars = [f"\\u{ord(c):04x}" if draw(st.integers(0, 30)) == 0 else json.dumps(c)[1:-1] for c in value]
        return '"' + "".join(chars) + '"'
    if isinstance(value, int) and not isinstance(value, bool) and draw(st.integers(0, 40)) == 0:
        return draw(st.sampled_from([f"{value}.0", f"{value}e0", f"{value}E+0"]))
    return json.dumps(value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_mutated_answers_get_the_strict_outcome(name: str, data: st.DataObject) -> None:
    answer = correct_answer(name)
    if data.draw(st.booleans()):
        answer = data.draw(mutated(answer))
    line = data.draw(written(answer)).encode()
    assert outcome(name, line) == strict_outcome(name, line)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_any_byte_changed_gets_the_strict_outcome(name: str, data: st.DataObject) -> None:
    line = bytearray(spaced(correct_answer(name)))
    at = data.draw(st.integers(0, len(line) - 1))
    change = data.draw(st.sampled_from(["replace", "insert", "delete"]))
    byte = data.draw(st.sampled_from(b'":,{}[] \\0123456789.eEtrufalsn\x00\x7f') | st.integers(0, 255))
    if change == "replace":
        line[at] = byte
    elif change == "insert":
        line.insert(at, byte)
    else:
        del line[at]
    assert outcome(name, bytes(line)) == strict_outcome(name, bytes(line))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_decoded_values_are_confirmed_only_when_each_passes(name: str, data: st.DataObject) -> None:
    _, expected = SAMPLES[name]
    results = data.draw(mutated(correct_answer(name)["results"]))
    each = len(results) == len(expected) and all(passes(e, r) for e, r in zip(expected, results))
    if confirms_values(results, expected_of(name)):
        assert each
    if each and name == "hands":
        assert confirms_values(results, expected_of(name))


def test_correct_values_in_any_key_order_are_confirmed() -> None:
    for name in SAMPLES:
        results = json.loads(spaced(correct_answer(name)))["results"]
        assert confirms_values(results, Expected.of(SAMPLES[name][1]))
    results = json.loads(spaced(correct_answer("craps")))["results"]
    results[0]["flat_win"] = 1000.0
    assert not confirms_values(results, Expected.of(CRAPS[1]))


# -- whole runs: the bulk path records what the strict path records --------------------------------

VENDOR = """
import json, sys
from tablecert.oracle.vendor import ReferenceVendor

spaces, bug = "--spaces" in sys.argv, "--bug" in sys.argv

def reverse(v):
    if isinstance(v, dict):
        return {k: reverse(v[k]) for k in reversed(list(v))}
    return [reverse(x) for x in v] if isinstance(v, list) else v

vendor = ReferenceVendor()
for line in sys.stdin:
    request = json.loads(line)
    if bug and request.get("op") == "craps.place_odds" and isinstance(request.get("config"), dict):
        request = dict(request, config=dict(request["config"], commission_rounding="up"))
    answer = vendor.handle(request)
    text = json.dumps(reverse(answer)) if spaces else json.dumps(answer, separators=(",", ":"))
    sys.stdout.write(text + "\\n")
    sys.stdout.flush()
    if request.get("op") == "bye":
        break
"""


@pytest.fixture(scope="module")
def vendor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("vendor") / "formatted_reference.py"
    path.write_text(VENDOR, encoding="utf-8")
    return path


def run(suite: Path, out: Path, vendor: Path, *flags: str):
    adapter, target = SubprocessAdapter(), shlex.join([sys.executable, str(vendor), *flags])
    return Runner(lambda: adapter.open(target, SessionOptions(timeout=60)), suite, out, batch_size=500).run()


def batches_of(run_dir: Path) -> list[tuple[Any, ...]]:
    return sqlite3.connect(run_dir / "run.db").execute("SELECT file, op, first_tc FROM batches").fetchall()


def db_content(run_dir: Path) -> dict[str, list[tuple[Any, ...]]]:
    db = sqlite3.connect(run_dir / "run.db")
    try:
        return {table: db.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
                for table, order in (("counts", "dimension, key, outcome"), ("confusion", "op, expected, actual"),
                                     ("batches", "file, op, first_tc"), ("failures", "file, op, tc_id"),
                                     ("faults", "file, op, first_tc, attempt"))}
    finally:
        db.close()


def test_a_vendor_formatting_differently_passes_the_edge_suite_in_bulk(edge: Path, vendor: Path,
                                                                       tmp_path: Path) -> None:
    result = run(edge, tmp_path, vendor, "--spaces")
    manifest = json.loads((edge / "manifest.json").read_text())
    assert result.verdict == "pass"
    assert result.totals == {"pass": manifest["numberOfTests"], "fail": 0, "unsupported": 0, "fault": 0}
    batches = sqlite3.connect(tmp_path / "run.db").execute("SELECT COUNT(*) FROM batches").fetchone()[0]
    assert result.stats.lines_confirmed == batches and result.stats.lines_refused == 0


def test_failures_in_bulk_are_recorded_like_the_strict_path(edge: Path, vendor: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    result = run(edge, tmp_path / "bulk", vendor, "--spaces", "--bug")
    assert result.verdict == "fail" and result.totals["fail"] > 0
    assert result.stats.lines_confirmed > 0 and result.stats.lines_refused > 0
    # The same vendor judged without the bulk judge at all (every answer decoded and judged case
    # by case), once in its compact formatting, once spaced.
    monkeypatch.setattr(bulk_judge, "confirms_line", lambda *a: False)     # the run pipeline's one bulk judge
    monkeypatch.setattr(bulk_judge, "confirms_values", lambda *a: False)
    for flags in (("--bug",), ("--spaces", "--bug")):
        strict = tmp_path / "-".join(flags)
        strict_result = run(edge, strict, vendor, *flags)
        assert strict_result.totals == result.totals
        assert strict_result.stats.lines_confirmed == 0 and strict_result.stats.lines_refused == len(batches_of(strict))
        assert db_content(strict) == db_content(tmp_path / "bulk")
