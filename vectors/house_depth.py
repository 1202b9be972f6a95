"""How many rounds of the ``rounds`` suite judge a vendor that offers only some house-rule values:
the manifest's ``houseRuleDepth`` (*since 1.2*, issue 50), counted as the suite is written.

A round judges a vendor that offers only the value ``v`` of a rule when its table uses ``v``, or
when its play never reads the rule (:func:`tablecert.oracle.craps_round.rules_read`): the harness
then sends it on the same table with the rule at ``v`` (:mod:`tablecert.harness.answers.alike_rounds`),
and its answers are the same. Counted for every value of every rule (a vendor that offers that
value only, and every value of every other rule), and for every pair of two rules' values other
than the defaults (a vendor that offers those two only: crapssim 0.4.1, ``bar_push`` returned and
``press_unset`` true, is one of them); each as all rounds and those on commission-free tables.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations
from typing import Any

from tablecert.oracle.craps_round import HOUSE_RULES, RoundConfig

Setting = tuple[tuple[str, Any], ...]
"""Some rules' values, as ``((rule, value), ...)`` in HOUSE_RULES' order."""


def setting_name(setting: Setting) -> str:
    """``bar_push=returned+press_unset=true`` (booleans as JSON), the manifest's key."""
    return "+".join(f"{name}={json.dumps(v) if isinstance(v, bool) else v}" for name, v in setting)


def settings() -> list[Setting]:
    """Every value of every rule, then every pair of two rules' values other than the defaults."""
    values = [((name, v),) for name, (allowed, _, _) in HOUSE_RULES.items() for v in allowed]
    others = [(name, v) for name, (allowed, default, _) in HOUSE_RULES.items() for v in allowed if v != default]
    return values + [(a, b) for a, b in combinations(others, 2) if a[0] != b[0]]


class HouseDepth:
    """The rounds that judge each :func:`settings` entry, tallied round by round."""

    def __init__(self) -> None:
        self.settings = settings()
        self.rounds: Counter[Setting] = Counter()
        self.free: Counter[Setting] = Counter()

    def add(self, config: RoundConfig, read: frozenset[str]) -> None:
        """One round on ``config`` whose play read the rules ``read``."""
        free = config.table.commission_rate == 0
        for setting in self.settings:
            if all(config.house[name] == v or name not in read for name, v in setting):
                self.rounds[setting] += 1
                self.free[setting] += free

    def manifest_field(self) -> dict[str, dict[str, int]]:
        """``{"bar_push=returned": {"rounds": N, "noCommission": M}, ...}`` in :func:`settings` order."""
        return {setting_name(s): {"rounds": self.rounds[s], "noCommission": self.free[s]} for s in self.settings}
