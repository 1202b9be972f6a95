"""``tablecert merge``: the shard run folders of one run (``certify --shard K/N``) joined into one
run folder whose database, ``summary.json`` and reports are those of an unsharded run.

The shards are checked, never believed: each must be sealed by a trusted run key (its record,
meta and tables, as it is now; :mod:`tablecert.harness.record.seal`), a finished shard run whose database
holds what its harness recorded (the ``judged`` record in its meta, recomputed from its rows, as
signing checks it) and no link; all must be of the same suite (manifest digest and anchor), the
same vendor (hello name, version, build, ops), the same tablecert version, adapter, target, isolation,
limits (``vendor_limits``: memory, processes, CPU, file size, private folders) and bound paths, required ops,
batch sizes and run id (``certify --run-id``), and of the same N; and together they must cover every batch of the suite exactly
once: shard K holds exactly the batches ``seq % N == K - 1`` of the run order, which the suite
folder gives (copied into the merged folder's ``suite/`` and the copy anchored, as ``certify``
does). A missing, repeated, foreign or incomplete shard is refused in one line naming it
(:class:`MergeError`, exit status 2).

The merged database is written batch by batch in run order (each batch's row, its faults,
failures and poisoned cases), so it holds the rows of an unsharded run in its order; counts,
confusion and hand causes are summed over the shards (their rows in key order), the first request of each fault
kind is the one met first in run order, and the verdict is decided from the merged database by
:mod:`tablecert.harness.record.verdict`. The meta names the shards merged (``merged_from``: each shard
and its database's sha256), and the merged record is sealed with the merging process's run key.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tablecert.harness.run.certify import copy_anchored
from tablecert.harness.record.judged_record import database_digest
from tablecert.harness.model import BatchOutcome, RunMeta
from tablecert.harness.store import RunReader, RunStore, open_reader
from tablecert.harness.lab_files import check_database_files, refuse_link
from tablecert.harness.instance.vendor_instance import same_vendor
from tablecert.harness.record.seal import SealError, check_seal, seal_concluded
from tablecert.harness.record.verdict import conclude
from tablecert.oracle.names import HAND_SUITES
from tablecert.parallel.options import Shard
from tablecert.parallel.units import suite_units

SAME = ("suite", "suite_manifest_sha256", "suite_anchor", "profile", "tablecert_version", "adapter", "target",
        "isolation", "vendor_limits", "vendor_bound", "required_ops", "suite_ops", "suite_tests", "batch_size",
        "hand_batch_size", "run_id")
"""Meta values every shard of one run must share (besides the vendor's identity and N): the merged
run is certified under the first shard's, so a shard confined otherwise (its limits, isolation or
bound paths) or run by another tablecert is refused, naming the field."""
SHOWN = 120     # characters of each differing value a refusal shows
# (the merged run counts its own suite and causes and words its own verdict, as an unsharded run does)
NOT_MERGED = {"seal", "chain", "shard", "judged", "verdict", "verdict_reasons", "verdict_title", "scope", "started",
              "finished", "cause_spectrum", "cause_analysis"}

class MergeError(ValueError):
    """Shards that cannot be merged (one line naming the shard and why)."""


@dataclass
class ShardRun:
    """One shard run folder, opened read-only and checked."""

    path: Path
    db: RunReader
    meta: dict[str, Any]       # as stored (what the merged run keeps of it)
    run: RunMeta               # the same, typed (what is read of it)
    shard: Shard
    digest: str

    @classmethod
    def open(cls, path: Path, trusted: list[Ed25519PublicKey]) -> ShardRun:
        db_path = path / "run.db"
        refuse_link(path, "shard folder")
        check_database_files(db_path)
        if not db_path.is_file():
            raise MergeError(f"{path}: no run.db (not a run folder)")
        run = open_reader(db_path)
        try:
            meta = run.meta()
            typed = RunMeta.of(meta)
            if typed.shard is None:
                raise MergeError(f"{path}: not a shard run (certify --shard K/N)")
            try:
                check_seal(run, trusted, f"{path}: shard {str(typed.shard)[:20]}")
            except SealError as err:
                raise MergeError(str(err)) from None
            if typed.state != "finished":
                raise MergeError(f"{path}: shard {typed.shard} is not finished (continue it with --resume)")
            if typed.stopped:
                raise MergeError(f"{path}: shard {typed.shard} was stopped: {typed.stopped}")
            if database_digest(run, typed.judged) != typed.judged:
                raise MergeError(f"{path}: the run database of shard {typed.shard} no longer holds what its "
                                 "harness recorded")
        finally:
            run.close()
        with db_path.open("rb") as f:              # read in chunks: a hand suite's database can be gigabytes
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        return cls(path, open_reader(db_path), meta, typed, Shard.parse(typed.shard), digest)


def check_shards(shards: list[ShardRun]) -> None:
    """Same run, same N, each K once (see the module docstring)."""
    first = shards[0]
    count = first.shard.count
    seen: dict[int, ShardRun] = {}
    for s in shards:
        if s.shard.count != count:
            raise MergeError(f"{s.path}: shard {s.shard} is not one of {count} like {first.path}")
        if s.shard.index in seen:
            raise MergeError(f"{s.path}: overlapping shard: {s.shard} is also {seen[s.shard.index].path}")
        seen[s.shard.index] = s
        for key in SAME:
            if getattr(s.run, key) != getattr(first.run, key):
                raise MergeError(f"{s.path}: shard {s.shard} differs from {first.path} in {key} "
                                 f"({_shown(getattr(s.run, key))} against {_shown(getattr(first.run, key))})")
        if not same_vendor(s.run.vendor or {}, first.run.vendor or {}):
            raise MergeError(f"{s.path}: shard {s.shard} is of another vendor than {first.path}")
        theirs, ours = _build_signature(s), _build_signature(first)      # the vendor's files, as bound (issue 49)
        if theirs != ours:
            raise MergeError(f"{s.path}: shard {s.shard} ran another build of the vendor's files than {first.path} "
                             f"(build signature {str(theirs)[:16]}..., not {str(ours)[:16]}...)")
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
    if missing:
        raise MergeError(f"missing shard {', '.join(missing)} (given: {', '.join(str(s.shard) for s in shards)})")


def _shown(value: Any) -> str:
    """A meta value in a refusal's one line (JSON, cut to :data:`SHOWN` characters)."""
    text = json.dumps(value, ensure_ascii=True, sort_keys=True)
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


def _build_signature(shard: ShardRun) -> object:
    build = shard.run.build
    return build.get("signature") if isinstance(build, dict) else None


def run_order(suite_dir: Path, meta: RunMeta) -> list[tuple[int, tuple[str, str, int, int]]]:
    """(seq, batch key with its cases) of every batch of the suite, in run order."""
    units = suite_units(suite_dir, meta.suite in HAND_SUITES, int(meta.batch_size or 1), int(meta.hand_batch_size or 1))
    return [(u.seq, u.key(op)) for u in units for op in u.ops]


def merge_shards(shard_dirs: list[Path], suite_dir: Path, out: Path, key: Ed25519PrivateKey,
                 trusted: list[Ed25519PublicKey]) -> None:
    """Write ``out/run.db`` from the shard folders (checked, see the module docstring; each sealed
    by one of the ``trusted`` keys) and seal it with ``key``; the caller writes the outputs and
    reports from it."""
    shards: list[ShardRun] = []
    try:
        for p in shard_dirs:
            shards.append(ShardRun.open(p, trusted))
    except BaseException:
        for s in shards:
            s.db.close()
        raise
    try:
        check_shards(shards)
        meta = shards[0].run
        custom = (meta.suite_anchor or {}).get("kind") == "custom"
        folder, _anchor = copy_anchored(suite_dir, out / "suite", meta.suite, custom)
        digest = hashlib.sha256((folder / "manifest.json").read_bytes()).hexdigest()
        if digest != meta.suite_manifest_sha256:
            raise MergeError(f"{suite_dir}: not the suite the shards ran (manifest {meta.suite_manifest_sha256})")
        order = run_order(folder, meta)
        by_index = {s.shard.index: s for s in shards}
        owner = _check_coverage(shards, by_index, order)
        _write(out, shards, order, owner, key)
    finally:
        for s in shards:
            s.db.close()


def _check_coverage(shards: list[ShardRun], by_index: dict[int, ShardRun],
                    order: list[tuple[int, tuple[str, str, int, int]]]) -> dict[tuple[str, str, int], ShardRun]:
    """Each batch of the run order in the shard that must hold it, and nowhere else."""
    count = shards[0].shard.count
    owner: dict[tuple[str, str, int], ShardRun] = {}
    for seq, (file, op, first_tc, _n) in order:
        owner[(file, op, first_tc)] = by_index[seq % count + 1]
    for s in shards:
        held = s.db.done_batches()
        foreign = [k for k in held if owner.get(k) is not s]
        if foreign:
            f, o, t = min(foreign)
            raise MergeError(f"{s.path}: overlapping shard: shard {s.shard} holds {len(foreign)} batch(es) not of "
                             f"its share (first {f} {o} tcId {t})")
        lacking = [k for k, o in owner.items() if o is s and k not in held]
        if lacking:
            f, o, t = min(lacking)
            raise MergeError(f"{s.path}: incomplete shard: shard {s.shard} lacks {len(lacking)} batch(es) of its "
                             f"share (first {f} {o} tcId {t})")
    return owner


def _write(out: Path, shards: list[ShardRun], order: list[tuple[int, tuple[str, str, int, int]]],
           owner: dict[tuple[str, str, int], ShardRun], key: Ed25519PrivateKey) -> None:
    db_path = out / "run.db"
    if db_path.exists():
        raise MergeError(f"{db_path} exists: merge into a new run folder")
    meta = {k: v for k, v in shards[0].meta.items() if k not in NOT_MERGED}
    meta["started"] = min(s.run.started or "" for s in shards)
    meta["finished"] = max(s.run.finished or "" for s in shards)
    meta["merged_from"] = [{"shard": str(s.shard), "run_db_sha256": s.digest}
                           for s in sorted(shards, key=lambda s: s.shard.index)]
    run = RunStore(db_path)
    try:
        run.set_meta(**meta)
        build = shards[0].run.build
        if isinstance(build, dict) and build.get("authenticated"):
            run.put_build(shards[0].db.build_files(), build)     # the same files in every shard
        with run.merging():
            for s in shards:                              # a vendor never greeted: faults of op hello
                run.add_rows(BatchOutcome("", "hello", 0, 0, "", faults=s.db.start_faults()), batch_row=False)
            for _seq, (file, op, first_tc, n) in order:   # each batch's rows (the first request of a kind kept)
                run.add_rows(owner[(file, op, first_tc)].db.batch_record(file, op, first_tc, n))
            for s in shards:                              # keyed by hand: disjoint shards
                run.add_hand_failures(s.db.stored_rows("hand_failures"))
                features = s.db.live_features()           # the live table features: every shard's together
                if features is not None:
                    run.add_rows(BatchOutcome("", "", 0, 0, "", live_features=features), batch_row=False)
                run.add_rows(BatchOutcome("", "", 0, 0, "", hand_answers=s.db.hand_answers()), batch_row=False)
            run.add_rows(_summed(shards), batch_row=False)
        run.set_meta(judged=database_digest(run))
        conclude(run)
        seal_concluded(run, out, key)       # with the findings' counts of the suite
    finally:
        run.close()


def _summed(shards: list[ShardRun]) -> BatchOutcome:
    """The counts, confusion cells and hand causes of the shards added up (in key order)."""
    totals: dict[str, Counter[tuple[Any, ...]]] = {"counts": Counter(), "confusion": Counter(), "hand_causes": Counter()}
    for table, total in totals.items():
        for s in shards:
            for *cell, n in s.db.stored_rows(table):
                total[tuple(cell)] += n
    summed = {table: Counter(dict(sorted(total.items()))) for table, total in totals.items()}
    return BatchOutcome("", "", 0, 0, "", counts=summed["counts"], confusion=summed["confusion"],
                        hand_causes=summed["hand_causes"])
