"""What a run hands to the code that plays some of its batches for it, in place of the
:class:`~tablecert.harness.run.runner.Runner` itself.

Two consumers live outside ``run/``: a spread run (:mod:`tablecert.parallel`: worker threads, Ray
actors, a shard), which runs every batch instead of the one-worker loop, and the live tables
(:mod:`tablecert.harness.live.run`), which play the live suite's batches. Each is given a small
typed value the runner builds once its vendor is greeted:

* :class:`SuiteRun` - what is run: the suite folder and how it is cut into requests;
* :class:`RunVendor` - what opening another instance of the run's vendor needs: the opener, the
  identity the run began with, the fault policy, the fault kinds already recorded, the isolation
  the run records, the capabilities the vendor declared;
* :class:`MetaBook` - the run's meta in ``run.db`` (read and written); :class:`RecorderPort` -
  where outcomes go, in run order; :class:`GiveUpPort` - which ops the run gave up;
* :class:`LiveContext` (suite and meta) and :class:`SpreadContext` (all of the above, and the
  greeted session to take over) bundle them per consumer; :class:`LiveTables` is what the runner
  asks of the live tables.

The ``meta`` fields are the only ones that touch ``run.db``; the runner's
:class:`~tablecert.harness.store.RunStore` satisfies :class:`MetaBook`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tablecert.harness.answers.capabilities import Capabilities
from tablecert.harness.contract import VendorSession
from tablecert.harness.instance.recovery import FaultPolicy

if TYPE_CHECKING:
    from tablecert.harness.model import BatchOutcome, RunMeta
    from tablecert.harness.model import Batch
    from tablecert.harness.instance.vendor_instance import Played

Key = tuple[str, str, int, int]
"""(file, op, first tcId, cases) of one batch of one op."""


@dataclass(frozen=True)
class SuiteRun:
    """What is run: ``suite_dir``; whether it is a hand suite; cases per request (``batch_size``)
    and, for a hand suite, hands per request (``hand_batch_size``); ``max_hands``: only the first
    hands (None: all); ``sliced``: a ``--range`` or ``--sample`` slice of a hand suite."""

    suite_dir: Path
    hand_suite: bool
    batch_size: int
    hand_batch_size: int
    max_hands: int | None
    sliced: bool


@dataclass(frozen=True)
class RunVendor:
    """Another instance of the run's vendor: ``open_session`` (the run's adapter and session
    options), ``began`` (the identity the run began with: every instance must say it is that
    vendor), the fault ``policy``, the fault kinds ``kinds_kept`` already in ``run.db``, the
    ``isolation`` the run records, and the ``capabilities`` the vendor declared."""

    open_session: Callable[[], VendorSession]
    began: dict[str, Any]
    policy: FaultPolicy
    kinds_kept: frozenset[str]
    isolation: str | None
    capabilities: Capabilities

    @property
    def ops(self) -> tuple[str, ...]:
        """The ops the vendor listed in its hello (the others are ``unsupported``)."""
        return tuple(self.began["ops"])


class MetaBook(Protocol):
    """The run's meta in ``run.db``."""

    def run_meta(self) -> RunMeta: ...
    def set_meta(self, **values: Any) -> None: ...


class RecorderPort(Protocol):
    """The run's recorder: each outcome recorded in run order, progress, when to stop, and
    (``answer_bytes``) where the vendor's answer bytes are counted from."""

    answer_bytes: Callable[[], int]

    def record(self, outcome: BatchOutcome) -> None: ...
    def advance(self, done: int, total: int) -> None: ...
    def should_stop(self) -> bool: ...


class GiveUpPort(Protocol):
    """The ops the run gives up (:class:`~tablecert.harness.instance.recovery.GiveUp`), decided in run order."""

    def stops(self, op: str) -> bool: ...
    def not_sent(self, key: Key, out: BatchOutcome) -> BatchOutcome: ...
    def tally(self, op: str, out: BatchOutcome) -> int: ...


@dataclass(frozen=True)
class LiveContext:
    """What the live tables need of a run: the suite and the run's meta (the plan, the live failures)."""

    suite: SuiteRun
    meta: MetaBook


class LiveTables(Protocol):
    """What plays the live suite's batches of a run (:class:`tablecert.harness.live.run.LiveRun`):
    a batch of one of its ``ops`` becomes a unit that plays itself."""

    @property
    def ops(self) -> tuple[str, ...]: ...

    def unit(self, batch: Batch, context: LiveContext) -> Played: ...


@dataclass(frozen=True)
class SpreadContext:
    """What a spread run needs of a run (see the module docstring); ``hand_over()`` gives the
    session the runner greeted (None once given), with its answer bytes."""

    suite: SuiteRun
    vendor: RunVendor
    meta: MetaBook
    recorder: RecorderPort
    give_up: GiveUpPort
    hand_over: Callable[[], VendorSession | None]
