"""Signatures: the run summary (Ed25519 over summary.json's bytes) and the PDFs (PAdES, pyHanko).

* ``summary.json.sig`` holds the base64 Ed25519 signature of summary.json's exact bytes;
  ``summary.json.sig.json`` says what was signed (file, sha256), with which algorithm, and the
  public key (raw, base64) with its fingerprint ``sha256:<hex of the raw public key's SHA-256>``.
* A PDF is signed in place with a PAdES signature (ETSI.CAdES.detached, SHA-512) by the same key.
  PAdES needs an X.509 certificate: a lab uses its own (``--cert``); without one a self-signed
  certificate is made for the key, fixed for a given key (serial from the key's fingerprint,
  fixed validity), which proves integrity and the key but names no authority.
* Nothing secret is ever written: the private key is read from the file given and kept in memory.

A signed PDF cannot be byte-for-byte reproducible (the signature embeds the signing time); the
determinism of the reports holds for unsigned renders.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import io
import json
from pathlib import Path
import logging

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.x509.oid import NameOID

from tablecert.harness.record.keys import (SigningError,  # noqa: F401 (re-exported: the reports read keys through here)
                                    fingerprint, load_private_key, load_public_key, raw_public,
                                    read_key_file, trusted_keys)
from tablecert.harness.lab_files import write_atomically
from tablecert.harness.record.judged_record import database_digest
from tablecert.harness.record.outputs import summary as recompute
from tablecert.harness.record.seal import SealError, check_seal, trusted_seal_keys
from tablecert.harness.record.verdict import decide
from tablecert.harness.store import open_reader

SIG_SUFFIX = ".sig"
SIG_META_SUFFIX = ".sig.json"
SIGNATURE_FIELD = "LabSignature"


def self_signed_certificate(key: Ed25519PrivateKey, name: str = "tablecert laboratory key") -> x509.Certificate:
    """A certificate for ``key``, the same every time for the same key (Ed25519 is deterministic)."""
    fp = fingerprint(key.public_key())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name} {fp[7:23]}"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "self-signed by tablecert")])
    usage = x509.KeyUsage(digital_signature=True, content_commitment=True, key_encipherment=False,
                          data_encipherment=False, key_agreement=False, key_cert_sign=False, crl_sign=False,
                          encipher_only=False, decipher_only=False)
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(int(fp[7:39], 16) >> 1 or 1)
            .not_valid_before(dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc))
            .not_valid_after(dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.timezone.utc))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(usage, critical=True)
            .sign(key, None))


def load_certificate(path: str | Path, key: Ed25519PrivateKey) -> x509.Certificate:
    """The lab's certificate for ``key`` (PEM); it must certify that very key."""
    data = read_key_file(path, "certificate")
    try:
        cert = x509.load_pem_x509_certificate(data)
    except ValueError:
        raise SigningError(f"{path}: not a PEM certificate") from None
    cert_key = cert.public_key()
    if not isinstance(cert_key, Ed25519PublicKey) or raw_public(cert_key) != raw_public(key.public_key()):
        raise SigningError(f"{path}: the certificate is not for the signing key")
    return cert


# -- the summary
def sign_summary(summary: Path, key: Ed25519PrivateKey) -> tuple[Path, Path]:
    """Write ``summary.json.sig`` and ``summary.json.sig.json`` beside ``summary``."""
    data = summary.read_bytes()
    signature = key.sign(data)
    pub = key.public_key()
    sig_path = summary.with_name(summary.name + SIG_SUFFIX)
    meta_path = summary.with_name(summary.name + SIG_META_SUFFIX)
    write_atomically(sig_path, (base64.b64encode(signature).decode("ascii") + "\n").encode("ascii"))
    meta = {"signed_file": summary.name, "sha256": hashlib.sha256(data).hexdigest(), "algorithm": "Ed25519",
            "public_key": base64.b64encode(raw_public(pub)).decode("ascii"), "fingerprint": fingerprint(pub)}
    write_atomically(meta_path, (json.dumps(meta, indent=2) + "\n").encode("utf-8"))
    return sig_path, meta_path


def verify_summary(summary: Path, trusted: list[Ed25519PublicKey] | None = None) -> tuple[bool | None, str]:
    """(ok, what): the summary's Ed25519 signature. With ``trusted`` keys, ok is True only when
    one of them made it; without, an intact signature gives ok None (the key recorded beside it
    made it, but that key is whoever's wrote the files: its fingerprint is reported, not trusted)."""
    sig_path = summary.with_name(summary.name + SIG_SUFFIX)
    meta_path = summary.with_name(summary.name + SIG_META_SUFFIX)
    if not summary.is_file():
        return False, f"{summary} not found"
    if not sig_path.is_file():
        return False, f"no signature ({sig_path.name} not found)"
    try:
        signature = base64.b64decode(sig_path.read_text(encoding="ascii").strip(), validate=True)
        signer = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.is_file() else {}
        recorded = Ed25519PublicKey.from_public_bytes(base64.b64decode(signer["public_key"])) if signer else None
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return False, f"{sig_path.name} or {meta_path.name} is malformed"
    data = summary.read_bytes()
    for key in trusted or ():
        try:
            key.verify(signature, data)
            return True, f"by trusted key {fingerprint(key)}"
        except InvalidSignature:
            continue
    if recorded is None:
        return False, f"no trusted key made it ({meta_path.name}, naming the key, not found)"
    try:
        recorded.verify(signature, data)
    except InvalidSignature:
        return False, "the signature does not match summary.json (changed since it was signed)"
    if trusted:
        return False, f"made with key {fingerprint(recorded)}, which is not a trusted key"
    return None, f"intact, by key {fingerprint(recorded)}, which no trusted key was named to check"


# -- the PDF
def sign_pdf(pdf: Path, key: Ed25519PrivateKey, cert: x509.Certificate | None = None) -> None:
    """Add a PAdES signature to ``pdf`` (replaced atomically)."""
    from asn1crypto import keys as asn1_keys  # lazy: 346 ms of report step start (bench_startup.py, at rest)
    from asn1crypto import x509 as asn1_x509
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import signers
    from pyhanko.sign.fields import SigSeedSubFilter
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    cert = cert or self_signed_certificate(key)
    a_cert = asn1_x509.Certificate.load(cert.public_bytes(serialization.Encoding.DER))
    a_key = asn1_keys.PrivateKeyInfo.load(key.private_bytes(serialization.Encoding.DER,
                                                            serialization.PrivateFormat.PKCS8,
                                                            serialization.NoEncryption()))
    signer = signers.SimpleSigner(signing_cert=a_cert, signing_key=a_key,
                                  cert_registry=SimpleCertificateStore.from_certs([a_cert]))
    meta = signers.PdfSignatureMetadata(field_name=SIGNATURE_FIELD, md_algorithm="sha512",
                                        subfilter=SigSeedSubFilter.PADES, reason="Certification report",
                                        name=cert.subject.rfc4514_string())
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf.read_bytes()))
    out = signers.sign_pdf(writer, meta, signer=signer)
    write_atomically(pdf, out.getvalue())


def verify_pdf(pdf: Path, trusted: list[Ed25519PublicKey] | None = None) -> tuple[bool | None, str, str | None]:
    """(ok, what, keywords): the PDF's last signature is intact, valid, covers the whole file, and
    was made with one of the ``trusted`` keys (True); intact but with no trusted key named: None
    (the signer's fingerprint and subject are reported). ``keywords`` is the signed /Keywords."""
    from pyhanko.pdf_utils.reader import PdfFileReader  # lazy: 353 ms of report step start (bench_startup.py, at rest)
    from pyhanko.sign.validation.status import SignatureCoverageLevel
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    logging.getLogger("pyhanko").setLevel(logging.CRITICAL)
    logging.getLogger("pyhanko_certvalidator").setLevel(logging.CRITICAL)
    try:
        reader = PdfFileReader(io.BytesIO(pdf.read_bytes()), strict=False)
        sigs = reader.embedded_signatures
    except Exception as err:  # noqa: BLE001 - any damage to the file is a failed check, said as such
        return False, f"cannot read the PDF ({type(err).__name__}: {err})", None
    if not sigs:
        return False, "the PDF is not signed", None
    sig = sigs[-1]
    try:
        signer_cert = sig.signer_cert
        status = validate_pdf_signature(sig, ValidationContext(trust_roots=[signer_cert]))
    except Exception as err:  # noqa: BLE001
        return False, f"signature cannot be validated ({type(err).__name__}: {err})", None
    if not status.intact:
        return False, "the signed bytes were changed (digest mismatch)", None
    if not status.valid:
        return False, "the signature does not verify", None
    if status.coverage != SignatureCoverageLevel.ENTIRE_FILE:
        return False, "the PDF was changed after it was signed", None
    signer_key = serialization.load_der_public_key(signer_cert.public_key.dump())
    fp = fingerprint(signer_key) if isinstance(signer_key, Ed25519PublicKey) else "(not an Ed25519 key)"
    if trusted and fp not in {fingerprint(k) for k in trusted}:
        return False, f"signed by key {fp} ({signer_cert.subject.human_friendly}), which is not a trusted key", None
    try:
        info = reader.trailer["/Info"]
        keywords = str(info.get("/Keywords", "")) if info else ""
    except Exception:  # noqa: BLE001
        keywords = ""
    who = signer_cert.subject.human_friendly
    if not trusted:
        return None, f"intact, signed by key {fp} ({who}), which no trusted key was named to check", keywords
    return True, f"by trusted key {fp} ({who})", keywords


# -- what may be signed
def check_signable(run_dir: Path, seal_keys: list[Ed25519PublicKey] | None = None) -> None:
    """Refuse to sign a run folder whose record is not sealed by one of the ``seal_keys`` (default
    :func:`tablecert.harness.record.seal.trusted_seal_keys`: ``$TABLECERT_TRUST`` and the lab's run key)
    as it is now, or whose summary.json or recorded verdict is not what its run database's results
    give: the summary is recomputed (``harness.record.outputs.summary``) and the verdict too
    (``harness.record.verdict.decide``, the rule the run itself applied)."""
    path = run_dir / "run.db"
    if not path.is_file():
        raise SigningError(f"{run_dir}: no run.db; nothing to sign")
    db = open_reader(path)       # read only: signing leaves the run record as it is
    try:
        try:
            check_seal(db, trusted_seal_keys(None) if seal_keys is None else seal_keys, str(run_dir))
        except SealError as err:
            raise SigningError(f"{err}; not signed") from None
        meta = db.run_meta()
        if meta.state != "finished":
            raise SigningError(f"{path}: the run is not finished (state {meta.state!r}); continue it with "
                               "--resume before signing")
        tests = meta.suite_tests
        if not isinstance(tests, int) or isinstance(tests, bool):
            raise SigningError(f"{path}: the run does not record its suite's size, so its verdict cannot be "
                               "recomputed; not signed (run it again with this tablecert)")
        if meta.judged != database_digest(db, meta.judged):
            raise SigningError(f"{path}: the run database no longer holds what the harness recorded during the run "
                               "(summary.json's 'judged' digests); not signed")
        verdict = decide(db).verdict
        if meta.verdict != verdict:
            raise SigningError(f"{path}: the recorded verdict {meta.verdict!r} is not what the results give "
                               f"({str(verdict)!r}); not signed")
        want = json.loads(json.dumps(recompute(db), ensure_ascii=False))
    finally:
        db.close()
    summary = run_dir / "summary.json"
    try:
        have = json.loads(summary.read_bytes())
    except FileNotFoundError:
        raise SigningError(f"{summary}: not found; nothing to sign") from None
    except (OSError, ValueError) as err:
        raise SigningError(f"{summary}: unreadable ({err}); not signed") from None
    if have != want:
        keys = sorted(set(want) | set(have if isinstance(have, dict) else {}))
        first = next((k for k in keys if not isinstance(have, dict) or have.get(k) != want.get(k)), "?")
        raise SigningError(f"{summary}: not the summary of run.db (its {first!r} differs); not signed")
