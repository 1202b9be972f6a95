"""The envelope of a vendor's answer, checked as the contract states it (``harness/vendor-protocol.md``).

Before any answer is judged against its expected value, what the vendor sent must be an answer
at all: strict JSON (:func:`decode_answer`: UTF-8, no NaN or Infinity, no key repeated), the
request's id (:func:`same_id`), a usable hello with its declared capabilities
(:func:`parse_hello`), a batch answer with one result per case (:func:`check_batch_answer`).
Each check raises :class:`~tablecert.harness.contract.VendorFault` with the
:class:`~tablecert.harness.contract.FaultKind` the contract names. Every adapter, offline
validation, live tables and fuzz apply these same checks.
"""

from __future__ import annotations

import json
from typing import Any

from tablecert.harness.answers.capabilities import CapabilityError, check_declaration
from tablecert.harness.contract import KNOWN_OPS, FaultKind, Hello, VendorFault


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different (a repeated key would let two readers of the
    same answer see two different values)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise ValueError(f"duplicate key {repeated[:60]!r} in an object")
    return obj


def decode_answer(text: str | bytes) -> Any:
    """A vendor's answer as a JSON value, strictly: UTF-8, NaN or Infinity refused, and a key
    repeated in any object refused (ValueError, or RecursionError for absurd nesting). Every
    adapter decodes answers with this."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)


def same_id(value: Any, request_id: int) -> bool:
    """An answer's id is the request's: the same JSON integer (``true`` and ``1.0`` are not ``1``)."""
    return type(value) is int and value == request_id


def parse_hello(answer: Any, request_id: int) -> Hello:
    """Check a hello answer against the contract, its declared capabilities included."""
    if not isinstance(answer, dict):
        raise VendorFault(FaultKind.BAD_HELLO, "hello answer is not a JSON object")
    if not same_id(answer.get("id"), request_id):
        raise VendorFault(FaultKind.BAD_HELLO, f"hello answered with id {answer.get('id')!r}, not {request_id}")
    if "error" in answer:
        raise VendorFault(FaultKind.BAD_HELLO, f"hello refused: {str(answer['error'])[:300]}")
    impl, ops = answer.get("implementation"), answer.get("ops")
    if not isinstance(impl, dict) or not all(isinstance(impl.get(k), str) for k in ("name", "version", "build")):
        raise VendorFault(FaultKind.BAD_HELLO, "hello lacks implementation.name/version/build strings")
    if not isinstance(ops, list) or not all(isinstance(o, str) for o in ops):
        raise VendorFault(FaultKind.BAD_HELLO, "hello lacks an 'ops' list of strings")
    try:
        check_declaration(answer)
    except CapabilityError as err:
        raise VendorFault(FaultKind.BAD_HELLO, str(err)) from None
    return Hello(impl["name"], impl["version"], impl["build"], tuple(o for o in ops if o in KNOWN_OPS), answer)


def _brief(value: Any) -> str:
    """A value from an answer, shown in a fault's detail (at most 100 characters)."""
    return repr(value)[:100]


def check_batch_answer(answer: Any, request_id: int, n_cases: int, op: str) -> list[Any]:
    """The results list of a batch answer to a request of ``op``, or VendorFault saying what is
    wrong with it."""
    if not isinstance(answer, dict):
        raise VendorFault(FaultKind.MALFORMED, f"answer is a JSON {type(answer).__name__}, not an object")
    if not same_id(answer.get("id"), request_id):
        raise VendorFault(FaultKind.WRONG_ID, f"answer id {_brief(answer.get('id'))}, request id {request_id}")
    if "op" in answer and answer["op"] != op:
        raise VendorFault(FaultKind.WRONG_OP, f"answer names op {_brief(answer['op'])}, the request was {op}")
    if "error" in answer and "results" not in answer:
        raise VendorFault(FaultKind.REQUEST_ERROR, f"request refused: {str(answer['error'])[:300]}")
    results = answer.get("results")
    if not isinstance(results, list):
        raise VendorFault(FaultKind.MALFORMED, "answer has no 'results' list")
    if len(results) != n_cases:
        raise VendorFault(FaultKind.WRONG_COUNT, f"{len(results)} results for {n_cases} cases")
    return results
