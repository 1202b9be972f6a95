"""The vocabulary of a fuzz run, at the bottom of ``fuzz/``: a :class:`Failure` (one distinct
difference, shrunk), the run's :class:`FuzzStats`, the two exceptions that end a hypothesis round
(:class:`Mismatch`: a failure found; :class:`BudgetSpent`: the budget is spent) and :class:`Search`,
what a search round (the stateful machine of :mod:`tablecert.fuzz.round_machine`) asks of the
:class:`~tablecert.fuzz.engine.Fuzzer` driving it. Every other module of the folder may import
this one; it imports none of them.
"""

from __future__ import annotations

import unittest
from dataclasses import dataclass, field
from typing import Any, Protocol

from hypothesis import Phase
from hypothesis.database import ExampleDatabase

from tablecert.fuzz.strategies import Example

ROUND_OP = "craps.round"
"""The op fuzzed by the stateful machine (:mod:`tablecert.fuzz.round_machine`), not by
:func:`~tablecert.fuzz.strategies.examples`."""


@dataclass
class Failure:
    """One distinct failure, shrunk: the case, what the oracle expects and what the vendor said."""

    signature: str
    op: str
    config: Any
    case: Any
    expected: dict[str, Any]
    actual: Any


@dataclass
class FuzzStats:
    examples: int = 0
    cases: int = 0
    drawn: int = 0                    # cases of new examples (the others were sent while shrinking)
    rounds: int = 0
    seconds: float = 0.0
    first_seen: float | None = None   # seconds into the run when the first failing answer came (before shrinking)
    failures: list[Failure] = field(default_factory=list)


class Mismatch(Exception):
    """Raised inside a round's test when the vendor's answer differs: ends the round with its failure."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.signature)
        self.failure = failure


class BudgetSpent(unittest.SkipTest):
    """Raised inside the test to end a round: hypothesis re-raises skip exceptions unshrunk."""


class Search(Protocol):
    """What a search round uses of the fuzzer: the pinned ``table`` (None: drawn), hypothesis's
    example ``database``, ``max_examples``, ``phases`` and ``seed``, whether the budget is
    :meth:`spent`, and :meth:`check` (the vendor asked, the oracle compared)."""

    table: dict[str, Any] | None
    database: ExampleDatabase
    max_examples: int | None
    phases: tuple[Phase, ...]
    seed: int

    def spent(self, shrinking: bool, deadline: float) -> bool: ...
    def check(self, example: Example, shrinking: bool = False) -> Failure | None: ...
