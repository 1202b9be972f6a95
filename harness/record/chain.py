"""A run record sealed as it grows: the run key's checkpoints, and what ``--resume`` believes.

A run's database lies in the run folder, which others may be able to write (a shared file
system, a CI artifact store, a vendor's own machine running a shard). The seal of a concluded run
(:mod:`tablecert.harness.record.seal`) covers what it concluded; a run interrupted before it
concluded is covered by its **checkpoints**.

**What is signed, and when.** Every transaction the harness commits to a run's database (a
batch's rows, a meta value, a start fault) writes, inside that same transaction just before its
COMMIT (:attr:`~tablecert.harness.store.RunStore.before_commit`), a checkpoint in the
``meta`` key ``chain``: an Ed25519 signature by the run key, DSSE-encoded like the seal (payload
type :data:`CHECKPOINT_TYPE`), over the canonical JSON of

* ``seq``: the checkpoint's number in the run (1, 2, ...; continued across resumptions);
* ``prev``: the SHA-256 of the signature before it (the previous checkpoint's, or of the seal of
  the concluded run that was resumed; ``null`` for the first): the chain;
* ``judged``: the harness's own record of the rows (:class:`~tablecert.harness.record.judged_record.JudgedRecord`,
  kept in memory as batches are written: row digests of ``batches``, ``failures``, ``faults``,
  ``hand_answers``, the wrong hands' fingerprint, the digests of ``counts`` and ``hand_causes``),
  including the rows of the transaction being committed;
* ``tables``: the row digests of ``confusion``, ``poisoned`` and ``fault_requests`` (read in the
  transaction: small tables);
* ``meta_sha256``: the SHA-256 of every meta row but ``chain``, ``seal`` and ``game_math``.

So no row is ever committed without the checkpoint that covers it, and nothing after the last
checkpoint exists to be discarded: a run killed at any point leaves a database whose last
checkpoint covers exactly what it holds. The cost is one signature and the digests above per
commit (``benchmarks/bench_judging.py``, and the README's *Sealed run records*).

**What ``--resume`` checks** (:func:`resumed_head`, before anything is written): the checkpoint's
signature must verify by the run key (the key recorded beside it is never believed), and the
record computed again from the database as it is (rows, the three tables, the meta) must be the
one signed; else the run is refused in one line naming the folder and what differs. A concluded
run is taken by its seal when its last checkpoint no longer matches (its conclusion adds meta
after it). A database holding neither a checkpoint nor a seal that checks is refused (*start
the run again in a new run folder*): that is a run interrupted before its first checkpoint (it
recorded nothing: a database with no meta and no rows is simply started again), or one written
without the lab's run key. The harness then re-reads the database for its own record and checks
it against the checkpoint again (:meth:`Checkpoints.attach`), so a change between the check and
the run's start is refused too.

**What it does not stop.** Whoever can write the run folder cannot forge a checkpoint (deleting
rows, editing rows, deleting the chain or the seal, recomputing the digests with tablecert's own
code: all refused). They can put back an *older* copy of the same run's database, which holds an
older valid checkpoint: the run then resumes from there and the batches after it are sent and
judged again (nothing unsigned is believed, but a vendor fault recorded after that point can be
made to happen again or not). Telling an older copy from the newest needs state kept outside the
folder; the harness keeps none. Likewise a database of another run by the same run key (same
suite and vendor build: the runner refuses any other) resumes as what it is, that run's record.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.harness.record.judged_record import JudgedRecord, database_digest, row_digests
from tablecert.harness.record.keys import fingerprint
from tablecert.harness.model import dumps
from tablecert.harness.store import RunReader, RunStore, open_reader
from tablecert.harness.record.seal import (CHAIN, NOT_SEALED, SEAL, SealError, check_seal, dsse, sealed_tables,
                                           signed_bytes)

CHECKPOINT_TYPE = "application/vnd.tablecert.run-checkpoint.v1+json"
LEFT_OUT = tuple(sorted(NOT_SEALED | {CHAIN}))
"""Meta keys a checkpoint's meta digest leaves out: itself, the seal, the game math."""


@dataclass(frozen=True)
class Head:
    """The last checkpoint (or seal) a run's database was found to match: its number, the
    SHA-256 of its signature (the next checkpoint's ``prev``) and the record it covers."""

    seq: int
    link: str
    state: dict[str, Any]


def meta_digest(db: RunReader) -> str:
    """SHA-256 of the meta rows a checkpoint covers, as stored (read in the open transaction)."""
    rows = [list(row) for row in db.meta_text(leaving_out=LEFT_OUT)]
    return hashlib.sha256(dumps(rows).encode("utf-8")).hexdigest()


def record_state(db: RunReader, judged: dict[str, Any]) -> dict[str, Any]:
    """What a checkpoint signs of the record besides its place in the chain (``judged``: the
    harness's record of the rows, or one recomputed from them)."""
    return {"judged": judged, "tables": row_digests(db, sealed_tables(db)), "meta_sha256": meta_digest(db)}


def _differs(found: dict[str, Any], signed: dict[str, Any]) -> list[str]:
    """The parts of the record that are not as signed, by name."""
    out = [f"rows of {table}" for table in sorted(set(found["judged"]) | set(signed.get("judged") or {}))
           if found["judged"].get(table) != (signed.get("judged") or {}).get(table)]
    out += [f"rows of {table}" for table in sorted(set(found["tables"]) | set(signed.get("tables") or {}))
            if found["tables"].get(table) != (signed.get("tables") or {}).get(table)]
    if found["meta_sha256"] != signed.get("meta_sha256"):
        out.append("meta")
    return out


class Checkpoints:
    """The run key's chain over one run's database (see the module docstring): ``head`` is the
    checkpoint a resumed run was found to match (None: a new run)."""

    def __init__(self, key: Ed25519PrivateKey, head: Head | None = None) -> None:
        self.key, self.head = key, head
        self.keyid = fingerprint(key.public_key())

    def attach(self, db: RunStore, judged: JudgedRecord) -> None:
        """Checkpoint every transaction ``db`` commits from now on, signing ``judged`` (the
        harness's record, which the caller keeps up to date in the same transactions). A resumed
        run's database must still hold the record ``head`` covers (SealError if not)."""
        if self.head is not None:
            differs = _differs(record_state(db, judged.digest()), self.head.state)
            if differs:
                raise SealError(f"{db.path.parent}: the run record changed after its last checkpoint was checked "
                                f"({', '.join(differs)}); not resumed")
        db.before_commit = lambda: self._checkpoint(db, judged)

    def _checkpoint(self, db: RunStore, judged: JudgedRecord) -> None:
        """Sign the record as the open transaction leaves it, and write the checkpoint in it."""
        state = record_state(db, judged.digest())
        seq = self.head.seq + 1 if self.head is not None else 1
        payload, signed = signed_bytes({"seq": seq, "prev": self.head.link if self.head else None, **state},
                                       CHECKPOINT_TYPE)
        signature = self.key.sign(signed)
        entry = {"payloadType": CHECKPOINT_TYPE, "keyid": self.keyid, "payload": payload.decode("utf-8"),
                 "sig": base64.b64encode(signature).decode("ascii")}
        db.put_meta_in_transaction(CHAIN, entry)
        self.head = Head(seq, hashlib.sha256(signature).hexdigest(), state)


def check_checkpoint(db: RunReader, key: Ed25519PrivateKey, what: str) -> Head:
    """The head of the database's chain, after checking its last checkpoint is signed by ``key``
    and covers the record as it is (SealError, naming ``what``, if not)."""
    entry = db.meta().get(CHAIN)
    try:
        payload = str(entry["payload"]).encode("utf-8")
        signature = base64.b64decode(str(entry["sig"]), validate=True)
        signed = json.loads(payload)
        seq = int(signed["seq"])
    except (TypeError, KeyError, ValueError):
        raise SealError(f"{what}: the run record's last checkpoint is malformed; not resumed") from None
    if entry.get("keyid") != fingerprint(key.public_key()):
        raise SealError(f"{what}: the run record's last checkpoint is by key {str(entry.get('keyid'))[:80]}, not "
                        "this lab's run key; not resumed")
    try:
        key.public_key().verify(signature, dsse(payload, CHECKPOINT_TYPE))
    except InvalidSignature:
        raise SealError(f"{what}: the run record's last checkpoint does not verify by the run key (changed since "
                        "it was signed); not resumed") from None
    found = record_state(db, database_digest(db))
    differs = _differs(found, signed)
    if differs:
        raise SealError(f"{what}: the run record changed since its last checkpoint ({', '.join(differs)} differ "
                        "from what the run key signed); not resumed")
    return Head(seq, hashlib.sha256(signature).hexdigest(), found)


def check_concluded(db: RunReader, key: Ed25519PrivateKey, what: str) -> Head:
    """The head of a concluded run's database, after checking its seal by ``key`` and its
    ``judged`` record against the rows (SealError if either fails)."""
    check_seal(db, [key.public_key()], what)
    meta = db.run_meta()
    found = record_state(db, database_digest(db, meta.judged))
    if found["judged"] != meta.judged:
        raise SealError(f"{what}: the run record's rows differ from its sealed judged record; not resumed")
    try:
        signature = base64.b64decode(str((meta.seal or {})["sig"]), validate=True)
        seq = int(json.loads(meta.chain["payload"])["seq"]) if isinstance(meta.chain, dict) else 0
    except (KeyError, TypeError, ValueError):
        raise SealError(f"{what}: the run record's seal or last checkpoint is malformed; not resumed") from None
    return Head(seq, hashlib.sha256(signature).hexdigest(), found)


def resumed_head(db_path: Path, key: Ed25519PrivateKey, what: str) -> Head | None:
    """What ``--resume`` may continue from (see the module docstring): None when there is nothing
    to resume (no database, or one that recorded nothing), else the head its last checkpoint (or
    a concluded run's seal) was checked to cover; SealError, one line, if neither checks."""
    if not db_path.is_file():
        return None
    db = open_reader(db_path)     # read only: a concluded run is left exactly as it was
    try:
        if db.is_empty():
            return None
        meta = db.meta()
        refusals: list[SealError] = []
        for present, check in ((CHAIN in meta, check_checkpoint), (SEAL in meta, check_concluded)):
            if present:
                try:
                    return check(db, key, what)
                except SealError as err:
                    refusals.append(err)
        if refusals:
            raise refusals[-1]              # a concluded run: what its seal says
        raise SealError(f"{what}: the run record holds no checkpoint of the lab's run key (interrupted before its "
                        "first, or written without the run key), so it is not resumed: start the run again in a "
                        "new run folder")
    finally:
        db.close()


__all__ = ["CHECKPOINT_TYPE", "Checkpoints", "Head", "check_checkpoint", "resumed_head"]
