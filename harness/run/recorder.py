"""What a run records as it goes: outcomes handed to the run store, failures counted, caps
watched, the verdict decided. The run database's one writer is the store
(:class:`~tablecert.harness.store.RunStore`); the recorder is the one place the run loops hand it
their outcomes.

Every way of running a suite hands each judged outcome, in run order, to :meth:`Recorder.record`:
the batch goes into ``run.db`` in one transaction (a batch already there is not counted again)
and into the harness's own :class:`~tablecert.harness.record.judged_record.JudgedRecord`, and its failed
vectors are counted (:attr:`~tablecert.harness.model.BatchOutcome.failed`: JSON failure rows
and a hand batch's wrong hands alike). :meth:`Recorder.should_stop` says when nothing more is to
be sent: after ``stop_after_failures`` failures, once the vendor's answers pass
``max_run_answer_bytes`` (all sessions of every instance: ``answer_bytes`` gives them), or once the
run passed ``max_run_seconds`` (the last two kept in the meta as ``stopped``). :meth:`conclude`
checks the database against the record, then decides and keeps the verdict
(:func:`tablecert.harness.record.verdict.conclude`: one :class:`~tablecert.harness.model.Decision`,
its words too).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tablecert.harness.record.judged_record import JudgedRecord, TamperedRunDatabase
from tablecert.harness.model import BatchOutcome, Decision, Outcome
from tablecert.harness.store import RunStore
from tablecert.harness.run import RunError
from tablecert.harness.record.verdict import conclude


class Recorder:
    """Records one run's outcomes (see the module docstring). ``progress(done, total)`` is told
    the vectors met so far; ``judged``: the harness's record of the database as opened, when the
    caller made it already (a run whose checkpoints sign it), else made here."""

    def __init__(self, db: RunStore, *, stop_after_failures: int | None = None,
                 max_run_answer_bytes: int | None = None, max_run_seconds: float | None = None,
                 progress: Callable[[int, int], None] | None = None, judged: JudgedRecord | None = None) -> None:
        self.db = db
        self.judged = judged if judged is not None else JudgedRecord(db)
        self.failures = db.outcome_totals()[Outcome.FAIL]
        self.stop_after_failures = stop_after_failures
        self.max_run_answer_bytes = max_run_answer_bytes
        self.max_run_seconds = max_run_seconds
        self.progress = progress
        self.answer_bytes: Callable[[], int] = lambda: 0
        self.started = time.monotonic()
        self.over_time = self.over_budget = False

    def record(self, outcome: BatchOutcome) -> None:
        """Write one batch's outcome and account for it."""
        self.db.record(outcome, then=lambda: self.judged.add(outcome))
        self.failures += outcome.failed

    def advance(self, done: int, total: int) -> None:
        if self.progress:
            self.progress(done, total)

    def should_stop(self) -> bool:
        """True once enough failures were seen, or a cap was passed (see the module docstring)."""
        if self.stop_after_failures is not None and self.failures >= self.stop_after_failures:
            return True
        if self.max_run_seconds is not None and not self.over_time:
            ran = time.monotonic() - self.started
            if ran > self.max_run_seconds:
                self.over_time = True
                self.db.set_meta(stopped=f"the run passed its wall-clock cap of {self.max_run_seconds:g} s "
                                         f"(--max-run-seconds; {ran:,.0f} s); nothing more was sent (--resume "
                                         "continues it)")
        if self.over_time:
            return True
        if self.max_run_answer_bytes is not None and not self.over_budget:
            received = self.answer_bytes()
            if received > self.max_run_answer_bytes:
                self.over_budget = True
                self.db.set_meta(stopped=f"the vendor's answers passed {self.max_run_answer_bytes:,} bytes "
                                         f"({received:,} received); nothing more was sent")
        return self.over_budget

    def conclude(self, scope_meta: dict[str, Any]) -> Decision:
        """Check the run database against what was recorded (and the ``scope_meta`` the verdict
        reads), then decide and keep the verdict (RunError, and no verdict, if something else
        wrote to it)."""
        try:
            self.db.set_meta(judged=self.judged.check(self.db, scope_meta))
        except TamperedRunDatabase as err:
            self.db.close()
            raise RunError(str(err)) from None
        return conclude(self.db)
