"""The units of work of a scheduled run, in the canonical run order, and the shard that holds each.

A *unit* is what one worker does at a time: one batch of a vector-set suite (one op), or one range
of hands of a hand suite (both label ops on the same hands, as the one-worker loop sends them).
Units are numbered in the order a one-worker run meets them (``seq``); the writer records their
outcomes in that order, and shard ``K/N`` holds the units with ``seq % N == K - 1``. The batch
boundaries depend on the batch size (cases per request, or hands per request): shards and merged
runs are checked to use the same one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tablecert.harness.answers.hand_failures import count_all
from tablecert.harness.run.hand_batches import HandBatch, HandSuite, hand_ranges
from tablecert.harness.model import BatchOutcome
from tablecert.harness.instance.vectors import whole_batch
from tablecert.harness.suites.reader import Batch, iter_batches
from tablecert.oracle.names import HAND_FILE, HAND_OPS
from tablecert.parallel.spread import Shard

Key = tuple[str, str, int]


@dataclass
class Unit:
    """One unit of work: ``seq`` its place in the run order, ``count`` the vectors of the suite up
    to its end (for progress), ``ops`` the ops still to run on it (a resumed run skips batches
    already recorded). Either ``batch`` (a vector-set batch) or the hand range ``hands``
    (first hand index, hands) with, when made by the coordinator, its prepared ``hand_batch``."""

    seq: int
    count: int
    ops: tuple[str, ...]
    batch: Batch | None = None
    hands: tuple[int, int] | None = None
    hand_batch: HandBatch | None = None

    def key(self, op: str) -> tuple[str, str, int, int]:
        """(file, op, first tcId, cases) of this unit's batch of ``op``."""
        if self.batch is not None:
            return self.batch.file, op, self.batch.tc_ids[0], len(self.batch.cases)
        assert self.hands is not None
        return HAND_FILE, op, self.hands[0] + 1, self.hands[1]

    def whole(self, op: str, status: str, outcome: str) -> BatchOutcome:
        """Every vector of this unit's batch of ``op`` with one outcome."""
        if self.batch is not None:
            return whole_batch(self.batch, status, outcome)
        file, op, first_tc, n = self.key(op)
        out = BatchOutcome(file, op, first_tc, n, status)
        count_all(out.counts, op, n, outcome)
        return out


def suite_units(suite_dir: Path, hand_suite: bool, batch_size: int, hand_batch_size: int,
                max_hands: int | None = None) -> Iterator[Unit]:
    """Every unit of the suite in run order (``ops`` all the unit's ops; see :func:`units_to_run`)."""
    if hand_suite:
        suite = HandSuite.load(suite_dir)
        stop = suite.n_hands if max_hands is None else min(max_hands, suite.n_hands)
        for seq, (index, n) in enumerate(hand_ranges(stop, hand_batch_size)):
            yield Unit(seq, 2 * (index + n), HAND_OPS, hands=(index, n))
        return
    seen = 0
    for seq, batch in enumerate(iter_batches(suite_dir, batch_size)):
        seen += len(batch.cases)
        yield Unit(seq, seen, (batch.op,), batch=batch)


def units_to_run(units: Iterator[Unit], done: set[Key], shard: Shard | None) -> Iterator[Unit]:
    """The units of ``shard`` (all without one) with the ops not yet recorded in ``done``."""
    for unit in units:
        if shard is not None and not shard.holds(unit.seq):
            continue
        ops = tuple(op for op in unit.ops if unit.key(op)[:3] not in done)
        if ops:
            unit.ops = ops
            yield unit
