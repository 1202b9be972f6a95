"""Stateful fuzzing of ``craps.round`` (``tablecert fuzz --ops craps.round``): a hypothesis
``RuleBasedStateMachine`` plays a table step by step against a live vendor.

The machine draws a legal table and house rules (or the pinned table), then, rule by rule, one
step at a time drawn from the table as the oracle has it (:mod:`tablecert.fuzz.round_strategies`:
mostly legal moves and the near misses). At the end of a run it sends the script as one
``craps.round`` case and compares the vendor's answer with the oracle's; hypothesis shrinks the
sequence of rules to the shortest script that still fails, and the script is cut after the first
step where the answers part (when the vendor fails that prefix too). A failure is recorded only
when the oracle, asked again, disagrees with the answer.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, seed, settings
from hypothesis.errors import HypothesisException
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, get_state_machine_test, initialize, rule

from tablecert.fuzz.round_strategies import house_rules, step
from tablecert.fuzz.search import ROUND_OP as OP, BudgetSpent, Failure, Mismatch, Search
from tablecert.fuzz.strategies import craps_tables
from tablecert.harness.answers.round_findings import first_divergence
from tablecert.oracle.craps_round import Table, apply_step, parse_round_config

STEPS = 20
"""The longest script one run of the machine plays."""


def round_search(fuzzer: Search, number: int, deadline: float) -> Failure | None:
    """One search round of the stateful machine against ``fuzzer``'s vendor: the first failure
    (shrunk), or None when the round ran out of examples or of budget."""
    state: dict[str, Failure | None] = {"last": None}

    def check_budget() -> None:
        if fuzzer.spent(state["last"] is not None, deadline):
            raise BudgetSpent()

    class RoundMachine(RuleBasedStateMachine):
        @initialize(data=st.data())
        def table(self, data: st.DataObject) -> None:
            check_budget()
            raw = dict(fuzzer.table) if fuzzer.table is not None else data.draw(craps_tables())
            self.config: Any = dict(raw, house_rules=data.draw(house_rules()))
            parsed = parse_round_config(self.config)
            self.rack = 100_000 * parsed.table.unit if data.draw(st.integers(0, 7)) else 10 * parsed.table.unit
            self.oracle = Table(parsed, self.rack)
            self.steps: list[dict[str, Any]] = []

        @rule(data=st.data())
        def act(self, data: st.DataObject) -> None:
            check_budget()
            if len(self.steps) >= STEPS:
                return
            move = step(data.draw, self.oracle)
            apply_step(self.oracle, move)
            self.steps.append(move)

        def teardown(self) -> None:
            if not getattr(self, "steps", None):
                return
            failure = fuzzer.check((OP, self.config, [{"rack": self.rack, "steps": list(self.steps)}]),
                                   shrinking=state["last"] is not None)
            if failure is not None:
                failure = shortest_prefix(fuzzer, failure)
                state["last"] = failure
                raise Mismatch(failure)

    test = get_state_machine_test(RoundMachine, settings=settings(
        database=fuzzer.database, max_examples=fuzzer.max_examples or 10**9, deadline=None,
        stateful_step_count=STEPS, suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
        phases=fuzzer.phases, print_blob=False))
    test = seed(fuzzer.seed * 1_000_003 + number)(test)
    inner = test.hypothesis.inner_test  # type: ignore[attr-defined]
    inner._hypothesis_internal_add_digest = f"round-machine-{number}".encode()
    try:
        test()
    except Mismatch as found:
        return found.failure
    except (BudgetSpent, HypothesisException):     # out of budget (in the middle of shrinking, too)
        return state["last"]
    return None


def shortest_prefix(fuzzer: Search, failure: Failure) -> Failure:
    """The failing script cut after its first divergent step (a round's answer to a prefix of a
    script is that prefix of its answer), when the vendor fails the prefix as well."""
    div = first_divergence(failure.case, failure.expected.get("result"), failure.actual)
    if div is None or div["step"] is None or div["step"] + 1 >= len(failure.case["steps"]):
        return failure
    case = dict(failure.case, steps=failure.case["steps"][: div["step"] + 1])
    return fuzzer.check((failure.op, failure.config, [case]), shrinking=True) or failure
