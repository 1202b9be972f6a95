"""Arbitrary JSON thrown at every reader of outside input: the reference vendor's protocol
handling, the harness's answer checks, the offline responses reader and the hand parser. Each
must answer or refuse with its own error type, never crash."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablecert.harness.contract import VendorFault
from tablecert.harness.answers.envelope import check_batch_answer, parse_hello
from tablecert.harness.answers.compare import label_of, passes

from tablecert.harness.run.offline import ResponsesError, SuiteIndex, read_responses
from tablecert.harness.store.responses import AnswerIndex
from tablecert.oracle.cards import parse_hand
from tablecert.oracle.errors import CaseError
from tablecert.oracle.vendor import OPS, ReferenceVendor

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=6),
    max_leaves=25,
)
ops = st.sampled_from(sorted(OPS) + ["hello", "bye", "nope"])
requests = st.fixed_dictionaries({"id": st.integers(0, 5) | json_values, "op": ops},
                                 optional={"config": json_values, "cases": st.lists(json_values, max_size=5) | json_values,
                                           "protocol": st.just("tablecert-vendor/1") | json_values})


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(requests, json_values))
def test_reference_vendor_answers_anything(request):
    answer = ReferenceVendor().handle(request)
    json.dumps(answer)                                  # always a JSON object that can be sent
    assert isinstance(answer, dict) and "id" in answer
    if isinstance(request, dict) and isinstance(request.get("cases"), list) and "results" in answer:
        assert len(answer["results"]) == len(request["cases"])


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_answer_checks_only_raise_vendor_faults(answer):
    for check in (lambda: check_batch_answer(answer, 1, 2, "craps.settle"), lambda: parse_hello(answer, 0)):
        try:
            check()
        except VendorFault:
            pass


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_judging_never_crashes(expected_result, actual):
    passes({"result": expected_result}, actual)
    passes({"error": "invalid_hand"}, actual)
    assert isinstance(label_of(actual), str)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_hand_parser_refuses_with_invalid_hand(value):
    try:
        parse_hand(value)
    except CaseError as err:
        assert err.code == "invalid_hand"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(json_values, max_size=5), st.binary(max_size=40))
def test_responses_reader_refuses_with_one_error_type(tmp_path: Path, lines, junk):
    path = tmp_path / "responses.jsonl"
    path.write_bytes(b"".join(json.dumps(l).encode() + b"\n" for l in lines) + junk)
    index = SuiteIndex(wanted={"craps.settle.odds-3-4-5x.jsonl.gz": {1, 2, 3}},
                       firsts={"craps.settle.odds-3-4-5x.jsonl.gz": [1]}, cases=3)
    store = AnswerIndex()
    try:
        read_responses(path, index, store, 1 << 20, 1 << 24)     # the streaming reader validate uses
    except ResponsesError as err:
        assert "\n" not in str(err)
    finally:
        store.close()
