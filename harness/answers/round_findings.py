"""Where a vendor's ``craps.round`` answer departs from the oracle's: the first step whose record
differs, the table as it stood before that step, both records and the fields that differ (dotted
paths: ``table.rack``, ``events.pass.odds_win``, ``error``). Used by the fuzz's failure signatures
and findings, and by the runner, which keeps :func:`divergence_note` with a failing round's
comment in the run database (the findings show it). :func:`round_scope` says what a run certifies
of round play (its scope's ``round_play``, on page 1 of the certificate)."""

from __future__ import annotations

import json
import re
from typing import Any

from collections.abc import Mapping

from tablecert.harness.answers.capabilities import HOUSE_RULE, house_rule_feature
from tablecert.harness.answers.compare import strict_equal
from tablecert.harness.model import Outcome, sent
from tablecert.oracle.craps_round import HOUSE_RULES

ROUND_OP = "craps.round"


def _differing(want: Any, got: Any, path: str) -> list[str]:
    """Dotted paths where two JSON values differ (events keyed by their bet id)."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        for key in sorted(set(want) | set(got)):
            if key not in want or key not in got:
                out.append(f"{path}{key}")
            else:
                out += _differing(want[key], got[key], f"{path}{key}.")
        return out
    if isinstance(want, list) and isinstance(got, list) and all(isinstance(x, dict) and "bet" in x
                                                               for x in want + got):
        by_bet = {x["bet"]: x for x in got if isinstance(x.get("bet"), str)}
        out = [f"{path}{x['bet']}" for x in want if x["bet"] not in by_bet]
        for x in want:
            if x["bet"] in by_bet:
                out += _differing(x, by_bet[x["bet"]], f"{path}{x['bet']}.")
        mine = {x["bet"] for x in want}
        return out + [f"{path}{b}" for b in by_bet if b not in mine]
    return [] if strict_equal(want, got) else [path.rstrip(".") or "(answer)"]


def differing_fields(want: Any, got: Any) -> list[str]:
    """Dotted paths where two answers differ (events and bets keyed by bet id), as
    :func:`first_divergence` names them; the live tables' findings use it for every answer."""
    return _differing(want, got, "")


def first_divergence(case: Any, expected: Any, actual: Any) -> dict[str, Any] | None:
    """The first step of a round where ``actual`` (the vendor's result) departs from ``expected``
    (the oracle's result): ``{"step": i, "act": STEP, "table_before": TABLE, "expected": RECORD,
    "answered": RECORD, "fields": [...]}``; None when the answers agree or are not round results."""
    if not (isinstance(expected, dict) and isinstance(expected.get("steps"), list)):
        return None
    steps = case.get("steps") if isinstance(case, dict) else None
    got = actual.get("steps") if isinstance(actual, dict) else None
    if not isinstance(got, list) or not isinstance(steps, list):
        return {"step": None, "act": None, "table_before": None, "expected": expected, "answered": actual,
                "fields": ["steps"]}
    before: Any = {"point": None, "rack": case.get("rack"), "bets": []}
    for i, want in enumerate(expected["steps"]):
        answered = got[i] if i < len(got) else None
        if not strict_equal(want, answered):
            return {"step": i, "act": steps[i] if i < len(steps) else None, "table_before": before,
                    "expected": want, "answered": answered, "fields": _differing(want, answered, "")}
        before = want["table"]
    if len(got) != len(expected["steps"]):
        return {"step": len(expected["steps"]), "act": None, "table_before": before, "expected": None,
                "answered": got[len(expected["steps"]):], "fields": ["steps"]}
    return None


def round_difference(expected: Any, actual: Any) -> str:
    """A failure signature of a round answer: what differs at the first divergent step, without
    the step number or bet numbers (so one bug found at different steps is one signature)."""
    div = first_divergence({"rack": None, "steps": [None] * len(expected.get("steps", []))}, expected, actual)
    if div is None:
        return "no difference"
    fields = sorted({".".join("N" if part[-1:].isdigit() and part.rstrip("0123456789") in
                              ("come", "dont_come") else part for part in f.split("."))
                     for f in div["fields"] if not f.startswith("table.bets")} |
                    ({"table.bets"} if any(f.startswith("table.bets") for f in div["fields"]) else set()))
    return f"wrong {', '.join(fields)}"


NOTE_CHARS = 1500
"""The longest divergence note kept with a failing round (the vector's comment in the run database)."""


def _at(record: Any, path: str) -> Any:
    """The value at a dotted path of a record (events addressed by bet id); None if absent."""
    value = record
    for part in path.split("."):
        if isinstance(value, list):
            value = next((x for x in value if isinstance(x, dict) and x.get("bet") == part), None)
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def divergence_note(case: Any, expected: Any, actual: Any) -> str:
    """One line for a failing round's findings: the first divergent step and its act, the table
    before it, and each differing field as expected -> answered; empty if none is found."""
    div = first_divergence(case, expected, actual)
    if div is None or div["step"] is None:
        return ""
    dumps = lambda v: json.dumps(v, separators=(",", ":"))  # noqa: E731
    fields = "; ".join(f"{f}: {dumps(_at(div['expected'], f))} -> {dumps(_at(div['answered'], f))}"
                       for f in div["fields"][:8])
    note = (f"first divergent step {div['step']} {dumps(div['act'])}; table before {dumps(div['table_before'])}; "
            f"expected -> answered: {fields}")
    return note if len(note) <= NOTE_CHARS else f"{note[:NOTE_CHARS]}..."


_STEP = re.compile(r"\| first divergent step (\d+) ")


def shortest_script(case: Any, comment: str) -> Any:
    """A failing round's script cut after its first divergent step (read from the divergence note
    the runner kept with its comment), or None when there is none to cut: the shortest prefix that
    fails as the whole script does."""
    found = _STEP.search(comment or "")
    if not found or not isinstance(case, dict) or not isinstance(case.get("steps"), list):
        return None
    n = int(found.group(1)) + 1
    return dict(case, steps=case["steps"][:n]) if n < len(case["steps"]) else None


def round_scope(op_totals: Mapping[str, Mapping[str, int]],
                feature_totals: Mapping[str, Mapping[str, int]]) -> dict[str, Any] | None:
    """A run's round play (``scope.round_play`` of summary.json), from its counts: the whole rounds
    judged (``craps.round`` vectors answered: passed, failed or faulted), how many passed, and for
    each house rule the settings the judged rounds' tables used (their ``house_rule:`` features,
    in the order of HOUSE_RULES' values, the default first) with its default and its
    interpretation-register entry; **new:** and the settings of the suite's rounds that no judged
    round used (``not_certified``: outside the vendor's declared house rules, or met only on
    vectors outside for another feature). None when no round was judged."""
    counts = op_totals.get(ROUND_OP, {})
    judged = sent(counts)
    if not judged:
        return None
    used = {f for f, c in feature_totals.items() if f.startswith(HOUSE_RULE) and sent(c)}
    outside = {f for f, c in feature_totals.items() if f.startswith(HOUSE_RULE) and not sent(c)
               and c.get(Outcome.UNSUPPORTED)}
    rules = {}
    for name, (allowed, default, entry) in HOUSE_RULES.items():
        values = [v for v in allowed if house_rule_feature(name, v) in used]
        missing = [v for v in allowed if house_rule_feature(name, v) in outside]
        if values or missing:
            rules[name] = {"values": values, "default": default, "register": entry, "not_certified": missing}
    return {"rounds": judged, "passed": counts.get(Outcome.PASS, 0), "house_rules": rules}
