"""The live suite inside a run: the hook the runner calls for a ``craps.table`` batch.

:class:`LiveRun` holds what a run's live batches share: the lab's choices (``--interruptions N``,
``--no-interruptions``, the seed), the run's ``state_dir`` (made when the first live batch
starts, removed when the run ends: :func:`~tablecert.harness.live.instance.vendor_state_dir`;
one an earlier, killed invocation of the run left behind is removed first),
the interruption plan over the whole suite (:func:`~tablecert.harness.live.driver.plan_interruptions`,
kept in the run's meta as ``live``) and the vendor instance it kills and restarts (the run's
common :class:`~tablecert.harness.instance.vendor_instance.VendorInstance` over the adapter's
live sessions, :meth:`~tablecert.harness.adapters.registry.VendorTarget.live_opener`, each
restart checked to be the vendor the run began with, its build unchanged). Each batch is judged with
:func:`~tablecert.harness.live.driver.judge_live`, as a unit of the run pipeline
(:class:`LiveBatch`, which :func:`tablecert.harness.run.judging.judge` plays), given of the run
only its suite and meta (:class:`~tablecert.harness.instance.context.LiveContext`); a vendor that does
not declare every live op (or speaks ``tablecert-vendor/1``) gets the batch as *unsupported*.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from tablecert.harness.adapters.registry import VendorTarget
from tablecert.harness.contract import Hello, SessionOptions
from tablecert.harness.live.driver import (ALL_KINDS, DEFAULT_INTERRUPTIONS, DIMENSION, LivePlan, first_cut,
                                           judge_live, plan_interruptions)
from tablecert.harness.live.cuts import CUT_KINDS
from tablecert.harness.adapters.live_session import state_view
from tablecert.harness.live.instance import remove_stale_state, state_holder, state_mounts, vendor_state_dir
from tablecert.harness.live.state_holder import state_holds
from tablecert.harness.live.paigow_records import PaigowPlayer
from tablecert.harness.live.stations import StationPlayer, declared_features, undeclared
from tablecert.harness.model import LIVE_TABLE_FEATURES, BatchOutcome, BatchStatus, LiveFeatures, Outcome
from tablecert.harness.instance.context import LiveContext, MetaBook, SuiteRun
from tablecert.harness.instance.vendor_instance import Identity, VendorInstance
from tablecert.harness.instance.vectors import whole_batch
from tablecert.harness.suites.reader import Batch, iter_batches
from tablecert.oracle.live_stations import FEATURES, STATIONS_OP, features_of
from tablecert.oracle.live_tables import GAME_OF_OP, LIVE_OPS
from tablecert.oracle.paigow_records import FEATURE as PAIGOW_RECORDS
from tablecert.oracle.protocol import V2

TABLE_FEATURES = LIVE_TABLE_FEATURES
"""The live table features a run reports tested, in page 1's order (``records``: a station's record fields)."""


@dataclass(frozen=True)
class LiveSettings:
    """The lab's choices for a live run: ``--interruptions N``, ``--no-interruptions``, ``--interruption-seed S``."""

    interruptions: int = DEFAULT_INTERRUPTIONS
    enabled: bool = True
    seed: int = 0


@dataclass
class LiveRun:
    """One run's live tables (see the module docstring). Use it as a context manager around the run."""

    ops: ClassVar[tuple[str, ...]] = (*GAME_OF_OP, STATIONS_OP)   # the live suite's ops: each batch played here
    target: str                               # the vendor's command line (plugin, URL: the adapter's target)
    options: SessionOptions
    base: Path                                # where the state_dir's folder is made (the run folder)
    interruptions: int = DEFAULT_INTERRUPTIONS
    enabled: bool = True
    seed: int = 0
    control: VendorInstance | None = None
    plan: LivePlan | None = None
    plan_kept: bool = False                   # the plan is in the run's meta
    state_dir: str | None = None
    state_view: str | None = None             # where the harness reads it (not root: through its holder)
    cleanup_failure: str | None = None        # why the state_dir could not be removed (the run goes on)
    recheck: Callable[[], None] | None = None  # the vendor's build checked at every restart (VendorFault when changed)
    adapter: str = "subprocess"               # the adapter that reaches the vendor (its live sessions)
    _stack: ExitStack = field(default_factory=ExitStack)

    def __enter__(self) -> LiveRun:
        return self

    def __exit__(self, *exc: object) -> None:
        """The vendor instance closed and the state_dir removed; a removal that fails is kept in
        :attr:`cleanup_failure` (:func:`record_cleanup` puts it in the run's record), never raised:
        what the vendor left cannot cost the run its outputs."""
        try:
            if self.control is not None:
                self.control.drop()
        finally:
            try:
                self._stack.close()
            except OSError as err:
                self.cleanup_failure = f"the state_dir was not removed: {err}"

    def unit(self, batch: Batch, context: LiveContext) -> LiveBatch:
        """A live batch of the run's suite as a unit of the run pipeline
        (:func:`tablecert.harness.run.judging.judge` plays it)."""
        return LiveBatch(self, batch, context.suite, context.meta)

    @property
    def vendor(self) -> VendorTarget:
        """The run's vendor as its adapter reaches it."""
        return VendorTarget(self.adapter, self.target, self.options)

    def scope(self) -> str | None:
        """Why this run's live tables cannot be played over its adapter (None: they can)."""
        return self.vendor.live_scope()

    def instance(self, began: Identity) -> VendorInstance:
        """The vendor instance on this run's state_dir (made on first use), each instance checked
        to be the vendor ``began`` (the run's), its build unchanged."""
        if self.control is None:
            vendor = self.vendor
            remove_stale_state(self.base)
            limit = self.options.max_state_mb
            self.state_dir = self._stack.enter_context(vendor_state_dir(self.base, vendor.state_owner(), limit))
            holder = (self._stack.enter_context(state_holder(self.state_dir, limit))   # ended first, then removed
                      if vendor.starts_vendor() else None)
            self.state_view = state_view(self.state_dir, holder)
            vendor = replace(vendor, options=replace(self.options, state_holder=holder))
            self.control = VendorInstance(vendor.live_opener(self.state_dir), began=began, on_hello=self._rechecked)
        return self.control

    def _rechecked(self, hello: Hello) -> None:
        """The vendor's build unchanged at each instance's start (a stat of every file; only one
        whose size, time or inode moved is read again)."""
        if self.recheck is not None:
            self.recheck()

    def plan_of(self, suite: SuiteRun, book: MetaBook) -> LivePlan:
        """The interruption plan over the run's whole live suite (kept in the run's meta)."""
        if self.plan is None:
            batches = [batch for batch in iter_batches(suite.suite_dir, suite.batch_size) if batch.op in self.ops]
            vectors = [((batch.file, tc), len(case["steps"]), first_cut(flags))
                       for batch in batches for tc, case, flags in zip(batch.tc_ids, batch.cases, batch.flags)]
            single = {batch.file for batch in batches if batch.op in GAME_OF_OP}   # the life cuts' tables
            self.plan = plan_interruptions(vectors, self.interruptions, self.seed, self.enabled,
                                           lambda key: key[0] in single)
        if not self.plan_kept:          # once per run (a plan given by a test too)
            self.plan_kept = True
            book.set_meta(live={**self.plan.meta(), "interruptions_enabled": self.enabled,
                                "state_dir": state_dir_words(self.vendor.starts_vendor())})
        return self.plan


STATE_DIR_KEPT = ("a fresh folder for the run, 0700, owned by the vendor's user, bound writable into its sandbox, "
                  "kept across restarts, removed at the end")
STATE_DIR_MOUNTED = STATE_DIR_KEPT + ("; a file system of its own of --max-state-mb (tmpfs): the write that "
                                      "would cross it is refused")
STATE_DIR_HELD = STATE_DIR_MOUNTED + (" (not root: mounted in a user and mount namespace of the lab's own, which "
                                      "every instance of the vendor enters, ended with the run)")
STATE_DIR_MEASURED = STATE_DIR_KEPT + ("; measured after every answer against --max-state-mb (no file system of "
                                       "its own could be mounted here: root without CAP_SYS_ADMIN, or no user "
                                       "namespaces)")


def state_dir_words(starts_vendor: bool = True) -> str:
    """How this process bounds a run's state_dir, as the run records it (summary.json's ``live``);
    ``starts_vendor``: the harness starts the vendor (not a server the lab runs), so a holder's
    namespaces can be entered."""
    return (STATE_DIR_MOUNTED if state_mounts() else STATE_DIR_HELD if starts_vendor and state_holds()
            else STATE_DIR_MEASURED)


def record_cleanup(live: LiveRun | None, book: MetaBook) -> None:
    """Put a failed removal of the run's state_dir (:attr:`LiveRun.cleanup_failure`) in the run's
    ``live`` meta (``state_dir_cleanup``; summary.json's ``live`` shows it)."""
    if live is not None and live.cleanup_failure is not None:
        note_live(book, state_dir_cleanup=live.cleanup_failure)


def note_live(book: MetaBook, **values: Any) -> None:
    """``values`` added to the run's ``live`` meta (summary.json's ``live``)."""
    book.set_meta(live={**(book.run_meta().live or {}), **values})


def supports_live(hello: Any) -> bool:
    """Whether a vendor's hello declares every live-table op (in tablecert-vendor/2)."""
    ops = hello.raw.get("ops") if isinstance(hello.raw, dict) else None
    return hello.protocol == V2 and isinstance(ops, list) and all(op in ops for op in LIVE_OPS)


@dataclass(frozen=True)
class LiveBatch:
    """One batch of the live suite as a unit of the run pipeline: played through its own instance
    of the vendor on the run's state_dir (the run's instance is dropped first: one instance of the
    vendor at a time), and judged step by step (:func:`~tablecert.harness.live.driver.judge_live`);
    a vendor that does not declare every live op (or speaks ``tablecert-vendor/1``) gets it as
    *unsupported*."""

    live: LiveRun
    batch: Batch
    suite: SuiteRun
    meta: MetaBook                 # the run's meta in run.db

    def play(self, instance: VendorInstance) -> BatchOutcome:
        fault = instance.greeting_fault(self.batch, "greeting the vendor before its live tables")
        if fault is not None:               # a fault of the run's vendor, kept; its tables not played
            return fault
        if instance.hello is None or instance.began is None or not supports_live(instance.hello):
            return whole_batch(self.batch, BatchStatus.UNSUPPORTED, Outcome.UNSUPPORTED)
        scope = self.live.scope()
        if scope is not None:               # the adapter cannot cut this vendor: scoped out, said on page 1
            note_live(self.meta, not_played=scope)
            return whole_batch(self.batch, BatchStatus.UNSUPPORTED, Outcome.UNSUPPORTED)
        plan = self.live.plan_of(self.suite, self.meta)
        player: Callable[..., None] | None = None
        declared = declared_features(instance.hello)
        features = None
        if self.batch.op == STATIONS_OP:
            features = self.features(declared, [] if undeclared(self.batch.cases, declared) else self.batch.cases)
            if undeclared(self.batch.cases, declared):
                return replace(whole_batch(self.batch, BatchStatus.UNSUPPORTED, Outcome.UNSUPPORTED),
                               live_features=features)
            player = StationPlayer(instance.hello.build, "meters" in declared)
        elif GAME_OF_OP[self.batch.op] == "paigow":
            features = self.features(declared, [])
            if PAIGOW_RECORDS in declared:
                player = PaigowPlayer(instance.hello.build)
        instance.drop()
        outcome = judge_live(self.live.instance(instance.began), self.batch, plan, player)
        outcome.live_features = features        # written with the batch: the run's are every batch's together
        return outcome

    def features(self, declared: tuple[str, ...], played: list[Any]) -> LiveFeatures:
        """The table features of this batch (run.db's ``live_features``; summary.json's
        ``live.features``, every batch's together): those the vendor declared, those the station
        vectors played tested (``records``, the record fields, with any station table; ``meters``
        when declared), ``paigow_records`` when declared and a pai gow batch is played, and those
        it did not declare."""
        tested: set[str] = set()
        for case in played:
            tested.update(features_of(case))
            tested.update(["records"] + (["meters"] if "meters" in declared else []))
        if self.batch.op != STATIONS_OP and PAIGOW_RECORDS in declared:
            tested.add(PAIGOW_RECORDS)
        return LiveFeatures(tuple(declared), tuple(f for f in TABLE_FEATURES if f in tested),
                            tuple(f for f in (*FEATURES, PAIGOW_RECORDS) if f not in declared))


def live_summary(meta: dict[str, Any], totals: dict[str, dict[str, int]]) -> dict[str, Any]:
    """``summary.json``'s ``live``: the run's ``live`` meta (the plan) and the interruptions made
    and survived, in all (the power cuts: a storm's cuts each, steps sent again apart) and by kind,
    from the run database's ``interruption`` counts."""
    by_kind = {m: {"made": totals.get(m, {}).get("made", 0), "survived": totals.get(m, {}).get("survived", 0)}
               for m in ALL_KINDS}
    cuts = [k for m, k in by_kind.items() if m in CUT_KINDS]
    return {**meta, "interruptions": {"made": sum(k["made"] for k in cuts),
                                      "survived": sum(k["survived"] for k in cuts), "by_kind": by_kind}}


LIVE_SUITE_OPS = LiveRun.ops
"""The live suite's ops (``craps.table``, ``paigow.table``): each batch of them is played here."""
__all__ = ["DIMENSION", "LIVE_SUITE_OPS", "LiveBatch", "LiveRun", "LiveSettings", "live_summary", "record_cleanup",
           "supports_live"]
