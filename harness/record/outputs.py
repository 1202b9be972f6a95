"""The run folder's outputs, all written from the run database (so a resumed run writes the same):

* ``summary.json``: the name of its schema (``schema``: :data:`SUMMARY_SCHEMA`), verdict (``pass`` | ``scoped_pass`` | ``fail`` | ``incomplete``, see
  :mod:`tablecert.harness.record.verdict`) with its reasons, its words (``verdict_title``, since 1.0:
  the same on the terminal, in junit and the reports) and scope, totals by outcome, op, clause and
  flag, the vendor's hello, suite and profile digests, faults (each saying whether a retry
  recovered it) and their totals per kind; for a hand suite with wrong hands, ``hand_causes``: the
  wrong hands per op, confusion cell and cause; ``build``: the vendor's build as bound (its
  ``signature``, ``files``, ``bytes``, ``roots``, the ``manifest`` verified, ``vendor_answer`` to
  ``build.authenticate``, ``previous``, and every file in ``listing``: path, kind, mode, size,
  sha256), or ``authenticated`` false and ``why``;
* ``junit.xml``: one test suite per op, one failing test case per cause of wrong answers (each
  failing vector in exactly one, with the cause's smallest failures), a passing one per flag no
  vector failed, and one erroring test case per vendor fault naming the cases it hit, for a
  vendor's CI;
* ``failures/``: one replayable file per failing group, holding the exact request line(s) of the
  failing cases, at most the run's batch size per line (pipe it into the vendor:
  ``vendor < failures/FILE.jsonl``); for a hand suite one file per op with a bounded selection of
  its wrong hands (:func:`tablecert.harness.answers.hand_failures.hand_replays`: every cause of every
  confusion cell, its plainest hands first; all failing tcIds stay in ``run.db``); for a failing
  round group also ``*.shortest.jsonl``, each failing script cut after its first divergent step; one
  ``poisoned.*.jsonl`` per case that faults the vendor on its own (``summary.json``'s ``poisoned``)
  and one ``fault.KIND.*.jsonl`` per fault kind: the first request that met it, to send alone to a
  fresh vendor process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tablecert.harness.answers.causes import keep_spectrum, stored_analysis
from tablecert.harness.answers.hand_failures import hand_cause_totals, hand_examples, hand_replays
from tablecert.harness.live.findings import live_replays
from tablecert.harness.live.run import DIMENSION as LIVE_DIMENSION, LIVE_SUITE_OPS, live_summary
from tablecert.harness.protocol_versions import NEEDS_V2, V2, hello_request
from tablecert.harness.model import (Fault, Outcome, Verdict, dumps, fault_replay_name, poisoned_replay_name,
                                     replay_name, verdict_title)
from tablecert.harness.store import RunReader, RunStore
from tablecert.harness.answers.round_findings import shortest_script
from tablecert.harness.lab_files import new_folder, remove_our_folder, replace_folder, write_atomically
from tablecert.harness.record.verdict import fault_counts
from tablecert.harness.vendor_text import for_xml

SUMMARY_SCHEMA = "tablecert-run-summary/1"
"""The version of summary.json's layout, its first key (the JSON Schema shipped as
tablecert/schemas/run-summary.schema.json; a summary without it is of a release before 1.0)."""
JUNIT_EXAMPLES = 20
REPLAY_LINE_CASES = 1000           # cases per request line of a replay file (a hand suite's: its batch size)
JUNIT_FAULTS = 200        # fault rows shown as erroring test cases (the rest counted in one more)


def summary(db: RunReader) -> dict[str, Any]:
    run = db.run_meta()
    faults = db.faults()
    by_kind = fault_counts(faults)
    first = {r.kind: r for r in db.fault_requests(heads=True)}
    verdict = run.verdict or Verdict.INCOMPLETE
    return {
        "schema": SUMMARY_SCHEMA,
        "verdict": verdict,
        "verdict_reasons": run.verdict_reasons if run.verdict_reasons is not None else ["the run is not finished"],
        "verdict_title": run.verdict_title or verdict_title(verdict, run.scope or {}, None, run.shard,
                                                            isinstance(run.rerun_of, dict)),
        "scope": run.scope,
        "state": run.state,
        "tablecert_version": run.tablecert_version,
        "suite": run.suite,
        "suite_manifest_sha256": run.suite_manifest_sha256,
        "suite_anchor": run.suite_anchor,
        "profile": run.profile,
        "vendor": run.vendor,
        "vendor_hello": run.vendor_hello,
        "adapter": run.adapter,
        "target": run.target,
        "isolation": run.isolation,
        "vendor_limits": run.vendor_limits,
        "vendor_bound": run.vendor_bound,
        "start_failures": run.start_failures or [],
        "protocol": run.protocol,
        "not_sent_for_protocol": db.totals("protocol"),
        "judged": run.judged,
        "sealed_by": (run.seal or {}).get("keyid"),
        **({"responses": run.responses} if run.responses is not None else {}),
        "stopped": run.stopped,
        "shard": run.shard,
        **({"rerun_of": run.rerun_of} if run.rerun_of is not None else {}),
        **({"build": build_summary(db, run.build)} if isinstance(run.build, dict) else {}),
        "host": run.host,
        "started": run.started,
        "finished": run.finished,
        "totals": db.outcome_totals(),
        "by_op": db.totals("op"),
        "by_clause": db.totals("clause"),
        "by_flag": db.totals("flag"),
        "batches": db.batch_statuses(),
        "fault_totals": {"count": len(faults), "recovered": sum(f.recovered for f in faults),
                         "by_kind": {kind: dict(c, first_request=(
                             fault_replay_name(kind, first[kind].file, first[kind].op, first[kind].first_tc)
                             if kind in first else None))
                         for kind, c in by_kind.items()}},
        "faults": [{"file": f.file, "op": f.op, "first_tc": f.first_tc, "n": f.n, "attempt": f.attempt, "kind": f.kind,
                    "detail": f.detail, "recovered": f.recovered} for f in faults],
        "poisoned": [{"file": p.file, "op": p.op, "tc_id": p.tc_id, "kind": p.kind, "detail": p.detail}
                     for p in db.poisoned()],
        **({"hand_causes": causes} if (causes := hand_cause_totals(db)) else {}),
        **({"live": live_summary(db.live_record() or {}, db.totals(LIVE_DIMENSION))} if run.live else {}),
        "causes": stored_analysis(db, Path(db.path).parent, run).as_json(),
    }


def build_summary(db: RunReader, build: dict[str, Any]) -> dict[str, Any]:
    """The vendor's build as the run recorded it (:mod:`tablecert.harness.run.vendor_build`): its
    signature, counts and manifest, and every file (path, kind, mode, size, sha256)."""
    files = [dict(zip(("path", "kind", "mode", "size", "sha256"), row)) for row in db.build_files()]
    return {**build, **({"listing": files} if build.get("authenticated") else {})}


def write_summary(db: RunStore, run_dir: Path) -> dict[str, Any]:
    data = summary(db)
    write_atomically(run_dir / "summary.json", (dumps(data, indent=2, separators=(",", ": ")) + "\n").encode("utf-8"))
    return data


def _attr(value: object) -> str:
    """A quoted XML attribute value (vendor text escaped: :func:`~tablecert.harness.vendor_text.for_xml`)."""
    return f'"{for_xml(value)}"'


def write_junit(db: RunStore, run_dir: Path, data: dict[str, Any] | None = None) -> None:
    """One <testsuite> per op; in it one failing <testcase> per cause of wrong answers
    (:mod:`tablecert.harness.answers.causes`; summary.json's ``causes``, of ``data``, the summary) with its
    smallest failures, one passing test case per flag of the op that no vector failed, and
    error/skipped cases for faults and unsupported vectors. Every count is of vectors and each
    failing vector is in exactly one test case: the root's ``failures`` is the run's failing
    vectors, each suite's its op's, each test case's message its cause's in that op (a hand
    suite's wrong hands: one label cause per op, with example hands)."""
    data = data if data is not None else summary(db)
    analysis = data["causes"]
    declared = set((db.run_meta().vendor or {}).get("ops", []))
    by_op: dict[str, list[tuple[int, dict[str, Any], int]]] = {}
    for number, cause in enumerate(analysis["causes"], 1):
        for op, n in cause["ops"].items():
            by_op.setdefault(op, []).append((number, cause, n))
    hand_lines = hand_examples(db, db.run_meta(), JUNIT_EXAMPLES)
    op_flags: dict[str, dict[str, dict[str, int]]] = {}
    for key, counts in db.totals("op_flag").items():
        op, flag = key.split(" ", 1)
        op_flags.setdefault(op, {})[flag] = counts
    ops = db.totals("op")
    totals = db.outcome_totals()
    faults_by_op: dict[str, list[Fault]] = {}
    for fault in db.faults():
        faults_by_op.setdefault(fault.op, []).append(fault)
    for op in faults_by_op:
        ops.setdefault(op, {})
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<testsuites name="tablecert" tests="{sum(totals.values())}" failures="{totals[Outcome.FAIL]}" '
             f'errors="{totals[Outcome.FAULT]}" skipped="{totals[Outcome.UNSUPPORTED]}">',
             f'  <properties><property name="verdict" value={_attr(data["verdict_title"])}/>'
             '<property name="counts" value="vectors: each failing vector is in one test case, '
             'under its cause"/></properties>']
    for op in sorted(ops):
        counts = ops[op]
        flags = op_flags.get(op, {})
        shown = min(len(faults_by_op.get(op, [])), JUNIT_FAULTS + 1)
        lines.append(f'  <testsuite name={_attr(op)} tests="{sum(counts.values())}" '
                     f'failures="{counts.get(Outcome.FAIL, 0)}" errors="{counts.get(Outcome.FAULT, 0)}" '
                     f'skipped="{counts.get(Outcome.UNSUPPORTED, 0)}">')
        for number, cause, n in by_op.get(op, []):
            lines += _cause_case(op, number, cause, n, hand_lines.get(op, []))
        for flag in sorted(flags):
            c = flags[flag]
            if c.get(Outcome.FAIL):
                continue               # under its cause above
            lines.append(f'    <testcase classname={_attr(op)} name={_attr(flag)}>')
            if c.get(Outcome.FAULT) and not c.get(Outcome.PASS):
                lines.append(f'      <error message="{c[Outcome.FAULT]} vectors not answered (vendor fault)"/>')
            elif c.get(Outcome.UNSUPPORTED) and not c.get(Outcome.PASS):
                why = NEEDS_V2 if op in declared else "op or feature not declared in the vendor's hello"
                lines.append(f'      <skipped message={_attr(why)}/>')
            lines.append("    </testcase>")
        lines += _fault_cases(faults_by_op.get(op, []))
        lines.append("  </testsuite>")
    if analysis.get("not_analysed"):
        lines[2] = lines[2].replace("</properties>", f'<property name="not_analysed" value="{analysis["not_analysed"]} '
                                    f'failing vectors past the first {analysis["failed"]} are in no cause test case"/>'
                                    "</properties>")
    lines.append("</testsuites>")
    write_atomically(run_dir / "junit.xml", ("\n".join(lines) + "\n").encode("utf-8"))


def _cause_case(op: str, number: int, cause: dict[str, Any], n: int, hands: list[str]) -> list[str]:
    """The failing test case of one cause in one op: its count, what every failure shares, its
    smallest failures and their replay files (for a hand suite, example wrong hands ``hands``)."""
    shared = cause["shared_factors"] or cause["leading_factors"]
    body = [f"{cause['failed']:,} failing vector{'s' if cause['failed'] != 1 else ''} in all "
            f"({', '.join(f'{o} {k:,}' for o, k in cause['ops'].items())})"]
    if cause["detail"]:
        body.append(f"how it differs: {cause['detail']}")
    for t, k in cause["transitions"].items():
        body.append(f"expected {t}: {k:,}")
    for f in shared[:JUNIT_EXAMPLES]:
        passed = "" if f["passed"] is None else f", {f['passed']:,} of {cause['not_failed']:,} that did not fail" \
            if cause["not_failed"] else ", every vector of its ops failed"
        body.append(f"{'shared' if cause['shared_factors'] else 'most suspicious'}: {f['factor']} "
                    f"({f['failed']:,} of {cause['failed']:,} failures{passed})")
    for e in cause["smallest"]:
        body.append(f"smallest: {e['file']} tcId {e['tcId']} ({e['op']}), replay failures/{e['replay']}")
    body += hands
    message = f"{n:,} failing vector{'s' if n != 1 else ''}: {cause['cause']}"
    name = f"cause {number}: {cause['cause']}"
    return [f"    <testcase classname={_attr(op)} name={_attr(name)}>",
            f"      <failure message={_attr(message)}>{for_xml(chr(10).join(body))}</failure>",
            "    </testcase>"]


def _fault_cases(faults: list[Fault]) -> list[str]:
    """One erroring test case per vendor fault, named by the cases it hit (the first JUNIT_FAULTS;
    one more test case counts the rest)."""
    lines = []
    for f in faults[:JUNIT_FAULTS]:
        hit = (f"tcId {f.first_tc}" if f.n == 1 else f"tcId {f.first_tc} and the next {f.n - 1}" if f.n else "hello")
        name = f"vendor fault {f.kind}: {f.file or 'start'} {hit} (attempt {f.attempt})"
        message = f"{f.kind}: {f.detail}" + (" (a retry then answered these cases)" if f.recovered else "")
        lines += [f"    <testcase classname={_attr(f.op)} name={_attr(name)}>",
                  f"      <error type={_attr(f.kind)} message={_attr(message[:2000])}/>",
                  "    </testcase>"]
    if len(faults) > JUNIT_FAULTS:
        lines += [f'    <testcase classname={_attr(faults[0].op)} name="vendor faults not listed">',
                  f'      <error type="fault" message="{len(faults) - JUNIT_FAULTS} more vendor faults of this op '
                  f'(summary.json lists them all)"/>', "    </testcase>"]
    return lines


def write_failure_replays(db: RunStore, run_dir: Path) -> int:
    """One file per failing group: the request line(s) holding its failing cases, as sent; one per
    poisoned case; one per fault kind (its first request). The folder is built beside the old one (a new
    folder of an unpredictable name) and swapped in whole; a link at ``failures`` is refused."""
    folder = run_dir / "failures"
    replays: dict[str, tuple[str, Any, list[Any], list[int]]] = {}
    live = live_replays(db.failures(), LIVE_SUITE_OPS, db.live_failures(), replay_name)
    for rec in db.failures():
        if rec.op in LIVE_SUITE_OPS:
            continue                      # a live vector's replay is its script with its kills (below)
        config, case = json.loads(rec.config), json.loads(rec.case)
        replay = replays.setdefault(replay_name(rec.file, rec.op, rec.tg_id), (rec.op, config, [], []))
        replay[2].append(case)
        replay[3].append(rec.tc_id)
        if rec.op == "craps.round" and (cut := shortest_script(case, rec.comment)) is not None:
            name = replay_name(rec.file, rec.op, rec.tg_id).replace(".jsonl", ".shortest.jsonl")
            short = replays.setdefault(name, (rec.op, config, [], []))
            short[2].append(cut)     # each failing round cut after its first divergent step
            short[3].append(rec.tc_id)
    for p in db.poisoned():
        replays[poisoned_replay_name(p.file, p.op, p.tc_id)] = (p.op, json.loads(p.config), [json.loads(p.case)],
                                                                 [p.tc_id])
    for r in db.fault_requests():
        replays[fault_replay_name(r.kind, r.file, r.op, r.first_tc)] = (
            r.op, json.loads(r.config), json.loads(r.cases), list(range(r.first_tc, r.first_tc + r.n)))
    run = db.run_meta()
    replays.update(hand_replays(db, run))
    if not replays and not live:
        remove_our_folder(folder)
        return 0
    building = new_folder(run_dir, "failures")
    try:
        _write_replays(replays, building, int(run.hand_batch_size or REPLAY_LINE_CASES), run.protocol or V2)
        for name, text in sorted(live.items()):
            with open(building / name, "x", encoding="utf-8") as f:
                f.write(text)
        replace_folder(building, folder)
    except BaseException:
        remove_our_folder(building)
        raise
    return len(replays) + len(live)


def _write_replays(replays: dict[str, tuple[str, Any, list[Any], list[int]]], folder: Path, per_line: int,
                   protocol: str) -> None:
    """Each file: the run's hello, the cases in request lines of at most ``per_line`` cases, bye."""
    for name, (op, config, cases, tc_ids) in sorted(replays.items()):
        hello = hello_request(protocol)
        with open(folder / name, "x", encoding="utf-8") as f:
            f.write(json.dumps(hello, separators=(",", ":")) + "\n")
            rid = 0
            for rid, start in enumerate(range(0, len(cases), per_line), 1):
                request = {"id": rid, "op": op, "config": config, "cases": cases[start: start + per_line]}
                f.write(json.dumps(request, separators=(",", ":"), ensure_ascii=False) + "\n")
            f.write(json.dumps({"id": rid + 1, "op": "bye"}) + "\n")
        with open(folder / f"{name.removesuffix('.jsonl')}.tcids.json", "x", encoding="utf-8") as f:
            f.write(json.dumps(tc_ids) + "\n")


def write_outputs(run_dir: Path) -> dict[str, Any]:
    db = RunStore(run_dir / "run.db")
    try:
        keep_spectrum(db, run_dir)          # the cause analysis's suite counts, once (sealed runs: already)
        data = write_summary(db, run_dir)
        write_junit(db, run_dir, data)
        write_failure_replays(db, run_dir)
    finally:
        db.close()
    return data
