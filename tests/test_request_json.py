"""Request lines written by msgspec are byte for byte what ``json.dumps`` writes (or raise what it
raises): on generated JSON-like values (non-ASCII and control characters, DEL, big ints, floats
with NaN and infinities, keys that are not strings, nesting) and on every request of the edge and
configs parts of the standard suite, as the subprocess adapter sends them."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tablecert.harness.adapters.request_json import compact, request_line
from tablecert.harness.adapters.subprocess_adapter import SubprocessSession
from tablecert.harness.suites.reader import _file_batches, vector_set_files
from tablecert.vectors.checks import load_manifest


def reference(value: Any) -> bytes | type[BaseException]:
    """What the contract's encoder always wrote, or the exception it raised."""
    try:
        return (json.dumps(value, separators=(",", ":"), allow_nan=False) + "\n").encode("ascii")
    except (ValueError, TypeError, RecursionError) as err:
        return type(err)


def ours(value: Any) -> bytes | type[BaseException]:
    try:
        return request_line(value) if isinstance(value, dict) else compact(value) + b"\n"
    except (ValueError, TypeError, RecursionError) as err:
        return type(err)


TEXT = st.text(st.characters(codec=None, max_codepoint=0x10FFFF), max_size=12) | st.text("\x00\x1f\x7f\"\\/a\u2028é",
                                                                                          max_size=6)
INTS = st.integers() | st.sampled_from([2**63 - 1, 2**63, 2**64, -2**63 - 1, 10**40, -10**40, 203, 0xcbcb])
FLOATS = st.floats() | st.sampled_from([1e16, 1e-5, 2.5e-7, -0.0, math.nan, math.inf, -math.inf, 5e-324, 1.0])
SCALARS = st.none() | st.booleans() | INTS | FLOATS | TEXT
KEYS = TEXT | st.integers(-300, 300) | st.sampled_from([True, None, 1.5, 2**70])
JSONISH = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                       | st.dictionaries(KEYS, inner, max_size=4), max_leaves=12)
ASCII_JSON = st.recursive(st.none() | st.booleans() | INTS | st.text("ab 09\"\\\n\t", max_size=5),
                          lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text("abc", max_size=3),
                                                                                      inner, max_size=4),
                          max_leaves=12)


@settings(max_examples=1500, deadline=None)
@given(JSONISH)
def test_any_json_like_value_is_written_as_json_dumps_writes_it(value: Any) -> None:
    assert ours(value) == reference(value)


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 2**40), st.sampled_from(["craps.settle", "paigow.settle"]), JSONISH, st.lists(JSONISH, max_size=6))
def test_a_batch_request_is_written_as_json_dumps_writes_it(rid: int, op: str, config: Any, cases: list[Any]) -> None:
    request = {"id": rid, "op": op, "config": config, "cases": cases}
    assert ours(request) == reference(request)


@settings(max_examples=300, deadline=None)
@given(ASCII_JSON)
def test_plain_json_values_are_written_by_msgspec(value: Any) -> None:
    # the fast path is taken (not only the fallback): the same bytes as msgspec's own encoder
    import msgspec

    assert compact(value) == msgspec.json.encode(value) == reference(value)[:-1]     # type: ignore[index]


def test_every_request_of_the_edge_and_configs_parts_is_sent_as_before(standard_suite: Path) -> None:
    manifest = load_manifest(standard_suite)
    requests = 0
    for entry in vector_set_files(manifest):
        name = entry["path"].split("/", 1)[1]
        if name.endswith(".domain.jsonl.gz"):
            continue
        for batch in _file_batches(standard_suite / "prompt" / name, standard_suite / "expected" / name, name,
                                   entry["op"], 1000):
            request = {"id": 7 + requests, "op": batch.op, "config": batch.config, "cases": list(batch.cases)}
            assert SubprocessSession._encode(request) == reference(request), batch.key
            requests += 1
    assert requests > 100
