"""The verdict of a run and the scope it certifies, decided from the run database alone.

Everything a verdict depends on is in the run database (the counts, the fault rows, and the
run's meta: the suite's ops and size, the ops the lab requires, the run's state), so a finished
run, a resumed one, ``summary.json``, the reports and a signature all decide the same.

==============  ===  =========================================================================
verdict         exit meaning
==============  ===  =========================================================================
``pass``        0    every vector of the suite was answered and agreed with the oracle, and the
                     implementation committed no fault at any point of the run: CERTIFIED
``scoped_pass`` 0    the same for the ops the lab required (``--require``), while the suite
                     holds ops the implementation does not declare: CERTIFIED FOR those ops;
                     or for the bets and table features it declares (``capabilities`` in its
                     hello), while the suite holds vectors outside them (unsupported)
``fail``        1    a wrong answer; or a vendor fault at any point of the run (hello, any
                     request, any restart, any resumed part), even one a retry recovered; or
                     an op the lab required left untested, or a feature the lab required
                     (``--require feature:commission``) that the vendor does not declare
``incomplete``  2    no verdict on the implementation could be reached: the run was interrupted
                     and not resumed, the vendor could never be started or greeted, only a part
                     of the suite was run on purpose, or the run was stopped at a cap (the
                     vendor's answers passed ``--max-run-answer-mb``)
==============  ===  =========================================================================

Retries, restarts and bisection exist to diagnose a faulty vendor in one run; they never make a
faulty run pass.

An op added to the contract in this release (``craps.round``, :data:`~tablecert.oracle.protocol.V2_OPS`)
is, under the default requirement (every op of the suite), required only of a vendor that
declares it when the suite holds others (``standard``): a vendor of ``tablecert-vendor/1``, which
never receives it, or one of v2 built before it, is certified for what it declared, as before
(a ``scoped_pass`` naming it not tested); a ``--require`` that names it makes it required of every
vendor.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tablecert.harness.answers.capabilities import (FEATURE_DIMENSION, UNSUPPORTED_DIMENSION, feature_scope,
                                            not_certified_features)
from tablecert.harness.contract import KNOWN_OPS
from tablecert.harness.protocol_versions import unchecked_note
from tablecert.harness.store import RunReader, RunStore
from tablecert.harness.answers.round_findings import round_scope
from tablecert.harness.model import Decision, Fault, Outcome, RunMeta, Verdict, sent, verdict_title
from tablecert.oracle.names import HAND_FILE, HAND_OPS
from tablecert.oracle.live_stations import STATIONS_OP
from tablecert.oracle.protocol import V2_OPS

DECLARED_ONLY = (*V2_OPS, STATIONS_OP)
"""Ops required by default only of a vendor that declares them: the ops new in v2, and the live
suite's station tables (New; declared by hello's ``table_features``, never in its ``ops``)."""
HAND_STREAM_OP = HAND_FILE               # a hand suite's manifest entry, standing for its two label ops
HAND_STREAM_OPS = HAND_OPS
OP_GROUPS = {"craps": tuple(op for op in KNOWN_OPS if op.startswith("craps.")),
             "paigow": tuple(op for op in KNOWN_OPS if op.startswith("paigow."))}
SEVERE_FIRST = ("crash", "timeout", "start", "bad_hello", "malformed", "wrong_id", "wrong_count", "wrong_op",
                "request_error", "state_limit", "build_changed", "build_authentication",
                "not_sent")
"""Fault kinds, the ones that stop a game in the middle of a round first (the reports' order)."""


class ScopeError(ValueError):
    """A ``--require`` that names no op of the suite, or an unknown op (one-line message)."""


def suite_ops(manifest: Mapping[str, Any]) -> list[str]:
    """The ops a suite's vectors exercise, in the contract's order."""
    ops: set[str] = set()
    for entry in manifest.get("files", []):
        op = entry.get("op")
        if op == HAND_STREAM_OP:
            ops.update(HAND_STREAM_OPS)
        elif isinstance(op, str):
            ops.add(op)
    return [op for op in KNOWN_OPS if op in ops] + sorted(ops - set(KNOWN_OPS))


def required_ops(require: str | None, ops: list[str], profile_scope: Iterable[str] | None = None) -> list[str]:
    """The ops a lab requires, from ``--require``: ``all`` (the default: every op of the suite),
    ``profile`` (the profile's declared ``scope``, else all), or a comma-separated list of ops and
    game names (``craps``, ``paigow``). Every required op must be one the suite holds."""
    text = (require or "all").strip()
    if text == "all":
        return list(ops)
    if text == "profile":
        if profile_scope is None:
            return list(ops)
        wanted = list(profile_scope)
    else:
        wanted = []
        for word in (w.strip() for w in text.split(",")):
            if word in OP_GROUPS:
                wanted += [op for op in OP_GROUPS[word] if op in ops]
            elif word in KNOWN_OPS:
                wanted.append(word)
            else:
                raise ScopeError(f"--require: {word!r} is not an op ({', '.join(KNOWN_OPS)}), a game "
                                 "(craps, paigow), 'all' or 'profile'")
    missing = [op for op in wanted if op not in ops]
    if missing:
        raise ScopeError(f"--require: the suite holds no vectors for {', '.join(missing)} "
                         f"(its ops: {', '.join(ops)})")
    if not wanted:
        raise ScopeError("--require names no op of the suite")
    return [op for op in ops if op in wanted]


@dataclass(frozen=True)
class Scope:
    """What a run certifies: the suite's ops, the ones the lab required, the ones the vendor
    answered (tested) and the ones it did not declare (untested), and the register clauses that
    only untested vectors cite."""

    suite_ops: tuple[str, ...]
    required: tuple[str, ...]
    tested: tuple[str, ...]
    untested: tuple[str, ...]
    untested_clauses: tuple[str, ...]
    features: Mapping[str, Any] = field(default_factory=dict)   # harness/answers/capabilities.py:feature_scope
    round_play: Mapping[str, Any] | None = None                # harness/answers/round_findings.py:round_scope

    @property
    def required_untested(self) -> tuple[str, ...]:
        return tuple(op for op in self.required if op in self.untested)

    @property
    def complete(self) -> bool:
        return not self.untested and not self.features.get("features_not_certified")

    def as_json(self) -> dict[str, Any]:
        return {"suite_ops": list(self.suite_ops), "required": list(self.required), "tested": list(self.tested),
                "untested": list(self.untested), "untested_clauses": list(self.untested_clauses),
                "complete": self.complete, **self.features, "round_play": self.round_play}


def severity(kind: str) -> tuple[int, str]:
    """Sort key of a fault kind: the most severe first (SEVERE_FIRST), unknown kinds last."""
    return (SEVERE_FIRST.index(kind) if kind in SEVERE_FIRST else len(SEVERE_FIRST), kind)


def fault_counts(faults: Iterable[Fault]) -> dict[str, dict[str, int]]:
    """Per fault kind (most severe first): how often it happened and how often a retry recovered it."""
    count: Counter[str] = Counter()
    recovered: Counter[str] = Counter()
    for f in faults:
        count[f.kind] += 1
        recovered[f.kind] += f.recovered
    order = sorted(count, key=severity)
    return {k: {"count": count[k], "recovered": recovered[k]} for k in order}


MERGE_COMMAND = "tablecert merge SHARD_DIR... --out RUN"
"""What joins the shards of one run (``certify --shard K/N``) into the run a verdict is given to."""


def shard_note(shard: str, run: int, suite_tests: Any) -> str:
    """The reason a shard's verdict names: what it ran, and that only the merged run is certified."""
    of = f" of {suite_tests:,}" if isinstance(suite_tests, int) else ""
    return (f"this is shard {shard} of a sharded run: only its part of the suite was run ({run:,}{of} vectors); "
            f"a shard is never certified alone: once every shard is done, join them with {MERGE_COMMAND}")


def given_up(faults: Iterable[Fault], by_op: Mapping[str, Mapping[str, int]]) -> list[str]:
    """One sentence per op the run stopped sending (its ``not_sent`` fault rows): why, and how
    many of its vectors were left not answered."""
    why: dict[str, str] = {}
    for f in faults:
        if f.kind == "not_sent":
            why.setdefault(f.op, f.detail.removeprefix("not sent: "))
    return [f"{op} was given up ({reason}): {by_op.get(op, {}).get(Outcome.FAULT, 0):,} of its vectors were "
            "not answered" for op, reason in why.items()]


def _scope(db: RunReader, meta: Mapping[str, Any], run: RunMeta) -> Scope:
    by_op = db.totals("op")
    ops = list(run.suite_ops or sorted(by_op))
    required = list(run.required_ops or ops)
    if required == ops:          # the default: every op of the suite, but an added op only if declared
        declared = set((run.vendor or {}).get("ops") or ())
        required = [op for op in required if op not in DECLARED_ONLY or op in declared] or required
    answered = {op for op, c in by_op.items() if sent(c)}
    untested = [op for op in ops if op not in answered and by_op.get(op, {}).get(Outcome.UNSUPPORTED)]
    tested = [op for op in ops if op in answered]
    clauses = db.totals("clause")
    untested_clauses = sorted(c for c, n in clauses.items()
                              if n.get(Outcome.UNSUPPORTED) and not sent(n))
    feature_totals = db.totals(FEATURE_DIMENSION)
    features = feature_scope(feature_totals, db.totals(UNSUPPORTED_DIMENSION), run)
    return Scope(tuple(ops), tuple(required), tuple(tested), tuple(untested), tuple(untested_clauses), features,
                 round_scope(by_op, feature_totals))


def scope_hint(scope: Scope) -> str:
    """What a partial implementation is told to do when required ops are not declared: the
    ``--require`` that would certify what it did declare, and what the certificate then says."""
    if not scope.tested:
        return "; it declared none of the suite's ops, so there is nothing to certify yet"
    ops = ",".join(scope.tested)
    return (f"; to certify what it declares, run again with --require {ops} (the certificate then says "
            f"CERTIFIED FOR {len(scope.tested)} OF {len(scope.suite_ops)} OPS and names the ops not tested)")


def decide(db: RunReader) -> Decision:
    """The verdict of the run in ``db`` (see the module docstring), its reasons, scope and words;
    its meta says whether only a part of the suite was run on purpose (``sliced``)."""
    meta = db.meta()
    run = RunMeta.of(meta)
    scope = _scope(db, meta, run)
    protocol_note = unchecked_note(run.protocol, db.totals("protocol"))

    def made(verdict: Verdict, reasons: tuple[str, ...]) -> Decision:
        stored = scope.as_json()
        return Decision(verdict, reasons, stored, verdict_title(
            verdict, stored, run.protocol if protocol_note else None, run.shard, isinstance(run.rerun_of, dict)))

    return made(*_verdict(db, run, scope, protocol_note))


def _verdict(db: RunReader, meta: RunMeta, scope: Scope, protocol_note: str | None) -> tuple[Verdict, tuple[str, ...]]:
    totals = db.outcome_totals()
    rows = db.faults()
    faults = fault_counts(rows)
    reasons: list[str] = []
    if meta.state == "not_started":
        why = meta.not_started or "the vendor could not be started or greeted"
        return (Verdict.INCOMPLETE, (f"no vector was judged: {why}",))
    if totals[Outcome.FAIL]:
        reasons.append(f"{totals['fail']:,} vector{'s' if totals['fail'] != 1 else ''} answered differently "
                       "from the reference oracle")
    if faults:
        n = sum(f["count"] for f in faults.values())
        back = sum(f["recovered"] for f in faults.values())
        kinds = ", ".join(f"{f['count']:,} x {kind}" for kind, f in faults.items())
        reasons.append(f"the implementation faulted {n:,} time{'s' if n != 1 else ''} ({kinds}); "
                       f"{back:,} of them recovered by a retry, which does not make a fault acceptable")
        reasons += given_up(rows, db.totals("op"))
    if scope.required_untested:
        reasons.append("required op" + ("s" if len(scope.required_untested) != 1 else "")
                       + f" not tested (not declared in the vendor's hello): {', '.join(scope.required_untested)}"
                       + scope_hint(scope))
    undeclared = scope.features.get("required_features_undeclared")
    if undeclared:
        reasons.append("required feature" + ("s" if len(undeclared) != 1 else "")
                       + f" not declared in the vendor's capabilities: {', '.join(undeclared)}")
    run = sum(totals.values())
    suite_tests = meta.suite_tests
    shard = (shard_note(str(meta.shard), run, suite_tests),) if meta.shard else ()
    if meta.state != "finished":
        return (Verdict.INCOMPLETE, tuple(reasons) + ("the run was interrupted and not resumed",))
    if reasons:
        return (Verdict.FAIL, tuple(reasons) + shard)
    if meta.stopped:
        return (Verdict.INCOMPLETE, (f"the run was stopped: {meta.stopped}",))
    if meta.sliced:
        part = f": {meta.sliced}" if isinstance(meta.sliced, str) else ""
        return (Verdict.INCOMPLETE, (f"only a part of the suite was run ({run:,} vectors){part}",))
    if shard:
        return (Verdict.INCOMPLETE, shard)
    if isinstance(suite_tests, int) and run < suite_tests:
        return (Verdict.INCOMPLETE, (f"{suite_tests - run:,} of {suite_tests:,} vectors were not run",))
    if totals[Outcome.FAULT]:
        return (Verdict.INCOMPLETE, (f"{totals[Outcome.FAULT]:,} vectors were not answered",))
    also = (protocol_note,) if protocol_note else ()
    if scope.untested:
        return (Verdict.SCOPED_PASS, (f"certified for {', '.join(scope.tested)} only; not tested: "
                                        f"{', '.join(scope.untested)} (not required)",) + also)
    if not scope.complete:
        return (Verdict.SCOPED_PASS, (not_certified_features(scope.features),) + also)
    if protocol_note:
        return (Verdict.SCOPED_PASS, (protocol_note,))
    return (Verdict.PASS, ())


def conclude(db: RunStore) -> Decision:
    """Decide the run's verdict and keep it, with its reasons and scope, in the run's meta."""
    decision = decide(db)
    db.set_meta(**decision.as_meta())
    return decision
