"""Judging one answer against its expected value.

A vector whose expected value is ``{"result": R}`` passes only when the vendor's answer equals R
exactly: same keys, same values and same JSON types (``true`` is not ``1``, ``1.0`` is not
``1``, no extra or missing fields). A vector whose expected value is ``{"error": CODE}`` passes
only when the answer is ``{"error": {"code": CODE, ...}}``: the message is free text and never
compared.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Sequence
from itertools import compress, repeat
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


def label_counts(values: Sequence[Any], key: str) -> Counter[str]:
    """How many of ``values`` stand for each label: ``Counter(label_of(v, key) for v in values)``.
    When every value is ``{"error": CODE}`` or ``{"result": R}`` with R an object without
    ``error`` (for hand labels, of one field), they are counted in C by distinct CODE and
    ``R[key]``, and each distinct one labelled by :func:`label_of`; otherwise one by one."""
    try:
        if set(map(type, values)) - {dict}:
            raise TypeError("not all objects")
        answered = list(map(operator.contains, values, repeat("result")))
        results = list(map(dict.get, compress(values, answered), repeat("result")))
        if results and (set(map(type, results)) != {dict} or any(map(operator.contains, results, repeat("error")))
                        or (key == "hand" and set(map(len, results)) != {1})):
            raise TypeError("results of other shapes")
        rejections = list(compress(values, map(operator.not_, answered)))
        if rejections and (set(map(len, rejections)) != {1} or not all(map(operator.contains, rejections,
                                                                            repeat("error")))):
            raise TypeError("rejections of other shapes")
        counts: Counter[str] = Counter()
        for code, n in Counter(map(dict.get, rejections, repeat("error"))).items():   # TypeError if unhashable
            counts[label_of({"error": code}, key)] += n
        if not key:
            if results:
                counts["result"] += len(results)
            return counts
        for label, n in Counter(map(dict.get, results, repeat(key))).items():    # TypeError if unhashable
            counts[label_of({"result": {key: label}}, key)] += n
        return counts
    except TypeError:
        return Counter(label_of(v, key) for v in values)


REFUSAL_OPS = ("craps.odds_limits", "craps.place_odds", "craps.settle", "paigow.settle")
"""Ops whose vectors count, per table (config) and per craps bet, how many answers where a result
was expected were an error (``refused``) and how many were not (``answered``): counts dimensions
``table`` (keyed by the config's compact JSON) and ``bet``. A table or bet with refusals and no
other answer was refused as a whole (``tablecert.reports.refusals``)."""


def refusal_table(op: str, config_json: str) -> str:
    """The key a vector of ``op`` on a table counts its refusal under (dimension ``table``)."""
    return f"{op.split('.')[0]} {config_json}"


def refusal_bets(cases: Sequence[Any]) -> Counter[str | None]:
    """``Counter(refusal_bet(c) for c in cases)``, counted by distinct ``bet`` in C when every case
    is an object."""
    try:
        if set(map(type, cases)) - {dict}:
            raise TypeError("not all objects")
        raw = Counter(map(dict.get, cases, repeat("bet")))     # TypeError if a bet is unhashable
    except TypeError:
        return Counter(map(refusal_bet, cases))
    counts: Counter[str | None] = Counter()
    for bet, n in raw.items():
        counts[refusal_bet({"bet": bet})] += n
    return counts


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
