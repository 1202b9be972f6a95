"""Running a suite against a vendor: batches out, answers judged, results into the run database.

A :class:`Runner` is one run: what it is asked is a :class:`~tablecert.harness.run.options.RunOptions`.
It streams batches from the suite folder (memory bounded by one batch), skips batches a previous
run already recorded (``resume``; with ``checkpoints``, as ``certify`` runs it, every commit to the
run database is checkpointed by the run key and a resumed database must still hold what its last
checked checkpoint covers, :mod:`tablecert.harness.record.chain`), and hands each to the run pipeline (:mod:`tablecert.harness.run`):
``judge`` sends it through the run's :class:`~tablecert.harness.instance.vendor_instance.VendorInstance` and
judges every answer, the :class:`~tablecert.harness.run.recorder.Recorder` records the batch
atomically. Ops the vendor did not list in ``hello`` are *unsupported*. A vendor fault (crash, hang, malformed answer ...) is handled by
:mod:`tablecert.harness.instance.recovery`: the vendor is restarted, the batch retried, then bisected to
the case that kills the vendor; vectors left unanswered are ``fault``. Any fault, even one a
retry recovered, makes the run's verdict ``fail`` (:mod:`tablecert.harness.record.verdict` decides it,
with the scope the lab requires). A vendor that cannot be started or greeted ends the run with
:class:`VendorNotGreeted`, after the run database records why (a fault, unless the program could
not be executed at all) so that ``summary.json`` can be written.

The hand-stream suites (``joker``, ``exhaustive``) run through :mod:`tablecert.harness.run.hand_runner`,
a parallel run through ``options.parallel`` (:mod:`tablecert.parallel`): the same pipeline, the
same outcomes and database, without Python work per case while answers are right. A parallel run
and the live tables are given what they need of the run as narrow contexts
(:mod:`tablecert.harness.instance.context`), never the Runner.
Their requests hold ``hand_batch_size`` hands (kept in the run's meta so a resumed run meets the
same batches): by default :data:`~tablecert.harness.run.hand_batches.DEFAULT_HAND_BATCH_SIZE` when the
batch size is the generic default, else the batch size asked for.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import platform
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tablecert import __version__
from tablecert.harness.answers.capabilities import Capabilities, mark_batch, split_require
from tablecert.harness.contract import (AsksOptionalOps, FaultKind, Hello, VendorFault, VendorSession, bound_of,
                                       isolation_of, limits_of)
from tablecert.harness.run.hand_slices import SliceError, check_slice
from tablecert.harness.instance.recovery import FaultPolicy
from tablecert.harness.model import Decision, RunMeta, Verdict
from tablecert.harness.instance.stats import InstanceStats
from tablecert.harness.record.judged_record import JudgedRecord
from tablecert.harness.store import RunStore
from tablecert.harness.record.seal import SealError
from tablecert.harness.run import RunError
from tablecert.harness.instance.context import LiveContext, LiveTables, RunVendor, SpreadContext, SuiteRun
from tablecert.harness.instance.vendor_instance import VendorInstance, describe, identity_of, same_vendor
from tablecert.harness.run.judging import judge
from tablecert.harness.run.options import RunOptions
from tablecert.harness.run.recorder import Recorder
from tablecert.harness.instance.vectors import judge_batch, passed_batch, whole_batch
from tablecert.harness.run.rerun import RerunSelection, chosen_batches
from tablecert.harness.run.vendor_build import AUTHENTICATE, VendorBuild, archive_vouched, vendor_answer
from tablecert.harness.suites.reader import count_cases, iter_batches
from tablecert.harness.record.verdict import ScopeError, required_ops, suite_ops
from tablecert.oracle.names import HAND_FILE, HAND_SUITES
from tablecert.oracle.profiles import load_profile
from tablecert.vectors.checks import load_manifest

__all__ = ["DEFAULT_BATCH_SIZE", "RunError", "RunOptions", "RunResult", "Runner", "VendorNotGreeted", "judge_batch",
           "passed_batch", "whole_batch"]

DEFAULT_BATCH_SIZE = 1000


class VendorNotGreeted(RunError):
    """The vendor could not be started or never answered ``hello``: the run database says why
    and holds the verdict ``incomplete`` (nothing judged) or stays resumable."""


@dataclass
class RunResult:
    verdict: Verdict                   # pass | scoped_pass | fail | incomplete
    totals: dict[str, int]             # outcome -> vectors
    run_dir: Path
    stats: InstanceStats               # this invocation's instance's (one-worker runs)


START_FAILURE_STDERR = 2000    # characters of a start failure's stderr kept in the run's history


def last_stderr_line(tail: str) -> str:
    """The last non-empty line a vendor wrote on stderr (empty if none)."""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def manifest_digest(suite_dir: Path) -> str:
    return hashlib.sha256((suite_dir / "manifest.json").read_bytes()).hexdigest()


class Runner:
    """One run of one suite against one vendor (see the module docstring)."""

    def __init__(self, open_session: Callable[[], VendorSession], suite_dir: Path, run_dir: Path,
                 options: RunOptions | None = None, **choices: Any) -> None:
        """``options``: the run's choices (:class:`~tablecert.harness.run.options.RunOptions`);
        ``choices``: some of them by name instead (``Runner(open, suite, out, batch_size=500)``),
        in place of those of ``options``."""
        options = replace(options or RunOptions(), **choices)
        self.options = options
        self.open_session = open_session
        self.suite_dir, self.run_dir = suite_dir, run_dir
        self.batch_size = options.batch_size or DEFAULT_BATCH_SIZE
        self.max_hands = options.max_hands
        self.parallel = options.parallel
        run_dir.mkdir(parents=True, exist_ok=True)
        db_path = run_dir / "run.db"
        if db_path.exists() and not options.resume:
            raise RunError(f"{db_path} exists: continue it with --resume, or choose a new run folder")
        self.db = RunStore(db_path)
        judged = JudgedRecord(self.db)
        if options.checkpoints is not None:
            try:
                options.checkpoints.attach(self.db, judged)
            except SealError:
                self.db.close()
                raise
        manifest = load_manifest(suite_dir)
        digest = manifest_digest(suite_dir)
        meta = self.db.meta()
        if meta and RunMeta.of(meta).suite_manifest_sha256 != digest:
            raise RunError(f"{db_path} belongs to a run of another suite (manifest "
                           f"{RunMeta.of(meta).suite_manifest_sha256})")
        self.run_meta = dict(options.run_meta)
        if not meta:
            self.db.set_meta(tablecert_version=__version__, host=platform.node(), started=utc_now(),
                             suite=manifest["suite"], suite_manifest_sha256=digest, profile=manifest["profile"],
                             state="running", **self.run_meta)
        self._scope_meta(manifest, digest, options.require)
        if options.build is not None:
            self._record_build(options.build)
        self.hand_suite = manifest["suite"] in HAND_SUITES
        self.hand_batch_size = self._hand_batch_size(options.hand_batch_size) if self.hand_suite else 0
        try:
            self.hand_slice, self.sliced = check_slice(self.db, manifest, options.hand_slice, options.max_hands)
        except SliceError as err:
            self.db.close()
            raise RunError(str(err)) from None
        if options.rerun is not None:
            self.sliced = self._rerun_meta(options.rerun, digest)
        self.suite_run = SuiteRun(suite_dir, self.hand_suite, self.batch_size, self.hand_batch_size, self.max_hands,
                                  self.hand_slice is not None)
        self.hello: Hello | None = None
        self.live: LiveTables | None = None     # plays the live suite's batches (tablecert.harness.live.run.LiveRun)
        self.capabilities = Capabilities()
        self.instance = VendorInstance(open_session, options.policy or FaultPolicy(), on_first_hello=self._first_hello,
                                       kinds_kept=self.db.fault_kinds(), unanswered_runs=self.db.unanswered_runs(),
                                       timeouts=self.db.op_timeouts())
        self.recovery = self.instance.recovery
        self.recorder = Recorder(self.db, stop_after_failures=options.stop_after_failures,
                                 max_run_answer_bytes=options.max_run_answer_bytes,
                                 max_run_seconds=options.max_run_seconds, progress=options.progress, judged=judged)
        self.recorder.answer_bytes = lambda: self.instance.answer_bytes

    def _scope_meta(self, manifest: dict[str, Any], digest: str, require: str | None) -> None:
        """Keep the suite's ops and size, and the ops required, in the meta (the verdict reads them)."""
        ops = suite_ops(manifest)
        stored = self.db.run_meta().required_ops
        try:
            require, features = split_require(require)
        except ValueError as err:
            raise ScopeError(str(err)) from None
        if require is None and stored is not None:
            required = stored
            features = features or self.db.run_meta().required_features or []
        else:
            scope = None
            if (require or "").strip() == "profile":
                scope = load_profile(manifest["profile"]["id"]).scope
            required = required_ops(require, ops, scope)
        self.scope_meta = {"suite_ops": ops, "suite_tests": int(manifest["numberOfTests"]), "required_ops": required,
                           "required_features": features, "suite_manifest_sha256": digest}
        self.db.set_meta(**self.scope_meta)

    def _record_build(self, build: VendorBuild) -> None:
        """Record the vendor's build as bound; a resumed run goes on only with the build it began with."""
        recorded = self.db.run_meta().build or {}
        if recorded.get("signature") not in (None, build.listing.signature):
            self.db.close()
            raise RunError(f"this run began with the vendor's build {recorded['signature'][:16]}...; its files now "
                           f"give {build.listing.signature[:16]}...: a run is resumed only with the build it began "
                           "with (start a new run folder)")
        if not recorded.get("signature"):
            self.db.put_build(build.rows(), build.meta())

    def _check_build(self, build: VendorBuild) -> None:
        """The vendor's files digested again as the run ends: any change is a ``build_changed``
        fault naming the first file, which fails the run."""
        changed = build.changed()
        if changed:
            more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
            self.db.record_start_fault(FaultKind.BUILD_CHANGED.value, f"the vendor's build changed during the run: "
                                       f"{changed[0]}{more}", "", then=self.recorder.judged.add_fault)

    def _rerun_meta(self, rerun: RerunSelection, digest: str) -> str:
        """Keep what a rerun sends again in the meta (``rerun_of``) and return how its verdict
        names it; RunError for a suite other than the run's it reruns, a hand suite or a spread run."""
        if digest != rerun.manifest_sha256 or self.hand_suite or self.parallel is not None:
            self.db.close()
            raise RunError(f"a rerun of {rerun.run} runs its vectors alone, one worker, against the suite it ran "
                           f"(manifest sha256 {rerun.manifest_sha256[:16]}...; this suite's {digest[:16]}...)")
        self.db.set_meta(rerun_of=rerun.meta())
        return rerun.describe()

    def _hand_batch_size(self, asked: int | None) -> int:
        """Hands per request of this hand-suite run: the one the run started with (meta, or for a
        run database without it the size of its first batch), else the one asked for."""
        stored = self.db.run_meta().hand_batch_size
        if stored is None:
            stored = self.db.batch_size_of(HAND_FILE)
        if stored is not None:
            if asked is not None and asked != stored:
                raise RunError(f"this run sends {stored} hands per request; it cannot resume with {asked}")
            size = int(stored)
        else:
            from tablecert.harness.run.hand_batches import DEFAULT_HAND_BATCH_SIZE  # lazy: numba, 465 ms of certify's imports (bench_startup.py, load 4): hand suites only

            size = asked or self.options.batch_size or DEFAULT_HAND_BATCH_SIZE
        if size < 1:
            raise RunError(f"hand batch size {size} must be at least 1")
        self.db.set_meta(hand_batch_size=size)
        return size

    # -- the vendor
    def _first_hello(self, session: VendorSession, hello: Hello) -> None:
        """This invocation's first greeting: a resumed run goes on only with the vendor (and the
        contract version) it began with; the vendor, its hello, how it is confined and its
        limits go into the meta."""
        identity = identity_of(hello)
        recorded = self.db.run_meta().vendor
        if recorded is not None and not same_vendor(recorded, identity):
            raise RunError(f"this run is of {describe(recorded)}; the vendor now says it is {describe(identity)}: "
                           "a run is resumed only with the vendor it began with (start a new run folder)")
        if (self.db.run_meta().protocol or hello.protocol) != hello.protocol:
            raise RunError(f"this run speaks {self.db.run_meta().protocol}; the vendor now speaks "
                           f"{hello.protocol} (start a new run folder)")
        if recorded is None:        # first identified now: how it was reached is this attempt's
            self.db.set_meta(**{k: v for k, v in self.run_meta.items() if k in ("adapter", "target")})
        self.hello = hello
        self.capabilities = Capabilities.from_declaration(hello.raw.get("capabilities"))
        self.db.set_meta(vendor_hello=dict(hello.raw), vendor=identity, protocol=hello.protocol,
                         vendor_capabilities=hello.raw.get("capabilities"),
                         isolation=isolation_of(session) or "unknown (outside adapter)",
                         vendor_limits=limits_of(session), vendor_bound=bound_of(session))
        if self.options.build is not None:
            self._vouched(self.options.build, session, hello, identity)

    def _vouched(self, build: VendorBuild, session: VendorSession, hello: Hello, identity: dict[str, Any]) -> None:
        """What the meta ``build`` adds once the vendor is greeted: its own answer to
        ``build.authenticate`` when it declares it (a wrong one is a ``build_authentication`` fault
        naming the file, which fails the run; for an HTTP vendor's files copied by the lab, whether
        its answers authenticate them), and the note against the lab's previous run."""
        wrong: str | None = None
        added: dict[str, Any] = {}
        answered = False
        if AUTHENTICATE in (hello.raw.get("ops") or []) and isinstance(session, AsksOptionalOps):
            answered, wrong = True, vendor_answer(session, build)
            added["vendor_answer"] = "matched" if wrong is None else wrong
        recorded = self.db.run_meta().build or build.meta()
        if build.archive is not None:        # an HTTP vendor's files as the lab copied them: its answers vouch
            recorded, added = archive_vouched(build, wrong, answered), {"source": "archive"}
        note = build.against_previous(identity)
        if note is not None:
            added["previous"] = note
        if added:
            self.db.set_meta(build={**recorded, **added})
        if wrong is not None:
            self.db.record_start_fault(FaultKind.BUILD_AUTHENTICATION.value, wrong, "",
                                       then=self.recorder.judged.add_fault)

    @property
    def progress(self) -> Callable[[int, int], None] | None:
        return self.recorder.progress

    def should_stop(self) -> bool:
        """True once nothing more is to be sent (:meth:`~tablecert.harness.run.recorder.Recorder.should_stop`)."""
        return self.recorder.should_stop()

    def run(self) -> RunResult:
        done = self.db.done_batches()
        total = count_cases(self.suite_dir)
        connection = self.parallel.start() if self.parallel is not None else None    # beside the greeting
        try:
            try:
                self.instance.session()
            except VendorFault as err:
                self._not_greeted(err, bool(done))
            if self.hand_suite:
                from tablecert.harness.run.hand_runner import note_hand_suite, run_hands  # lazy: numba, 484 ms of certify's imports (bench_startup.py, load 4): hand suites only

                note_hand_suite(self)
            if self.parallel is not None:
                self.parallel.run(self._spread_context(), done, total, connection)
            elif self.hand_suite:
                run_hands(self, done, total)
            else:
                self._run_batches(done, total)
        finally:
            if connection is not None:
                connection.cancel()
            self.instance.drop()
        if self.options.build is not None:
            self._check_build(self.options.build)
        self.db.set_meta(finished=utc_now(), state="finished", **({"sliced": self.sliced} if self.sliced else {}))
        decision = self._conclude()
        result = RunResult(decision.verdict, self.db.outcome_totals(), self.run_dir, self.instance.stats)
        self.db.close()
        return result

    def _spread_context(self) -> SpreadContext:
        """What a spread run is given of this run, its vendor greeted (see :mod:`tablecert.harness.instance.context`)."""
        assert self.hello is not None and self.instance.began is not None
        vendor = RunVendor(self.open_session, self.instance.began, self.recovery.policy,
                           frozenset(self.db.fault_kinds()), self.db.run_meta().isolation, self.capabilities)
        return SpreadContext(self.suite_run, vendor, self.db, self.recorder, self.recovery.give_up,
                             self.instance.hand_over)

    def _conclude(self) -> Decision:
        return self.recorder.conclude(self.scope_meta)

    def _not_greeted(self, err: VendorFault, resumed: bool) -> None:
        """Record why the vendor could not be started or greeted, then raise VendorNotGreeted (its
        message ends with the vendor's last stderr line: the sandbox's own reason when it could
        not be set up). A vendor this run already identified that then does not answer ``hello``
        properly committed a fault (it stays with the run); an attempt before the vendor was ever
        identified (a typo in the command, a missing library, a sandbox that cannot be set up) is
        a start failure of that attempt, kept in the meta's ``start_failures`` (the run's history),
        which does not fail a resumed run."""
        why = f"{err.kind.value}: {err.detail}"
        last = last_stderr_line(err.stderr_tail)
        if last:
            why += f"; the vendor's last line on stderr: {last}"
        if self.db.run_meta().vendor is None or err.kind is FaultKind.START:
            history = list(self.db.run_meta().start_failures or [])
            history.append({"at": utc_now(), "kind": err.kind.value, "detail": err.detail,
                            "stderr": err.stderr_tail[-START_FAILURE_STDERR:]})
            self.db.set_meta(start_failures=history)
        else:
            self.db.record_start_fault(err.kind.value, err.detail, err.stderr_tail, then=self.recorder.judged.add_fault)
        if not resumed:
            self.db.set_meta(state="not_started", not_started=why, finished=utc_now())
            self._conclude()
        self.db.close()
        raise VendorNotGreeted(f"vendor could not be started or greeted: {why}") from err

    def _run_batches(self, done: set[tuple[str, str, int]], total: int) -> None:
        """The one-worker loop of a vector-set suite: each batch not yet recorded, marked with the
        vendor's declared capabilities, judged through the run's instance and recorded."""
        seen = 0
        live = LiveContext(self.suite_run, self.db)
        batches = iter_batches(self.suite_dir, self.batch_size)
        if self.options.rerun is not None:           # only the vectors that failed or faulted in the run rerun
            batches, total = chosen_batches(batches, self.options.rerun.vectors), len(self.options.rerun.vectors)
        for batch in batches:
            seen += len(batch.cases)
            if batch.key in done:
                continue
            mark_batch(batch, self.capabilities)
            unit = self.live.unit(batch, live) if self.live is not None and batch.op in self.live.ops else batch
            self.recorder.record(judge(self.instance, unit))
            self.recorder.advance(seen, total)
            if self.recorder.should_stop():
                break
