"""The suite reader's line decoding (``suite_reader.json_line``: msgspec where it accepts the line)
gives exactly what ``json.loads`` gives, or raises what it raises: on generated JSON texts in
several formattings, on near-JSON and arbitrary bytes, and on the numbers and strings where the
two decoders differ (NaN, huge ints and floats, surrogates, a byte-order mark)."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecert.harness.suites.reader import json_line


def outcome(decode: Any, line: bytes) -> tuple[str, str] | type[BaseException]:
    """The decoded value as its repr (1, 1.0 and True differ; key order shows), or the exception type."""
    try:
        return "value", repr(decode(line))
    except (ValueError, RecursionError) as err:       # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return ValueError if isinstance(err, ValueError) else type(err)


VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                      max_leaves=12)


@settings(max_examples=1000, deadline=None)
@given(VALUES, st.booleans(), st.booleans())
def test_json_texts_decode_as_json_loads_decodes_them(value: Any, ascii_only: bool, spaced: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(", ", ": ") if spaced else (",", ":"))
    line = text.encode("utf-8", "surrogatepass") + b"\n"
    assert outcome(json_line, line) == outcome(json.loads, line)


NEAR_JSON = st.lists(st.sampled_from(list('{}[],:"\\ \t\n\r0123456789-+.eEtruefalsnulNaIfiy\x0c\x00é')
                                     + ["\\u", "\\ud800", "\\u00e9", "true", "null", "1e5"]), max_size=30).map("".join)


@settings(max_examples=2000, deadline=None)
@given(NEAR_JSON | st.binary(max_size=30).map(lambda b: b.decode("latin-1")))
def test_near_json_and_arbitrary_bytes_decode_or_fail_as_json_loads_does(text: str) -> None:
    line = text.encode("utf-8", "surrogatepass")
    assert outcome(json_line, line) == outcome(json.loads, line)


@pytest.mark.parametrize("line", [
    b'[NaN, Infinity, -Infinity]', b'[1e400]', b'[-1e400]', b'[1e-400]', b'[-0]', b'[-0.0]', b'[2.5e-324]',
    b'[18446744073709551616, -9223372036854775809]', b'["\\ud800"]', b'["\\udc00\\ud800"]', b'\xef\xbb\xbf[1]',
    b'{"a":1,"b":2,"a":3}', b'[1]\x0c', b'["\xff"]', b'\xff\xfe[\x001\x00]\x00',
    b"[" + b"7" * (sys.get_int_max_str_digits() - 1) + b"]", b"[" + b"7" * (sys.get_int_max_str_digits() + 1) + b"]",
    b"[" + b"7" * 400 + b"]", b"[" + b"1" * 330 + b".5]", b"[" * 5000 + b"]" * 5000,
])
def test_where_the_decoders_differ_the_line_decodes_as_json_loads_decodes_it(line: bytes) -> None:
    assert outcome(json_line, line) == outcome(json.loads, line)
    if line.startswith(b"[NaN"):
        assert math.isnan(json_line(line)[0])
