"""Running a suite against a vendor: batches out, answers judged, results into the run database.

The runner streams batches from the suite folder (memory bounded by one batch), skips batches a
previous run already recorded (``resume``), sends each through a :class:`VendorSession`, judges
every answer, and records the batch atomically. Ops the vendor did not list in ``hello`` are
*unsupported*. A vendor fault (crash, hang, malformed answer ...) is handled by
:mod:`tablecert.harness.recovery`: the vendor is restarted, the batch retried, then bisected to
the case that kills the vendor; vectors left unanswered are ``fault``. Any fault, even one a
retry recovered, makes the run's verdict ``fail`` (:mod:`tablecert.harness.verdict` decides it,
with the scope the lab requires). A vendor that cannot be started or greeted ends the run with
:class:`VendorNotGreeted`, after the run database records why (a fault, unless the program could
not be executed at all) so that ``summary.json`` can be written.

The hand-stream suites (``joker``, ``exhaustive``) run through :mod:`tablecert.harness.hand_runner`:
the same batches, outcomes and database, without Python work per case while answers are right.
Their requests hold ``hand_batch_size`` hands (kept in the run's meta so a resumed run meets the
same batches): by default :data:`~tablecert.harness.hand_runner.DEFAULT_HAND_BATCH_SIZE` when the
batch size is the generic default, else the batch size asked for.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import platform
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import chain, compress
from pathlib import Path
from typing import Any

from tablecert import __version__
from tablecert.harness.bulk_judge import Expected, confirms_line, confirms_values
from tablecert.harness.contract import FaultKind, Hello, VendorFault, VendorSession
from tablecert.harness.hand_failures import judge_hand_batch
from tablecert.harness.hand_slices import HandSlice, SliceError, check_slice
from tablecert.harness.hand_runner import DEFAULT_HAND_BATCH_SIZE, HAND_FILE, HAND_SUITES, note_hand_suite, run_hands
from tablecert.harness.capabilities import (UNSUPPORTED_DIMENSION, Capabilities, count_features, features_of,
                                            mark_batch, split_require)
from tablecert.harness.judge import (CONFUSION_KEYS, REFUSAL_OPS, is_refusal, label_counts, label_of, passes,
                                     refusal_bet, refusal_bets, refusal_table)
from tablecert.harness.protocol_versions import V1, run_v1
from tablecert.harness.recovery import FaultPolicy, Recovery
from tablecert.harness.round_findings import divergence_note
from tablecert.harness.results import BatchOutcome, RunDatabase, dumps, stored_answer, stored_expected
from tablecert.harness.suite_reader import Batch, count_cases, iter_batches
from tablecert.harness.judged import JudgedRecord, TamperedRunDatabase
from tablecert.harness.verdict import Decision, ScopeError, conclude, required_ops, suite_ops
from tablecert.oracle.live_tables import GAME_OF_OP as LIVE_SUITE_OPS
from tablecert.vectors.checks import load_manifest

DEFAULT_BATCH_SIZE = 1000


class RunError(Exception):
    """A run that cannot start or go on (the vendor cannot be started or greeted, a run folder
    that belongs to another run)."""


class VendorNotGreeted(RunError):
    """The vendor could not be started or never answered ``hello``: the run database says why
    and holds the verdict ``incomplete`` (nothing judged) or stays resumable."""


@dataclass
class RunResult:
    verdict: str                       # pass | scoped_pass | fail | incomplete
    totals: dict[str, int]             # outcome -> vectors
    run_dir: Path


START_FAILURE_STDERR = 2000    # characters of a start failure's stderr kept in the run's history


def last_stderr_line(tail: str) -> str:
    """The last non-empty line a vendor wrote on stderr (empty if none)."""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def judge_batch(batch: Batch, results: list[Any]) -> BatchOutcome:
    """Judge every answer of a batch; failures keep inputs, expected and actual (a hand suite's as
    codes, :mod:`tablecert.harness.hand_failures`). A vector outside the vendor's declared
    capabilities is counted ``unsupported``, not judged (harness/capabilities.py). A batch whose
    answers all pass (and none outside) is counted in bulk: :mod:`tablecert.harness.bulk_judge`."""
    if batch.file == HAND_FILE:
        return judge_hand_batch(batch, results)
    if not features_of(batch)[1] and confirms_values(results, Expected.of(batch.expected)):
        return passed_batch(batch)
    out = BatchOutcome(batch.file, batch.op, batch.tc_ids[0], len(batch.cases), "done")
    features, outside = features_of(batch)
    carried = []
    config_json = table_key = None
    craps = batch.op.startswith("craps.")
    label_key = CONFUSION_KEYS.get(batch.op)
    for i, actual in enumerate(results):
        expected = batch.expected[i]
        tc_id = batch.tc_ids[i]
        if tc_id in outside:
            _count(out.counts, batch.op, batch.clauses[i], batch.flags[i], "unsupported")
            out.counts[(UNSUPPORTED_DIMENSION, outside[tc_id], "unsupported")] += 1
            carried.append((features[tc_id], "unsupported"))
            continue
        ok = passes(expected, actual)
        outcome = "pass" if ok else "fail"
        _count(out.counts, batch.op, batch.clauses[i], batch.flags[i], outcome)
        if batch.op in REFUSAL_OPS and (refused := is_refusal(expected, actual)) is not None:
            answer = "refused" if refused else "answered"
            table_key = table_key or refusal_table(batch.op, dumps(batch.config))
            out.counts[("table", table_key, answer)] += 1
            if craps and (bet := refusal_bet(batch.cases[i])) is not None:
                out.counts[("bet", bet, answer)] += 1
        carried.append((features[tc_id], outcome))
        if label_key is not None:
            label = label_of(expected, label_key)
            out.confusion[(batch.op, label, label if ok else label_of(actual, label_key))] += 1
        if not ok:
            config_json = config_json or dumps(batch.config)
            out.failures.append((batch.file, batch.op, batch.tg_id, tc_id, config_json, dumps(batch.cases[i]),
                                 stored_expected(expected), stored_answer(actual), dumps(batch.flags[i]),
                                 dumps(batch.clauses[i]), _comment(batch, i, actual)))
    count_features(out.counts, Counter(carried))
    return out


def _comment(batch: Batch, i: int, actual: Any) -> str:
    """A failing vector's comment as kept in the run database; a round's with where it departs
    (:func:`~tablecert.harness.round_findings.divergence_note`)."""
    comment = batch.comments[i] if batch.comments else ""
    if batch.op == "craps.round" and "result" in batch.expected[i]:
        note = divergence_note(batch.cases[i], batch.expected[i]["result"], actual)
        return f"{comment} | {note}" if note else comment
    return comment


def passed_batch(batch: Batch) -> BatchOutcome:
    """Every vector of ``batch`` (none outside the declared capabilities) passed: what judging each
    answer would count (:func:`judge_batch`): the counts, the confusion diagonal, and every
    vector that expected a result counted as answered for its table and bet. It depends on the
    batch alone, and is counted with C-level counting (``tests/test_passed_batch.py`` checks it
    against a plain case-by-case count)."""
    out = whole_batch(batch, "done", "pass")
    label_key = CONFUSION_KEYS.get(batch.op)
    if label_key is not None:
        for label, n in label_counts(batch.expected, label_key).items():
            out.confusion[(batch.op, label, label)] += n
    if batch.op in REFUSAL_OPS:
        answered = ["result" in e for e in batch.expected]
        if any(answered):
            out.counts[("table", refusal_table(batch.op, dumps(batch.config)), "answered")] += sum(answered)
        if batch.op.startswith("craps."):
            for bet, n in refusal_bets(list(compress(batch.cases, answered))).items():
                if bet is not None:
                    out.counts[("bet", bet, "answered")] += n
    return out


def judge_raw_batch(session: Any, batch: Batch) -> BatchOutcome:
    """Send ``batch`` through a session that returns raw answer lines (``batch_raw``): an answer
    :func:`~tablecert.harness.bulk_judge.confirms_line` confirms passes in bulk, any other is
    decoded and checked as ``session.batch`` would, then judged case by case."""
    rid, answer = session.batch_raw(batch.op, batch.config, batch.cases)
    if not features_of(batch)[1] and confirms_line(answer, rid, batch.op, Expected.of(batch.expected)):
        return passed_batch(batch)
    return judge_batch(batch, session.decode_batch_answer(answer, rid, len(batch.cases), batch.op))


def _count(counts: Counter[tuple[str, str, str]], op: str, clauses: Iterable[str], flags: Iterable[str],
           outcome: str) -> None:
    counts[("op", op, outcome)] += 1
    for c in clauses:
        counts[("clause", c, outcome)] += 1
    for f in flags:
        counts[("flag", f, outcome)] += 1
        counts[("op_flag", f"{op} {f}", outcome)] += 1


def whole_batch(batch: Batch, status: str, outcome: str) -> BatchOutcome:
    """Every vector of a batch counted with one outcome (those outside the declared capabilities
    ``unsupported``): each clause, flag and feature counted once per outcome with C-level counting
    (what :func:`_count` per vector would add up to)."""
    out = BatchOutcome(batch.file, batch.op, batch.tc_ids[0], len(batch.cases), status)
    features, outside = features_of(batch)
    groups = [(outcome, batch.clauses, batch.flags, batch.tc_ids)]
    if outside:
        reasons = list(map(outside.get, batch.tc_ids))
        inside, unsupported = [not r for r in reasons], [bool(r) for r in reasons]
        groups = [(result, list(compress(batch.clauses, chosen)), list(compress(batch.flags, chosen)),
                   list(compress(batch.tc_ids, chosen))) for result, chosen in ((outcome, inside),
                                                                                ("unsupported", unsupported))]
        for reason, n in Counter(compress(reasons, unsupported)).items():
            out.counts[(UNSUPPORTED_DIMENSION, reason, "unsupported")] += n
    for result, clauses, flags, tc_ids in groups:
        if not tc_ids:
            continue
        out.counts[("op", batch.op, result)] += len(tc_ids)
        for c, n in Counter(chain.from_iterable(clauses)).items():
            out.counts[("clause", c, result)] += n
        for f, n in Counter(chain.from_iterable(flags)).items():
            out.counts[("flag", f, result)] += n
            out.counts[("op_flag", f"{batch.op} {f}", result)] += n
        count_features(out.counts, {(f, result): n for f, n in Counter(map(features.__getitem__, tc_ids)).items()})
    return out


def _identity(hello: Hello) -> dict[str, Any]:
    """What a hello says the vendor is (kept in the run's meta as ``vendor``), with its declared
    capabilities when it declares any."""
    declared = {"capabilities": hello.raw["capabilities"]} if "capabilities" in hello.raw else {}
    return {"name": hello.name, "version": hello.version, "build": hello.build, "ops": list(hello.ops),
            "protocol": hello.protocol, **declared}


def _who(identity: dict[str, Any]) -> str:
    """A vendor's identity from its hello, for messages (its strings shortened)."""
    ops = ", ".join(identity.get("ops", []))
    return (f"{str(identity.get('name'))[:60]!r} {str(identity.get('version'))[:30]!r} "
            f"build {str(identity.get('build'))[:60]!r} (ops {ops or 'none'})")


def _same_vendor(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same implementation (name, version, build) with the same ops, in any order, speaking the
    same contract version, with the same declared capabilities."""
    return ({k: a.get(k) for k in ("name", "version", "build")} == {k: b.get(k) for k in ("name", "version", "build")}
            and sorted(a.get("ops", [])) == sorted(b.get("ops", [])) and a.get("capabilities") == b.get("capabilities")
            and a.get("protocol", V1) == b.get("protocol", V1))


def restarted_as_before(session: VendorSession, identity: dict[str, Any], began: dict[str, Any]) -> None:
    """A restarted (or another) instance of the vendor must say it is the vendor the run began
    with; otherwise it is closed and that is a ``bad_hello`` fault."""
    if not _same_vendor(identity, began):
        session.close()
        raise VendorFault(FaultKind.BAD_HELLO, f"the restarted vendor says it is {_who(identity)}, not {_who(began)}")


def manifest_digest(suite_dir: Path) -> str:
    return hashlib.sha256((suite_dir / "manifest.json").read_bytes()).hexdigest()


class Runner:
    """One run of one suite against one vendor (see the module docstring)."""

    def __init__(self, open_session: Callable[[], VendorSession], suite_dir: Path, run_dir: Path, *,
                 batch_size: int | None = None, policy: FaultPolicy | None = None, resume: bool = False,
                 stop_after_failures: int | None = None, run_meta: dict[str, Any] | None = None,
                 progress: Callable[[int, int], None] | None = None, hand_batch_size: int | None = None,
                 max_hands: int | None = None, require: str | None = None,
                 max_run_answer_bytes: int | None = None, hand_slice: HandSlice | None = None,
                 parallel: Any = None, max_run_seconds: float | None = None) -> None:
        """``batch_size``: cases per request (default DEFAULT_BATCH_SIZE; for a hand suite, when
        given, also the hands per request, whose default is DEFAULT_HAND_BATCH_SIZE);
        ``hand_batch_size``: hands per request of a hand suite (see the module docstring);
        ``max_hands``: run only the first hands of a hand suite (a slice, for tests and trials;
        the verdict is then ``incomplete``); ``require``: the ops the lab requires (see
        :func:`~tablecert.harness.verdict.required_ops`; default all the suite's, or on a resumed
        run the ones it began with); ``max_run_answer_bytes``: once the vendor's answers in this
        run (all sessions) pass this size, nothing more is sent, the reason is kept in the meta
        (``stopped``) and the verdict is ``incomplete``; ``hand_slice``: run only a range or a
        sample of a hand suite (:mod:`tablecert.harness.hand_slices`; never a pass); ``max_run_seconds``:
        once this invocation has run this long, nothing more is sent (``stopped``, the verdict
        ``incomplete``; ``--resume`` continues); ``parallel``: runs the batches instead of
        the one-worker loop, ``parallel.run(runner, done, total)`` (several workers, a Ray cluster,
        a shard: :class:`tablecert.parallel.ParallelOptions`)."""
        self.open_session = open_session
        self.suite_dir, self.run_dir = suite_dir, run_dir
        self.asked_batch_size = batch_size
        self.batch_size = batch_size or DEFAULT_BATCH_SIZE
        self.stop_after_failures = stop_after_failures
        self.progress = progress
        self.max_hands = max_hands
        self.hand_slice = hand_slice
        self.max_run_answer_bytes = max_run_answer_bytes
        self.max_run_seconds = max_run_seconds
        self.started = time.monotonic()
        self.over_time = False
        self.parallel = parallel
        self.answer_bytes = 0          # answers of the sessions already closed
        self.over_budget = False
        run_dir.mkdir(parents=True, exist_ok=True)
        db_path = run_dir / "run.db"
        if db_path.exists() and not resume:
            raise RunError(f"{db_path} exists: continue it with --resume, or choose a new run folder")
        self.db = RunDatabase(db_path)
        manifest = load_manifest(suite_dir)
        digest = manifest_digest(suite_dir)
        meta = self.db.meta()
        if meta and meta.get("suite_manifest_sha256") != digest:
            raise RunError(f"{db_path} belongs to a run of another suite (manifest {meta.get('suite_manifest_sha256')})")
        self.run_meta = run_meta or {}
        if not meta:
            self.db.set_meta(tablecert_version=__version__, host=platform.node(), started=utc_now(),
                             suite=manifest["suite"], suite_manifest_sha256=digest, profile=manifest["profile"],
                             state="running", **(run_meta or {}))
        self._scope_meta(manifest, digest, require)
        self.hand_suite = manifest["suite"] in HAND_SUITES
        self.hand_batch_size = self._hand_batch_size(hand_batch_size) if self.hand_suite else 0
        try:
            self.hand_slice, self.sliced = check_slice(self.db, manifest, hand_slice, max_hands)
        except SliceError as err:
            self.db.close()
            raise RunError(str(err)) from None
        self.session: VendorSession | None = None
        self.hello: Hello | None = None
        self.live: Any = None          # a tablecert.harness.live.run.LiveRun: plays the live suite's batches
        self.capabilities = Capabilities()
        self.failures = self.db.outcome_totals()["fail"]
        self.judged = JudgedRecord(self.db)
        self.recovery = Recovery(self._start, self._drop, policy or FaultPolicy(), judge_batch, whole_batch,
                                 self.db.unanswered_runs(), self.db.fault_kinds())

    def _scope_meta(self, manifest: dict[str, Any], digest: str, require: str | None) -> None:
        """Keep the suite's ops and size, and the ops required, in the meta (the verdict reads them)."""
        ops = suite_ops(manifest)
        stored = self.db.meta().get("required_ops")
        try:
            require, features = split_require(require)
        except ValueError as err:
            raise ScopeError(str(err)) from None
        if require is None and stored is not None:
            required = stored
            features = features or self.db.meta().get("required_features") or []
        else:
            scope = None
            if (require or "").strip() == "profile":
                from tablecert.oracle.profiles import load_profile

                scope = load_profile(manifest["profile"]["id"]).scope
            required = required_ops(require, ops, scope)
        self.scope_meta = {"suite_ops": ops, "suite_tests": int(manifest["numberOfTests"]), "required_ops": required,
                           "required_features": features, "suite_manifest_sha256": digest}
        self.db.set_meta(**self.scope_meta)

    def _hand_batch_size(self, asked: int | None) -> int:
        """Hands per request of this hand-suite run: the one the run started with (meta, or for a
        run database without it the size of its first batch), else the one asked for."""
        stored = self.db.meta().get("hand_batch_size")
        if stored is None:
            row = self.db.db.execute("SELECT n FROM batches WHERE file = ? AND first_tc = 1 LIMIT 1",
                                     (HAND_FILE,)).fetchone()
            stored = row[0] if row else None
        if stored is not None:
            if asked is not None and asked != stored:
                raise RunError(f"this run sends {stored} hands per request; it cannot resume with {asked}")
            size = int(stored)
        else:
            size = asked or self.asked_batch_size or DEFAULT_HAND_BATCH_SIZE
        if size < 1:
            raise RunError(f"hand batch size {size} must be at least 1")
        self.db.set_meta(hand_batch_size=size)
        return size

    # -- vendor lifecycle
    def _start(self) -> VendorSession:
        if self.session is None:
            session = self.open_session()
            try:
                hello = session.hello()
            except VendorFault:
                session.close()
                raise
            identity = _identity(hello)
            if self.hello is None:
                recorded = self.db.meta().get("vendor")
                if recorded is not None and not _same_vendor(recorded, identity):
                    session.close()
                    raise RunError(f"this run is of {_who(recorded)}; the vendor now says it is {_who(identity)}: "
                                   "a run is resumed only with the vendor it began with (start a new run folder)")
                if self.db.meta().get("protocol", hello.protocol) != hello.protocol:
                    session.close()
                    raise RunError(f"this run speaks {self.db.meta()['protocol']}; the vendor now speaks "
                                   f"{hello.protocol} (start a new run folder)")
                if recorded is None:        # first identified now: how it was reached is this attempt's
                    self.db.set_meta(**{k: v for k, v in self.run_meta.items() if k in ("adapter", "target")})
                self.hello = hello
                self.capabilities = Capabilities.from_declaration(hello.raw.get("capabilities"))
                self.db.set_meta(vendor_hello=dict(hello.raw), vendor=identity, protocol=hello.protocol,
                                 vendor_capabilities=hello.raw.get("capabilities"),
                                 isolation=getattr(session, "isolation", "unknown (outside adapter)"),
                                 vendor_limits=getattr(session, "limits", None))
            else:
                restarted_as_before(session, identity, _identity(self.hello))
            self.session = session
        return self.session

    def _drop(self) -> None:
        if self.session is not None:
            self.session.close()
            self.answer_bytes += getattr(self.session, "answer_bytes", 0)
            self.session = None

    def should_stop(self) -> bool:
        """True once enough failures were seen (``stop_after_failures``) or the vendor's answers
        passed ``max_run_answer_bytes`` (kept in the meta as ``stopped``): send nothing more."""
        if self.stop_after_failures is not None and self.failures >= self.stop_after_failures:
            return True
        if self.max_run_seconds is not None and not self.over_time:
            ran = time.monotonic() - self.started
            if ran > self.max_run_seconds:
                self.over_time = True
                self.db.set_meta(stopped=f"the run passed its wall-clock cap of {self.max_run_seconds:g} s "
                                         f"(--max-run-seconds; {ran:,.0f} s); nothing more was sent (--resume "
                                         "continues it)")
        if self.over_time:
            return True
        if self.max_run_answer_bytes is not None and not self.over_budget:
            received = self.answer_bytes + getattr(self.session, "answer_bytes", 0)
            if received > self.max_run_answer_bytes:
                self.over_budget = True
                self.db.set_meta(stopped=f"the vendor's answers passed {self.max_run_answer_bytes:,} bytes "
                                         f"({received:,} received); nothing more was sent")
        return self.over_budget

    def run(self) -> RunResult:
        done = self.db.done_batches()
        total = count_cases(self.suite_dir)
        try:
            try:
                self._start()
            except VendorFault as err:
                self._not_greeted(err, bool(done))
            if self.hand_suite:
                note_hand_suite(self)
            if self.parallel is not None:
                self.parallel.run(self, done, total)
            elif self.hand_suite:
                run_hands(self, done, total)
            else:
                self._run_batches(done, total)
        finally:
            self._drop()
        self.db.set_meta(finished=utc_now(), state="finished", **({"sliced": self.sliced} if self.sliced else {}))
        decision = self._conclude()
        result = RunResult(decision.verdict, self.db.outcome_totals(), self.run_dir)
        self.db.close()
        return result

    def record(self, outcome: BatchOutcome) -> None:
        """Write one batch's outcome to the run database, and account for it in memory (a batch
        already recorded is not counted again)."""
        if self.db.record(outcome):
            self.judged.add(outcome)

    def _conclude(self) -> Decision:
        """Check the run database against what the harness recorded, then decide and keep the
        verdict (RunError, and no verdict, if something else wrote to it)."""
        try:
            self.db.set_meta(judged=self.judged.check(self.db, self.scope_meta))
        except TamperedRunDatabase as err:
            self.db.close()
            raise RunError(str(err)) from None
        return conclude(self.db)

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
        if self.db.meta().get("vendor") is None or err.kind is FaultKind.START:
            history = list(self.db.meta().get("start_failures") or [])
            history.append({"at": utc_now(), "kind": err.kind.value, "detail": err.detail,
                            "stderr": err.stderr_tail[-START_FAILURE_STDERR:]})
            self.db.set_meta(start_failures=history)
        else:
            self.judged.add_fault(self.db.record_start_fault(err.kind.value, err.detail, err.stderr_tail))
        if not resumed:
            self.db.set_meta(state="not_started", not_started=why, finished=utc_now())
            self._conclude()
        self.db.close()
        raise VendorNotGreeted(f"vendor could not be started or greeted: {why}") from err

    def _run_batches(self, done: set[tuple[str, str, int]], total: int) -> None:
        assert self.hello is not None
        seen = 0
        for batch in iter_batches(self.suite_dir, self.batch_size):
            seen += len(batch.cases)
            if batch.key in done:
                continue
            mark_batch(batch, self.capabilities)
            if batch.op in LIVE_SUITE_OPS:      # live tables: one step per request, interrupted
                from tablecert.harness.live.run import run_live_batch

                outcome = run_live_batch(self, batch)
                self.record(outcome)
                self.failures += outcome.failed
            elif batch.op not in self.hello.ops or len(batch.outside or ()) == len(batch.cases):
                self.record(whole_batch(batch, "unsupported", "unsupported"))
            else:
                outcome = run_vector_batch(self, batch, self.hello.protocol)
                self.record(outcome)
                self.failures += outcome.failed
            if self.progress:
                self.progress(seen, total)
            if self.should_stop():
                break

    def _run_batch(self, batch: Batch) -> BatchOutcome:
        def send_whole() -> BatchOutcome:
            session = self._start()
            if hasattr(session, "batch_raw"):
                return judge_raw_batch(session, batch)
            return judge_batch(batch, session.batch(batch.op, batch.config, batch.cases))

        return self.recovery.outcome((batch.file, batch.op, batch.tc_ids[0], len(batch.cases)), send_whole,
                                     lambda: batch)


def run_vector_batch(runner: Any, batch: Batch, protocol: str) -> BatchOutcome:
    """Send and judge one vector-set batch through ``runner`` (a Runner, or a parallel worker with
    its ``_start`` and ``recovery``) in a session of contract version ``protocol``: a v1 session
    gets the part v1 expresses (harness/protocol_versions.py)."""
    if protocol != V1:
        return Runner._run_batch(runner, batch)
    return run_v1(batch, lambda part: Runner._run_batch(runner, part),
                  lambda part: whole_batch(part, "unsupported", "unsupported"))
