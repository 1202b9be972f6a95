"""Two runs of one suite compared by cause (``tablecert diff OLD_RUN NEW_RUN``), as wpt.fyi
compares two test runs: two builds of one vendor, before and after a fix.

Each run's failures are filed by cause (:mod:`tablecert.harness.answers.causes`, the same analysis as its
findings) and its failing vectors read from its run database (file, op, tcId). A cause is
**fixed** when the old run has it and the new one does not, **still failing** when both have it
(with how many of its vectors were fixed and how many newly fail), **newly failing** when only the
new run has it. Vector by vector: *fixed* vectors failed before and not now; *regressed* vectors
fail now and did not before. The comparison **regressed** when any vector newly fails or any new
fault kind appears; ``tablecert diff`` then exits 1. When both runs' vendors declare the same
build (name, version, build) but their recorded build signatures differ, the comparison says so
("same declared build, different files: N changed, first X"; :mod:`tablecert.harness.record.build_record`).

The two runs must be of the same suite (the same manifest sha256). The result is integers and
sorted lists (the same two runs give the same bytes): on the terminal, as JSON and as a one-page
findings PDF.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablecert.harness.answers.causes import CauseAnalysis, cause_key, run_causes
from tablecert.harness.answers.differences import differences, is_cut, stored_differences
from tablecert.harness.record.build_record import read_recorded, same_declared_build
from tablecert.harness.store import SchemaError, UnreadableRun, open_reader
from tablecert import __version__
from tablecert.reports.layout import build_pdf
from tablecert.reports.markup import render_markup
from tablecert.harness.model import RunMeta


class RunDiffError(ValueError):
    """Two folders that cannot be compared (not run folders, not of the same suite)."""


@dataclass(frozen=True)
class CauseChange:
    key: str
    title: str
    status: str              # fixed | still failing | newly failing
    old: int                 # failing vectors of the cause in the old run
    new: int                 # ... in the new run
    fixed: int               # of the old run's, not failing now
    regressed: int           # of the new run's, not failing before

    def as_json(self) -> dict[str, Any]:
        return {"cause": self.title, "key": self.key, "status": self.status, "old": self.old, "new": self.new,
                "vectors_fixed": self.fixed, "vectors_newly_failing": self.regressed}


@dataclass(frozen=True)
class RunDiff:
    old_run: str
    new_run: str
    old_vendor: str
    new_vendor: str
    suite: str
    old_failed: int
    new_failed: int
    fixed_vectors: int
    regressed_vectors: int
    causes: list[CauseChange]
    new_fault_kinds: list[str]
    fixed_fault_kinds: list[str]
    build: str | None = None  # "same declared build, different files: ..." (harness.record.build_record)

    @property
    def regressed(self) -> bool:
        return bool(self.regressed_vectors or self.new_fault_kinds)

    def of(self, status: str) -> list[CauseChange]:
        return [c for c in self.causes if c.status == status]

    def as_json(self) -> dict[str, Any]:
        return {"old_run": self.old_run, "new_run": self.new_run, "old_vendor": self.old_vendor,
                "new_vendor": self.new_vendor, "suite": self.suite, "old_failed": self.old_failed,
                "new_failed": self.new_failed, "vectors_fixed": self.fixed_vectors,
                "vectors_newly_failing": self.regressed_vectors, "regressed": self.regressed,
                "fault_kinds_new": self.new_fault_kinds, "fault_kinds_fixed": self.fixed_fault_kinds,
                "causes": {status: [c.as_json() for c in self.of(status)]
                           for status in ("fixed", "still failing", "newly failing")},
                **({"build": self.build} if self.build else {})}


def _read(run_dir: Path) -> tuple[RunMeta, dict[tuple[str, str, int], str], set[str], CauseAnalysis]:
    """A run's meta, its failing vectors (each with its cause key), its fault kinds and its causes."""
    if not (run_dir / "run.db").is_file():
        raise RunDiffError(f"{run_dir}: not a run folder (no run.db)")
    try:
        analysis = run_causes(run_dir)
        with open_reader(run_dir / "run.db") as db:
            meta = db.run_meta()
            failing = {}
            for f in db.failures():
                e, a = json.loads(f.expected), json.loads(f.actual)
                diffs = stored_differences(f.op, e, a)[0] if is_cut(a) else differences(f.op, e, a)   # cut: as judged
                failing[(f.file, f.op, f.tc_id)] = cause_key(f.op, diffs)[1] if diffs else "value"
            kinds = db.fault_kinds_met()
    except (UnreadableRun, SchemaError) as err:
        raise RunDiffError(str(err)) from None
    return meta, failing, kinds, analysis


def _vendor(meta: RunMeta) -> str:
    v = meta.vendor or {}
    return f"{v.get('name', '?')} {v.get('version', '?')} ({v.get('build', '?')})"


def run_diff(old_run: Path, new_run: Path) -> RunDiff:
    """Compare two run folders of the same suite (see the module)."""
    old_meta, old_failing, old_kinds, old_causes = _read(Path(old_run))
    new_meta, new_failing, new_kinds, new_causes = _read(Path(new_run))
    if old_meta.suite_manifest_sha256 != new_meta.suite_manifest_sha256:
        raise RunDiffError(f"{old_run} and {new_run} are runs of different suites (manifest sha256 "
                           f"{str(old_meta.suite_manifest_sha256)[:16]}... and "
                           f"{str(new_meta.suite_manifest_sha256)[:16]}...); compare runs of one suite")
    titles = {c.key: c.title for c in old_causes.causes} | {c.key: c.title for c in new_causes.causes}
    keys = sorted(set(old_failing.values()) | set(new_failing.values()))
    changes = []
    for key in keys:
        old = {v for v, k in old_failing.items() if k == key}
        new = {v for v, k in new_failing.items() if k == key}
        status = "fixed" if not new else "newly failing" if not old else "still failing"
        changes.append(CauseChange(key, titles.get(key, key), status, len(old), len(new),
                                   len(old - set(new_failing)), len(new - set(old_failing))))
    order = {"newly failing": 0, "still failing": 1, "fixed": 2}
    changes.sort(key=lambda c: (order[c.status], -max(c.old, c.new), c.key))
    return RunDiff(str(old_run), str(new_run), _vendor(old_meta), _vendor(new_meta), str(new_meta.suite),
                   len(old_failing), len(new_failing), len(set(old_failing) - set(new_failing)),
                   len(set(new_failing) - set(old_failing)), changes, sorted(new_kinds - old_kinds),
                   sorted(old_kinds - new_kinds), _build_note(Path(old_run), Path(new_run)))


def _build_note(old_run: Path, new_run: Path) -> str | None:
    """Whether the two runs' vendors declare one build but ran different files (else None)."""
    old, new = read_recorded(old_run), read_recorded(new_run)
    if old is None or new is None:
        return None
    return same_declared_build(old, new.vendor, new.signature, new.files)


def terminal_lines(diff: RunDiff) -> list[str]:
    lines = [f"old: {diff.old_run}: {diff.old_vendor}, {diff.old_failed:,} failing vectors",
             f"new: {diff.new_run}: {diff.new_vendor}, {diff.new_failed:,} failing vectors",
             *([f"build: {diff.build}"] if diff.build else []),
             f"vectors: {diff.fixed_vectors:,} fixed, {diff.regressed_vectors:,} newly failing"]
    for status in ("newly failing", "still failing", "fixed"):
        changes = diff.of(status)
        lines.append(f"{status}: {len(changes):,} cause{'s' if len(changes) != 1 else ''}")
        for c in changes:
            extra = f" ({c.fixed:,} of its vectors fixed, {c.regressed:,} newly failing)" if status == "still failing" else ""
            lines.append(f"  {c.old:,} -> {c.new:,}: {c.title}{extra}")
    if diff.new_fault_kinds or diff.fixed_fault_kinds:
        lines.append(f"fault kinds: new {', '.join(diff.new_fault_kinds) or 'none'}; "
                     f"gone {', '.join(diff.fixed_fault_kinds) or 'none'}")
    lines.append("result: REGRESSED" if diff.regressed else "result: nothing regressed")
    return lines


def diff_xml(diff: RunDiff) -> str:
    """The comparison's XML (:mod:`tablecert.reports.layout`), before it is laid out."""
    return render_markup("diff", diff=diff, version=__version__)


def diff_pdf(diff: RunDiff, when: Any) -> bytes:
    """The comparison as a findings page (the reports' layout, deterministic)."""
    def no_charts(el: Any, width: float) -> Any:
        raise ValueError("the run comparison has no charts")

    return build_pdf(diff_xml(diff), when, no_charts)
