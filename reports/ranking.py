"""Which bug class a failure belongs to, and the order the findings list the classes in.

A failing vector carries several flags (why it was chosen: ``LabelSample``, ``OtherBonus`` ... and
what it tests: ``JokerStraight``, ``CommissionRounding`` ...). Each failure is attributed to its
most specific flag only, and the classes are ordered by what their bug type means for money, then
by how specific the flag is, then by failures. Both orders are data: ``flag_ranking.toml`` beside
the notes in :mod:`tablecert.vectors`. Counting reads one aggregate (failures grouped by their
flag sets, which are few), never the failures themselves.
"""

from __future__ import annotations

import json
import tomllib
from functools import cache
from importlib import resources
from typing import Any

from tablecert.harness.store import Refused, RunReader

DEFAULT_SPECIFICITY = 2


@cache
def ranking() -> tuple[tuple[str, ...], dict[str, int]]:
    """(bug types worst first, flag -> specificity)."""
    data = tomllib.loads(resources.files("tablecert.vectors").joinpath("flag_ranking.toml").read_text("utf-8"))
    return tuple(data["severity"]), {k: int(v) for k, v in data["specificity"].items()}


def specificity(flag: str) -> int:
    return ranking()[1].get(flag, DEFAULT_SPECIFICITY)


def most_specific(flags: list[str]) -> str:
    """The flag a failure carrying ``flags`` is attributed to."""
    return min(flags, key=lambda f: (-specificity(f), f))


def attributed(db: RunReader, leaving_out: Refused = Refused()) -> tuple[dict[str, int], dict[str, list[str]]]:
    """The run's failures per attributed flag, and per flag the stored flag sets (JSON text, as
    stored) attributed to it; ``leaving_out``: failures counted elsewhere (tables refused as a whole)."""
    counts: dict[str, int] = {}
    sets: dict[str, list[str]] = {}
    by_set: dict[str, int] = {}
    for _op, text, n in db.failures_by_flag_set(leaving_out):
        by_set[text] = by_set.get(text, 0) + n
    for text, n in sorted(by_set.items()):
        try:
            flags = json.loads(text)
        except ValueError:
            continue
        if not isinstance(flags, list) or not flags:
            continue
        flag = most_specific([str(f) for f in flags])
        counts[flag] = counts.get(flag, 0) + n
        sets.setdefault(flag, []).append(text)
    return counts, sets


def class_order(flag: str, bug_type: str, failed: int) -> tuple[Any, ...]:
    """Sort key of a class: worst for money first, then the most specific flag, then most failures."""
    severity = ranking()[0]
    rank = severity.index(bug_type) if bug_type in severity else len(severity)
    return rank, -specificity(flag), -failed, flag
