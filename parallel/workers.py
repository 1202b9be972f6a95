"""One vendor instance of a scheduled run: its session, its fault recovery, and the units it runs.

A :class:`Worker` holds one vendor session, opened by the same adapter code with the same
:class:`~tablecert.harness.contract.SessionOptions` as a one-worker run (sandbox, hidden paths,
limits, passed environment), and its own :class:`~tablecert.harness.recovery.Recovery`: a fault
restarts this worker's vendor only. A restarted (or newly started) vendor must say it is the
vendor the run began with, or its hello is a ``bad_hello`` fault, as in a one-worker run; and it
must be confined as the run records it was (``isolation``), or the run stops (RunError: a node
set up differently is the lab's problem, never a weaker run under the same certificate). The
worker counts its vendor's answer bytes (:attr:`Worker.answer_bytes`) for the run's cap.

Each batch is run by the runner's own per-batch unit (``Runner._run_batch`` for vector-set
batches, :func:`~tablecert.harness.hand_runner.run_hand_batch` for hands), called on the worker,
which has what they use: ``_start`` and ``recovery``. The outcome is judged here, on the worker;
the single writer only records it. Two things a one-worker run carries from batch to batch are
settled by the writer in run order instead: which ops are given up (the worker never gives up;
see :class:`~tablecert.harness.recovery.GiveUp`), and which request is the first of each fault
kind (every batch keeps the first request of each kind it meets; the database keeps the first in
run order).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tablecert.harness.contract import VendorFault, VendorSession
from tablecert.harness.hand_runner import HandBatch, HandSuite, run_hand_batch
from tablecert.harness.recovery import FaultPolicy, Recovery
from tablecert.harness.results import BatchOutcome
from tablecert.parallel.units import Unit

NEVER = 1 << 62
"""``give_up_after`` of a worker's own recovery: the writer decides what is given up."""


class Worker:
    """One vendor instance (see the module docstring). ``identity`` is the run's vendor identity
    (its hello's name, version, build, ops); ``session`` an already greeted session to begin
    with."""

    def __init__(self, open_session: Callable[[], VendorSession], identity: dict[str, Any], policy: FaultPolicy,
                 kinds_kept: set[str], session: VendorSession | None = None, isolation: str | None = None) -> None:
        from tablecert.harness.runner import judge_batch, whole_batch

        self.open_session, self.identity, self.isolation = open_session, identity, isolation
        self.session = session
        self.closed_bytes = 0
        self.kinds_kept = frozenset(kinds_kept)
        self.recovery = Recovery(self._start, self._drop, replace(policy, give_up_after=NEVER), judge_batch,
                                 whole_batch)
        self._suite: HandSuite | None = None
        self._labels_fd: int | None = None

    # -- what the per-batch units use
    def _start(self) -> VendorSession:
        from tablecert.harness.runner import RunError, _identity, restarted_as_before

        if self.session is None:
            session = self.open_session()
            try:
                said = _identity(session.hello())
            except VendorFault:
                session.close()
                raise
            restarted_as_before(session, said, self.identity)
            had = getattr(session, "isolation", self.isolation)     # (in-process and HTTP sessions have none)
            if self.isolation is not None and had != self.isolation:
                session.close()
                raise RunError(f"a vendor instance runs with isolation {had!r}, the run with {self.isolation!r}: "
                               "every instance must be confined alike (the same set-up on every node)")
            self.session = session
        return self.session

    def _drop(self) -> None:
        if self.session is not None:
            self.session.close()
            self.closed_bytes += getattr(self.session, "answer_bytes", 0)
            self.session = None

    @property
    def answer_bytes(self) -> int:
        """The answers of every session this worker opened, the live one included."""
        return self.closed_bytes + getattr(self.session, "answer_bytes", 0)

    # -- running units
    def run(self, unit: Unit, skip: frozenset[str], suite_dir: Any = None) -> list[BatchOutcome | None]:
        """The outcomes of the unit's ops in run order (None for an op in ``skip``: given up, the
        writer records it unsent)."""
        from tablecert.harness.protocol_versions import V1
        from tablecert.harness.runner import run_vector_batch

        outcomes: list[BatchOutcome | None] = []
        if unit.batch is not None:
            op = unit.batch.op
            if op in skip:
                return [None]
            if op not in self.identity["ops"] or len(unit.batch.outside or ()) == len(unit.batch.cases):
                return [unit.whole(op, "unsupported", "unsupported")]
            self.recovery.kinds_kept = set(self.kinds_kept)
            return [run_vector_batch(self, unit.batch, self.identity.get("protocol", V1))]
        hb = unit.hand_batch or self._hand_batch(unit, suite_dir)
        for op in unit.ops:
            if op in skip:
                outcomes.append(None)
            elif op not in self.identity["ops"]:
                outcomes.append(hb.whole(op, "unsupported", "unsupported"))
            else:
                self.recovery.kinds_kept = set(self.kinds_kept)
                outcomes.append(run_hand_batch(self, hb, op))  # type: ignore[arg-type]
        return outcomes

    def _hand_batch(self, unit: Unit, suite_dir: Any) -> HandBatch:
        if self._suite is None:
            self._suite = HandSuite.load(suite_dir)
            self._labels_fd = os.open(self._suite.labels_path, os.O_RDONLY)
        assert unit.hands is not None and self._labels_fd is not None
        return HandBatch(self._suite, self._labels_fd, *unit.hands)

    def close(self) -> None:
        self._drop()
        if self._labels_fd is not None:
            os.close(self._labels_fd)
            self._labels_fd = None
