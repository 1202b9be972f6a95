"""The harness's vocabulary: what a run sends, what a vendor's answers come to, and the records a
batch adds to the run's record. Every part of the harness speaks it; it imports nothing of the
harness (it is the bottom, beside :mod:`tablecert.harness.contract`).

* :class:`Batch`: the cases sent in one request, with what the lab expects of each (the suite
  reader makes them, a hand suite makes its own from its hand batches);
* :class:`Outcome` (a vector's), :class:`BatchStatus` (a batch's), :class:`Verdict` (a run's),
  the words stored in ``run.db`` and ``summary.json``: a ``StrEnum`` member *is* its string, so it
  is bound, hashed, compared and written to JSON as it;
* :func:`count_vectors` / :func:`count_one`: the one way an outcome is counted over many vectors;
* :class:`Failure` and :class:`PoisonedCase` (each a :class:`VectorCase`), :class:`Fault`, :class:`FaultRequest`,
  :class:`HandAnswer`: the typed records a judge produces and the run store
  (:mod:`tablecert.harness.store`) alone maps to its tables and reads back; their JSON fields hold
  the JSON text as stored (:func:`dumps`, :func:`stored_answer`, :func:`stored_expected`), so a
  record read back is the record written;
* :class:`BatchOutcome`: everything one batch adds to the run's record.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

class Outcome(StrEnum):
    """The outcome of one vector."""

    PASS = "pass"                  # the vendor's answer is the expected one
    FAIL = "fail"                  # it answered something else
    UNSUPPORTED = "unsupported"    # its op (or a feature of it) is outside what the vendor declared: not sent
    FAULT = "fault"                # the vendor faulted on it every time (crash, hang, malformed answer...)


ANSWERED = (Outcome.PASS, Outcome.FAIL)
"""The outcomes of a vector the vendor answered."""
OUTCOMES = tuple(o.value for o in Outcome)
"""Every outcome, as stored."""


class Verdict(StrEnum):
    """What a run comes to as a whole (``summary.json``'s ``verdict``, the run's meta; decided by
    :mod:`tablecert.harness.record.verdict`)."""

    PASS = "pass"                  # CERTIFIED: every vector of the required scope answered and passed
    SCOPED_PASS = "scoped_pass"    # CERTIFIED FOR A STATED SCOPE: passed what it declared, the rest named
    FAIL = "fail"                  # NOT CERTIFIED
    INCOMPLETE = "incomplete"      # no certificate: not all of the scope was judged


EXIT_CODES = {Verdict.PASS: 0, Verdict.SCOPED_PASS: 0, Verdict.FAIL: 1, Verdict.INCOMPLETE: 2}
"""The exit status of a command that concluded a run (``certify``, ``validate``, ``merge``), by verdict."""

def verdict_title(verdict: str, scope: Mapping[str, Any], protocol: str | None = None, shard: str | None = None,
                  rerun: bool = False) -> str:
    """The one wording of a verdict (the terminal, the PDFs, the HTML and junit all show it): a
    scoped pass says how much of the suite it certifies (``n OF m OPS`` when ops went untested; the
    bets and table features declared; every op, but only what an earlier contract version
    ``protocol`` expresses, when that is the limit); a ``shard``'s names it (never certified alone);
    a ``rerun``'s says it never certifies, whatever it found. ``scope`` is the stored scope
    (:meth:`tablecert.harness.record.verdict.Scope.as_json`)."""
    if rerun:
        return "RERUN OF FAILED VECTORS: NEVER CERTIFIED"
    if verdict == Verdict.SCOPED_PASS and scope.get("suite_ops") and scope.get("untested"):
        return f"CERTIFIED FOR {len(scope.get('tested') or [])} OF {len(scope['suite_ops'])} OPS"
    if verdict == Verdict.SCOPED_PASS and protocol and not scope.get("features_not_certified"):
        return f"CERTIFIED FOR CONTRACT v{protocol.rsplit('/', 1)[-1]} ONLY"
    if verdict == Verdict.SCOPED_PASS and scope.get("suite_ops"):
        return "CERTIFIED FOR A DECLARED SCOPE"
    words = {Verdict.PASS: "CERTIFIED", Verdict.SCOPED_PASS: "CERTIFIED FOR A STATED SCOPE",
             Verdict.FAIL: "NOT CERTIFIED", Verdict.INCOMPLETE: "INCOMPLETE"}[Verdict(verdict)]
    return f"{words}: SHARD {shard} ONLY" if shard else words


@dataclass(frozen=True)
class Decision:
    """What a run comes to: its verdict, the reasons (one sentence each, none for a clean pass),
    the scope it certifies (as stored) and its words (:func:`verdict_title`). Decided once when the
    run concludes (:func:`tablecert.harness.record.verdict.decide`), kept in the run's meta and
    rendered as it is by every writer: the terminal, ``summary.json``, junit, the PDFs, the HTML."""

    verdict: Verdict
    reasons: tuple[str, ...]
    scope: Mapping[str, Any]
    title: str

    def as_meta(self) -> dict[str, Any]:
        """The meta values that keep it (``verdict_title`` since 1.0)."""
        return {"verdict": self.verdict, "verdict_reasons": list(self.reasons), "scope": dict(self.scope),
                "verdict_title": self.title}

    @classmethod
    def unconcluded(cls, why: str, shard: str | None = None, rerun: bool = False) -> Decision:
        """The decision a run that never concluded comes to (an interrupted one, read by a report)."""
        return cls(Verdict.INCOMPLETE, (why,), {}, verdict_title(Verdict.INCOMPLETE, {}, None, shard, rerun))


@dataclass(frozen=True)
class RunMeta:
    """The run's metadata as typed fields: the ``meta`` table of run.db, every key it holds
    (:mod:`tablecert.harness.store.schema`, schema version 1, and the keys added since 1.0:
    ``verdict_title``, ``cause_analysis``), read through the store
    (:meth:`tablecert.harness.store.RunReader.run_meta`). A key the run never wrote is None. The
    writers read these fields, never the meta by a string key."""

    # the run and its vendor
    state: str | None = None                 # running | finished | not_started
    tablecert_version: str | None = None
    host: str | None = None
    started: str | None = None
    finished: str | None = None
    adapter: str | None = None
    target: Any = None
    isolation: Any = None
    vendor_limits: Any = None
    vendor_bound: Any = None
    vendor: dict[str, Any] | None = None     # the hello's implementation and ops, as declared
    vendor_hello: dict[str, Any] | None = None
    vendor_capabilities: Any = None
    protocol: str | None = None
    start_failures: list[Any] | None = None
    not_started: str | None = None
    # the suite and the lab's scope
    suite: str | None = None
    suite_manifest_sha256: str | None = None
    suite_anchor: dict[str, Any] | None = None
    suite_tests: Any = None
    suite_ops: list[str] | None = None
    required_ops: list[str] | None = None
    required_features: Any = None
    profile: dict[str, Any] | None = None
    batch_size: Any = None
    # how it was run
    run_id: str | None = None                # certify --run-id: one run's shards share it
    shard: str | None = None
    sliced: Any = None                       # True, or what part of a hand suite was run
    stopped: str | None = None
    rerun_of: dict[str, Any] | None = None
    responses: Any = None
    merged_from: Any = None
    hand_batch_size: Any = None
    hand_first_position: Any = None
    hand_config: Any = None
    hand_slice: Any = None
    live: dict[str, Any] | None = None
    live_failures: dict[str, Any] | None = None   # 1.1.0's findings (schema 2); since schema 3 run.db's live_failures
    build: dict[str, Any] | None = None      # the vendor's build as bound (harness/run/vendor_build.py, since 1.0)
    # what it came to
    judged: Any = None
    verdict: str | None = None
    verdict_reasons: list[str] | None = None
    verdict_title: str | None = None
    scope: dict[str, Any] | None = None
    seal: dict[str, Any] | None = None
    chain: Any = None                        # the run key's last checkpoint (harness/record/chain.py)
    cause_spectrum: Any = None               # harness/answers/causes.py's SPECTRUM_KEY
    cause_analysis: Any = None               # harness/answers/causes.py's ANALYSIS_KEY (since 1.0)
    game_math: Any = None                    # reports/figures.py's GAME_MATH_KEY

    @classmethod
    def of(cls, meta: Mapping[str, Any]) -> RunMeta:
        """The typed view of a run's meta (as :meth:`tablecert.harness.store.RunReader.meta` reads it)."""
        return cls(**{name: meta[name] for name in _RUN_META_FIELDS if name in meta})

    @property
    def decision(self) -> Decision | None:
        """The decision kept when the run concluded (None: it has not, or a release before 1.0
        concluded it, keeping no words)."""
        if self.verdict is None or self.verdict_title is None:
            return None
        return Decision(Verdict(self.verdict), tuple(self.verdict_reasons or ()), self.scope or {}, self.verdict_title)


class BatchStatus(StrEnum):
    """What became of a batch as a whole (the ``batches`` table's ``status``)."""

    DONE = "done"                  # every vector answered (or not sent: unsupported)
    UNSUPPORTED = "unsupported"    # nothing of it was sent
    FAULT = "fault"                # nothing of it was answered
    PARTIAL = "partial"            # some of it was answered, some is ``fault``


Counts = Counter[tuple[str, str, str]]


def count_vectors(counts: Counts, op: str, outcome: str, n: int, clauses: Iterable[tuple[str, int]],
                  flags: Iterable[tuple[str, int]]) -> None:
    """Add ``n`` vectors of ``op`` with ``outcome``, holding the clauses and flags given with how
    many of those vectors hold each."""
    counts[("op", op, outcome)] += n
    for c, k in clauses:
        counts[("clause", c, outcome)] += k
    for f, k in flags:
        counts[("flag", f, outcome)] += k
        counts[("op_flag", f"{op} {f}", outcome)] += k


def count_one(counts: Counts, op: str, clauses: Iterable[str], flags: Iterable[str], outcome: str) -> None:
    """One vector of ``op`` with ``outcome`` (what :func:`count_vectors` adds for one, written out:
    the strict judge calls it for every vector)."""
    counts[("op", op, outcome)] += 1
    for c in clauses:
        counts[("clause", c, outcome)] += 1
    for f in flags:
        counts[("flag", f, outcome)] += 1
        counts[("op_flag", f"{op} {f}", outcome)] += 1


def sent(by_outcome: Mapping[str, int]) -> int:
    """How many of these vectors (one op's, clause's or feature's, by outcome) were sent to the
    vendor: passed, failed or faulted. What makes an op, a clause or a feature *tested*; the
    rest were ``unsupported``."""
    return by_outcome.get(Outcome.PASS, 0) + by_outcome.get(Outcome.FAIL, 0) + by_outcome.get(Outcome.FAULT, 0)


def answered(counts: Counts, op: str) -> int:
    """How many vectors of ``op`` in ``counts`` the vendor answered (passed or failed)."""
    return counts[("op", op, Outcome.PASS)] + counts[("op", op, Outcome.FAIL)]



@dataclass
class Batch:
    """Cases sent in one request, with what the lab expects of each."""

    file: str                     # vector-set name (file name without view folder)
    op: str
    tg_id: int
    config: Any
    tc_ids: list[int]
    cases: list[Any]
    expected: list[dict[str, Any]]
    flags: list[list[str]]
    clauses: list[list[str]]
    comments: list[str] | None = None   # why each vector exists (expected view; kept with a failure)
    features: dict[int, tuple[str, ...]] | None = None   # tcId -> features (harness/answers/capabilities.py)
    outside: dict[int, str] | None = None                # tcId -> the undeclared feature it carries

    @property
    def key(self) -> tuple[str, str, int]:
        """Identifies the batch within a run: (file, op, first tcId)."""
        return self.file, self.op, self.tc_ids[0]


# -- the replay files in a run folder's ``failures/`` (the records and the reports name them)

def replay_name(file: str, op: str, tg_id: int) -> str:
    """The replay file in ``failures/`` holding a failing group's cases (the reports name it too)."""
    return f"{file.removesuffix('.jsonl.gz')}.{op}.tg{tg_id}.jsonl"


def poisoned_replay_name(file: str, op: str, tc_id: int) -> str:
    """The replay file in ``failures/`` that sends one poisoned case alone."""
    return f"poisoned.{file.removesuffix('.jsonl.gz')}.{op}.tc{tc_id}.jsonl"


def fault_replay_name(kind: str, file: str, op: str, first_tc: int) -> str:
    """The replay file in ``failures/`` that sends the first request that met a fault kind."""
    stem = file.removesuffix(".jsonl.gz") or "start"
    return f"fault.{kind}.{stem}.{op}.tc{first_tc}.jsonl"


def dumps(value: Any, **options: Any) -> str:
    """``value`` as JSON text that UTF-8 can hold (compact unless ``options`` say otherwise):
    characters as themselves, but all as ``\\u`` escapes when the value holds a lone surrogate
    (a vendor's JSON ``"\\udc80"``), which no UTF-8 text can hold."""
    options = {"separators": (",", ":"), **options}
    text = json.dumps(value, ensure_ascii=False, **options)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(value, **options)
    return text


ANSWER_STORED = 4096    # characters of one failing answer kept in the record


def stored_answer(value: Any, diagnosis: Callable[[], Mapping[str, Any]] | None = None) -> str:
    """A vendor's (failing) answer as stored: its JSON, or, beyond ANSWER_STORED characters, a JSON
    object saying it was cut and holding the start of it (the verdict was reached on all of it).
    **New:** ``diagnosis`` is called only when the answer is cut: what it returns, worked out on the
    whole answer before cutting (the verdict and the differing fields, see
    :func:`tablecert.harness.answers.differences.cut_diagnosis`), is stored with the cut text, so that a
    cut answer is never compared as if the vendor had sent it."""
    text = dumps(value)
    if len(text) <= ANSWER_STORED:
        return text
    return dumps({"tablecert_cut": f"answer of {len(text):,} characters cut to its first {ANSWER_STORED:,}",
                  "start": text[:ANSWER_STORED], **(diagnosis() if diagnosis is not None else {})})


def stored_expected(expected: dict[str, Any]) -> str:
    """A vector's expected value as stored with its failure: a result as ``{"result": R}``, an
    expected rejection in the vendor's own shape, ``{"error": {"code": CODE}}`` (so an expected
    and an answered rejection read alike)."""
    if isinstance(expected.get("error"), str):
        return dumps({"error": {"code": expected["error"]}})
    return dumps(expected)


@dataclass(frozen=True, slots=True)
class VectorCase:
    """One vector's case as a run keeps it: its vector file, op, test group and tcId, its table
    config and case (JSON text as stored)."""

    file: str
    op: str
    tg_id: int
    tc_id: int
    config: str
    case: str


@dataclass(frozen=True, slots=True)
class Failure(VectorCase):
    """One failing vector: its case, the expected and answered values and why it exists.
    ``expected``, ``actual``, ``flags`` and ``clauses`` are JSON text as stored
    (:func:`stored_expected`, :func:`stored_answer`)."""

    expected: str
    actual: str
    flags: str
    clauses: str
    comment: str = ""


@dataclass(frozen=True, slots=True)
class Fault:
    """One vendor fault (crash, timeout, malformed answer ...) and the cases it hit: the first
    tcId and how many (the batch, a part of it, or one case; none for a vendor never greeted, op
    ``hello``); ``recovered``: a later attempt answered every one of them."""

    file: str
    op: str
    first_tc: int
    n: int
    attempt: int
    kind: str
    detail: str
    stderr_tail: str
    recovered: bool = False


@dataclass(frozen=True, slots=True)
class FaultRequest:
    """The first request that met a fault kind (``config`` and ``cases`` as JSON text), replayed
    alone into a fresh vendor process."""

    kind: str
    file: str
    op: str
    first_tc: int
    n: int
    config: str
    cases: str


@dataclass(frozen=True, slots=True)
class PoisonedCase(VectorCase):
    """A case found to fault the vendor on its own, and the fault's kind and detail."""

    kind: str
    detail: str


@dataclass(frozen=True, slots=True)
class HandAnswer:
    """A hand suite's answer that is not a label: its op code, tcId and text (bounded, as stored)."""

    op: int
    tc_id: int
    actual: str




def divergent_step(asked: str) -> int | None:
    """The step a live finding's request names (its largest number: ``table.step 7``, ``table.resume
    after between steps 6 and 7``), None when it names none (``table.open``, a recall): the step a
    replay's script is cut after."""
    numbers = [int(w) for w in asked.replace("(", " ").replace(")", " ").split() if w.isdigit()]
    return max(numbers, default=None)


def _station_of(*texts: str) -> int | None:
    found = next((m for m in (re.search(r"\bstation (\d+)", t) for t in texts) if m), None)
    return None if found is None else int(found.group(1))


@dataclass(frozen=True, slots=True)
class LiveFailure:
    """A failing live vector's finding as the run keeps it (run.db's ``live_failures``, since schema
    3; before, a JSON object by "file tcId" in the meta ``live_failures``): its vector (``file``,
    ``op``, ``tc_id``: its row of ``failures`` holds the compared pair), the step it diverged at
    (:func:`divergent_step`; None: none named), the station named (None: none), the interruption
    it followed (``after_step``, ``after_mode``; None: none made), the request (``asked``), its
    first differing field (``''``: a fault), the oracle's and the vendor's answers to it (JSON
    text; ``''`` for a fault), the fault's kind (``''``: a divergence) and the whole record
    (``record``, JSON text: every interruption, the state restored, the last exchanges) that its
    replay is made from (:func:`tablecert.harness.live.findings.live_replays`)."""

    file: str
    op: str
    tc_id: int
    step: int | None
    station: int | None
    after_step: int | None
    after_mode: str | None
    asked: str
    field: str
    expected: str
    answered: str
    fault: str
    record: str

    @classmethod
    def of(cls, file: str, op: str, tc_id: int, detail: Mapping[str, Any]) -> LiveFailure:
        """The finding of ``detail`` (:func:`tablecert.harness.live.findings.live_detail`'s record,
        as 1.1.0 kept it in the meta) as typed fields."""
        found = detail.get("divergence") or {}
        last = detail.get("last_interruption") or {}
        fault = found.get("fault") or {}
        fields = [str(f) for f in found.get("fields") or ()]
        asked = str(found.get("asked", ""))
        return cls(file, op, tc_id, divergent_step(asked), _station_of(asked, *fields[:1]), last.get("step"),
                   last.get("mode"), asked, fields[0] if fields else "",
                   "" if fault else dumps(found.get("expected")), "" if fault else dumps(found.get("answered")),
                   str(fault.get("kind", "")), dumps(dict(detail)))

    @property
    def detail(self) -> dict[str, Any]:
        """The whole record (as :meth:`of` was given it)."""
        value: dict[str, Any] = json.loads(self.record)
        return value


LIVE_TABLE_FEATURES = ("stations", "disconnects", "disables", "meters", "records", "paigow_records")
"""The live table features a run reports, in page 1's order: the station features
(:data:`tablecert.oracle.live_stations.FEATURES`), ``records`` (a station's record fields) and
:data:`tablecert.oracle.paigow_records.FEATURE` (their names, kept here: this module imports no
oracle; ``tests/test_live_rows.py`` checks they are the oracle's)."""


@dataclass(frozen=True)
class LiveFeatures:
    """The live table features of a run (run.db's ``live_features``, since schema 3; before, the
    meta ``live``'s ``features``): those the vendor declared (in its hello's order), those its
    tables tested and those it did not declare (each in page 1's order). A batch adds what it
    tested; the run's are the union (:meth:`RunReader.live_features`)."""

    declared: tuple[str, ...] = ()
    tested: tuple[str, ...] = ()
    not_declared: tuple[str, ...] = ()

    ROLES: ClassVar[tuple[str, ...]] = ("declared", "tested", "not_declared")

    def as_json(self) -> dict[str, list[str]]:
        """As summary.json's ``live.features`` has it."""
        return {role: list(getattr(self, role)) for role in self.ROLES}

    def seq(self, role: str, name: str) -> int:
        """Where ``name`` goes in ``role``'s list: the hello's order for ``declared``, page 1's
        (:data:`LIVE_TABLE_FEATURES`) for the others; so the batches' features, added up, keep it."""
        order = self.declared if role == "declared" else LIVE_TABLE_FEATURES
        return order.index(name) if name in order else len(order)

    def __or__(self, other: LiveFeatures) -> LiveFeatures:
        """The features of two parts of a run together (what either tested; the later's
        declaration, a run's vendor declaring the same throughout)."""
        def union(role: str) -> tuple[str, ...]:
            names = {*getattr(self, role), *getattr(other, role)}
            return tuple(sorted(names, key=lambda name: (self.seq(role, name), name)))
        return LiveFeatures(other.declared or self.declared, union("tested"), union("not_declared"))

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> LiveFeatures:
        """From :meth:`as_json`'s shape (1.1.0's meta)."""
        return cls(*(tuple(value.get(role) or ()) for role in cls.ROLES))


def with_live_features(live: Mapping[str, Any], features: LiveFeatures | None) -> dict[str, Any]:
    """The run's ``live`` meta with its ``features`` in the place 1.1.0 kept them (after the plan,
    before a later note: ``not_played``, ``state_dir_cleanup``), as summary.json's ``live`` has it."""
    if features is None:
        return dict(live)
    later = ("not_played", "state_dir_cleanup")
    return {**{k: v for k, v in live.items() if k not in later and k != "features"},
            "features": features.as_json(), **{k: live[k] for k in later if k in live}}


@dataclass
class BatchOutcome:
    """What one batch adds to the run's record."""

    file: str
    op: str
    first_tc: int
    n: int
    status: str
    counts: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    confusion: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    poisoned: list[PoisonedCase] = field(default_factory=list)
    fault_requests: list[FaultRequest] = field(default_factory=list)
    hand_failures: list[tuple[int, ...]] = field(default_factory=list)
    hand_answers: list[HandAnswer] = field(default_factory=list)
    hand_causes: Counter[tuple[int, int, int, int]] = field(default_factory=Counter)
    live_failures: list[LiveFailure] = field(default_factory=list)
    live_features: LiveFeatures | None = None     # a live batch's table features (its tested, the vendor's declared)

    @property
    def failed(self) -> int:
        """How many vectors of this batch failed: its failures, or a hand batch's wrong hands
        (stored as codes instead). Every run loop counts failures with this."""
        return len(self.failures) + len(self.hand_failures)

    def add(self, other: BatchOutcome) -> None:
        """Take in what a part of this batch came to (judged apart: bisected, or not expressible)."""
        self.counts.update(other.counts)
        self.confusion.update(other.confusion)
        self.failures.extend(other.failures)
        self.faults.extend(other.faults)
        self.poisoned.extend(other.poisoned)
        self.fault_requests.extend(other.fault_requests)
        self.hand_failures.extend(other.hand_failures)
        self.hand_answers.extend(other.hand_answers)
        self.hand_causes.update(other.hand_causes)
        self.live_failures.extend(other.live_failures)


_RUN_META_FIELDS = tuple(RunMeta.__dataclass_fields__)
