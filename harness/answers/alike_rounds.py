"""Rounds that do not depend on a house rule judge a vendor that offers another value of it
(*since 1.2*, issue 50).

A vendor that declares only some values of several house rules (crapssim 0.4.1: ``bar_push``
returned only and ``press_unset`` true only) used to meet only the rounds whose table used values
it offers: a few hundred. But most rounds never come to a point where a rule decides: no don't bet
pushed on the bar, no bet step on a bet that waits for its point, no take-down, no call, no come
bet on a come-out roll. Such a round plays the same, every record of it, under any value of that
rule. The oracle says which rules a round's play read
(:func:`tablecert.oracle.craps_round.rules_read`); a rule it never read cannot change the play.

So when a round batch's table uses a value of a rule the vendor *names* in its declared
``craps.house_rules`` and does not offer (and every other feature of the table is offered), the
batch is sent on the same table with that rule at the first value the vendor offers, in
HOUSE_RULES' order (:func:`sent_table`): deterministic, a value the vendor declared. Each round of
it whose play under the suite's table reads none of the rules changed, and whose stored expected
answer is the oracle's play (so it is the play under the table sent too), is judged under the
table sent (its features are that table's); every other round stays outside, for the feature
that put it there. A rule the vendor does not name is never changed, so a vendor that names no
house rule (every vendor before 1.2 that declared none, and every pre-1.1 vendor's tables of the
opt-in ``press_unset``) is judged exactly as before. The suite's bytes are not touched: its
expected answers, read back and checked against the oracle, judge the vendor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tablecert.oracle.craps_round import HOUSE_RULES, OPT_IN_RULES, parse_round_config, rules_read
from tablecert.oracle.errors import CaseError, ConfigError


def sent_table(config: Any, offers: Callable[[str, Any], bool | None]) -> tuple[dict[str, Any], frozenset[str]] | None:
    """The round table to send instead of ``config`` and the rules it changes, or None when there
    is none: ``offers(rule, value)`` is True or False for a rule the vendor names, None for one it
    does not (never changed). None too when some value the table uses of a named rule has no
    offered value to take its place, or the config is not a well-formed round table."""
    try:
        house = parse_round_config(config).house
    except ConfigError:
        return None
    rules = dict(config.get("house_rules") or {})
    changed = set()
    for name, (allowed, default, _) in HOUSE_RULES.items():
        if offers(name, house[name]) is not False:
            continue
        other = next((v for v in allowed if offers(name, v)), None)
        if other is None:
            return None
        changed.add(name)
        if name in OPT_IN_RULES and other == default:      # the suites never name an opt-in rule at its default
            rules.pop(name, None)
        else:
            rules[name] = other
    if not changed:
        return None
    return dict(config, house_rules=rules), frozenset(changed)


def alike_rounds(config: Any, changed: frozenset[str], cases: Sequence[Any],
                 expected: Sequence[dict[str, Any]]) -> list[bool]:
    """For each round of a batch on ``config``: whether its play reads none of the ``changed``
    rules and its expected answer is the oracle's play (a case refused before any step: that
    refusal), so that it is the same answer on the table with those rules changed."""
    round_config = parse_round_config(config)
    alike = []
    for case, want in zip(cases, expected):
        try:
            answer, read = rules_read(round_config, case)
        except CaseError as err:
            alike.append(want == {"error": err.code})
            continue
        alike.append(not (read & changed) and want == {"result": answer})
    return alike
