"""The report templates compiled once per lab, not once per process: a Jinja2 bytecode cache whose
entries count only when sealed by the lab's own key.

Every ``tablecert certify`` compiles the templates its documents need (the certificate, the
findings, report.html and their parts: seven, about 0.3 s of each certify on this 2-core machine,
``benchmarks/bench_templates.py``). Compiled code is code the harness runs, so an entry of the
cache is believed only when its bytes are the bytes the lab sealed: each file is an HMAC-SHA256
(a key derived from the lab's run key, ``$XDG_CONFIG_HOME/tablecert/seal-key``) of the template's
bucket key and the bytecode, then the bytecode. Jinja2 itself then checks the bytecode's magic
(its own and Python's version) and the template source's checksum, so an entry of another release,
another Python or an edited template is compiled again. An entry whose seal does not verify (made
under another key, changed, cut short) is ignored and written again; a link is never followed.

The folder is ``$XDG_CACHE_HOME/tablecert/templates/<version>/``, 0700 and marked as a lab folder
(no vendor's sandbox binds it). Without a run key (a lab that never certified here), or when the
folder cannot be written, the templates are compiled in every process as before: nothing fails.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket

from tablecert import __version__
from tablecert.harness.record.keys import load_private_key
from tablecert.harness.record.seal import default_key_path
from tablecert.vectors.lab_mark import mark

MAC_SIZE = 32
LIMIT = 16 * 1024 * 1024
"""An entry larger than this is not read (the largest compiled template is well under 1 MiB)."""


def cache_folder() -> Path:
    """``$XDG_CACHE_HOME/tablecert/templates/<version>`` (``~/.cache`` when the variable is unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tablecert" / "templates" / __version__


class SealedBytecodeCache(BytecodeCache):
    """Jinja2's bytecode cache over files sealed with ``key`` (see the module docstring)."""

    def __init__(self, folder: Path, key: bytes) -> None:
        self.folder = folder
        self.key = key

    def _path(self, bucket: Bucket) -> Path:
        return self.folder / f"{bucket.key}.j2c"

    def _mac(self, bucket: Bucket, body: bytes) -> bytes:
        return hmac.new(self.key, bucket.key.encode() + b"\0" + body, hashlib.sha256).digest()

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            fd = os.open(self._path(bucket), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return
        with os.fdopen(fd, "rb") as f:
            data = f.read(LIMIT + 1)
        mac, body = data[:MAC_SIZE], data[MAC_SIZE:]
        if len(data) <= LIMIT and hmac.compare_digest(mac, self._mac(bucket, body)):
            bucket.bytecode_from_string(body)

    def dump_bytecode(self, bucket: Bucket) -> None:
        body = bucket.bytecode_to_string()
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            mark(self.folder, "cache")
            fd, draft = tempfile.mkstemp(dir=self.folder, prefix=".draft-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(self._mac(bucket, body) + body)
                os.replace(draft, self._path(bucket))
            except BaseException:
                os.unlink(draft)
                raise
        except OSError:
            pass                                       # not writable here: compiled again next time


def lab_cache() -> SealedBytecodeCache | None:
    """The cache sealed by the lab's run key, or None when there is no run key to seal with."""
    path = default_key_path()
    if not path.is_file():
        return None
    try:
        raw = load_private_key(path).private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                                   serialization.NoEncryption())
    except (OSError, ValueError):
        return None
    return SealedBytecodeCache(cache_folder(), hashlib.sha256(b"tablecert template cache\0" + raw).digest())
