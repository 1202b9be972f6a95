"""The hand suites at full speed: the reference vendor's canonical fast path (byte-identical to its
JSON path), the harness's pre-encoded requests and byte-equal judging, and that a run through them
records exactly what case-by-case judging records (fallback vendors, wrong labels, resumption)."""

from __future__ import annotations

import io
import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tablecert.harness.answers import bulk as bulk_judge

from tablecert.harness.run import hand_batches
from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter, SubprocessSession
from tablecert.harness.contract import FaultKind, SessionOptions, VendorFault
from tablecert.harness.run.hand_batches import HandBatch, HandSuite
from tablecert.harness.instance.recovery import FaultPolicy
from tablecert.harness.run.runner import Runner, RunError
from tablecert.oracle import label_batch
from tablecert.oracle.census import published_counts
from tablecert.oracle.cards import parse_hand
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_LABELS, player_label
from tablecert.oracle.label_batch import fast_label_response
from tablecert.oracle.vendor import ReferenceVendor, serve
from waits import HANG

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"] + ["JK"]
OPS = ("paigow.player_bonus", "paigow.banker_bonus")
REFERENCE_CMD = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])
JOKER_HANDS = 20_358_520

# One hand per label (checked against the JSON path below), with and without the joker.
LABELLED_HANDS = [
    ["As", "Ah", "Ad", "Ac", "JK", "2c", "7d"],      # five_aces
    ["Ts", "Js", "Qs", "Ks", "As", "2c", "3d"],      # royal_flush
    ["7s", "8s", "Ts", "Js", "Qs", "Ks", "JK"],      # royal_flush (joker as the ace)
    ["5h", "6h", "7h", "8h", "9h", "2c", "Kd"],      # straight_flush
    ["9c", "9d", "9h", "9s", "2c", "5d", "Kh"],      # four_of_a_kind
    ["9c", "9d", "9h", "Ks", "Kc", "2d", "5h"],      # full_house
    ["2h", "5h", "8h", "Jh", "Kh", "3c", "4d"],      # flush
    ["2h", "5h", "8h", "Jh", "JK", "3c", "4d"],      # flush (joker)
    ["4c", "5d", "6h", "7s", "8c", "Kd", "As"],      # straight
    ["2c", "3d", "4h", "5s", "JK", "9c", "Qd"],      # straight (joker)
    ["7c", "7d", "7h", "2s", "9c", "Jd", "Kh"],      # three_of_a_kind
    ["Ks", "Kh", "Kd", "JK", "2c", "7d", "9h"],      # three_of_a_kind (joker is an ace)
    ["2c", "2d", "5h", "9s", "Jc", "Kd", "Ah"],      # none
    ["9s", "8h", "7d", "5c", "4c", "3d", "2h"],      # banker nine_high
    ["Td", "8h", "7c", "5s", "4d", "3c", "2h"],      # banker ten_high
    ["Jd", "9h", "8c", "6d", "4s", "3c", "2h"],      # banker jack_high
]


def compact(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode("ascii")


def slow_answer(line: bytes) -> bytes:
    """What the JSON path answers (the one definition the fast path must equal)."""
    return compact(ReferenceVendor().handle(json.loads(line)))


def request(rid: int, op: str, cases: list[Any], cap: Any = 4_000_000) -> bytes:
    return compact({"id": rid, "op": op, "config": {"cap": cap}, "cases": cases}) + b"\n"


# -- the vendor's fast path --------------------------------------------------------------------

def test_every_label_is_answered_by_the_fast_path_as_by_the_json_path() -> None:
    for op, names in zip(OPS, (PLAYER_LABELS, BANKER_LABELS)):
        line = request(1, op, [{"cards": cards} for cards in LABELLED_HANDS])
        fast = fast_label_response(line)
        assert fast is not None and fast == slow_answer(line)
        assert {r["hand"] for r in json.loads(fast)["results"]} == set(names)


hands = st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True)
joker_hands = st.lists(st.sampled_from(DECK[:-1]), min_size=6, max_size=6, unique=True).flatmap(
    lambda six: st.integers(0, 6).map(lambda at: six[:at] + ["JK"] + six[at:]))
any_hand = st.one_of(hands, joker_hands, st.sampled_from(LABELLED_HANDS))


@settings(max_examples=300, deadline=None)
@given(rid=st.integers(-10**18 + 1, 10**18 - 1), op=st.sampled_from(OPS), cap=st.integers(0, 10**18 - 1),
       batch=st.lists(any_hand, min_size=1, max_size=40))
@example(rid=0, op=OPS[0], cap=0, batch=[LABELLED_HANDS[0]])
def test_fast_path_equals_json_path_on_canonical_requests(rid: int, op: str, cap: int, batch: list[list[str]]) -> None:
    line = request(rid, op, [{"cards": cards} for cards in batch], cap)
    fast = fast_label_response(line)
    assert fast is not None, "a canonical request must take the fast path"
    assert fast == slow_answer(line)
    assert fast_label_response(line.rstrip(b"\n")) == fast       # the last line of a stream has no newline


IRREGULAR = [
    # (why, the request line) - each answered by the JSON path, errors included
    ("duplicate card", request(1, OPS[0], [{"cards": ["As", "As", "Qs", "Js", "Ts", "2c", "3d"]}])),
    ("two jokers", request(1, OPS[1], [{"cards": ["JK", "JK", "Qs", "Js", "Ts", "2c", "3d"]}])),
    ("not a card", request(1, OPS[0], [{"cards": ["1s", "Ks", "Qs", "Js", "Ts", "2c", "3d"]}])),
    ("lower case", request(1, OPS[0], [{"cards": ["as", "Ks", "Qs", "Js", "Ts", "2c", "3d"]}])),
    ("joker lower case", request(1, OPS[0], [{"cards": ["jk", "Ks", "Qs", "Js", "Ts", "2c", "3d"]}])),
    ("six cards", request(1, OPS[0], [{"cards": ["Ks", "Qs", "Js", "Ts", "2c", "3d"]}])),
    ("eight cards", request(1, OPS[0], [{"cards": ["As", "Ks", "Qs", "Js", "Ts", "2c", "3d", "4h"]}])),
    ("no cards", request(1, OPS[0], [{"nope": 1}])),
    ("extra field", request(1, OPS[0], [{"cards": LABELLED_HANDS[1], "x": 1}])),
    ("not an object", request(1, OPS[0], [17])),
    ("no cases", request(1, OPS[0], [])),
    ("negative cap", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}], cap=-1)),
    ("cap as a string", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}], cap="4000000")),
    ("cap as a float", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}], cap=4e6)),
    ("config with another field", compact({"id": 1, "op": OPS[0], "config": {"cap": 1, "x": 2},
                                            "cases": [{"cards": LABELLED_HANDS[1]}]}) + b"\n"),
    ("spaces", json.dumps({"id": 1, "op": OPS[0], "config": {"cap": 1},
                           "cases": [{"cards": LABELLED_HANDS[1]}]}).encode() + b"\n"),
    ("keys in another order", compact({"op": OPS[0], "id": 1, "config": {"cap": 1},
                                       "cases": [{"cards": LABELLED_HANDS[1]}]}) + b"\n"),
    ("escaped card", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}]).replace(b'"As"', b'"\\u0041s"')),
    ("-0 id", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}]).replace(b'"id":1', b'"id":-0')),
    ("leading zero id", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}]).replace(b'"id":1', b'"id":01')),
    ("float id", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}]).replace(b'"id":1', b'"id":1.0')),
    ("long id", request(10**30, OPS[0], [{"cards": LABELLED_HANDS[1]}])),
    ("crlf", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}]).replace(b"\n", b"\r\n")),
    ("trailing space", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}]).replace(b"\n", b" \n")),
    ("two newlines", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}]) + b"\n"),
    ("truncated", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}])[:-3] + b"\n"),
    ("missing comma", request(1, OPS[0], [{"cards": LABELLED_HANDS[1]}, {"cards": LABELLED_HANDS[2]}])
     .replace(b'},{"cards"', b'} {"cards"')),
    ("settle", request(1, "paigow.settle", [{"cards": LABELLED_HANDS[1]}])),
]


@pytest.mark.parametrize("why, line", IRREGULAR, ids=[w for w, _ in IRREGULAR])
def test_irregular_requests_fall_back_to_the_json_path(why: str, line: bytes) -> None:
    assert fast_label_response(line) is None
    assert serve_bytes(line) == serve_text(line)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.lists(any_hand, min_size=1, max_size=5), op=st.sampled_from(OPS), data=st.data())
def test_any_one_byte_change_is_refused_or_answered_like_the_json_path(batch: list[list[str]], op: str,
                                                                          data: st.DataObject) -> None:
    line = bytearray(request(7, op, [{"cards": cards} for cards in batch]))
    at = data.draw(st.integers(0, len(line) - 1))
    line[at] = data.draw(st.sampled_from(b'"{}[],:0123456789-JKTQA2cdhsx \\\n'))
    fast = fast_label_response(bytes(line))
    if fast is not None:
        assert fast == slow_answer(bytes(line))
    assert serve_bytes(bytes(line)) == serve_text(bytes(line))


def serve_bytes(*lines: bytes) -> bytes:
    """serve() on byte streams, as the reference-vendor command runs it (fast path enabled)."""
    stdin = io.TextIOWrapper(io.BytesIO(b"".join(lines)), encoding="utf-8", errors="surrogateescape", newline="\n")
    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape", newline="\n", write_through=True)
    assert serve(stdin, stdout) == 0
    stdout.flush()
    return out.getvalue()


def serve_text(*lines: bytes) -> bytes:
    """serve() on text streams without byte layers: the JSON path only, as before the fast path."""
    stdin = io.StringIO(b"".join(lines).decode("utf-8", "surrogateescape"), newline="\n")
    stdout = io.StringIO(newline="\n")
    assert serve(stdin, stdout) == 0
    return stdout.getvalue().encode("utf-8", "surrogateescape")


def test_serve_takes_the_fast_path_for_canonical_lines_only(monkeypatch: pytest.MonkeyPatch) -> None:
    answered: list[bool] = []
    real = label_batch.fast_label_response

    def spy(line: bytes) -> bytes | None:
        answer = real(line)
        answered.append(answer is not None)
        return answer

    monkeypatch.setattr(label_batch, "fast_label_response", spy)
    lines = [compact({"id": 0, "op": "hello", "protocol": "tablecert-vendor/1"}) + b"\n",
             request(1, OPS[0], [{"cards": c} for c in LABELLED_HANDS]),
             request(2, OPS[1], [{"cards": c} for c in LABELLED_HANDS]),
             IRREGULAR[0][1].replace(b'"id":1', b'"id":3'),
             b"not json \xff\n", b"   \n",
             compact({"id": 4, "op": "bye"}) + b"\n",
             request(5, OPS[0], [{"cards": LABELLED_HANDS[0]}])]          # after bye: never read
    assert serve_bytes(*lines) == serve_text(*lines)
    assert answered == [True, True, False]


def test_a_subclass_of_the_reference_vendor_never_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    class Wrong(ReferenceVendor):
        def handle(self, request: object) -> dict[str, Any]:
            answer = super().handle(request)
            return {**answer, "results": [{"hand": "none"} for _ in answer.get("results", [])]}

    monkeypatch.setattr(label_batch, "fast_label_response", lambda line: pytest.fail("fast path taken"))
    line = request(1, OPS[0], [{"cards": LABELLED_HANDS[0]}])
    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", newline="\n", write_through=True)
    serve(io.TextIOWrapper(io.BytesIO(line), encoding="utf-8", newline="\n"), stdout, Wrong())
    assert json.loads(out.getvalue())["results"] == [{"hand": "none"}]


def test_a_stale_cached_kernel_is_recompiled(tmp_path: Path) -> None:
    """The kernel inlines labeller._evaluate; a cached build made against another labeller.py is
    detected by the stamp it carries and rebuilt (here in a private numba cache)."""
    script = f"""
import numpy as np
from tablecert.oracle import label_batch as lb
line = {request(1, OPS[0], [{"cards": c} for c in LABELLED_HANDS])!r}
good = lb.fast_label_response(line)
lb._LABELLER_STAMP += 1          # as if labeller.py had changed since the kernel was cached
lb._checked_stamp = False
assert lb.fast_label_response(line) == good
status = np.zeros(2, dtype=np.int64)
lb._label_cases(np.zeros(1, np.uint8), 0, 0, False, lb.CASE_TEMPLATE, lb.TEMPLATE_MASK, lb.CARD_LOOKUP,
                *lb.PLAYER_RESULTS, np.zeros(1, np.uint8), 0, status)
assert status[1] == lb._LABELLER_STAMP
print("recompiled")
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=HANG)
    assert proc.returncode == 0 and "recompiled" in proc.stdout, proc.stderr


# -- the harness side ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def joker(joker_suite: Path) -> Path:
    return joker_suite           # shared by the test run, read only


def test_request_lines_are_what_the_adapter_would_send_and_expected_lines_decode(joker: Path) -> None:
    suite = HandSuite.load(joker)
    fd = os.open(suite.labels_path, os.O_RDONLY)
    try:
        for index, n in ((0, 5), (12_345, 300), (JOKER_HANDS - 7, 7)):
            hb = HandBatch(suite, fd, index, n)
            batches = {op: hb.batch(op) for op in OPS}
            for op in OPS:
                line = bytes(hb.request_line(op, 41))
                assert line == SubprocessSession._encode({"id": 41, "op": op, "config": suite.config,
                                                          "cases": batches[op].cases})
                expected = json.loads(hb.expected_line(op, 41))
                assert expected == {"id": 41, "results": [e["result"] for e in batches[op].expected]}
                assert hb.expected_line(op, 41) == fast_label_response(line)
    finally:
        os.close(fd)


def run(suite: Path, out: Path, target: str = REFERENCE_CMD, adapter: Any = None, **kw: Any):
    adapter = adapter or SubprocessAdapter()
    return Runner(lambda: adapter.open(target, SessionOptions(timeout=120)), suite, out, **kw).run()


def db_content(run_dir: Path) -> dict[str, list[tuple[Any, ...]]]:
    db = sqlite3.connect(run_dir / "run.db")
    try:
        return {table: db.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
                for table, order in (("counts", "dimension, key, outcome"), ("confusion", "op, expected, actual"),
                                     ("batches", "file, op, first_tc"), ("failures", "file, op, tc_id"))}
    finally:
        db.close()


def test_joker_suite_through_the_subprocess_adapter_counts_the_published_joker_hands(joker: Path, tmp_path: Path) -> None:
    result = run(joker, tmp_path)
    assert result.verdict == "pass"
    assert result.totals == {"pass": 2 * JOKER_HANDS, "fail": 0, "unsupported": 0, "fault": 0}
    stats = result.stats
    assert stats.fast_passes == stats.requests == 2 * -(-JOKER_HANDS // hand_batches.DEFAULT_HAND_BATCH_SIZE)
    assert stats.fallbacks == 0 and stats.hands == JOKER_HANDS

    # The published counts of hands holding the joker: all hands minus hands without it.
    published = published_counts()
    joker_by_category = {c: published.player[c] - published.player_no_joker[c] for c in published.player}
    expected_player = {label: joker_by_category[label] for label in PLAYER_LABELS if label != "none"}
    expected_player["none"] = sum(joker_by_category[c] for c in ("two_pair", "pair", "high_card"))
    content = db_content(tmp_path)
    confusion = {(op, e): n for op, e, a, n in content["confusion"] if e == a}
    assert all(e == a for _, e, a, _ in content["confusion"])
    assert {e: n for (op, e), n in confusion.items() if op == OPS[0]} == {k: v for k, v in expected_player.items() if v}
    assert {e: n for (op, e), n in confusion.items() if op == OPS[1]} == {"none": JOKER_HANDS}  # never a banker bonus
    counts = {(d, k, o): n for d, k, o, n in content["counts"]}
    assert counts == {
        ("op", OPS[0], "pass"): JOKER_HANDS, ("op", OPS[1], "pass"): JOKER_HANDS,
        ("clause", "njac.11.19.c1", "pass"): JOKER_HANDS, ("clause", "njac.11.20.b", "pass"): JOKER_HANDS,
        ("clause", "njac.11.19.c2", "pass"): JOKER_HANDS, ("clause", "njac.11.20.c", "pass"): JOKER_HANDS,
        ("flag", "Exhaustive", "pass"): 2 * JOKER_HANDS,
        ("op_flag", f"{OPS[0]} Exhaustive", "pass"): JOKER_HANDS, ("op_flag", f"{OPS[1]} Exhaustive", "pass"): JOKER_HANDS,
    }
    assert sum(n for _, _, _, n, status in content["batches"] if status == "done") == 2 * JOKER_HANDS


VENDOR_WRAPPER = """
import json, sys
from tablecert.oracle.vendor import ReferenceVendor
separators = (", ", ": ") if "--spaces" in sys.argv else (",", ":")
wrong = json.loads(sys.argv[sys.argv.index("--wrong") + 1]) if "--wrong" in sys.argv else None
vendor = ReferenceVendor()
for line in sys.stdin:
    request = json.loads(line)
    answer = vendor.handle(request)
    if wrong is not None and request.get("op") == "paigow.player_bonus":
        for i, case in enumerate(request["cases"]):
            if case["cards"] == wrong:
                answer["results"][i] = {"hand": "flush" if answer["results"][i]["hand"] != "flush" else "straight"}
    sys.stdout.write(json.dumps(answer, indent=None, separators=separators) + "\\n")
    sys.stdout.flush()
    if request.get("op") == "bye":
        break
"""


@pytest.fixture(scope="module")
def wrapper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("vendors") / "wrapped_reference.py"
    path.write_text(VENDOR_WRAPPER, encoding="utf-8")
    return path


SLICE = 4_000            # hands of the slices below, in batches of 1,000 hands (8 requests)


@pytest.fixture(scope="module")
def slice_reference(joker: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[Any, ...]]]:
    out = tmp_path_factory.mktemp("slice-reference")
    result = run(joker, out, max_hands=SLICE, hand_batch_size=1_000)
    assert result.verdict == "incomplete"           # a slice is not the whole suite
    assert result.totals == {"pass": 2 * SLICE, "fail": 0, "unsupported": 0, "fault": 0}
    assert result.stats.fast_passes == 8 and result.stats.fallbacks == 0
    return db_content(out)


def test_a_vendor_formatting_differently_passes_in_bulk(joker: Path, wrapper: Path, tmp_path: Path,
                                                         slice_reference: dict) -> None:
    target = shlex.join([sys.executable, str(wrapper), "--spaces"])
    result = run(joker, tmp_path, target, max_hands=SLICE, hand_batch_size=1_000)
    assert result.totals == {"pass": 2 * SLICE, "fail": 0, "unsupported": 0, "fault": 0}
    assert result.stats.fast_passes == 0 and result.stats.fallbacks == 0
    assert result.stats.bulk_passes == 8
    assert db_content(tmp_path) == slice_reference


def test_python_plugins_take_the_generic_path_to_the_same_results(joker: Path, tmp_path: Path,
                                                                   slice_reference: dict) -> None:
    result = run(joker, tmp_path, "reference", PythonAdapter(), max_hands=SLICE, hand_batch_size=1_000)
    assert result.totals["pass"] == 2 * SLICE
    assert result.stats.generic == 8 and result.stats.requests == 0
    assert result.stats.bulk_passes == 8
    assert db_content(tmp_path) == slice_reference


def hand_at(joker: Path, index: int) -> list[str]:
    suite = HandSuite.load(joker)
    fd = os.open(suite.labels_path, os.O_RDONLY)
    try:
        return HandBatch(suite, fd, index, 1).case_values()[0]["cards"]
    finally:
        os.close(fd)


def test_one_wrong_label_is_caught_with_its_inputs(joker: Path, wrapper: Path, tmp_path: Path) -> None:
    index = 2_345
    cards = hand_at(joker, index)
    target = shlex.join([sys.executable, str(wrapper), "--wrong", json.dumps(cards)])
    result = run(joker, tmp_path, target, max_hands=SLICE, hand_batch_size=1_000)
    assert result.verdict == "fail"
    assert result.totals == {"pass": 2 * SLICE - 1, "fail": 1, "unsupported": 0, "fault": 0}
    assert result.stats.fallbacks == 1 and result.stats.fast_passes == 7   # compact answers elsewhere
    assert db_content(tmp_path)["failures"] == []            # hand failures are kept as codes
    db = sqlite3.connect(tmp_path / "run.db")
    [(op_code, expected, actual, tc_id)] = db.execute("SELECT op, expected, actual, tc_id FROM hand_failures").fetchall()
    db.close()
    assert (op_code, tc_id) == (0, index + 1)
    assert expected != actual and PLAYER_LABELS[expected] == player_label(parse_hand(cards))


def test_a_wrong_label_formatted_differently_is_recorded_like_the_strict_path_records_it(
        joker: Path, wrapper: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spaced = shlex.join([sys.executable, str(wrapper), "--spaces", "--wrong", json.dumps(hand_at(joker, 1_234))])
    result = run(joker, tmp_path / "bulk", spaced, max_hands=SLICE, hand_batch_size=1_000)
    assert result.totals == {"pass": 2 * SLICE - 1, "fail": 1, "unsupported": 0, "fault": 0}
    assert result.stats.fallbacks == 1 and result.stats.bulk_passes == 7
    monkeypatch.setattr(bulk_judge, "confirms_line", lambda *a: False)     # every answer judged case by case
    monkeypatch.setattr(bulk_judge, "confirms_values", lambda *a: False)
    result = run(joker, tmp_path / "strict", spaced, max_hands=SLICE, hand_batch_size=1_000)
    assert result.stats.fallbacks == 8 and result.stats.bulk_passes == 0
    assert db_content(tmp_path / "bulk") == db_content(tmp_path / "strict")


class Interrupt(Exception):
    pass


def test_an_interrupted_hand_run_resumes_to_the_same_results(joker: Path, wrapper: Path, tmp_path: Path) -> None:
    kw: dict[str, Any] = {"max_hands": 20_000, "hand_batch_size": 2_000}
    target = shlex.join([sys.executable, str(wrapper), "--wrong", json.dumps(hand_at(joker, 3_000))])
    run(joker, tmp_path / "whole", target, **kw)
    calls: list[int] = []

    def stop_midway(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 7:           # the player half of the fourth group of hands
            raise Interrupt()

    with pytest.raises(Interrupt):
        run(joker, tmp_path / "part", target, progress=stop_midway, **kw)
    assert calls == [2_000, 4_000, 6_000, 8_000, 10_000, 12_000, 14_000]
    with pytest.raises(RunError):
        run(joker, tmp_path / "part", target, resume=True, max_hands=20_000, hand_batch_size=1_000)
    resumed: list[int] = []
    result = run(joker, tmp_path / "part", target, resume=True, max_hands=20_000,
                 progress=lambda done, total: resumed.append(done))
    assert result.totals["fail"] == 1
    assert result.stats.hands == 20_000 - 3 * 2_000     # done groups were not enumerated again
    assert resumed[0] == 16_000 and resumed[-1] == 40_000
    assert db_content(tmp_path / "part") == db_content(tmp_path / "whole")


FAULTY_RAW_VENDOR = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "hello":
        answer = {"id": request["id"], "implementation": {"name": "x", "version": "1", "build": "1"},
                  "ops": ["paigow.player_bonus", "paigow.banker_bonus"]}
    elif request["op"] == "bye":
        answer = {"id": request["id"]}
    elif request["op"] == "paigow.player_bonus":
        answer = {"id": request["id"] + 1, "results": [{"hand": "none"}] * len(request["cases"])}
    else:
        sys.exit(3)
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""


def test_faults_on_the_raw_path_are_recorded_and_retried(joker: Path, tmp_path: Path) -> None:
    script = tmp_path / "faulty.py"
    script.write_text(FAULTY_RAW_VENDOR, encoding="utf-8")
    result = run(joker, tmp_path / "run", shlex.join([sys.executable, str(script)]), max_hands=500, hand_batch_size=500,
                 policy=FaultPolicy(bisect=False))
    assert result.verdict == "fail" and result.totals["fault"] == 1_000
    db = sqlite3.connect(tmp_path / "run" / "run.db")
    kinds = db.execute("SELECT op, kind, COUNT(*) FROM faults GROUP BY op, kind ORDER BY op").fetchall()
    assert kinds == [(OPS[1], "crash", 3), (OPS[0], "wrong_id", 3)]


def test_exchange_raw_shares_ids_and_fault_handling_with_batch(tmp_path: Path) -> None:
    session = SubprocessAdapter().open(REFERENCE_CMD, SessionOptions(timeout=60))
    try:
        session.hello()
        cases = [{"cards": c} for c in LABELLED_HANDS]
        assert session.batch(OPS[0], {"cap": 1}, cases) == json.loads(slow_answer(request(1, OPS[0], cases)))["results"]
        rid = session.reserve_id()
        assert rid == 2
        line = request(rid, OPS[1], cases)
        answer = session.exchange_raw(line.rstrip(b"\n"))                    # the newline is added
        assert answer == slow_answer(line)
        assert session.decode_batch_answer(answer, rid, len(cases), OPS[1]) == json.loads(answer)["results"]
        with pytest.raises(VendorFault) as fault:
            session.decode_batch_answer(answer, rid + 1, len(cases), OPS[1])
        assert fault.value.kind is FaultKind.WRONG_ID and not session.alive
    finally:
        session.close()
