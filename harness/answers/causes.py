"""Failures grouped by cause: what differs between the expected and the answered value, and what
the failing vectors share that the passing ones do not.

Each failure gets a **difference signature** (:mod:`tablecert.harness.answers.differences`): the fields of the answer that
differ from the oracle's and how — an amount higher or lower (by how many units of the table, or
by what ratio), a label answered as another (a hand, a craps outcome), a stake disposition changed
(``taken`` answered as ``returned``), a result where an error was expected, an error where a
result was expected, error A answered as B, a field missing or extra. Differences that follow from
another in the same answer (or the same pai gow seat) are consequences and do not make the
signature: a wrong hand label pays a wrong bonus; a stake handed back instead of taken changes
its returned amount. The first primary difference (errors, then shapes, labels, dispositions, the
point, amounts) is the failure's **cause key**; each failing vector has exactly one cause.

Each cause is then located like spectrum-based fault localisation (GZoltar's Ochiai and
Tarantula): every vector of the cause's ops has **factors** — its op, craps bet, point, odds
working or off, each table feature (:func:`tablecert.harness.answers.capabilities.table_features`:
``unit=100``, ``commission``, ``commission_rounding=down`` ...), a pai gow hand holding the joker,
a player-banked round, and each flag of the vector. With ``ef`` the cause's failures that have a
factor, ``F`` all of them, ``ep`` the vectors of the same ops that did not fail and have it and
``P`` all of those::

    Ochiai    = ef / sqrt(F * (ef + ep))
    Tarantula = (ef / F) / (ef / F + ep / P)

The factors every failure of a cause has, ranked by Ochiai, are its **shared factors**. The
non-failing side is the suite's factor counts (every vector of the ops that fail, counted once
from the suite folder that was run, ``RUN/suite``, and kept
in the run database's meta under :data:`SPECTRUM_KEY` by :func:`spectrum_to_keep`, so that the
analysis, and summary.json recomputed at signing, need only run.db) less the failures' own.
Without it the scores are not computed (``passed`` is None) and the shared factors are still
listed.

Causes are ordered most severe first (:func:`severity`: money paid, charged or handed back
wrongly; then labels that decide a payout; limits and accepted bets; refusals; shapes), then most
failures, then their key. Everything is integers and
sorted lists: the same run database and suite give the same analysis, byte for byte.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec

from tablecert.harness.answers.capabilities import case_features, table_features
from tablecert.harness.answers.differences import (DISPOSITIONS, KIND_ORDER, LABEL_NAMES, Difference,  # noqa: F401
                                                   all_differences, answered, differences, error_code, is_cut,
                                                   stored_differences, unwrapped)
from tablecert.harness.model import RunMeta, replay_name
from tablecert.harness.store import RunReader, RunStore, open_reader
from tablecert.harness.suites.reader import json_line, vector_set_files
from tablecert.oracle.live_stations import SUITE_ORACLE
from tablecert.oracle.names import HAND_SUITES

EXAMPLES = 3          # smallest failures kept per cause
FACTORS_SHOWN = 6     # factors listed per cause
LIVE_TABLE_OPS = tuple(SUITE_ORACLE)
"""The live suite's ops (``craps.table``, ``paigow.table``, ``craps.stations``)."""
LIVE_RECORD_REQUESTS = ("table.recall", "table.meters")
"""A live table's records and meters, as a failure row names them (its first field that differs)."""
CAUSE_WINDOW = 50_000
"""Failures analysed (the first, in file, op and tcId order); past it a run's failures are counted
as not analysed, and every output says how many."""


@dataclass(frozen=True)
class Factor:
    """A factor of the vectors of a cause's ops, and its suspiciousness for the cause."""

    name: str
    failed: int               # ef: the cause's failures that have it
    passed: int | None        # ep: the non-failing vectors of the cause's ops that have it (None: not counted)
    ochiai: float | None
    tarantula: float | None

    def as_json(self) -> dict[str, Any]:
        return {"factor": self.name, "failed": self.failed, "passed": self.passed,
                "ochiai": None if self.ochiai is None else round(self.ochiai, 4),
                "tarantula": None if self.tarantula is None else round(self.tarantula, 4)}


@dataclass(frozen=True)
class Example:
    """One of a cause's smallest failures, expected and answered in the same shape."""

    file: str
    op: str
    tc_id: int
    replay: str
    case: Any
    config: Any
    expected: Any             # the result or {"error": code}, unwrapped like the answer
    actual: Any
    differences: tuple[Difference, ...]


@dataclass
class Cause:
    key: str
    title: str
    kind: str
    failed: int
    ops: list[tuple[str, int]]
    detail: str                          # how the values differ (units, ratio, range), over every failure
    transitions: list[tuple[str, int]]   # "A -> B" with counts, for labels, dispositions, errors
    also: list[tuple[str, int]]          # other fields that differ in the same failures (consequences)
    factors: list[Factor]                # shared by every failure, most suspicious first (FACTORS_SHOWN)
    leading: list[Factor]                # the most suspicious factors when none is shared by all
    examples: list[Example]
    replays: list[tuple[str, int]]       # failures/ file -> failures of the cause in it
    passed: int | None                   # P: non-failing vectors of the cause's ops
    severity: int = 0
    flags: list[tuple[str, int]] = field(default_factory=list)
    shared_total: int = 0                # factors shared by every failure, listed or not

    def as_json(self) -> dict[str, Any]:
        return {"cause": self.title, "key": self.key, "kind": self.kind, "failed": self.failed,
                "ops": dict(self.ops), "detail": self.detail, "transitions": dict(self.transitions),
                "also_differs": dict(self.also), "shared_factors": [f.as_json() for f in self.factors],
                "shared_factors_total": self.shared_total,
                "leading_factors": [f.as_json() for f in self.leading], "not_failed": self.passed,
                "smallest": [{"file": e.file, "op": e.op, "tcId": e.tc_id, "replay": e.replay} for e in self.examples],
                "replays": dict(self.replays)}


@dataclass
class CauseAnalysis:
    causes: list[Cause]
    failed: int                          # failures analysed (each in exactly one cause)
    spectrum: bool                       # the non-failing side was counted from the suite
    not_analysed: int = 0                # failures past CAUSE_WINDOW, in no cause

    def as_json(self) -> dict[str, Any]:
        return {"failed": self.failed, "not_analysed": self.not_analysed, "pass_spectrum": self.spectrum,
                "causes": [c.as_json() for c in self.causes]}



LIVE_FAULTS = {"crash": "the vendor crashed during live play",
               "bad_hello": "a restarted instance greeted as another build (bad_hello)",
               "timeout": "the vendor stopped answering during live play (timeout)",
               "state_limit": "the vendor's state_dir outgrew the lab's --max-state-mb"}
"""A live table's vendor fault (the failure row's ``{"fault": KIND}``:
:func:`tablecert.harness.live.findings.compared_pair`) in the lab's words, by kind."""


def cause_key(op: str, diffs: list[Difference]) -> tuple[int, str]:
    """The failure's cause: (kind rank, key) of its first primary difference; a live table's
    vendor fault by its kind (``fault|craps.stations|crash``)."""
    fault = next((d for d in diffs if d.field == "fault" and d.kind == "shape" and op in LIVE_TABLE_OPS), None)
    if fault is not None:
        return KIND_ORDER.index("shape"), f"fault|{op}|{fault.actual}"
    d = min(diffs, key=lambda d: (KIND_ORDER.index(d.kind), d.field))
    name = LABEL_NAMES.get((op, d.field))
    if name is not None:
        return KIND_ORDER.index(d.kind), f"label|{name}"
    if d.kind in ("accepted", "refused", "error"):
        target = d.expected if d.kind != "refused" else d.actual
        return KIND_ORDER.index(d.kind), f"{d.kind}|{op}|{target}"
    return KIND_ORDER.index(d.kind), f"{d.kind}|{op}|{d.field}|{d.direction}"


def cause_of(op: str, expected: Any, actual: Any) -> tuple[str, str]:
    """(key, title) of the cause of one wrong answer, as the analysis would file it (``tablecert
    fuzz`` tells its failures apart by it: one bug found in several ops is one finding)."""
    diffs = differences(op, expected, actual) or [Difference("", "answer", "value", unwrapped(expected), actual)]
    rank, key = cause_key(op, diffs)
    return key, _title(key, KIND_ORDER[rank], "", Counter())


# -- factors

def factors(op: str, config: Any, case: Any, expected: Any, flags: list[str]) -> list[str]:
    """The factors of one vector (see the module)."""
    expected_view = {"error": error_code(expected)} if isinstance(expected, dict) and "error" in expected else {}
    out = [f"op = {op}"]
    out += table_factors(op, config)
    out += [f.replace("bet:", "bet = ", 1) for f in case_features(op, case, expected_view)]
    if isinstance(case, dict):
        if op.startswith("craps.") and isinstance(case.get("point"), int) and not isinstance(case.get("point"), bool):
            out.append(f"point = {case['point']}")
        if op == "craps.settle" and isinstance(case.get("odds_working"), bool):
            out.append("odds working" if case["odds_working"] else "odds off")
        hands = [case.get("cards")] + [s.get("cards") for s in case.get("seats") or [] if isinstance(s, dict)]
        if any(isinstance(cards, list) and "JK" in cards for cards in hands):
            out.append("a hand holds the joker")
    out += [f"flag {f}" for f in flags if isinstance(f, str)]
    return out


def table_factors(op: str, config: Any) -> list[str]:
    """A craps table's features as factors; its commission rounding only where it charges a
    commission (on a commission-free table the rounding decides nothing)."""
    features = table_features(op, config)
    charged = "commission" in features
    return [f.replace("=", " = ", 1) for f in features if charged or not f.startswith("commission_rounding=")]


def _scores(ef: int, total_failed: int, ep: int | None, total_passed: int | None) -> tuple[float | None, float | None]:
    if ep is None or total_passed is None:
        return None, None
    ochiai = ef / math.sqrt(total_failed * (ef + ep)) if ef else 0.0
    fail_rate = ef / total_failed
    pass_rate = ep / total_passed if total_passed else 0.0
    tarantula = fail_rate / (fail_rate + pass_rate) if fail_rate + pass_rate else 0.0
    return ochiai, tarantula


SPECTRUM_KEY = "cause_spectrum"
"""The run database's meta key holding the factor counts of the suite's vectors, per op."""
ANALYSIS_KEY = "cause_analysis"
"""The run database's meta key holding the analysis made once, when the concluded run was sealed
(:func:`analysis_to_keep`, sealed with it; since 1.0): summary.json, junit and the reports read it
(:func:`stored_analysis`) instead of analysing again."""


def suite_spectrum(suite: Path, ops: set[str]) -> dict[str, dict[str, Any]]:
    """Per op of ``ops``: how many vectors the suite folder holds, and how many have each factor
    (every vector, failing or not; the failing ones are taken off at analysis)."""
    manifest = json.loads((suite / "manifest.json").read_bytes())
    out = {op: {"vectors": 0, "factors": Counter()} for op in ops}
    for entry in vector_set_files(manifest):
        op = entry["op"]
        if op not in ops:
            continue
        name = entry["path"].split("/", 1)[1]
        counter: Counter[str] = out[op]["factors"]
        with gzip.open(suite / "prompt" / name, "rb") as pf, gzip.open(suite / "expected" / name, "rb") as ef:
            table: list[str] = []
            for pline, eline in zip(pf, ef):
                p = json_line(pline)
                kind = p.get("type")
                if kind == "group":
                    table = table_factors(op, p.get("config"))
                elif kind == "test":
                    e = json_line(eline)
                    out[op]["vectors"] += 1
                    counter.update(factors(op, None, p.get("case"), e.get("expected"), e.get("flags") or []))
                    counter.update(table)
    return {op: {"vectors": v["vectors"], "factors": dict(sorted(v["factors"].items()))} for op, v in out.items()}


def _suite_folder(run_dir: Path, meta: RunMeta) -> Path | None:
    """The folder of the suite that was run, RUN/suite (every run judges an anchored copy there), if
    its manifest is the one run; None for a hand suite or when it is not there."""
    for folder in (run_dir / "suite",):
        manifest = folder / "manifest.json"
        if manifest.is_file() and hashlib.sha256(manifest.read_bytes()).hexdigest() == meta.suite_manifest_sha256:
            if json.loads(manifest.read_bytes()).get("suite") in HAND_SUITES:
                return None
            return folder
    return None


def stored_spectrum(meta: RunMeta, ops: set[str]) -> dict[str, dict[str, Any]] | None:
    """The spectrum kept in the run's meta, when it covers ``ops`` for the suite that was run."""
    kept = meta.cause_spectrum
    if not isinstance(kept, dict) or kept.get("manifest_sha256") != meta.suite_manifest_sha256:
        return None
    by_op = kept.get("ops") or {}
    return by_op if ops <= set(by_op) else None


def keep_spectrum(db: RunStore, run_dir: Path) -> None:
    """Store the spectrum :func:`spectrum_to_keep` gives in the run's meta. Done before the run's
    record is sealed (:mod:`tablecert.harness.record.seal`), so that the counts the findings rest
    on are sealed with it."""
    kept = spectrum_to_keep(db, run_dir, db.run_meta())
    if kept is not None:
        db.set_meta(**{SPECTRUM_KEY: kept})


def spectrum_to_keep(db: RunReader, run_dir: Path, meta: RunMeta) -> dict[str, Any] | None:
    """The meta value to store under :data:`SPECTRUM_KEY` so that the analysis no longer needs the
    suite folder (signing recomputes summary.json from run.db alone): the kept spectrum extended
    to the ops that now fail, counted from the suite; None when nothing needs storing (or the
    suite is not there)."""
    ops = db.failing_ops()
    if not ops or stored_spectrum(meta, ops) is not None:
        return None
    folder = _suite_folder(run_dir, meta)
    if folder is None:
        return None
    kept = meta.cause_spectrum
    by_op = dict(kept["ops"]) if isinstance(kept, dict) and kept.get("manifest_sha256") == \
        meta.suite_manifest_sha256 else {}
    by_op.update(suite_spectrum(folder, ops - set(by_op)))
    return {"manifest_sha256": meta.suite_manifest_sha256, "ops": dict(sorted(by_op.items()))}


def _not_failing(spectrum: dict[str, dict[str, Any]], failing: Counter[tuple[str, str]],
                 failing_per_op: Counter[str]) -> tuple[dict[str, Counter[str]], dict[str, int]]:
    """The spectrum of the vectors that did not fail: the suite's, less the failures'."""
    by_op = {op: Counter(v["factors"]) for op, v in spectrum.items()}
    for (op, name), n in failing.items():
        if op in by_op:
            by_op[op][name] -= n
    return by_op, {op: v["vectors"] - failing_per_op[op] for op, v in spectrum.items()}


# -- the analysis

@dataclass
class _Group:
    kind_rank: int
    failures: list[tuple[Any, ...]] = field(default_factory=list)


LIMIT_FIELDS = frozenset({"free_odds", "max_odds"})


def severity(kind: str, field_name: str) -> int:
    """How bad a cause is at the table, 0 worst: money paid, charged or handed back wrongly (an
    amount or a stake disposition); a label, outcome or point that decides a payout; a wrong
    limit, or a result where the table must refuse; a refusal or error code where it must not;
    an answer of the wrong shape."""
    if kind == "amount" and field_name.rsplit(".", 1)[-1] in LIMIT_FIELDS:
        return 2
    return {"amount": 0, "disposition": 0, "label": 1, "point": 1, "accepted": 2, "refused": 3, "error": 3,
            "value": 3}.get(kind, 4)


def _unit(config: Any, field_name: str) -> int | None:
    if not isinstance(config, dict):
        return None
    unit = config.get("commission_unit") if "commission" in field_name else config.get("unit")
    return unit if isinstance(unit, int) and not isinstance(unit, bool) and unit > 0 else None


def _amount_detail(rows: list[tuple[Difference, Any]]) -> str:
    """How an amount differs over every failure of a cause: by a number of table units, by a ratio,
    or by a range of minor units."""
    n = len(rows)
    deltas = [d.actual - d.expected for d, _ in rows]
    units = [_unit(config, d.field) for d, config in rows]
    word = "commission unit" if "commission" in rows[0][0].field else "table unit"
    if all(u and delta % u == 0 for u, delta in zip(units, deltas)):
        steps = Counter(delta // u for u, delta in zip(units, deltas) if u)
        if len(steps) == 1:
            (k, _), = steps.items()
            size = "one" if abs(k) == 1 else f"{abs(k):,}"
            return f"{size} {word}{'s' if abs(k) != 1 else ''} {'high' if k > 0 else 'low'} in {n:,} of {n:,}"
    if all(d.actual == 0 for d, _ in rows):
        return f"answered as 0 in {n:,} of {n:,}"
    ratios = Counter(Fraction(d.actual, d.expected) for d, _ in rows if d.expected)
    if len(ratios) == 1 and sum(ratios.values()) == n and next(iter(ratios)).denominator <= 12:
        (r, _), = ratios.items()
        return f"answered {r} times the expected amount in {n:,} of {n:,}"
    low, high = min(deltas), max(deltas)
    way = "higher" if low > 0 else "lower" if high < 0 else "off"
    span = f"{abs(low):,}" if low == high else f"{min(abs(low), abs(high)):,} to {max(abs(low), abs(high)):,}"
    return f"{way} by {span} minor unit{'' if span == '1' else 's'}"


TITLES = {"accepted": "{op}: a result where error {what} was expected",
          "refused": "{op}: error {what} where a result was expected",
          "error": "{op}: error {what} answered as another error",
          "malformed": "{op}: an answer that is not an object",
          "shape": "{op}: {what} missing or not expected",
          "disposition": "{op}: stake disposition {what} changed",
          "point": "{op}: the point answered wrongly",
          "value": "{op}: {what} differs"}
"""A cause's title by its kind (``op`` and ``what`` from its key)."""


def _title(key: str, kind: str, detail: str, transitions: Counter[str]) -> str:
    parts = key.split("|")
    if parts[0] == "fault":
        return f"{parts[1]}: {LIVE_FAULTS.get(parts[2], f'the vendor faulted during live play ({parts[2]})')}"
    if parts[1] in LIVE_TABLE_OPS and parts[2].startswith(LIVE_RECORD_REQUESTS) and kind in ("label", "value"):
        return f"{parts[1]}: {parts[2]} answered wrongly"
    if kind == "label":
        return f"{parts[1] if len(parts) == 2 else parts[1] + ': ' + parts[2]} labelled wrongly"
    if kind == "amount":
        how = detail.split(" in ")[0] if " in " in detail else "too high" if parts[3] == "high" else "too low"
        return f"{parts[1]}: {parts[2]} {how}"
    if kind == "disposition" and len(transitions) == 1:
        return f"{parts[1]}: {parts[2]} {next(iter(transitions)).replace(' -> ', ' answered as ')}"
    return TITLES.get(kind, TITLES["value"]).format(op=parts[1], what=parts[2] if len(parts) > 2 else "")


def analyse(db: RunReader, run_dir: Path, meta: RunMeta) -> CauseAnalysis:
    """Every failure of the run database's ``failures`` table in exactly one cause (see the module),
    up to the first :data:`CAUSE_WINDOW` of them (the rest counted in ``not_analysed``). Reads each
    of those failures once (its config, case, expected and answered value and flags)."""
    groups: dict[str, _Group] = {}
    stored = db.failure_count()
    failing: Counter[tuple[str, str]] = Counter()
    failing_per_op: Counter[str] = Counter()
    for f in db.failures(limit=CAUSE_WINDOW):
        file, op, tg_id, tc_id, size = f.file, f.op, f.tg_id, f.tc_id, len(f.case)
        config, case, expected, actual, flags = (json.loads(f.config), json.loads(f.case), json.loads(f.expected),
                                                 json.loads(f.actual), json.loads(f.flags))
        diffs, _ = stored_differences(op, expected, actual)   # a cut answer: as judged before cutting
        rank, key = cause_key(op, diffs)
        failing.update((op, name) for name in set(factors(op, config, case, expected, flags)))
        failing_per_op[op] += 1
        groups.setdefault(key, _Group(rank)).failures.append(
            (file, op, tg_id, tc_id, config, case, expected, actual, flags, size, diffs))
    total = sum(len(g.failures) for g in groups.values())
    ops = {f[1] for g in groups.values() for f in g.failures}
    kept = stored_spectrum(meta, ops) if ops else None
    if kept is None and ops and (folder := _suite_folder(Path(run_dir), meta)) is not None:
        kept = suite_spectrum(folder, ops)                 # a run from before the spectrum was kept
    spectrum = _not_failing(kept, failing, failing_per_op) if kept is not None else None
    causes = [_cause(key, group, spectrum) for key, group in groups.items()] + hand_causes(db)
    causes.sort(key=lambda c: (c.severity, -c.failed, c.key))
    hands = sum(c.failed for c in causes) - total
    return CauseAnalysis(causes, total + hands, spectrum is not None, stored - total)


def hand_causes(db: RunReader) -> list[Cause]:
    """A hand suite's wrong hands (counted per confusion cell and hand feature as the run went:
    :func:`tablecert.harness.answers.hand_failures.hand_cause_totals`) as one label cause per op, its
    factors the hand features the rules turn on (how many of its wrong hands have each as their
    most specific one; the suite's other hands are not counted, so no score)."""
    from tablecert.harness.answers.hand_failures import hand_cause_totals  # lazy: 221 ms (numba) of a refused or concluded certify's start (-X importtime best of 3 at load 6.6; bench_startup.py has no such path; test_refusals checks it imports no numba)
    by_op: dict[str, list[dict[str, Any]]] = {}
    for cell in hand_cause_totals(db):
        by_op.setdefault(cell["op"], []).append(cell)
    out = []
    for op, cells in sorted(by_op.items()):
        n = sum(c["failures"] for c in cells)
        transitions: Counter[str] = Counter()
        features: Counter[str] = Counter()
        for c in cells:
            transitions[f"{c['expected']} -> {c['actual']}"] += c["failures"]
            features[f"hand: {c['cause']}"] += c["failures"]
        ranked = [Factor(name, k, None, None, None) for name, k in sorted(features.items(), key=lambda t: (-t[1], t[0]))]
        shared = [f for f in ranked if f.failed == n]
        key = f"label|{LABEL_NAMES.get((op, 'hand'), op + ' hand')}"
        out.append(Cause(key, _title(key, "label", "", transitions), "label", n, [(op, n)], "",
                         sorted(transitions.items(), key=lambda t: (-t[1], t[0])), [], shared,
                         [] if shared else ranked[:FACTORS_SHOWN], [], [(f"paigow.hands.{op}.jsonl", n)], None,
                         severity("label", "hand"), [], len(shared)))
    return out


def _cause(key: str, group: _Group, spectrum: tuple[dict[str, Counter[str]], dict[str, int]] | None) -> Cause:

    failures = group.failures
    n = len(failures)
    kind = KIND_ORDER[group.kind_rank]
    ops = Counter(f[1] for f in failures)
    flags: Counter[str] = Counter(flag for f in failures for flag in f[8])
    had: Counter[str] = Counter()
    main: list[tuple[Difference, Any]] = []
    transitions: Counter[str] = Counter()
    also: Counter[str] = Counter()
    for file, op, tg_id, tc_id, config, case, expected, actual, fl, size, diffs in failures:
        had.update(set(factors(op, config, case, expected, fl)))
        first = min(diffs, key=lambda d: (KIND_ORDER.index(d.kind), d.field))
        main.append((first, config))
        if kind in ("label", "disposition", "error", "point", "accepted", "refused", "shape"):
            transitions[f"{_short(first.expected)} -> {_short(first.actual)}"] += 1
        for d in set(stored_differences(op, expected, actual)[1]) - {first.field}:
            also[d] += 1
    detail = _amount_detail(main) if kind == "amount" else ""
    if spectrum is not None:
        by_op, totals = spectrum
        passed_total: int | None = sum(totals[op] for op in ops)
        passed_of = {name: sum(by_op[op][name] for op in ops) for name in had}
    else:
        passed_total, passed_of = None, {}
    scored = []
    for name, ef in had.items():
        ep = passed_of.get(name) if spectrum is not None else None
        if ep is not None and ep < 0:       # a round judged on the table sent (alike_rounds.py): its house
            ep = None                       # rules are not the suite's, so the suite's count says nothing
        ochiai, tarantula = _scores(ef, n, ep, passed_total)
        scored.append(Factor(name, ef, ep, ochiai, tarantula))
    scored.sort(key=lambda f: (-(f.ochiai if f.ochiai is not None else f.failed / n), -f.failed, f.name))
    shared = [f for f in scored if f.failed == n and not (len(ops) == 1 and f.name.startswith("op = "))]
    leading = [] if shared else scored[:FACTORS_SHOWN]
    smallest = sorted(failures, key=lambda f: (f[9], f[0], f[1], f[3]))[:EXAMPLES]
    examples = [Example(f[0], f[1], f[3], replay_name(f[0], f[1], f[2]), f[5], f[4], unwrapped(f[6]),
                        answered(f[7]), tuple(f[10] if is_cut(f[7]) else all_differences(f[1], f[6], f[7])))
                for f in smallest]
    replays = Counter(replay_name(f[0], f[1], f[2]) for f in failures)
    title = _title(key, kind, detail, transitions)
    return Cause(key, title, kind, n, sorted(ops.items(), key=lambda t: (-t[1], t[0])), detail,
                 sorted(transitions.items(), key=lambda t: (-t[1], t[0])),
                 sorted(also.items(), key=lambda t: (-t[1], t[0])), shared[:FACTORS_SHOWN], leading, examples,
                 sorted(replays.items(), key=lambda t: (-t[1], t[0])), passed_total, severity(kind, main[0][0].field),
                 sorted(flags.items(), key=lambda t: (-t[1], t[0])), len(shared))


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return text if len(text) <= 40 else text[:37] + "..."


def analysis_to_keep(db: RunReader, run_dir: Path, meta: RunMeta) -> dict[str, Any]:
    """The meta value to store under :data:`ANALYSIS_KEY`: the run's analysis, whole (its smallest
    failures with their values and differences too), as JSON values."""
    kept: dict[str, Any] = msgspec.to_builtins(analyse(db, run_dir, meta))
    return kept


def stored_analysis(db: RunReader, run_dir: Path, meta: RunMeta) -> CauseAnalysis:
    """The analysis the run kept when it was sealed (:data:`ANALYSIS_KEY`); analysed now only for a
    run that kept none (sealed by a release before 1.0)."""
    kept = meta.cause_analysis
    if isinstance(kept, dict):
        return msgspec.convert(kept, CauseAnalysis)
    return analyse(db, run_dir, meta)


def run_causes(run_dir: Path) -> CauseAnalysis:
    """The cause analysis of a run folder (its run database opened read-only), as it kept it."""
    with open_reader(Path(run_dir) / "run.db") as db:
        return stored_analysis(db, Path(run_dir), db.run_meta())
