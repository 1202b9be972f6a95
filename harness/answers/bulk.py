"""Confirming passes in bulk: a correct answer in any valid JSON formatting judged at the speed of
the data, without Python work per case.

The strict path (:func:`tablecert.harness.answers.envelope.decode_answer`, the contract checks, then
:func:`tablecert.harness.run.runner.judge_batch` case by case) decides every outcome. This module only
*confirms* that a whole batch passes, and says ``False`` whenever it is not sure; the caller then
takes the strict path, which records failures and faults exactly as before. So the fast path can
never pass what the strict path fails:

* **Decoding** with msgspec (typed, C): the answer must be an object holding exactly ``id``
  (a JSON integer: ``true`` and ``1.0`` are refused by the type), ``results`` (a list) and
  optionally ``op`` (a string); any other key (``error`` ...) is refused. A float anywhere in the
  results is refused (``float_hook``): the suites' expected values hold no floats, and this way no
  float parsing has to agree between two libraries. msgspec refuses NaN, Infinity, invalid UTF-8,
  lone surrogates, control characters in strings and trailing data, like the strict decoder.
* **Duplicate keys**: msgspec keeps the last of a repeated key without a word (checked: both for
  typed Structs and for plain objects), while the contract calls such an answer malformed. So the
  line must hold exactly as many colons as the canonical encoding of the decoded results (plus
  one per top-level key), counting an escaped colon ``\u003a`` in the line as one: every key of
  the line needs a colon, a repeated key adds one (and its dropped value may add more), the
  strings of the line carry at least the colons of the decoded strings, and a false escape
  (``\\u003a``) only adds. Equal counts therefore mean no key was repeated.
* **Comparing**: the results, encoded canonically (``msgspec.json.encode(..., order="sorted")``:
  compact, keys sorted, ``1`` and ``1.0`` and ``true`` three different texts), must be byte for
  byte the canonical encoding of the expected results (made once per batch). Equal canonical
  encodings are equal JSON values of the same types: what :func:`~tablecert.harness.answers.compare.passes`
  asks for ``{"result": R}``. It does not know any result's shape, so fields added to results
  need no change here.
* **Expected rejections** (``{"error": CODE}``) are checked case by case with ``passes`` (the
  message is free text); every other case is compared in bulk.

Values that already are Python JSON values (Python plugins and HTTP sessions: decoded strictly by
their adapters) are confirmed by the same canonical comparison, without the line checks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import filterfalse, repeat
from typing import Any

import msgspec

from tablecert.harness.answers.compare import passes


class _Answer(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The only answer shape the fast path confirms."""

    id: int
    results: list[Any]
    op: str | msgspec.UnsetType = msgspec.UNSET


class _Hand(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    hand: str


class _HandAnswer(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The answer to a hand-label batch, typed: decoded several times faster than plain objects."""

    id: int
    results: list[_Hand]
    op: str | msgspec.UnsetType = msgspec.UNSET


def _refuse_float(text: str) -> Any:
    raise ValueError(f"a float ({text[:40]}) is judged by the strict path")


_DECODER = msgspec.json.Decoder(_Answer, float_hook=_refuse_float)
_HAND_DECODER = msgspec.json.Decoder(_HandAnswer)
_ENCODER = msgspec.json.Encoder(order="sorted")
canonical = _ENCODER.encode
"""The canonical JSON bytes of a value: compact, keys sorted."""
_in_order = msgspec.json.Encoder().encode
"""Compact JSON, keys as they come: canonical for results of one key each, and faster."""


class Expected:
    """The expected answers of one batch, ready for bulk comparison: the canonical bytes of every
    ``{"result": R}`` value (in case order, as one JSON list) and the expected rejections
    (position, code)."""

    __slots__ = ("n", "rejections", "results_bytes", "colons", "decoder", "encode", "positions", "kept", "codes")

    def __init__(self, n: int, results_bytes: bytes, rejections: Sequence[tuple[int, Any]] = (),
                 decoder: msgspec.json.Decoder = _DECODER, encode: Callable[[Any], bytes] = canonical) -> None:
        self.n = n
        self.rejections = tuple(rejections)
        self.results_bytes = results_bytes          # canonical list of the results (rejections left out)
        self.colons = results_bytes.count(b":")
        self.decoder = decoder
        self.encode = encode
        self.positions = [i for i, _ in self.rejections]
        self.kept = list(filterfalse(set(self.positions).__contains__, range(n))) if self.positions else []
        codes = [code for _, code in self.rejections]
        self.codes = codes if all(type(c) is str for c in codes) else None     # compared in bulk when all strings

    @classmethod
    def hand_labels(cls, n: int, results_bytes: bytes) -> Expected:
        """``n`` results ``{"hand": LABEL}`` whose canonical list is ``results_bytes`` (decoded
        as typed structs, several times faster than plain objects; one key needs no sorting)."""
        return cls(n, results_bytes, decoder=_HAND_DECODER, encode=_in_order)

    @classmethod
    def of(cls, expected: Sequence[dict[str, Any]]) -> Expected:
        """From a batch's expected values (``{"result": R}`` or ``{"error": CODE}`` each)."""
        rejections = [(i, e["error"]) for i, e in enumerate(expected) if "result" not in e]
        return cls(len(expected), canonical([e["result"] for e in expected if "result" in e]), rejections)

    def matches(self, results: list[Any]) -> bool:
        """Every one of ``results`` (JSON values) is its expected answer."""
        if len(results) != self.n:
            return False
        if not self.rejections:
            return self._same(results)
        return self._refused(self.rejected(results)) and self._same(list(map(results.__getitem__, self.kept)))

    def rejected(self, results: list[Any]) -> list[Any]:
        """The answers at the positions of the expected rejections."""
        return list(map(results.__getitem__, self.positions))

    def _refused(self, answers: list[Any]) -> bool:
        """Each of ``answers`` passes its expected rejection (:func:`passes`): in bulk when every
        answer is a plain one-field object whose ``error`` is a plain object, its ``code`` then
        compared to the expected codes (all strings) at once; else one by one."""
        if (self.codes is not None and set(map(type, answers)) == {dict} and set(map(len, answers)) == {1}):
            errors = list(map(dict.get, answers, repeat("error")))
            if set(map(type, errors)) == {dict}:
                return list(map(dict.get, errors, repeat("code"))) == self.codes
        return all(passes({"error": code}, a) for (_, code), a in zip(self.rejections, answers))

    def _same(self, values: list[Any]) -> bool:
        """``values`` encode to the expected results' bytes (False for anything not encodable).
        Equal compact encodings are equal JSON values of the same types whatever the key order;
        sorting the keys only lets every key order pass."""
        try:
            return self.encode(values) == self.results_bytes
        except (TypeError, ValueError, OverflowError, RecursionError):
            return False


def confirms_line(line: bytes, request_id: int, op: str, expected: Expected) -> bool:
    """True only if the raw answer ``line`` to request ``request_id`` of ``op`` passes every case
    of the batch (see the module docstring); False means: judge it by the strict path. A pure
    function: what it decided is counted by the caller, in its vendor instance's own stats."""
    try:
        answer = expected.decoder.decode(line)
    except (msgspec.DecodeError, ValueError, RecursionError):
        return False
    if answer.id != request_id or (answer.op is not msgspec.UNSET and answer.op != op):
        return False
    top_keys = 2 if answer.op is msgspec.UNSET else 3
    if not expected.matches(answer.results):
        return False
    # The results' colons: those of the expected bytes (the results compared equal to them), plus
    # those of the answers to expected rejections (free messages): colons add up over a list.
    colons = expected.colons
    if expected.rejections:
        colons += canonical(expected.rejected(answer.results)).count(b":")
    return _colons(line) == top_keys + colons


def _colons(line: bytes) -> int:
    """The colons of a JSON text, an escaped one (``\\u003a``) counted too."""
    n = line.count(b":")
    if b"\\" in line:
        n += line.count(b"\\u003a") + line.count(b"\\u003A")
    return n


def confirms_values(results: list[Any], expected: Expected) -> bool:
    """True only if ``results`` (JSON values decoded strictly by an adapter) all pass."""
    return expected.matches(results)
