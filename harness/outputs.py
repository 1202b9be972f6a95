"""The run folder's outputs, all written from the run database (so a resumed run writes the same):

* ``summary.json``: verdict (``pass`` | ``fail`` | ``incomplete``), totals by outcome, op, clause and
  flag, the vendor's hello, suite and profile digests, faults;
* ``junit.xml``: one test suite per op, one test case per (op, flag), failing with the first
  failures' tcIds, for a vendor's CI;
* ``failures/``: one replayable file per failing group, holding the exact request line(s) of the
  failing cases (pipe it into the vendor: ``vendor < failures/FILE.jsonl``), and one
  ``poisoned.*.jsonl`` per case that faults the vendor on its own (``summary.json``'s ``poisoned``).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from tablecert.harness.results import RunDatabase

JUNIT_EXAMPLES = 20
JUNIT_EXAMPLE_CHARS = 600          # one failure example (case, expected, actual) in junit.xml
JUNIT_EXAMPLES_CHARS = 2 << 20     # all the examples together: junit.xml stays a few MB


def write_atomically(path: Path, data: bytes) -> Path:
    """Replace ``path`` with ``data`` all at once: a reader (or a lab's archive) sees the old file or
    the new one, never a part; if writing fails (a full disk) the old file stays and no part is left."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def replay_name(file: str, op: str, tg_id: int) -> str:
    """The replay file in ``failures/`` holding a failing group's cases (the reports name it too)."""
    return f"{file.removesuffix('.jsonl.gz')}.{op}.tg{tg_id}.jsonl"


def poisoned_replay_name(file: str, op: str, tc_id: int) -> str:
    """The replay file in ``failures/`` that sends one poisoned case alone."""
    return f"poisoned.{file.removesuffix('.jsonl.gz')}.{op}.tc{tc_id}.jsonl"


def summary(db: RunDatabase) -> dict[str, Any]:
    meta = db.meta()
    faults = db.faults()
    return {
        "verdict": meta.get("verdict", "incomplete"),
        "state": meta.get("state"),
        "tablecert_version": meta.get("tablecert_version"),
        "suite": meta.get("suite"),
        "suite_manifest_sha256": meta.get("suite_manifest_sha256"),
        "profile": meta.get("profile"),
        "vendor": meta.get("vendor"),
        "vendor_hello": meta.get("vendor_hello"),
        "adapter": meta.get("adapter"),
        "target": meta.get("target"),
        "isolation": meta.get("isolation"),
        "stopped": meta.get("stopped"),
        "host": meta.get("host"),
        "started": meta.get("started"),
        "finished": meta.get("finished"),
        "totals": db.outcome_totals(),
        "by_op": db.totals("op"),
        "by_clause": db.totals("clause"),
        "by_flag": db.totals("flag"),
        "batches": db.batch_statuses(),
        "faults": [{k: f[k] for k in ("file", "op", "first_tc", "n", "attempt", "kind", "detail")} for f in faults],
        "poisoned": [{k: p[k] for k in ("file", "op", "tc_id", "kind", "detail")} for p in db.poisoned()],
    }


def write_summary(db: RunDatabase, run_dir: Path) -> dict[str, Any]:
    data = summary(db)
    write_atomically(run_dir / "summary.json", (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return data


def write_junit(db: RunDatabase, run_dir: Path) -> None:
    """One <testsuite> per op, one <testcase> per flag of that op (failed with up to
    JUNIT_EXAMPLES exemplars), plus error/skipped cases for faults and unsupported ops."""
    examples: dict[tuple[str, str], list[str]] = {}
    budget = JUNIT_EXAMPLES_CHARS
    for rec in db.failures():
        for flag in rec["flags"]:
            lst = examples.setdefault((rec["op"], flag), [])
            if len(lst) < JUNIT_EXAMPLES and budget > 0:
                text = (f"{rec['file']} tcId {rec['tc_id']}: case {json.dumps(rec['case'])} expected "
                        f"{json.dumps(rec['expected'])} got {json.dumps(rec['actual'])}")
                if len(text) > JUNIT_EXAMPLE_CHARS:
                    text = f"{text[:JUNIT_EXAMPLE_CHARS]}... ({len(text) - JUNIT_EXAMPLE_CHARS:,} more characters)"
                budget -= len(text)
                lst.append(text)
                if budget <= 0:
                    lst.append("(further examples left out: junit.xml keeps at most "
                               f"{JUNIT_EXAMPLES_CHARS:,} characters of them; see run.db and the findings report)")
    op_flags: dict[str, dict[str, dict[str, int]]] = {}
    for key, counts in db.totals("op_flag").items():
        op, flag = key.split(" ", 1)
        op_flags.setdefault(op, {})[flag] = counts
    ops = db.totals("op")
    totals = db.outcome_totals()
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<testsuites name="tablecert" tests="{sum(totals.values())}" failures="{totals["fail"]}" '
             f'errors="{totals["fault"]}" skipped="{totals["unsupported"]}">']
    for op in sorted(ops):
        counts = ops[op]
        flags = op_flags.get(op, {})
        failed = [f for f in flags if flags[f].get("fail")]
        lines.append(f'  <testsuite name={quoteattr(op)} tests="{len(flags)}" failures="{len(failed)}" '
                     f'errors="{1 if counts.get("fault") else 0}" skipped="{1 if counts.get("unsupported") else 0}">')
        for flag in sorted(flags):
            c = flags[flag]
            lines.append(f'    <testcase classname={quoteattr(op)} name={quoteattr(flag)}>')
            if c.get("fail"):
                body = "\n".join(examples.get((op, flag), []))
                message = f"{c['fail']} of {sum(c.values())} vectors failed"
                lines.append(f"      <failure message={quoteattr(message)}>{escape(body)}</failure>")
            elif c.get("fault") and not c.get("pass"):
                lines.append(f'      <error message="{c["fault"]} vectors not answered (vendor fault)"/>')
            elif c.get("unsupported") and not c.get("pass"):
                lines.append('      <skipped message="op not listed in the vendor\'s hello"/>')
            lines.append("    </testcase>")
        lines.append("  </testsuite>")
    lines.append("</testsuites>")
    write_atomically(run_dir / "junit.xml", ("\n".join(lines) + "\n").encode("utf-8"))


def write_failure_replays(db: RunDatabase, run_dir: Path) -> int:
    """One file per failing group: the request line(s) holding its failing cases, as sent; one per
    poisoned case. The folder is built beside the old one and swapped in whole."""
    folder, building = run_dir / "failures", run_dir / ".failures.tmp"
    replays: dict[str, tuple[str, Any, list[Any], list[int]]] = {}
    for rec in db.failures():
        replay = replays.setdefault(replay_name(rec["file"], rec["op"], rec["tg_id"]), (rec["op"], rec["config"], [], []))
        replay[2].append(rec["case"])
        replay[3].append(rec["tc_id"])
    for rec in db.poisoned():
        replays[poisoned_replay_name(rec["file"], rec["op"], rec["tc_id"])] = (rec["op"], rec["config"], [rec["case"]],
                                                                               [rec["tc_id"]])
    shutil.rmtree(building, ignore_errors=True)
    if replays:
        try:
            _write_replays(replays, building)
        except BaseException:
            shutil.rmtree(building, ignore_errors=True)
            raise
    if folder.exists():
        shutil.rmtree(folder)
    if replays:
        os.replace(building, folder)
    return len(replays)


def _write_replays(replays: dict[str, tuple[str, Any, list[Any], list[int]]], folder: Path) -> None:
    folder.mkdir()
    for name, (op, config, cases, tc_ids) in sorted(replays.items()):
        hello = {"id": 0, "op": "hello", "protocol": "tablecert-vendor/1"}
        request = {"id": 1, "op": op, "config": config, "cases": cases}
        with open(folder / name, "w", encoding="utf-8") as f:
            f.write(json.dumps(hello, separators=(",", ":")) + "\n")
            f.write(json.dumps(request, separators=(",", ":"), ensure_ascii=False) + "\n")
            f.write(json.dumps({"id": 2, "op": "bye"}) + "\n")
        (folder / f"{name.removesuffix('.jsonl')}.tcids.json").write_text(json.dumps(tc_ids) + "\n", encoding="utf-8")


def write_outputs(run_dir: Path) -> dict[str, Any]:
    db = RunDatabase(run_dir / "run.db")
    try:
        data = write_summary(db, run_dir)
        write_junit(db, run_dir)
        write_failure_replays(db, run_dir)
    finally:
        db.close()
    return data
