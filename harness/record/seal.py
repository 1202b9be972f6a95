"""Sealed run records: the tablecert process that wrote a run database seals what it recorded
with the lab's run key, so that whoever later reads the folder (``merge``, ``report --sign``)
can tell a record this lab's tablecert wrote from one somebody else wrote or edited.

The run key is an Ed25519 key the lab holds and the vendor never sees: ``--seal-key KEY``, or the
lab default ``$XDG_CONFIG_HOME/tablecert/seal-key`` (``~/.config/tablecert/seal-key``), created
(mode 0600, its folder 0700) on first use. A confined vendor has that folder hidden like the
signing key's.

**What the seal covers** (the *record*, :func:`run_record`): every value of the run database's
``meta`` except the seal itself and the game math (exact house edges the reports compute from the
oracle, not evidence of the run): so the ``judged`` record (row digests of ``batches``,
``failures``, ``faults``, ``hand_answers``, the fingerprint of ``hand_failures``, the digests of
``counts`` and ``hand_causes``; :mod:`tablecert.harness.record.judged_record`), the verdict with its reasons and
scope, the vendor's identity and hello, the suite, its manifest digest and anchor, the profile,
adapter, target and isolation, the shard K/N, batch sizes and run id, the responses file's
sha256 and size of an offline run, the run's times and host; and the row digests of the tables the
``judged`` record leaves out (``confusion``, ``poisoned``, ``fault_requests``), computed when the
record is sealed. The record is signed the way in-toto attestations are (a DSSE envelope): the
signature is over ``DSSEv1 <len> <payloadType> <len> <payload>`` with the payload the record's
canonical JSON, so the bytes signed say what they are. The seal (``meta`` key ``seal``) keeps the
signature, the key's fingerprint and public key, and the payload's sha256.

**Checking** (:func:`check_seal`): the record is computed again from the database as it is, and
the signature must verify with one of the *trusted* keys (a folder of the lab's public keys,
``--trust``, as ``verify-report`` takes, or the run key's own public key): the key recorded
beside the signature is never believed. An offline run's responses file is read again and must
have the sealed sha256 and size. The caller then compares the ``judged`` record with the
rows (:func:`tablecert.harness.record.judged_record.database_digest`), which ties the rows to the seal.

**What it does not cover**: the suite's files (only their manifest's digest is sealed; the
suite folder is anchored again where it is read), the responses file's bytes (only their digest),
``summary.json``, ``junit.xml``, ``failures/`` and the PDFs (all recomputed from the database and
signed with the report key), and the game math (the reports take it from the oracle, never from
the database): the seal says which process with the lab's key recorded this, not that the vendor
answered honestly, nor that the host running tablecert was not itself compromised (whoever holds
the run key can seal anything, as in in-toto a functionary's key vouches only for its own step).

**Before the run concludes** the record is sealed as it grows: every transaction the harness
commits carries a checkpoint signed by the run key (:mod:`tablecert.harness.record.chain`), and
``--resume`` continues only a database whose last checkpoint (or, for a concluded run, whose
seal) covers exactly what it holds; one with neither is refused (start the run again).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tablecert.harness.answers.causes import ANALYSIS_KEY, SPECTRUM_KEY, analysis_to_keep, spectrum_to_keep
from tablecert.harness.record.judged_record import row_digests
from tablecert.harness.record.keys import fingerprint, load_private_key, raw_public, trusted_keys
from tablecert.harness.model import dumps
from tablecert.harness.store import RunReader, RunStore
from tablecert.vectors.lab_mark import mark

SEAL = "seal"
"""The meta key holding the seal."""
CHAIN = "chain"
"""The meta key holding the run's last checkpoint (:mod:`tablecert.harness.record.chain`)."""
NOT_SEALED = frozenset({SEAL, CHAIN, "game_math"})
"""Meta keys the record leaves out: the seal, the last checkpoint, and the game math the reports
may add later (never read back: the reports take the figures from the oracle)."""
PAYLOAD_TYPE = "application/vnd.tablecert.run-record.v1+json"
UNSEALED_TABLES = ("confusion", "poisoned", "fault_requests")
"""Tables the ``judged`` record does not digest; the seal digests them itself."""
LIVE_TABLES = ("live_failures", "live_features")
"""Since schema 3, the live tables' findings and features (1.1.0 kept them in the meta, which the
seal covers): digested beside :data:`UNSEALED_TABLES` when they hold rows, so a run without any
(or begun by an earlier release) is sealed, checkpointed and checked exactly as before."""


def sealed_tables(db: RunReader) -> tuple[str, ...]:
    """The tables the seal and each checkpoint digest themselves (see :data:`LIVE_TABLES`)."""
    return UNSEALED_TABLES + tuple(t for t in LIVE_TABLES if next(db.stored_rows(t), None) is not None)


class SealError(ValueError):
    """A run record that is not sealed, or not by a trusted key, or changed since (one line)."""


def default_key_path() -> Path:
    """The lab's default run key: ``$XDG_CONFIG_HOME/tablecert/seal-key`` (else ``~/.config/...``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tablecert" / "seal-key"


def run_key(path: Path | None = None) -> Ed25519PrivateKey:
    """The run key: the file given, else the lab default, made on first use (0600 in a 0700
    folder; written to a new file and linked into place, so two processes starting at once get
    the same key)."""
    if path is not None:
        return load_private_key(path)
    path = default_key_path()
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        mark(path.parent, "keys")                   # no vendor's sandbox binds it (harness/confine/lab_folders.py)
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        draft = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(pem)
            try:
                os.link(draft, path)
            except FileExistsError:
                pass                                   # another process made it first: use theirs
        finally:
            draft.unlink()
    return load_private_key(path)


def trusted_seal_keys(trust_dir: str | Path | None, seal_key: Path | None = None,
                      own: bool = True) -> list[Ed25519PublicKey]:
    """The keys whose seals are accepted: every key of the trust folder (``--trust``, else
    ``$TABLECERT_TRUST``), and with ``own`` the public key of the run key (``seal_key``, else the
    lab default when it exists; never made here)."""
    trust = trust_dir if trust_dir is not None else os.environ.get("TABLECERT_TRUST") or None
    keys = trusted_keys(trust_dir=trust) if trust is not None else []
    if own and (seal_key is not None or default_key_path().is_file()):
        keys.append(run_key(seal_key).public_key())
    return keys


def run_record(db: RunReader, adding: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the seal covers, computed from the database as it is (see the module docstring), with
    the meta values ``adding`` as they will be stored beside the seal."""
    meta = {**db.meta(), **{k: json.loads(dumps(v)) for k, v in (adding or {}).items()}}
    return {"meta": {k: v for k, v in meta.items() if k not in NOT_SEALED}, "tables": row_digests(db, sealed_tables(db))}


def signed_bytes(record: dict[str, Any], payload_type: str = PAYLOAD_TYPE) -> tuple[bytes, bytes]:
    """(payload: the record's canonical JSON, the DSSE pre-authentication encoding of it that is
    signed, ``DSSEv1 <len> <payloadType> <len> <payload>``)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    try:
        payload = text.encode("utf-8")
    except UnicodeEncodeError:
        # a lone surrogate (a Python vendor's answer may hold one; the cause analysis quotes it) has no
        # UTF-8: such a record is written all in ASCII, its surrogates as JSON escapes (still JSON, and
        # a record without one keeps the bytes it always had)
        payload = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    return payload, dsse(payload, payload_type)


def dsse(payload: bytes, payload_type: str) -> bytes:
    """The DSSE pre-authentication encoding of ``payload`` (what is signed and verified)."""
    kind = payload_type.encode("ascii")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def seal_run(db: RunStore, key: Ed25519PrivateKey, adding: dict[str, Any] | None = None) -> dict[str, Any]:
    """Seal the run database's record with ``key`` (kept in its meta; returned), with the meta
    values ``adding`` stored in the same transaction as the seal (a run killed in between holds
    neither, and resumes from its last checkpoint)."""
    payload, signed = signed_bytes(run_record(db, adding))
    pub = key.public_key()
    seal = {"payloadType": PAYLOAD_TYPE, "keyid": fingerprint(pub),
            "public_key": base64.b64encode(raw_public(pub)).decode("ascii"),
            "payload_sha256": hashlib.sha256(payload).hexdigest(),
            "sig": base64.b64encode(key.sign(signed)).decode("ascii")}
    db.set_meta(**(adding or {}), **{SEAL: seal})
    return seal


def seal_folder(run_dir: Path, key: Ed25519PrivateKey) -> None:
    """Seal ``run_dir/run.db`` (see :func:`seal_run`)."""
    db = RunStore(run_dir / "run.db")
    try:
        seal_concluded(db, run_dir, key)
    finally:
        db.close()


def seal_concluded(db: RunStore, run_dir: Path, key: Ed25519PrivateKey) -> dict[str, Any]:
    """Seal a concluded run's record with the findings' counts of its suite (the cause spectrum,
    :func:`~tablecert.harness.answers.causes.spectrum_to_keep`) and the cause analysis, made here
    once (:func:`~tablecert.harness.answers.causes.analysis_to_keep`), all in one transaction."""
    meta = db.run_meta()
    kept = spectrum_to_keep(db, run_dir, meta)
    adding = {SPECTRUM_KEY: kept} if kept is not None else {}
    adding[ANALYSIS_KEY] = analysis_to_keep(db, run_dir, replace(meta, cause_spectrum=kept) if kept is not None else meta)
    return seal_run(db, key, adding)


def check_seal(db: RunReader, trusted: list[Ed25519PublicKey], what: str) -> str:
    """The fingerprint of the trusted key that sealed the database's record as it is now;
    SealError (its message starting with ``what``: the folder, or the shard) if the record is not
    sealed, sealed by a key not trusted, or changed since it was sealed."""
    seal = db.run_meta().seal
    if not isinstance(seal, dict):
        raise SealError(f"{what}: the run record is not sealed (written by a tablecert without the lab's run key, "
                        "or by something else); not accepted")
    if not trusted:
        raise SealError(f"{what}: no trusted key to check the run seal against (give --trust DIR with the lab's "
                        "public run key, or --seal-key KEY)")
    try:
        signature = base64.b64decode(str(seal.get("sig")), validate=True)
    except ValueError:
        raise SealError(f"{what}: the run seal is malformed; not accepted") from None
    keyid = seal.get("keyid")
    _payload, signed = signed_bytes(run_record(db))
    for key in trusted:
        if fingerprint(key) != keyid:
            continue
        try:
            key.verify(signature, signed)
        except InvalidSignature:
            raise SealError(f"{what}: the run record changed since it was sealed by {keyid} (its meta or "
                            "tables differ from what was sealed); not accepted") from None
        _check_responses(db.run_meta().responses, what)
        return fingerprint(key)
    raise SealError(f"{what}: the run record is sealed by key {str(keyid)[:80]}, which is not a trusted key; "
                    "not accepted")


def file_digest(path: Path) -> tuple[str, int]:
    """(sha256, size) of a file's bytes, read in chunks (an offline run's responses file)."""
    with open(path, "rb") as f:
        digest = hashlib.file_digest(f, "sha256")
        return digest.hexdigest(), f.tell()


def _check_responses(responses: Any, what: str) -> None:
    """An offline run's responses file must still be the bytes judged (sha256 and size sealed)."""
    if not isinstance(responses, dict):
        return
    path = Path(str(responses.get("path")))
    try:
        digest, size = file_digest(path)
    except OSError as err:
        raise SealError(f"{what}: the responses file judged, {path}, cannot be read ({err.strerror or err}); "
                        "the evidence cannot be checked") from None
    if (digest, size) != (responses.get("sha256"), responses.get("bytes")):
        raise SealError(f"{what}: the responses file {path} is not the one judged (sha256 {digest[:16]}..., "
                        f"{size:,} bytes; judged {str(responses.get('sha256'))[:16]}..., "
                        f"{responses.get('bytes')} bytes); not accepted")


__all__ = ["CHAIN", "SEAL", "SealError", "check_seal", "dsse", "default_key_path", "run_key", "run_record",
           "seal_folder", "seal_run", "signed_bytes", "trusted_seal_keys"]
