"""What a run is asked to do: :class:`RunOptions`, one typed value in place of fifteen arguments.

The one-worker run, a parallel one and a resumed one all read their choices from it
(:class:`tablecert.harness.run.runner.Runner`); ``certify`` builds it from its own options
(:class:`tablecert.harness.run.certify.CertifyOptions`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from tablecert.harness.run.hand_slices import HandSlice
from tablecert.harness.instance.recovery import FaultPolicy

if TYPE_CHECKING:
    from tablecert.harness.record.chain import Checkpoints
    from tablecert.harness.instance.context import SpreadContext
    from tablecert.harness.run.rerun import RerunSelection
    from tablecert.harness.run.vendor_build import VendorBuild


class SpreadRun(Protocol):
    """A way of running the batches other than the one-worker loop (several workers, a Ray
    cluster, a shard: :class:`tablecert.parallel.ParallelOptions`): ``start()`` is called before
    the runner greets its vendor (what it gives, e.g. a cluster connection begun in the
    background, comes back to ``run`` and is ``cancel()``-ed by the runner whatever happens);
    ``run`` plays every batch not in ``done`` for the run described by ``context``."""

    def start(self) -> Connection | None: ...
    def run(self, context: SpreadContext, done: set[tuple[str, str, int]], total: int,
            connection: Connection | None) -> None: ...


class Connection(Protocol):
    """What :meth:`SpreadRun.start` begins; the runner cancels it once the run is over."""

    def cancel(self) -> None: ...


@dataclass(frozen=True)
class RunOptions:
    """The choices of one run.

    ``batch_size``: cases per request (default DEFAULT_BATCH_SIZE; for a hand suite, when given,
    also the hands per request, whose default is DEFAULT_HAND_BATCH_SIZE); ``hand_batch_size``:
    hands per request of a hand suite (kept in the run's meta so a resumed run meets the same
    batches); ``max_hands``: run only the first hands of a hand suite (a slice, for tests and
    trials; the verdict is then ``incomplete``); ``hand_slice``: run only a range or a sample of
    a hand suite (:mod:`tablecert.harness.run.hand_slices`; never a pass); ``require``: the ops the lab
    requires (:func:`~tablecert.harness.record.verdict.required_ops`; default all the suite's, or on a
    resumed run the ones it began with); ``policy``: the fault handling; ``resume``: continue the
    run database in the run folder; ``stop_after_failures``: send nothing more after this many
    failed vectors; ``max_run_answer_bytes``: once the vendor's answers in this run (all
    sessions) pass this size, nothing more is sent, the reason is kept in the meta (``stopped``)
    and the verdict is ``incomplete``; ``max_run_seconds``: likewise once this invocation has run
    this long (``--resume`` continues); ``parallel``: runs the batches instead of the one-worker
    loop; ``run_meta``: kept in a new run's meta (``adapter``, ``target``, ``suite_anchor``,
    ``run_id``); ``progress(done, total)``: told the vectors met so far; ``checkpoints``: the run
    key's chain, signing every transaction committed to the run's database (a resumed run's
    checked before, :mod:`tablecert.harness.record.chain`; ``certify`` always gives one; None:
    none, as for a run in a test); ``rerun``: send only these vectors of an earlier run, which
    failed or faulted there (:mod:`tablecert.harness.run.rerun`; never certified); ``build``: the
    vendor's files as bound (:mod:`tablecert.harness.run.vendor_build`), recorded when the run
    begins and digested again when it ends (a resumed run goes on only with the same build)."""

    batch_size: int | None = None
    hand_batch_size: int | None = None
    max_hands: int | None = None
    hand_slice: HandSlice | None = None
    require: str | None = None
    policy: FaultPolicy = FaultPolicy()
    resume: bool = False
    stop_after_failures: int | None = None
    max_run_answer_bytes: int | None = None
    max_run_seconds: float | None = None
    parallel: SpreadRun | None = None
    run_meta: Mapping[str, Any] = field(default_factory=dict)
    progress: Callable[[int, int], None] | None = None
    checkpoints: Checkpoints | None = None
    rerun: RerunSelection | None = None
    build: VendorBuild | None = None
