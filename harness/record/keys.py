"""The lab's Ed25519 keys: private keys read from PEM or OpenSSH files, public keys from PEM keys,
certificates or OpenSSH public keys, their fingerprints, and a trust store (a folder of the public
keys and certificates the lab trusts). Used by the run seal (:mod:`tablecert.harness.record.seal`) and by
the report signatures (:mod:`tablecert.reports.signing`, which re-exports these names).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey


class SigningError(ValueError):
    """A key, certificate or signature file that cannot be used (one-line message)."""


def read_key_file(path: str | Path, what: str) -> bytes:
    """The bytes of a key or certificate file (SigningError naming it if it cannot be read)."""
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise SigningError(f"{path}: cannot read the {what}: {err.strerror or err}") from None


def load_private_key(path: str | Path) -> Ed25519PrivateKey:
    """An unencrypted Ed25519 private key (PEM, PKCS#8 or OpenSSH)."""
    data = read_key_file(path, "private key")
    try:
        if b"OPENSSH PRIVATE KEY" in data:
            key = serialization.load_ssh_private_key(data, password=None)
        else:
            key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise SigningError(f"{path}: the private key is encrypted; give an unencrypted Ed25519 key") from None
    except (ValueError, UnsupportedAlgorithm):
        raise SigningError(f"{path}: not a PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(f"{path}: not an Ed25519 key (the summary signature is Ed25519)")
    return key


def load_public_key(path: str | Path) -> Ed25519PublicKey:
    """An Ed25519 public key from a PEM public key, an X.509 certificate or an OpenSSH public key."""
    data = read_key_file(path, "public key")
    key: object
    if b"PRIVATE KEY" in data:
        raise SigningError(f"{path}: this is a private key; give the public key")
    try:
        if b"BEGIN CERTIFICATE" in data:
            key = x509.load_pem_x509_certificate(data).public_key()
        elif data.startswith(b"ssh-ed25519"):
            key = serialization.load_ssh_public_key(data)
        else:
            key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm):
        raise SigningError(f"{path}: not a PEM public key or certificate") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningError(f"{path}: not an Ed25519 public key")
    return key


def raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(key: Ed25519PublicKey) -> str:
    return "sha256:" + hashlib.sha256(raw_public(key)).hexdigest()


def trusted_keys(pubkey: str | Path | None = None, cert: str | Path | None = None,
                 trust_dir: str | Path | None = None) -> list[Ed25519PublicKey]:
    """The keys a lab trusts: a public key file, a certificate (trusted for its key), and every
    ``*.pem``, ``*.crt`` or ``*.pub`` file of a trust folder. A file that is not a key is refused."""
    keys = [load_public_key(path) for path in (pubkey, cert) if path is not None]
    if trust_dir is not None:
        folder = Path(trust_dir)
        if not folder.is_dir():
            raise SigningError(f"{folder}: the trust store is not a folder")
        found = sorted(p for p in folder.iterdir() if p.suffix in (".pem", ".crt", ".pub") and p.is_file())
        if not found:
            raise SigningError(f"{folder}: the trust store holds no key (*.pem, *.crt or *.pub)")
        keys += [load_public_key(path) for path in found]
    return keys
