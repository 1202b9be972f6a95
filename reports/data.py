"""Everything a report shows, read from one run folder: the run database (opened query-only), the
suite manifest, summary.json's digest, the registers and the notes.

Size and time depend on the aggregates and on the failures, never on the number of vectors:
totals come from the ``counts`` table; each failure class reads at most ``EXEMPLAR_WINDOW`` of its
failures (in run order) for its smallest exemplars and its replay files; faults are counted by
kind and only the first few are read. A run with a million failures shows a few per class and
counts the rest.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from tablecert.harness.answers.causes import (CauseAnalysis, Difference, all_differences, answered, stored_analysis,
                                             unwrapped)
from tablecert.harness.answers.differences import is_cut, stored_differences
from tablecert.harness.vendor_text import for_terminal
from tablecert.harness.lab_files import check_database_files
from tablecert.harness.record.run_folder import run_is_live
from tablecert.harness.live.run import DIMENSION as LIVE_DIMENSION, live_summary
from tablecert.harness.model import (OUTCOMES, Outcome, RunMeta, Verdict, fault_replay_name,
                                     poisoned_replay_name, replay_name, verdict_title)
from tablecert.harness.store import (DatabaseError, FailureHead, Refused, RunReader, SchemaError, UnreadableRun,
                                     open_reader)
from tablecert.oracle.names import HAND_FLAGS
from tablecert.reports.hand_causes import HandFindings, hand_findings
from tablecert.reports.ranking import attributed, class_order, most_specific
from tablecert.harness.protocol_versions import unchecked_note
from tablecert.reports.figures import GameMath, game_math_for_run
from tablecert.reports.inputs import Submission
from tablecert.reports.refusals import Refusal, RefusalStep, refusals
from tablecert.harness.record.verdict import severity
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_CATEGORIES
from tablecert.oracle.register import clauses, interpretations
from tablecert.vectors.writer import notes

EXEMPLARS = 5            # smallest failures kept per class (the certificate shows the first 3)
EXEMPLAR_WINDOW = 1000   # failures of a class read (in run order) to choose them and list replays
REPLAYS_SHOWN = 12       # replay files listed per class
FAULTS_SHOWN = 8
JSON_SHOWN = 360         # characters of one JSON rendering (case, expected, actual, config)
VENDOR_SHOWN = 100       # characters of the vendor's name, version and build (as it declared them)
STDERR_SHOWN = 600       # last characters of a fault's stderr


class RunFolderError(ValueError):
    """A folder that is not a run folder (no run database)."""


@dataclass(frozen=True)
class Exemplar:
    file: str
    op: str
    tg_id: int
    tc_id: int
    size: int            # characters of the case JSON
    case: str
    expected: str
    actual: str
    config: str
    clauses: str
    replay: str
    comment: str = ""    # why the vector exists (stored with the failure)


@dataclass(frozen=True)
class Replay:
    name: str            # failures/NAME.jsonl
    failures: int        # failures of the class in it (within the window read)
    exists: bool


@dataclass(frozen=True)
class FailureClass:
    flag: str
    bug_type: str
    description: str
    effect: str
    failed: int
    vectors: int
    ops: list[tuple[str, int]]
    exemplars: list[Exemplar]
    replays: list[Replay]
    replays_more: int
    window_complete: bool    # every failure of the class was read for exemplars and replays

    @property
    def clauses(self) -> list[str]:
        """Every clause id the exemplars cite, in first-seen order."""
        seen: dict[str, None] = {}
        for e in self.exemplars:
            seen.update(dict.fromkeys(c.strip() for c in e.clauses.split(",") if c.strip()))
        return list(seen)

    @property
    def configs(self) -> list[tuple[str, list[int]]]:
        """The exemplars' table configs, each once, with the tcIds that use it."""
        out: dict[str, list[int]] = {}
        for e in self.exemplars:
            out.setdefault(e.config, []).append(e.tc_id)
        return list(out.items())


@dataclass(frozen=True)
class TraceRow:
    id: str
    kind: str                # clause | interpretation | unknown
    source: str
    counts: dict[str, int]

    @property
    def vectors(self) -> int:
        return sum(self.counts.values())

    @property
    def status(self) -> str:
        if not self.vectors:
            return "NOT TESTED"
        if self.counts[Outcome.FAIL]:
            return "FAILED"
        if self.counts[Outcome.FAULT] or self.counts[Outcome.UNSUPPORTED]:
            return "INCOMPLETE"
        return "passed"


@dataclass(frozen=True)
class Relied:
    id: str
    clauses: tuple[str, ...]
    reading: str
    reason: str
    vectors: int             # vectors citing the interpretation itself


@dataclass(frozen=True)
class Confusion:
    op: str
    labels: list[str]
    cells: dict[tuple[str, str], int]
    agree: int
    disagree: int

    @property
    def kind_only(self) -> bool:
        """The labels say only whether the answer is a result or which error (no hand or outcome)."""
        return all(label == "result" or label.startswith("error:") for label in self.labels)

    def row_total(self, expected: str) -> int:
        return sum(n for (e, _), n in self.cells.items() if e == expected)


@dataclass(frozen=True)
class FaultRecord:
    """One distinct fault (kind and detail), how often it happened, and where it first did."""

    kind: str
    detail: str
    occurrences: int
    vectors: int             # vectors in the batches it hit (a batch retried counts each time)
    file: str
    op: str
    first_tc: int
    stderr_tail: str


@dataclass(frozen=True)
class FaultClass:
    """One fault kind as a bug class: how often, how often a retry recovered it, what the process
    did the first time, the first request that met it and the replay file that sends it alone."""

    kind: str
    title: str
    effect: str
    count: int
    recovered: int
    detail: str              # the first occurrence's detail (exit status or signal, seconds, bytes)
    file: str
    op: str
    first_tc: int
    n: int
    replay: str | None       # failures/ file, when the request was kept
    stderr_tail: str

    @property
    def where(self) -> str:
        if not self.n:
            return "hello" if self.op == "hello" else self.op
        cases = f"tcId {self.first_tc}" + (f" to {self.first_tc + self.n - 1}" if self.n > 1 else "")
        return f"{self.op} request of {self.file}, {cases}"


@dataclass(frozen=True)
class PoisonedCase:
    """A case that faulted the vendor on its own, every time it was sent alone."""

    file: str
    op: str
    tc_id: int
    kind: str
    detail: str
    case: str                # compact JSON of the inputs
    replay: str              # failures/ file that sends it


@dataclass(frozen=True)
class SuiteFile:
    path: str
    sha256: str
    size: int
    tests: int


@dataclass
class ReportData:
    run_dir: Path
    submission: Submission
    meta: dict[str, Any]
    verdict: str                     # pass | scoped_pass | fail | incomplete
    verdict_title: str
    reasons: list[str]
    scope: dict[str, Any]
    fault_classes: list[FaultClass]
    vendor: dict[str, Any]
    totals: dict[str, int]
    suite_tests: int | None
    by_op: list[tuple[str, dict[str, int]]]
    batches: dict[str, int]
    trace: list[TraceRow]
    relied: list[Relied]
    classes: list[FailureClass]
    refusals: list[Refusal]          # tables and bets refused as a whole (reports/refusals.py)
    confusion: list[Confusion]
    faults_by_kind: list[tuple[str, int, int]]
    faults: list[FaultRecord]
    faults_total: int
    poisoned: list[PoisonedCase]
    poisoned_total: int
    math: GameMath
    summary_sha256: str
    manifest: dict[str, Any] | None
    manifest_matches: bool | None
    suite_files: list[SuiteFile]
    replay_digests: list[tuple[str, str]]
    problems: list[str] = field(default_factory=list)
    fingerprint: str = ""            # the signing key's, when the report is to be signed
    hands: HandFindings | None = None  # a hand suite's wrong hands by cause
    protocol_note: str | None = None  # what an earlier contract version left unchecked (page 1)
    causes: CauseAnalysis | None = None  # the failures by cause (tablecert.harness.answers.causes)
    live: dict[str, Any] | None = None   # a live run's interruptions made and survived (summary.json's live)
    build: dict[str, Any] | None = None  # the vendor's build as bound (meta ``build``; None: the run predates it)
    build_files: list[tuple[str, str, int, int, str]] = field(default_factory=list)  # path, kind, mode, size, sha256

    @property
    def suite_anchor(self) -> dict[str, Any]:
        """How the suite run was anchored (``kind`` release | custom, ``manifest_sha256``); empty
        for a run recorded before tablecert checked it."""
        anchor = RunMeta.of(self.meta).suite_anchor
        return anchor if isinstance(anchor, dict) else {}

    @property
    def vectors_run(self) -> int:
        return sum(self.totals.values())

    @property
    def finished(self) -> dt.datetime:
        """When the run finished (else started): the documents' date, never the clock's."""
        run = RunMeta.of(self.meta)
        for text in (run.finished, run.started):
            if isinstance(text, str):
                try:
                    when = dt.datetime.fromisoformat(text)
                except ValueError:
                    continue
                return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)
        return dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)


def clip(text: str, limit: int) -> str:
    """At most about ``limit`` characters, saying how many were left out (a text less than a
    quarter over the limit is kept whole)."""
    if len(text) <= limit + limit // 4:
        return text
    return f"{text[:limit]} ... ({len(text) - limit:,} more characters)"


def show_json(raw: str, limit: int = JSON_SHOWN) -> str:
    """A stored JSON value as compact, wrappable, ASCII-only JSON."""
    try:
        text = json.dumps(json.loads(raw), separators=(", ", ": "), ensure_ascii=True)
    except (ValueError, RecursionError):
        text = raw
    return clip(text, limit)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def open_run_db(run_dir: Path) -> RunReader:
    """The run folder's database, read-only (RunFolderError, one line, when there is none)."""
    path = run_dir / "run.db"
    if not run_dir.is_dir():
        raise RunFolderError(f"{run_dir}: no such run folder")
    check_database_files(path)
    if not path.is_file():
        raise RunFolderError(f"{run_dir}: not a run folder (no run.db)")
    try:
        return open_reader(path)
    except (UnreadableRun, SchemaError) as err:
        raise RunFolderError(str(err)) from None


def _totals(db: RunReader, dimension: str) -> dict[str, dict[str, int]]:
    return {key: {**{o: 0 for o in OUTCOMES}, **by_outcome} for key, by_outcome in db.totals(dimension).items()}


def _notes() -> dict[str, dict[str, str]]:
    return notes()


def _trace(by_clause: dict[str, dict[str, int]]) -> tuple[list[TraceRow], list[Relied]]:
    register, interps = clauses(), interpretations()
    empty = {o: 0 for o in OUTCOMES}
    rows = [TraceRow(cid, "clause", c.source, by_clause.get(cid, dict(empty))) for cid, c in register.items()]
    rows += [TraceRow(iid, "interpretation", "interpretation register", by_clause[iid])
             for iid in interps if iid in by_clause]
    rows += [TraceRow(k, "unknown", "not in either register", by_clause[k])
             for k in sorted(by_clause) if k not in register and k not in interps]
    tested = {k for k, c in by_clause.items() if sum(c.values())}
    relied = [Relied(i.id, i.clauses, i.reading, i.reason, sum(by_clause.get(i.id, empty).values()))
              for i in interps.values() if i.id in tested or tested.intersection(i.clauses)]
    return rows, relied


def _windows(db: RunReader, failed: dict[str, int],
             sets: dict[str, list[str]], refused: RefusalStep | None = None) -> dict[str, list[FailureHead]]:
    """For each failing flag, its first ``EXEMPLAR_WINDOW`` failures in run order, among the
    failures attributed to it (their flag sets ``sets``).

    One pass over the failures in run order, filtered to the flag sets of the flags whose window is
    still open, that stops as soon as every window is full (it is narrowed each time one fills)."""
    need = {flag: min(n, EXEMPLAR_WINDOW) for flag, n in failed.items()}
    windows: dict[str, list[FailureHead]] = {flag: [] for flag in need}
    owner = {text: flag for flag, texts in sets.items() for text in texts}
    open_flags = {flag for flag, n in need.items() if n > 0 and sets.get(flag)}
    last = 0
    while open_flags:
        wanted = sorted(text for flag in open_flags for text in sets[flag])
        heads = db.failure_heads(last, wanted, refused.refused if refused and refused.classes else Refused())
        narrowed = False
        for head in heads:
            last = head.rowid
            flag = owner[head.flags]
            if flag in open_flags:
                windows[flag].append(head)
                if len(windows[flag]) >= need[flag]:
                    open_flags.discard(flag)
                    narrowed = True
                    break
        heads.close()
        if not narrowed:
            break    # the end of the failures
    return windows


def _classes(db: RunReader, by_flag: dict[str, dict[str, int]], run_dir: Path,
             refused: RefusalStep) -> list[FailureClass]:
    """The failure classes by flag, without the failures of tables and bets refused as a whole."""
    notes = _notes()
    by_op_flag = _totals(db, "op_flag")
    by_op_flag = {k: {**c, Outcome.FAIL: c[Outcome.FAIL] - refused.op_flag_fails[k]} for k, c in by_op_flag.items()}
    counts, sets = attributed(db, refused.refused if refused.classes else Refused())
    hands = sum(group.n for group in db.hand_causes())        # the wrong hands, counted as they were written
    for flag in HAND_FLAGS if hands else ():
        counts[flag] = counts.get(flag, 0) + hands
    attributed_ops = _attributed_ops(db, refused)
    failing = sorted(((n, f) for f, n in counts.items() if n),
                     key=lambda t: class_order(t[1], notes.get(t[1], {}).get("bugType", "UNKNOWN"), t[0]))
    windows = _windows(db, {flag: n for n, flag in failing}, sets, refused)
    out = []
    for failed, flag in failing:
        window = windows[flag]
        groups = Counter((h.file, h.op, h.tg_id) for h in window)
        smallest = sorted(window, key=lambda h: (h.size, h.file, h.op, h.tc_id))[:EXEMPLARS]
        exemplars = []
        for head in smallest:
            f = db.failure_at(head.rowid).failure
            exemplars.append(Exemplar(f.file, f.op, f.tg_id, f.tc_id, len(f.case), show_json(f.case),
                                      *_shown_pair(f.op, f.expected, f.actual), show_json(f.config),
                                      ", ".join(json.loads(f.clauses)), replay_name(f.file, f.op, f.tg_id),
                                      clip(f.comment, 300)))
        replays = [Replay(replay_name(*key), n, (run_dir / "failures" / replay_name(*key)).is_file())
                   for key, n in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))]
        note = notes.get(flag, {})
        ops = sorted((attributed_ops.get(flag) or Counter({k.split(" ", 1)[0]: c[Outcome.FAIL] for k, c in by_op_flag.items()
                                                           if k.split(" ", 1)[-1] == flag and c[Outcome.FAIL]})).items(),
                     key=lambda t: (-t[1], t[0]))
        out.append(FailureClass(flag, note.get("bugType", "UNKNOWN"), note.get("description", "(no note for this flag)"),
                                note.get("effect", ""), failed, sum(by_flag.get(flag, {}).values()), ops, exemplars,
                                replays[:REPLAYS_SHOWN], max(0, len(replays) - REPLAYS_SHOWN), len(window) >= failed))
    return out


def _attributed_ops(db: RunReader, refused: RefusalStep) -> dict[str, Counter[str]]:
    """Per flag, its attributed failures per op (each failing vector once, as the Failed column)."""
    out: dict[str, Counter[str]] = {}
    for op, text, n in db.failures_by_flag_set(refused.refused if refused.classes else Refused()):
        flags = json.loads(text)
        if isinstance(flags, list) and flags:
            out.setdefault(most_specific([str(f) for f in flags]), Counter())[op] += n
    return out


def _shown_pair(op: str, expected: str, actual: str) -> tuple[str, str]:
    """A failure's stored expected and answered values in the same shape (the result itself, an
    error as ``{"error": CODE}``), differing fields first, shortened only after them."""
    try:
        e, a = json.loads(expected), json.loads(actual)
    except ValueError:
        return show_json(expected), show_json(actual)
    diffs = tuple(stored_differences(op, e, a)[0] if is_cut(a) else all_differences(op, e, a))
    return example_json(unwrapped(e), diffs), example_json(answered(a), diffs)


def _label_rank(label: str) -> tuple[int, str]:
    order = (list(PLAYER_CATEGORIES) + [b for b in BANKER_LABELS if b not in PLAYER_CATEGORIES]
             + ["win", "lose", "push", "no_action", "point", "result"])
    if label in order:
        return (order.index(label), "")
    return (len(order) + (1 if label.startswith("error:") else 2), label)


def _confusion(db: RunReader) -> list[Confusion]:
    tables: dict[str, dict[tuple[str, str], int]] = {}
    for cell in db.confusion_cells():
        tables.setdefault(cell.op, {})[(cell.expected, cell.actual)] = cell.n
    out = []
    for op, cells in sorted(tables.items()):
        labels = sorted({e for e, _ in cells} | {a for _, a in cells}, key=_label_rank)
        agree = sum(n for (e, a), n in cells.items() if e == a)
        out.append(Confusion(op, labels, cells, agree, sum(cells.values()) - agree))
    return out


def _faults(db: RunReader) -> tuple[list[tuple[str, int, int]], list[FaultRecord], int]:
    """Faults by kind, and the first ``FAULTS_SHOWN`` distinct faults (kind and detail)."""
    by_kind = [(g.kind, g.count, g.vectors) for g in db.fault_groups()]
    distinct = [FaultRecord(g.kind, clip(g.first.detail, 300), g.count, g.vectors, g.first.file, g.first.op,
                            g.first.first_tc, g.first.stderr_tail[-STDERR_SHOWN:])
                for g in db.fault_groups(by_detail=True, limit=FAULTS_SHOWN)]
    return by_kind, distinct, sum(c for _, c, _ in by_kind)


def _fault_classes(db: RunReader) -> list[FaultClass]:
    """Each fault kind, most severe first, with its first occurrence and first kept request."""
    words = tomllib.loads(resources.files("tablecert.reports").joinpath("fault_classes.toml").read_text("utf-8"))
    kept = {r.kind: r for r in db.fault_requests(heads=True)}
    out = []
    for g in db.fault_groups():
        kind, first = g.kind, g.first
        file, op, first_tc, n = first.file, first.op, first.first_tc, first.n
        replay = None
        if kind in kept:
            file, op, first_tc, n = kept[kind].file, kept[kind].op, kept[kind].first_tc, kept[kind].n
            replay = fault_replay_name(kind, file, op, first_tc)
        w = words.get(kind, {})
        out.append(FaultClass(kind, w.get("title", f"Vendor fault {kind}"), w.get("effect", ""), g.count, g.recovered,
                              clip(first.detail, 300), file, op, first_tc, n, replay,
                              first.stderr_tail[-STDERR_SHOWN:]))
    return sorted(out, key=lambda c: severity(c.kind))


def _poisoned(db: RunReader) -> tuple[list[PoisonedCase], int]:
    """The first ``FAULTS_SHOWN`` cases that fault the vendor on their own, and how many there are
    (a run database from before the table existed has none)."""
    return [PoisonedCase(p.file, p.op, p.tc_id, p.kind, clip(p.detail, 300), show_json(p.case),
                         poisoned_replay_name(p.file, p.op, p.tc_id))
            for p in db.poisoned(limit=FAULTS_SHOWN)], db.poisoned_count()


def _suite(run_dir: Path, run: RunMeta) -> tuple[dict[str, Any] | None, bool | None, list[SuiteFile]]:
    path = run_dir / "suite" / "manifest.json"
    if not path.is_file():
        return None, None, []
    try:
        manifest = json.loads(path.read_bytes())
    except ValueError:
        return None, False, []
    matches = sha256_file(path) == run.suite_manifest_sha256
    files = sorted((SuiteFile(str(f.get("path", "")), str(f.get("sha256", "")), int(f.get("size", 0)),
                              int(f.get("numberOfTests", 0))) for f in manifest.get("files", [])),
                   key=lambda f: f.path)
    return manifest, matches, files


def _title(run: RunMeta, verdict: str, protocol: str | None) -> str:
    """The verdict box's title: the words the run's decision keeps (:class:`~tablecert.harness.model.Decision`),
    worded by :func:`~tablecert.harness.model.verdict_title` for a run that kept none (one not
    concluded, whose verdict here is INCOMPLETE, or one concluded by a release before 1.0)."""
    kept = run.decision if run.state in ("finished", "not_started") else None
    if kept is not None and kept.verdict == verdict:
        return kept.title
    return verdict_title(Verdict(verdict), run.scope or {}, protocol, run.shard, isinstance(run.rerun_of, dict))


def load_report_data(run_dir: Path, submission: Submission | None = None) -> ReportData:
    """Read everything both documents need from the run folder (bounded work; see the module)."""
    run_dir = Path(run_dir)
    try:
        return _load(run_dir, submission)
    except UnreadableRun as err:
        raise RunFolderError(str(err)) from None
    except DatabaseError as err:
        raise RunFolderError(f"{run_dir / 'run.db'}: not a readable run database ({err})") from None


def _load(run_dir: Path, submission: Submission | None) -> ReportData:
    db = open_run_db(run_dir)
    try:
        meta = db.meta()
        run = RunMeta.of(meta)
        by_op = _totals(db, "op")
        totals = {o: sum(c[o] for c in by_op.values()) for o in OUTCOMES}
        by_clause = _totals(db, "clause")
        trace, relied = _trace(by_clause)
        refused = refusals(db)
        classes = _classes(db, _totals(db, "flag"), run_dir, refused)
        confusion = _confusion(db)
        faults_by_kind, faults, faults_total = _faults(db)
        poisoned, poisoned_total = _poisoned(db)
        fault_classes = _fault_classes(db)
        hands = hand_findings(db, run)
        causes = stored_analysis(db, run_dir, run)
        batches = db.batch_statuses()
        protocol_note = unchecked_note(run.protocol, _totals(db, "protocol"))
        live = live_summary(db.live_record() or {}, _totals(db, LIVE_DIMENSION)) if run.live else None
        build_files = list(db.build_files())
    finally:
        db.close()
    problems = []
    verdict = run.verdict if run.state == "finished" else None
    if run.state == "running" and not run_is_live(run_dir):
        meta["state"] = "interrupted"                  # as the documents show it
        done = sum(totals.values())
        of = f" of {int(run.suite_tests):,}" if isinstance(run.suite_tests, int) else ""
        problems.append(f"the run was interrupted: its process ended before concluding, after {done:,}{of} vectors "
                        f"in {sum(batches.values()):,} batches (continue it with tablecert certify --resume): "
                        "verdict INCOMPLETE")
    elif verdict not in tuple(Verdict):
        problems.append(f"the run is not finished (state {run.state!r}): verdict INCOMPLETE")
    if verdict not in tuple(Verdict):
        verdict = Verdict.INCOMPLETE
    if isinstance(run.sliced, str) and verdict != Verdict.INCOMPLETE:
        problems.append(f"only a part of the suite was run: {run.sliced}")
    summary = run_dir / "summary.json"
    summary_sha = sha256_file(summary) if summary.is_file() else ""
    if not summary_sha:
        problems.append("the run folder has no summary.json")
    manifest, matches, suite_files = _suite(run_dir, run)
    if matches is False:
        problems.append("suite/manifest.json in the run folder is not the manifest of the suite that was run")
    failures_dir = run_dir / "failures"
    replays = sorted(p.name for p in failures_dir.glob("*.jsonl")) if failures_dir.is_dir() else []
    math = game_math_for_run(run.profile, run.game_math)
    vendor = {key: for_terminal(value, VENDOR_SHOWN) if isinstance(value, str) else value
              for key, value in (run.vendor or {}).items()}
    return ReportData(
        run_dir=run_dir, submission=submission or Submission(), meta=meta, verdict=verdict,
        verdict_title=_title(run, verdict, protocol_note and run.protocol),
        vendor=vendor, totals=totals, protocol_note=protocol_note,
        reasons=[str(r) for r in run.verdict_reasons or []] if run.state in ("finished", "not_started") else [],
        scope=run.scope or {}, fault_classes=fault_classes,
        suite_tests=(manifest or {}).get("numberOfTests") if matches else None,
        by_op=sorted(by_op.items()), batches=batches, trace=trace, relied=relied, classes=classes, refusals=refused.classes,
        confusion=confusion, faults_by_kind=faults_by_kind, faults=faults, faults_total=faults_total,
        poisoned=poisoned, poisoned_total=poisoned_total, math=math,
        summary_sha256=summary_sha, manifest=manifest, manifest_matches=matches, suite_files=suite_files,
        replay_digests=[(name, sha256_file(failures_dir / name)) for name in replays],
        problems=problems + math.problems, hands=hands, causes=causes, live=live,
        build=run.build if isinstance(run.build, dict) else None, build_files=build_files)


def _paths_first(value: Any, paths: list[str], prefix: str = "") -> Any:
    """``value`` with the keys (and list entries) on a differing path first."""
    def differs(p: str) -> bool:
        return any(d == p or d.startswith(p + ".") or d.startswith(p + "[") for d in paths)

    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: not differs(f"{prefix}.{k}" if prefix else str(k)))
        return {k: _paths_first(value[k], paths, f"{prefix}.{k}" if prefix else str(k)) for k in keys}
    if isinstance(value, list):
        order = sorted(range(len(value)), key=lambda i: not differs(f"{prefix}[{i}]"))
        return [_paths_first(value[i], paths, f"{prefix}[{i}]") for i in order]
    return value


def example_json(value: Any, differences: tuple[Difference, ...] = (), limit: int = JSON_SHOWN) -> str:
    """An expected or answered value as compact JSON with its differing fields first, shortened
    only after them (a differing value is never cut: the differences are also listed whole)."""
    ordered = _paths_first(value, [d.path for d in differences])
    text = json.dumps(ordered, separators=(", ", ": "), ensure_ascii=True)
    return clip(text, limit)


def difference_value(value: Any) -> str:
    """One differing value, whole, as compact JSON (a string as itself)."""
    return value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "), ensure_ascii=True)
