"""The difference signature of a wrong answer (:mod:`tablecert.harness.answers.causes` files each
failure by it): the fields of an answer that differ from the oracle's and how (:func:`differences`,
:func:`all_differences`), and, **new** (issue #40), what is kept with a failing answer too long to
store whole: its verdict and differences worked out on the whole answer before it is cut
(:func:`cut_diagnosis`), read back instead of comparing the cut text (:func:`stored_differences`).
Pure functions of the values; nothing here reads a run or a suite (the runner uses it while
judging)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

DISPOSITIONS = frozenset({"won", "taken", "returned", "in_action", "none"})
KIND_ORDER = ("accepted", "refused", "error", "malformed", "shape", "label", "disposition", "point", "amount", "value")
"""Difference kinds, primary first: the first kind a failure has is its cause."""

LABEL_NAMES = {("paigow.player_bonus", "hand"): "player bonus hand", ("paigow.settle", "seats[].player_bonus"):
               "player bonus hand", ("paigow.banker_bonus", "hand"): "banker bonus hand",
               ("paigow.settle", "seats[].banker_bonus"): "banker bonus hand"}
"""Labels that mean the same thing in several ops: one cause across them (a wrong player bonus
label in ``paigow.player_bonus`` and in a seat of ``paigow.settle``)."""


@dataclass(frozen=True)
class Difference:
    """One field of an answer that differs from the oracle's."""

    path: str          # where, with seat positions: seats[4].player_bonus_win
    field: str         # the field, without positions: seats[].player_bonus_win
    kind: str          # one of KIND_ORDER
    expected: Any
    actual: Any

    @property
    def direction(self) -> str:
        """For an amount: ``high`` or ``low``; for anything else: ``changed``."""
        if self.kind == "amount":
            return "high" if self.actual > self.expected else "low"
        return "changed"


def error_code(value: Any) -> str:
    error = value.get("error") if isinstance(value, dict) else None
    if isinstance(error, dict):
        return str(error.get("code"))
    return str(error)


def unwrapped(expected: Any) -> Any:
    """An expected value in the answer's own shape: the result itself, or ``{"error": CODE}``."""
    if isinstance(expected, dict) and "result" in expected and len(expected) == 1:
        return expected["result"]
    if isinstance(expected, dict) and "error" in expected:
        return {"error": error_code(expected)}
    return expected


def answered(actual: Any) -> Any:
    """An answer in the same shape as :func:`unwrapped` (an error object as ``{"error": CODE}``)."""
    if isinstance(actual, dict) and isinstance(actual.get("error"), dict):
        return {"error": error_code(actual)}
    return actual


def _leaf_kind(op: str, field_name: str, expected: Any, actual: Any) -> str:
    if (op, field_name) in LABEL_NAMES or field_name in ("hand", "outcome"):
        return "label"
    if isinstance(expected, str) and expected in DISPOSITIONS:
        return "disposition"
    if field_name == "point":
        return "point"
    if (isinstance(expected, int) and isinstance(actual, int) and not isinstance(expected, bool)
            and not isinstance(actual, bool)):
        return "amount"
    if isinstance(expected, (str, bool)):
        return "label"
    return "value"


def _walk(op: str, path: str, generic: str, expected: Any, actual: Any, out: list[list[Difference]],
          group: list[Difference]) -> None:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for k in list(expected) + [k for k in actual if k not in expected]:
            p, g = (f"{path}.{k}" if path else k), (f"{generic}.{k}" if generic else k)
            if k not in actual:
                group.append(Difference(p, g, "shape", expected[k], "(missing)"))
            elif k not in expected:
                group.append(Difference(p, g, "shape", "(not expected)", actual[k]))
            else:
                _walk(op, p, g, expected[k], actual[k], out, group)
        return
    if isinstance(expected, list) and isinstance(actual, list) and expected and isinstance(expected[0], dict):
        if len(expected) != len(actual):
            group.append(Difference(path, generic, "shape", f"{len(expected)} entries", f"{len(actual)} entries"))
            return
        for i, (e, a) in enumerate(zip(expected, actual)):
            seat: list[Difference] = []          # one seat's differences: its own consequences
            _walk(op, f"{path}[{i}]", f"{generic}[]", e, a, out, seat)
            if seat:
                out.append(seat)
        return
    if expected != actual or type(expected) is not type(actual):
        group.append(Difference(path, generic, _leaf_kind(op, generic, expected, actual), expected, actual))


def differences(op: str, expected: Any, actual: Any) -> list[Difference]:
    """Every primary difference of an answer: each seat's (or the answer's) differences of its
    first kind in :data:`KIND_ORDER` (the rest follow from them), in field order."""
    e, a = unwrapped(expected), answered(actual)
    e_error = isinstance(e, dict) and "error" in e
    a_error = isinstance(a, dict) and "error" in a
    if not isinstance(a, dict):
        return [Difference("", "answer", "malformed", e, a)]
    if e_error and not a_error:
        return [Difference("", "error", "accepted", e["error"], "a result")]
    if a_error and not e_error:
        return [Difference("", "error", "refused", "a result", a["error"])]
    if e_error:
        return [Difference("", "error", "error", e["error"], a["error"])] if e["error"] != a["error"] else []
    groups: list[list[Difference]] = []
    top: list[Difference] = []
    _walk(op, "", "", e, a, groups, top)
    if top:
        groups.insert(0, top)
    primary = []
    for group in groups:
        first = min(KIND_ORDER.index(d.kind) for d in group)
        primary += [d for d in group if KIND_ORDER.index(d.kind) == first]
    return primary


def all_differences(op: str, expected: Any, actual: Any) -> list[Difference]:
    """Every differing field (primary or consequence), for marking an example."""
    e, a = unwrapped(expected), answered(actual)
    if not isinstance(a, dict) or not isinstance(e, dict) or "error" in e or "error" in a:
        return differences(op, expected, actual)
    groups: list[list[Difference]] = []
    top: list[Difference] = []
    _walk(op, "", "", e, a, groups, top)
    return top + [d for g in groups for d in g]


CUT = "tablecert_cut"
"""The key of a stored answer that was cut (:func:`tablecert.harness.model.stored_answer`)."""
CUT_DIFFERENCES = 16
"""The primary differences kept with a cut answer (the cause needs the first; the rest for its detail)."""


def _kept(value: Any) -> Any:
    """A differing value as kept with a cut answer: itself, or beyond 200 characters of JSON its
    start as text (an integer, a label or a code is always kept whole)."""
    text = json.dumps(value, separators=(",", ":"))
    return value if len(text) <= 200 else f"{text[:197]}..."


def cut_diagnosis(op: str, expected: Any, actual: Any) -> dict[str, Any]:
    """What is stored with a failing answer cut before it is stored (**new**): the verdict and the
    differences of the whole answer (:func:`differences`, first ``CUT_DIFFERENCES``), and every
    differing field (:func:`all_differences`), worked out before cutting; the analysis reads them
    instead of comparing the cut text (:func:`stored_differences`)."""
    diffs = differences(op, expected, actual) or [Difference("", "answer", "value", unwrapped(expected), actual)]
    first = min(diffs, key=lambda d: (KIND_ORDER.index(d.kind), d.field))
    return {"verdict": "fail", "first_difference": first.path or first.field,
            "differences": [{"path": d.path, "field": d.field, "kind": d.kind, "expected": _kept(d.expected),
                             "actual": _kept(d.actual)} for d in diffs[:CUT_DIFFERENCES]],
            "fields": sorted({d.field for d in all_differences(op, expected, actual)})}


def is_cut(actual: Any) -> bool:
    """Whether a stored answer is the cut text of a longer one."""
    return isinstance(actual, dict) and CUT in actual


def stored_differences(op: str, expected: Any, actual: Any) -> tuple[list[Difference], list[str]]:
    """The primary differences and every differing field of a stored failing answer: compared, or,
    for a cut answer, as kept with it (never the cut text compared as an answer; a cut answer of an
    earlier release, kept without them, is one difference of the whole answer)."""
    if not is_cut(actual):
        diffs = differences(op, expected, actual) or [Difference("", "answer", "value", unwrapped(expected), actual)]
        return diffs, sorted({d.field for d in all_differences(op, expected, actual)})
    kept = actual.get("differences")
    if not isinstance(kept, list) or not kept:
        whole = Difference("", "answer (cut, not compared)", "value", "the whole answer", actual[CUT])
        return [whole], [whole.field]
    diffs = [Difference(d["path"], d["field"], d["kind"], d["expected"], d["actual"]) for d in kept]
    return diffs, list(actual.get("fields") or [d.field for d in diffs])

