"""The raw battery's sequences tested on several cores while the stream is collected.

:class:`SequenceWorkers` starts ``workers`` processes; its :meth:`~SequenceWorkers.sink` is the
``sink`` of :func:`tablecert.rng.raw_collect.collect_raw`: each sequence of bits is packed (8 bits
a byte: 125,000 bytes for 10^6 bits) and sent to a worker, which runs NIST SP 800-22's 15 tests
on it (:func:`tablecert.rng.nist.run_sequence`); the P-values come back and are added to the
:class:`~tablecert.rng.raw_plan.RawBattery` in the order of the sequences, so the battery's
decisions do not depend on the number of workers or on which finished first. At most
``2 * workers`` sequences are in flight (memory stays flat in the stream's length); the
bit-position counts are taken in the collecting process, as each sequence arrives (or, in a deep
collection, over every word by the collector: ``sink(battery, positions=False)``).

The workers are forked when the pool is made, before the caller opens the vendor's session (make
it first): they inherit the loaded libraries (no start-up imports), and neither the session's
pipes nor an adapter's threads. ``workers`` 1 runs every sequence in this process (no pool).
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor

import numpy as np

from tablecert.rng import nist
from tablecert.rng.raw_plan import RawBattery


def default_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0))


def _run_packed(packed: bytes, size: int) -> dict[str, float]:
    return nist.run_sequence(np.unpackbits(np.frombuffer(packed, dtype=np.uint8), count=size))


def _ready() -> int:
    return os.getpid()


class SequenceWorkers:
    """A pool of battery workers (a context manager: the pool is closed on leaving)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None
        self.pending: deque[Future[dict[str, float]]] = deque()
        self.battery: RawBattery | None = None
        if workers > 1:
            self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
            self.pool.submit(_ready).result()            # every worker forked now

    def sink(self, battery: RawBattery, positions: bool = True) -> Callable[[np.ndarray], None]:
        """The sink feeding ``battery`` one sequence at a time (:meth:`finish` completes it);
        ``positions`` False: the bit positions are counted elsewhere (a deep collection counts
        every word, tested or not)."""
        self.battery = battery

        def take(bits: np.ndarray) -> None:
            if positions:
                battery.positions.add(bits)
            if self.pool is None:
                battery.add_p_values(nist.run_sequence(bits))
                return
            while len(self.pending) >= 2 * self.workers:
                battery.add_p_values(self.pending.popleft().result())
            self.pending.append(self.pool.submit(_run_packed, np.packbits(bits).tobytes(), bits.size))

        return take

    def finish(self) -> RawBattery:
        """The battery with every sequence's P-values added, in order."""
        assert self.battery is not None, "finish() before sink()"
        while self.pending:
            self.battery.add_p_values(self.pending.popleft().result())
        return self.battery

    def __enter__(self) -> SequenceWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None
