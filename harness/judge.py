"""Judging one answer against its expected value.

A vector whose expected value is ``{"result": R}`` passes only when the vendor's answer equals R
exactly: same keys, same values and same JSON types (``true`` is not ``1``, ``1.0`` is not
``1``, no extra or missing fields). A vector whose expected value is ``{"error": CODE}`` passes
only when the answer is ``{"error": {"code": CODE, ...}}``: the message is free text and never
compared.
"""

from __future__ import annotations

from typing import Any


def strict_equal(a: Any, b: Any) -> bool:
    """JSON equality that also compares types (bool, int and float are three different things)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def passes(expected: dict[str, Any], actual: Any) -> bool:
    """Whether the vendor's answer to one case is the expected one."""
    if "error" in expected:
        return (isinstance(actual, dict) and len(actual) == 1 and isinstance(actual.get("error"), dict)
                and actual["error"].get("code") == expected["error"])
    return strict_equal(actual, expected["result"])


LABEL_CHARS = 64     # a vendor's label or error code, as kept in the confusion matrix
CONFUSION_KEYS = {"paigow.player_bonus": "hand", "paigow.banker_bonus": "hand", "craps.settle": "outcome",
                  "craps.place_odds": "", "craps.odds_limits": "", "paigow.settle": ""}
"""The ops with an expected -> answered matrix and the result field their label is (``""``: the
label is only ``result`` or ``error:CODE``)."""


def label_of(value: Any, key: str = "hand") -> str:
    """The label an answer or expected value stands for, for the confusion matrix: ``error:CODE``;
    else the result's ``key`` field (a hand label, which must be the result's only field; a craps
    settle ``outcome``), or ``result`` for ``key=""``; else ``(malformed)``."""
    if isinstance(value, dict):
        if "result" in value:
            value = value["result"]
        if not isinstance(value, dict):
            return "(malformed)"
        if isinstance(value.get("error"), str):
            return f"error:{value['error'][:LABEL_CHARS]}"
        if isinstance(value.get("error"), dict):
            return f"error:{str(value['error'].get('code'))[:LABEL_CHARS]}"
        if not key:
            return "result"
        label = value.get(key)
        if isinstance(label, str) and (len(value) == 1 or key != "hand"):
            return label if len(label) <= LABEL_CHARS else f"{label[:LABEL_CHARS]}... ({len(label):,} characters)"
    return "(malformed)"


REFUSAL_OPS = ("craps.odds_limits", "craps.place_odds", "craps.settle", "paigow.settle")
"""Ops whose vectors count, per table (config) and per craps bet, how many answers where a result
was expected were an error (``refused``) and how many were not (``answered``): counts dimensions
``table`` (keyed by the config's compact JSON) and ``bet``. A table or bet with refusals and no
other answer was refused as a whole (``tablecert.reports.refusals``)."""


def refusal_table(op: str, config_json: str) -> str:
    """The key a vector of ``op`` on a table counts its refusal under (dimension ``table``)."""
    return f"{op.split('.')[0]} {config_json}"


def refusal_bet(case: Any) -> str | None:
    """The key a craps vector counts its refusal under (dimension ``bet``), if its case names a bet."""
    if isinstance(case, dict) and isinstance(case.get("bet"), str):
        return str(case["bet"][:LABEL_CHARS])
    return None


def is_refusal(expected: dict[str, Any], actual: Any) -> bool | None:
    """None when a rejection was expected; else whether the answer is an error object."""
    if "result" not in expected:
        return None
    return isinstance(actual, dict) and isinstance(actual.get("error"), dict)
