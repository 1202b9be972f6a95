"""The scheduler of a parallel, clustered or sharded run: units out to whichever worker is free,
outcomes back to one writer that records them in run order.

Workers are threads each holding a vendor instance (:class:`ThreadPool`) or Ray actors on a
cluster (:class:`tablecert.parallel.ray_pool.RayPool`); both take a :class:`~tablecert.parallel.units.Unit`
and give back its judged outcomes. What a pool needs before its first unit is begun while the
runner starts and greets its vendor (:meth:`~tablecert.parallel.options.ParallelOptions.start`):
the connection to the Ray cluster.

A scheduled run is given a :class:`~tablecert.harness.instance.context.SpreadContext`, not the runner:
the suite and how it is cut, how to open another instance of the run's vendor, the greeted session
to take over, the run's meta, its recorder and the ops it gives up.

The writer (the runner's thread, the only one touching the run database) keeps at most a few units
per worker in flight, and records each unit's outcomes when every unit before it is recorded: the
run database receives the same rows in the same order as a one-worker run, whatever the number of
workers or the order they finish in. In run order it also decides which ops are given up
(:class:`~tablecert.harness.instance.recovery.GiveUp`), counts failures and answer bytes, and stops as
the one-worker loop would: the outcomes go to the run's
:class:`~tablecert.harness.run.recorder.Recorder`, as a one-worker run's do.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Protocol

from tablecert.harness.answers.capabilities import mark_batch
from tablecert.harness.contract import answer_bytes
from tablecert.harness.model import BatchOutcome, BatchStatus, Outcome, RunMeta
from tablecert.harness.run import RunError
from tablecert.harness.instance.context import RunVendor, SpreadContext
from tablecert.parallel import ray_pool
from tablecert.parallel.ray_pool import RayConnection
from tablecert.parallel.spread import Spread
from tablecert.parallel.units import Unit, suite_units, units_to_run
from tablecert.parallel.workers import Worker

IN_FLIGHT_PER_WORKER = 2
"""Units handed out per worker ahead of the writer (one running, one waiting)."""


class Pool(Protocol):
    """Workers that run units: ``size`` of them; ``submit`` a unit (with the ops it skips);
    ``finished`` blocks until at least one unit is done and gives (seq, outcomes) pairs;
    ``answer_bytes`` of all their sessions; ``close`` ends every vendor instance (``abort``: the
    run is interrupted, outcomes still coming are not wanted)."""

    size: int

    def submit(self, unit: Unit, skip: frozenset[str]) -> None: ...
    def finished(self) -> list[tuple[int, list[BatchOutcome | None]]]: ...
    def answer_bytes(self) -> int: ...
    def close(self, abort: bool) -> None: ...


class _ThisThread(threading.local):
    worker: Worker | None = None        # this thread's worker, once it has one


class ThreadPool:
    """``size`` worker threads on this machine, each with its own vendor instance; the first
    takes over the session the runner already greeted."""

    def __init__(self, context: SpreadContext, size: int) -> None:
        self.size, self.vendor, self.suite_dir = size, context.vendor, context.suite.suite_dir
        self.workers: list[Worker] = []
        self._greeted = context.hand_over()
        self._local = _ThisThread()
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="vendor-worker")
        self._futures: dict[Future[list[BatchOutcome | None]], int] = {}

    def _worker(self) -> Worker:
        worker = self._local.worker
        if worker is None:
            with self._lock:
                session, self._greeted = self._greeted, None
                vendor = self.vendor
                worker = Worker(vendor.open_session, vendor.began, vendor.policy, set(vendor.kinds_kept), session,
                                vendor.isolation)
                self.workers.append(worker)
            self._local.worker = worker
        return worker

    def submit(self, unit: Unit, skip: frozenset[str]) -> None:
        future = self._executor.submit(lambda: self._worker().run(unit, skip, self.suite_dir))
        self._futures[future] = unit.seq

    def finished(self) -> list[tuple[int, list[BatchOutcome | None]]]:
        done, _ = wait(list(self._futures), return_when=FIRST_COMPLETED)
        return [(self._futures.pop(f), f.result()) for f in done]

    def answer_bytes(self) -> int:
        return sum(w.answer_bytes for w in self.workers) + answer_bytes(self._greeted)

    def close(self, abort: bool) -> None:
        """Units not started are dropped; those with a vendor finish first (each answer is bounded
        by the session's timeout), then every vendor instance is closed."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        for worker in self.workers:
            worker.close()
        if self._greeted is not None:
            self._greeted.close()


def open_pool(context: SpreadContext, spread: Spread, connection: RayConnection | None) -> Pool:
    """Ray actors (over ``connection``, begun by :meth:`ParallelOptions.start`; the pool class is
    looked up in its module when asked for, where bench_parallel.py times it) or worker threads.
    Worker threads start their vendors when their first unit comes: starting them beside the
    greeting was measured no faster on two cores (the starts then compete with the greeting)."""
    if spread.ray_address is not None:
        assert connection is not None
        return ray_pool.RayPool(context, spread, connection)
    return ThreadPool(context, spread.workers)


def run_scheduled(context: SpreadContext, done: set[tuple[str, str, int]], total: int, spread: Spread,
                  connection: RayConnection | None) -> None:
    """Run the units of the suite (of ``spread.shard``) not in ``done`` on a pool of workers,
    recording their outcomes in run order (see the module docstring)."""
    suite, book = context.suite, context.meta
    meta = book.run_meta()
    if meta.shard is not None and (str(spread.shard), suite.batch_size) != (meta.shard, meta.batch_size):
        raise RunError(f"this run folder holds shard {meta.shard} with {meta.batch_size} cases per request; "
                       f"resume it with --shard {meta.shard} and that batch size")
    if spread.shard is not None:
        if done and meta.shard is None:
            raise RunError("this run folder holds a run of the whole suite; it cannot be resumed as a shard")
        book.set_meta(shard=str(spread.shard), batch_size=suite.batch_size)
    if suite.sliced:
        raise RunError("--range and --sample run on one vendor instance: leave out --workers, --ray and --shard")
    units = marked(units_to_run(suite_units(suite.suite_dir, suite.hand_suite, suite.batch_size,
                                            suite.hand_batch_size, suite.max_hands), done, spread.shard), context.vendor)
    pool = open_pool(context, spread, connection)
    context.recorder.answer_bytes = pool.answer_bytes
    try:
        Writer(context, pool, total).run(units)
    except BaseException:
        pool.close(abort=True)
        raise
    else:
        pool.close(abort=False)


class Writer:
    """The single writer of a scheduled run (see the module docstring)."""

    def __init__(self, context: SpreadContext, pool: Pool, total: int) -> None:
        self.recorder, self.pool, self.total = context.recorder, pool, total
        self.ops = set(context.vendor.ops)
        self.give_up = context.give_up
        self.in_flight: deque[Unit] = deque()
        self.ready: dict[int, list[BatchOutcome | None]] = {}

    def run(self, units: Iterator[Unit]) -> None:
        window = IN_FLIGHT_PER_WORKER * self.pool.size
        more = True
        while True:
            while more and len(self.in_flight) < window:
                unit = next(units, None)
                if unit is None:
                    more = False
                    break
                self._hand_out(unit)
            if not self.in_flight:
                return
            if self.in_flight[0].seq not in self.ready:
                self.ready.update(self.pool.finished())
            while self.in_flight and self.in_flight[0].seq in self.ready:
                unit = self.in_flight.popleft()
                if self._record(unit, self.ready.pop(unit.seq)):
                    return

    def _hand_out(self, unit: Unit) -> None:
        skip = frozenset(op for op in unit.ops if op in self.ops and self.give_up.stops(op))
        self.in_flight.append(unit)
        if len(skip) == len(unit.ops):
            self.ready[unit.seq] = [None] * len(unit.ops)      # nothing to send
        else:
            self.pool.submit(unit, skip)

    def _record(self, unit: Unit, outcomes: list[BatchOutcome | None]) -> bool:
        """Record a unit's outcomes; True when the run is to stop."""
        recorder = self.recorder
        for op, out in zip(unit.ops, outcomes):
            if op in self.ops:
                if self.give_up.stops(op):
                    out = self.give_up.not_sent(unit.key(op), unit.whole(op, BatchStatus.FAULT, Outcome.FAULT))
                else:
                    assert out is not None
                    self.give_up.tally(op, out)
            assert out is not None
            recorder.record(out)
            if recorder.should_stop():
                return True
        recorder.advance(unit.count, self.total)
        return False


def marked(units: Iterator[Unit], vendor: RunVendor) -> Iterator[Unit]:
    """The units with each vector-set batch marked with the vendor's declared capabilities, as the
    one-worker loop marks them (harness/answers/capabilities.py): the worker then counts the vectors
    outside them unsupported and sends a batch with no vector inside them nowhere."""
    for unit in units:
        if unit.batch is not None:
            mark_batch(unit.batch, vendor.capabilities)
        yield unit
