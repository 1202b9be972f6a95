"""One vendor instance of a scheduled run: its session, its fault recovery, and the units it runs.

A :class:`Worker` holds a :class:`~tablecert.harness.instance.vendor_instance.VendorInstance` of the run's vendor
(the same opener, checks, recovery and answer-byte count as a one-worker run's: a fault restarts
this worker's vendor only) and the hand suite it prepares hand batches from.

Each op of a unit is judged by :func:`tablecert.harness.run.judging.judge` on the worker's
instance, as a one-worker run judges it. The outcome is judged here, on the worker;
the single writer only records it. Two things a one-worker run carries from batch to batch are
settled by the writer in run order instead: which ops are given up (the worker never gives up;
see :class:`~tablecert.harness.instance.recovery.GiveUp`), and which request is the first of each fault
kind (every batch keeps the first request of each kind it meets; the database keeps the first in
run order).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tablecert.harness.contract import VendorSession
from tablecert.harness.run.hand_batches import HandBatch, HandSuite
from tablecert.harness.instance.recovery import FaultPolicy
from tablecert.harness.model import BatchOutcome
from tablecert.harness.instance.vendor_instance import Identity, VendorInstance
from tablecert.harness.run.judging import HandOp, judge
from tablecert.parallel.units import Unit

NEVER = 1 << 62
"""``give_up_after`` and ``timeouts_per_op`` of a worker's own recovery: the writer decides what
is given up (a worker still stops retrying a batch that timed out at ``retries``, and never
bisects it)."""


class Worker:
    """One vendor instance of a scheduled run (see the module docstring). ``identity`` is the
    run's vendor identity (its hello's name, version, build, ops); ``session`` an already greeted
    session to begin with; ``isolation`` how the run records its vendor is confined."""

    def __init__(self, open_session: Callable[[], VendorSession], identity: Identity, policy: FaultPolicy,
                 kinds_kept: set[str], session: VendorSession | None = None, isolation: str | None = None) -> None:
        self.instance = VendorInstance(open_session, replace(policy, give_up_after=NEVER, timeouts_per_op=NEVER), began=identity,
                                       isolation=isolation, session=session)
        self.kinds_kept = frozenset(kinds_kept)
        self._suite: HandSuite | None = None
        self._labels_fd: int | None = None

    def _start(self) -> VendorSession:
        """The instance's live session, started and checked if need be (as every unit starts it)."""
        return self.instance.session()

    @property
    def session(self) -> VendorSession | None:
        return self.instance.live

    @property
    def answer_bytes(self) -> int:
        return self.instance.answer_bytes

    def run(self, unit: Unit, skip: frozenset[str], suite_dir: Any = None) -> list[BatchOutcome | None]:
        """The outcomes of the unit's ops in run order (None for an op in ``skip``: given up, the
        writer records it unsent)."""
        outcomes: list[BatchOutcome | None] = []
        hand_batch = unit.hand_batch
        for op in unit.ops:
            if op in skip:
                outcomes.append(None)
                continue
            self.instance.recovery.kinds_kept = set(self.kinds_kept)
            if unit.batch is not None:
                outcomes.append(judge(self.instance, unit.batch))
            else:
                hand_batch = hand_batch or self._hand_batch(unit, suite_dir)
                outcomes.append(judge(self.instance, HandOp(hand_batch, op)))
        return outcomes

    def _hand_batch(self, unit: Unit, suite_dir: Any) -> HandBatch:
        if self._suite is None:
            self._suite = HandSuite.load(suite_dir)
            self._labels_fd = os.open(self._suite.labels_path, os.O_RDONLY)
        assert unit.hands is not None and self._labels_fd is not None
        return HandBatch(self._suite, self._labels_fd, *unit.hands)

    def close(self) -> None:
        self.instance.drop()
        if self._labels_fd is not None:
            os.close(self._labels_fd)
            self._labels_fd = None
