"""The clause register and the interpretation register, read from the data files beside this module.

``clauses.toml`` gives every paragraph of the implemented regulations a stable id (``craps.sw.5``,
``njac.11.20.d``); ``interpretations.toml`` lists every reading the oracle chose where the texts
leave room (``INT-JOKER-ACE``). Vectors, run databases and reports cite these ids, so they are the
project's vocabulary for traceability.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class Clause:
    id: str
    source: str
    summary: str


@dataclass(frozen=True)
class Interpretation:
    id: str
    clauses: tuple[str, ...]
    reading: str
    reason: str


def load_data(name: str) -> dict[str, Any]:
    """Parse one TOML data file shipped in the ``tablecert.oracle`` package (``rules/paigow.toml``)."""
    text = resources.files("tablecert.oracle").joinpath(name).read_text(encoding="utf-8")
    return tomllib.loads(text)


@cache
def clauses() -> dict[str, Clause]:
    """Every clause id, in the order of the register."""
    raw = load_data("clauses.toml")["clauses"]
    return {cid: Clause(cid, c["source"], c["summary"]) for cid, c in raw.items()}


@cache
def interpretations() -> dict[str, Interpretation]:
    """Every interpretation, in the order of the register."""
    raw = load_data("interpretations.toml")["interpretations"]
    out: dict[str, Interpretation] = {}
    for iid, entry in raw.items():
        out[iid] = Interpretation(iid, tuple(entry["clauses"]), entry["reading"], entry["reason"])
    return out


def check_registers() -> list[str]:
    """Consistency problems between the two registers (an interpretation citing an unknown clause)."""
    known = clauses()
    problems = []
    for interp in interpretations().values():
        for cid in interp.clauses:
            if cid not in known:
                problems.append(f"{interp.id} cites unknown clause {cid}")
    return problems
