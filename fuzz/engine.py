"""The differential loop of ``tablecert fuzz``: hypothesis draws examples (an op, a config, a few
cases; :mod:`tablecert.fuzz.strategies`), a live vendor answers them through any adapter, the
oracle says what the answers must be, and the first answer that differs is shrunk by hypothesis
to a minimal example.

A failure is known by its *signature*: its cause as a run's analysis files it
(:mod:`tablecert.harness.answers.causes`: an error code for another, a result for an error, a label, a
stake disposition, an amount too high or too low). After each failure the search restarts, with
the signatures found so far no longer counted, until the time budget is spent: every distinct
failure is found once and shrunk once. The search stops at four fifths of the budget and
shrinking at the budget itself: no example is sent to the vendor after ``--budget`` seconds (the
one in flight then is answered; writing the run folder follows). ``--max-cases N`` is a budget
in work instead: no new example is drawn once N cases have been (shrinking a failure found by
then still runs, within the time budget), so a run's extent depends on the seed alone, not on the
machine's speed. Each restart is
seeded from ``--seed`` and its round number, so a seed gives the same sequence of examples;
hypothesis's example database lives in the run folder, so a rerun tries the failures it already
knows first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from tablecert.fuzz.round_machine import round_search
from tablecert.fuzz.search import ROUND_OP, BudgetSpent, Failure, FuzzStats, Mismatch
from tablecert.fuzz.strategies import Example, examples
from tablecert.harness.answers.causes import cause_of
from tablecert.harness.answers.round_findings import round_difference
from tablecert.harness.contract import VendorFault, VendorSession
from tablecert.harness.answers.compare import passes
from tablecert.harness.protocol_versions import V1, V2, v1_case, v1_expected, v1_expressible
from tablecert.oracle.errors import ConfigError
from tablecert.oracle.vendor import OPS
from tablecert.vectors.writer import expected_answer

#: Distinct failures after which a run stops by default (a vendor this broken needs fixing first).
MAX_FAILURES = 25
DATABASE_DIR = "hypothesis"
SEARCH_SHARE = 0.8
"""The share of ``--budget`` in which new examples are drawn; shrinking may use the rest, and a
run never goes past the budget (the shrinking done by then is kept)."""


NOT_SENT = object()
"""The answer slot of a case not sent (one a vendor of tablecert-vendor/1 cannot be asked)."""


def expected_of(op: str, config: Any, case: Any) -> dict[str, Any]:
    """The oracle's answer to one case, in the suites' expected form."""
    parse, handle = OPS[op]
    try:
        parsed = parse(config)
    except ConfigError:
        return {"error": "invalid_config"}
    return expected_answer(handle, parsed, case)


def signature(op: str, expected: dict[str, Any], actual: Any) -> str:
    """What kind of difference this is, for telling failures apart: the cause the run analysis
    would file it under (:func:`tablecert.harness.answers.causes.cause_of`), so one bug seen in several
    ops (a joker straight misjudged in the player bonus and in a settled seat) is one finding; a
    round by the step where it departs (:func:`tablecert.harness.answers.round_findings.round_difference`)."""
    if (op == ROUND_OP and "result" in expected and isinstance(actual, dict)
            and isinstance(actual.get("steps"), list)):
        return f"{op}: {round_difference(expected['result'], actual)}"
    return cause_of(op, expected, actual)[1]


class Fuzzer:
    """Runs rounds of hypothesis against one vendor until the budget is spent."""

    def __init__(self, open_session: Callable[[], VendorSession], out: Path, *, ops: tuple[str, ...],
                 budget: float, seed_value: int, table: dict[str, Any] | None = None, cap: int | None = None,
                 max_examples: int | None = None, max_failures: int = MAX_FAILURES, max_cases: int | None = None,
                 progress: Callable[[Failure], None] | None = None, shrink: bool = True) -> None:
        self.open_session = open_session
        self.ops, self.table, self.cap = ops, table, cap
        self.budget, self.seed, self.max_cases = budget, seed_value, max_cases
        self.max_examples, self.max_failures = max_examples, max_failures
        self.progress = progress
        self.phases = (Phase.explicit, Phase.reuse, Phase.generate) + ((Phase.shrink,) if shrink else ())
        self.database = DirectoryBasedExampleDatabase(str(out / DATABASE_DIR))
        self.session: VendorSession | None = None
        self.stats = FuzzStats()
        self.known: set[str] = set()
        self.started = time.monotonic()
        self.protocol = V2

    def _answers(self, op: str, config: Any, cases: list[Any]) -> list[Any] | VendorFault:
        """The vendor's answers, one per case; for a vendor of tablecert-vendor/1 the cases v1
        cannot express are not sent (their answer is NOT_SENT) and the others are sent as v1."""
        if self.session is None or not self.session.alive:
            self.session = self.open_session()
            self.protocol = self.session.hello().protocol
        sent = [i for i, case in enumerate(cases) if self.protocol != V1 or v1_expressible(op, case)]
        try:
            answers = self.session.batch(op, config, [v1_case(op, cases[i]) if self.protocol == V1 else cases[i]
                                                      for i in sent]) if sent else []
        except VendorFault as fault:
            self.session.close()
            self.session = None
            return fault
        out: list[Any] = [NOT_SENT] * len(cases)
        for i, answer in zip(sent, answers):
            out[i] = answer
        return out

    @property
    def all_drawn(self) -> bool:
        """The work budget is spent: ``max_cases`` cases of new examples were sent."""
        return self.max_cases is not None and self.stats.drawn >= self.max_cases

    def spent(self, shrinking: bool, deadline: float) -> bool:
        """Whether the next example may not be sent: past the whole budget always; a new example
        (not ``shrinking`` a failure found) also past the search ``deadline`` or the work budget."""
        now = time.monotonic()
        return now > self.started + self.budget or (not shrinking and (now > deadline or self.all_drawn))

    def check(self, example: Example, shrinking: bool = False) -> Failure | None:
        """The vendor's first answer to ``example`` that the oracle disagrees with (a signature
        not yet known), as a failure; ``shrinking``: the example is a smaller form of one found."""
        op, config, cases = example
        self.stats.examples += 1
        self.stats.cases += len(cases)
        if not shrinking:
            self.stats.drawn += len(cases)
        answers = self._answers(op, config, cases)
        if isinstance(answers, VendorFault):
            # shrinking leaves the fewest cases that still fault: the first stands for them
            return Failure(f"{op}: vendor fault ({answers.kind.value})", op, config, cases[0],
                           expected_of(op, config, cases[0]), {"fault": answers.detail})
        for case, actual in zip(cases, answers):
            if actual is NOT_SENT:
                continue
            expected = expected_of(op, config, case)
            if self.protocol == V1:
                expected = v1_expected(op, expected)
            if not passes(expected, actual):
                sig = signature(op, expected, actual)
                if sig not in self.known:
                    if self.stats.first_seen is None:
                        self.stats.first_seen = time.monotonic() - self.started
                    return Failure(sig, op, config, case, expected, actual)
        return None

    def confirmed(self, failure: Failure) -> bool:
        """Whether the oracle, asked again, disagrees with the vendor's answer (a fault always)."""
        if isinstance(failure.actual, dict) and set(failure.actual) == {"fault"}:
            return True
        expected = expected_of(failure.op, failure.config, failure.case)
        if self.protocol == V1:
            expected = v1_expected(failure.op, expected)
        return not passes(expected, failure.actual)

    def _round_machine(self, number: int, deadline: float) -> Failure | None:
        return round_search(self, number, deadline)

    def _round(self, number: int, deadline: float) -> Failure | None:
        state: dict[str, Failure | None] = {"last": None}

        @settings(database=self.database, max_examples=self.max_examples or 10**9, deadline=None,
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                  phases=self.phases, print_blob=False)
        @seed(self.seed * 1_000_003 + number)
        @given(examples(tuple(op for op in self.ops if op != ROUND_OP), self.table, self.cap))
        def differential(example: Example) -> None:
            # new examples until the search deadline (or --max-cases); shrinking until the budget's end
            if self.spent(state["last"] is not None, deadline):
                raise BudgetSpent()
            failure = self.check(example, shrinking=state["last"] is not None)
            if failure is not None:
                state["last"] = failure
                raise Mismatch(failure)

        differential.hypothesis.inner_test._hypothesis_internal_add_digest = f"round-{number}".encode()  # type: ignore[attr-defined]
        try:
            differential()
        except Mismatch as found:
            return found.failure
        except BudgetSpent:
            return state["last"]
        return None

    def run(self) -> FuzzStats:
        start = self.started = time.monotonic()
        deadline = start + self.budget * SEARCH_SHARE
        try:
            self.session = self.open_session()
            self.protocol = self.session.hello().protocol
            active = [search for search, wanted in ((self._round, any(op != ROUND_OP for op in self.ops)),
                                                    (self._round_machine, ROUND_OP in self.ops)) if wanted]
            while (active and time.monotonic() < deadline and not self.all_drawn
                   and len(self.stats.failures) < self.max_failures):
                search = active[self.stats.rounds % len(active)]
                now = time.monotonic()    # several searches share what is left of the budget
                failure = search(self.stats.rounds, deadline if len(active) == 1 else now + (deadline - now) / 2)
                self.stats.rounds += 1
                if failure is None:
                    active.remove(search)
                    continue
                self.known.add(failure.signature)
                if not self.confirmed(failure):
                    continue
                self.stats.failures.append(failure)
                if self.progress:
                    self.progress(failure)
        finally:
            if self.session is not None:
                self.session.close()
            self.stats.seconds = time.monotonic() - start
        return self.stats
