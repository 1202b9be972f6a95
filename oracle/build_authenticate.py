"""The optional contract op ``build.authenticate`` (*Since 1.0.*), as the reference vendor answers
it: ``{"id": N, "op": "build.authenticate", "seed": HEX, "files": [PATH, ...]}`` is answered
``{"id": N, "result": {"files": {PATH: HEX, ...}}}``, each the HMAC-SHA256 with the seed of the
bytes of the named file of the vendor's own build (its paths relative to the build's root, the
folder the vendor was installed in), computed when asked: a stored table of answers cannot
follow a fresh seed. A path that leaves the root, is not a regular file, or cannot be read is
answered ``null``; a seed that is not hex, or files that are not a list of strings, is
``invalid_request``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from collections.abc import Callable
from typing import Any

OP = "build.authenticate"
CHUNK = 1 << 20


def file_hash(root: str, path: str, make: Callable[[], Any]) -> str | None:
    """The hex digest (a hash object from ``make``) of the regular file ``path`` under ``root``:
    every folder on the way opened without following a link, the file opened as a path first and
    read only if it is regular (a FIFO or device is never opened for reading); None if there is
    no such file, or ``path`` leaves ``root``."""
    parts = path.split("/")
    if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return None
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            sub = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = sub
        handle = os.open(parts[-1], os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
    except OSError:
        os.close(fd)
        return None
    os.close(fd)
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        reading = os.open(f"/proc/self/fd/{handle}", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    finally:
        os.close(handle)
    try:
        digest = make()
        while chunk := os.read(reading, CHUNK):
            digest.update(chunk)
        return str(digest.hexdigest())
    except OSError:
        return None
    finally:
        os.close(reading)


def keyed_file(root: str, path: str, seed: bytes) -> str | None:
    """HMAC-SHA256 with ``seed`` of the file ``path`` under ``root`` (:func:`file_hash`)."""
    return file_hash(root, path, lambda: hmac.new(seed, digestmod=hashlib.sha256))


def authenticate(root: str, request: dict[str, Any]) -> dict[str, Any]:
    """The ``result`` (or ``error``) of one ``build.authenticate`` request (see the module)."""
    seed, files = request.get("seed"), request.get("files")
    try:
        key = bytes.fromhex(seed) if isinstance(seed, str) else b""
    except ValueError:
        key = b""
    if not key or not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return {"error": {"code": "invalid_request", "message": "build.authenticate takes 'seed' (hex) and "
                                                                "'files' (a list of paths)"}}
    return {"result": {"files": {f: keyed_file(root, f, key) for f in files}}}
