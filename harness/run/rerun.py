"""``certify --rerun-failed RUN``: only the vectors that failed or faulted in a run, sent again.

A vendor's developer fixing bugs all day reruns what an earlier run got wrong instead of the whole
suite. :func:`rerun_selection` reads the earlier run folder through the store's reader: its
failures (each failing vector), its faults (every vector of each request the vendor faulted on,
a recovered fault too: any fault fails a run) and its poisoned cases; a hand suite (its wrong
hands are counted, not kept one by one) and the live suite (its tables are played whole) are
refused. The rerun runs against the suite RUN ran, byte for byte (the same manifest sha256; the
caller checks the folder before the run, :func:`same_suite`), and the runner sends only the
selected vectors (:func:`chosen_batches`: each batch cut to them, the rest never sent).

A rerun never certifies: its run database's meta holds ``rerun_of`` (:meth:`RerunSelection.meta`,
copied into summary.json) and ``sliced`` (its verdict is never a pass,
:func:`tablecert.harness.record.verdict.decide`), and every page the reports write says so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tablecert.harness.model import Batch
from tablecert.harness.store import SchemaError, UnreadableRun, open_reader
from tablecert.oracle.names import HAND_SUITES

LIVE_SUITE = "live"
Vector = tuple[str, str, int]     # (vector-set file, op, tcId)


class RerunError(ValueError):
    """A run folder whose failures cannot be rerun (one line naming it)."""


@dataclass(frozen=True)
class RerunSelection:
    """The vectors of ``run`` to send again: ``failed`` failing ones and ``faulted`` more that a
    fault hit (a vector both failed and faulted counts as failed), of the suite ``suite`` whose
    manifest has ``manifest_sha256``."""

    run: str
    suite: str
    manifest_sha256: str
    vectors: frozenset[Vector]
    failed: int
    faulted: int
    custom_suite: bool = False     # the run's suite was a custom one (certify --custom-suite)

    def describe(self) -> str:
        """How the verdict and the pages name the rerun."""
        return (f"a rerun of the {len(self.vectors):,} vectors that failed or faulted in {self.run} "
                "(certify --rerun-failed): never certified")

    def meta(self) -> dict[str, Any]:
        """The run meta's (and summary.json's) ``rerun_of``."""
        return {"run": self.run, "suite_manifest_sha256": self.manifest_sha256, "vectors": len(self.vectors),
                "failed": self.failed, "faulted": self.faulted, "certifies": False,
                "note": "only the vectors that failed or faulted in that run were sent: a rerun never certifies"}


def rerun_selection(run_dir: Path) -> RerunSelection:
    """The vectors that failed or faulted in the run folder ``run_dir`` (see the module)."""
    path = Path(run_dir) / "run.db"
    if not path.is_file():
        raise RerunError(f"--rerun-failed {run_dir}: not a run folder (no run.db)")
    try:
        with open_reader(path) as db:
            meta = db.run_meta()
            suite = str(meta.suite)
            if suite in HAND_SUITES:
                raise RerunError(f"--rerun-failed {run_dir}: a run of the {suite} hand suite keeps its wrong hands "
                                 "as counts, not vectors to send again (rerun a part of it with --range A:B)")
            if suite == LIVE_SUITE:
                raise RerunError(f"--rerun-failed {run_dir}: the live suite's tables are played whole; run it again")
            failed = {(f.file, f.op, f.tc_id) for f in db.failures()}
            hit = {(f.file, f.op, tc) for f in db.faults() for tc in range(f.first_tc, f.first_tc + f.n)}
            hit |= {(p.file, p.op, p.tc_id) for p in db.poisoned()}
    except (UnreadableRun, SchemaError) as err:
        raise RerunError(f"--rerun-failed {run_dir}: {err}") from None
    if meta.state != "finished":
        raise RerunError(f"--rerun-failed {run_dir}: the run is not finished (state {meta.state!r}); "
                         "resume it with --resume first")
    if not failed and not hit:
        raise RerunError(f"--rerun-failed {run_dir}: no vector failed or faulted in it: nothing to rerun")
    anchor = meta.suite_anchor
    return RerunSelection(str(run_dir), suite, str(meta.suite_manifest_sha256), frozenset(failed | hit),
                          len(failed), len(hit - failed), isinstance(anchor, dict) and anchor.get("kind") == "custom")


def same_suite(selection: RerunSelection, suite_dir: Path) -> None:
    """RerunError unless the suite folder ``suite_dir`` is the one the rerun's run ran: the same
    manifest bytes (the manifest holds every file's sha256, which the run checks again before any
    vector is sent)."""
    manifest = Path(suite_dir) / "manifest.json"
    digest = hashlib.sha256(manifest.read_bytes()).hexdigest() if manifest.is_file() else "none"
    if digest != selection.manifest_sha256:
        raise RerunError(f"{suite_dir} is not the suite {selection.run} ran (manifest sha256 {digest[:16]}..., "
                         f"the run's {selection.manifest_sha256[:16]}...): a rerun runs against the same suite")


def chosen_batches(batches: Iterable[Batch], vectors: frozenset[Vector]) -> Iterator[Batch]:
    """The batches cut to the chosen vectors, in run order (a batch with none of them is left out:
    nothing of it is sent)."""
    for batch in batches:
        keep = [i for i, tc in enumerate(batch.tc_ids) if (batch.file, batch.op, tc) in vectors]
        if len(keep) == len(batch.tc_ids):
            yield batch
        elif keep:
            yield replace(batch, tc_ids=[batch.tc_ids[i] for i in keep], cases=[batch.cases[i] for i in keep],
                          expected=[batch.expected[i] for i in keep], flags=[batch.flags[i] for i in keep],
                          clauses=[batch.clauses[i] for i in keep],
                          comments=None if batch.comments is None else [batch.comments[i] for i in keep])
