"""The scheduler of a parallel, clustered or sharded run: units out to whichever worker is free,
outcomes back to one writer that records them in run order.

Workers are threads each holding a vendor instance (:class:`ThreadPool`) or Ray actors on a
cluster (:class:`tablecert.parallel.ray_pool.RayPool`); both take a :class:`~tablecert.parallel.units.Unit`
and give back its judged outcomes. What a pool needs before its first unit is begun while the
runner starts and greets its vendor (:meth:`~tablecert.parallel.options.ParallelOptions.start`):
the connection to the Ray cluster.

The writer (the runner's thread, the only one touching the run database) keeps at most a few units
per worker in flight, and records each unit's outcomes when every unit before it is recorded: the
run database receives the same rows in the same order as a one-worker run, whatever the number of
workers or the order they finish in. In run order it also decides which ops are given up
(:class:`~tablecert.harness.run.recovery.GiveUp`), counts failures and answer bytes, and stops as
the one-worker loop would: the outcomes go to the run's
:class:`~tablecert.harness.run.recorder.Recorder`, as a one-worker run's do.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Protocol

from tablecert.harness.answers.capabilities import mark_batch
from tablecert.harness.contract import answer_bytes
from tablecert.harness.model import BatchOutcome, BatchStatus, Outcome
from tablecert.harness.run import RunError
from tablecert.parallel.units import Unit, suite_units, units_to_run
from tablecert.parallel.workers import Worker

if TYPE_CHECKING:
    from tablecert.harness.run.runner import Runner
    from tablecert.parallel.options import ParallelOptions
    from tablecert.parallel.ray_pool import RayConnection

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

    def __init__(self, runner: Runner, size: int) -> None:
        assert runner.instance.began is not None
        self.size, self.runner = size, runner
        self.identity = runner.instance.began
        self.kinds = runner.db.fault_kinds()
        self.isolation = runner.db.meta().get("isolation")
        self.workers: list[Worker] = []
        self._greeted = runner.instance.hand_over()
        self._local = _ThisThread()
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="vendor-worker")
        self._futures: dict[Future[list[BatchOutcome | None]], int] = {}

    def _worker(self) -> Worker:
        worker = self._local.worker
        if worker is None:
            with self._lock:
                session, self._greeted = self._greeted, None
                worker = Worker(self.runner.open_session, self.identity, self.runner.recovery.policy, self.kinds,
                                session, self.isolation)
                self.workers.append(worker)
            self._local.worker = worker
        return worker

    def submit(self, unit: Unit, skip: frozenset[str]) -> None:
        future = self._executor.submit(lambda: self._worker().run(unit, skip, self.runner.suite_dir))
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


def open_pool(runner: Runner, options: ParallelOptions, connection: RayConnection | None) -> Pool:
    """Ray actors (over ``connection``, begun by :meth:`ParallelOptions.start`) or worker threads.
    Worker threads start their vendors when their first unit comes: starting them beside the
    greeting was measured no faster on two cores (the starts then compete with the greeting)."""
    if options.ray_address is not None:
        from tablecert.parallel.ray_pool import RayPool

        assert connection is not None
        return RayPool(runner, options, connection)
    return ThreadPool(runner, options.workers)


def run_scheduled(runner: Runner, done: set[tuple[str, str, int]], total: int, options: ParallelOptions,
                  connection: RayConnection | None) -> None:
    """Run the units of the suite (of ``options.shard``) not in ``done`` on a pool of workers,
    recording their outcomes in run order (see the module docstring)."""
    assert runner.hello is not None
    meta = runner.db.meta()
    if meta.get("shard") is not None and (str(options.shard), runner.batch_size) != (meta["shard"], meta.get("batch_size")):
        raise RunError(f"this run folder holds shard {meta['shard']} with {meta.get('batch_size')} cases per request; "
                       f"resume it with --shard {meta['shard']} and that batch size")
    if options.shard is not None:
        if done and meta.get("shard") is None:
            raise RunError("this run folder holds a run of the whole suite; it cannot be resumed as a shard")
        runner.db.set_meta(shard=str(options.shard), batch_size=runner.batch_size)
    if runner.hand_slice is not None:
        raise RunError("--range and --sample run on one vendor instance: leave out --workers, --ray and --shard")
    units = marked(units_to_run(suite_units(runner.suite_dir, runner.hand_suite, runner.batch_size,
                                            runner.hand_batch_size, runner.max_hands), done, options.shard), runner)
    pool = open_pool(runner, options, connection)
    runner.recorder.answer_bytes = pool.answer_bytes
    try:
        Writer(runner, pool, total).run(units)
    except BaseException:
        pool.close(abort=True)
        raise
    else:
        pool.close(abort=False)


class Writer:
    """The single writer of a scheduled run (see the module docstring)."""

    def __init__(self, runner: Runner, pool: Pool, total: int) -> None:
        self.runner, self.pool, self.total = runner, pool, total
        self.ops = set(runner.instance.ops)
        self.give_up = runner.recovery.give_up
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
        recorder = self.runner.recorder
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


def marked(units: Iterator[Unit], runner: Runner) -> Iterator[Unit]:
    """The units with each vector-set batch marked with the vendor's declared capabilities, as the
    one-worker loop marks them (harness/answers/capabilities.py): the worker then counts the vectors
    outside them unsupported and sends a batch with no vector inside them nowhere."""
    for unit in units:
        if unit.batch is not None:
            mark_batch(unit.batch, runner.capabilities)
        yield unit
