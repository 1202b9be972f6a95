"""Request lines in the contract's compact JSON, written fast: always exactly the bytes of
``json.dumps(request, separators=(",", ":"), allow_nan=False)`` (ASCII with ``\\uXXXX`` escapes),
by msgspec's C encoder (several times faster) wherever its bytes are those, else by ``json.dumps``.

For JSON values (dicts, lists and tuples, str, int, bool, None, as ``json.loads`` and the
harness build them) msgspec writes what ``json.dumps`` writes (key order kept, the same
escapes of ``"``, ``\\`` and control characters, ints of any size), except:

* a character beyond ASCII, or DEL: msgspec writes it raw (UTF-8), ``json.dumps`` as ``\\uXXXX``
  (a lone surrogate makes msgspec raise);
* a float: ``1e16`` against ``1e+16``, ``0.00001`` against ``1e-05``; NaN and the infinities become
  ``null`` where ``json.dumps`` refuses them (ValueError);
* a key that is not a string: bool and None keys make msgspec raise, float keys are written in
  its float form.

So a value is taken from msgspec only when its bytes are ASCII without DEL and its msgpack
encoding (another C pass) holds no byte 0xcb, the tag msgspec gives every float (NaN and
infinities included; a 0xcb inside an int or a length only sends that value to ``json.dumps``).
Any exception of msgspec's sends it to ``json.dumps`` too, which then encodes or raises exactly as
before. A batch request that does not pass as a whole is written as its head and its cases, these
case by case if need be, so one odd value does not slow the others. Values that are not JSON
values (dates, sets, Decimals, bytes ...) are never passed by the harness; msgspec would encode
some of them where ``json.dumps`` refuses them. ``tests/test_request_json.py`` checks the bytes
against ``json.dumps`` on generated values and on every request of the edge and configs suites.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

_json = msgspec.json.Encoder().encode
_msgpack = msgspec.msgpack.Encoder().encode
FLOAT_TAG = b"\xcb"       # msgpack float 64, the only format msgspec writes a Python float in


def plain(value: Any) -> bytes:
    """``json.dumps`` in the contract's compact form, as ASCII bytes (raises as it raises)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode("ascii")


def _same_as_plain(value: Any) -> bytes | None:
    """msgspec's bytes for ``value`` when they are provably :func:`plain`'s, else None."""
    try:
        out = _json(value)
        if out.isascii() and b"\x7f" not in out and FLOAT_TAG not in _msgpack(value):
            return out
    except (TypeError, ValueError, OverflowError, RecursionError):
        pass
    return None


def compact(value: Any) -> bytes:
    """The bytes of :func:`plain` (raising as it raises), by msgspec where they are the same."""
    out = _same_as_plain(value)
    return plain(value) if out is None else out


def request_line(request: dict[str, Any]) -> bytes:
    """One request line: :func:`compact` and a newline; a request whose last field is ``cases``
    (a list) and that does not pass whole is put together from its head and its cases (whole, or
    case by case)."""
    out = _same_as_plain(request)
    if out is not None:
        return out + b"\n"
    if type(request) is dict and type(request.get("cases")) is list and request["cases"] and list(request)[-1] == "cases":
        head = compact({**request, "cases": []})        # ends with the empty list: ...,"cases":[]}
        cases = _same_as_plain(request["cases"]) or b"[" + b",".join(map(compact, request["cases"])) + b"]"
        return b"".join((head[:-3], cases, b"}\n"))
    return plain(request) + b"\n"
