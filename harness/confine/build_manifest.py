"""A vendor's submission manifest (``--manifest FILE``): its declared key files and their digests,
checked against the build as bound before the first vector is sent.

The file is TOML (or JSON when it ends in ``.json``) with one table, ``files``: each key a path
relative to the vendor's tree (``/``-separated; ``@N/`` for the N-th ``--vendor-path`` after the
program's tree), each value the file's SHA-256 (64 hex digits) or, for an older manifest, its SHA-1
(40 hex digits: accepted, and marked weaker on the certificate)::

    [files]
    "engine.py" = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    "lib/tables.dat" = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"

A manifest that cannot be read, names a path twice (after ``./`` and ``//`` are folded), has a
digest of another length or not in hex, or a path that is absolute, holds ``..`` or is empty, is
:class:`ManifestError` (one line, what and where). :func:`check_manifest` names the first declared
file that is missing from the build or differs from it.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tablecert.harness.confine.build_files import BuildListing, file_digest

HEX = re.compile(r"[0-9a-f]+")
ALGORITHMS = {64: "sha256", 40: "sha1"}
WEAKER = "sha1"


class ManifestError(ValueError):
    """A manifest that cannot be used (one line, what and where)."""


class ManifestMismatch(ValueError):
    """The build as bound is not the one the manifest declares (one line naming the first file)."""


@dataclass(frozen=True)
class DeclaredFile:
    path: str
    algorithm: str         # sha256 | sha1
    digest: str


@dataclass(frozen=True)
class Manifest:
    source: str
    files: tuple[DeclaredFile, ...]
    sha256: str            # of the manifest file's bytes

    @property
    def weaker(self) -> bool:
        return any(f.algorithm == WEAKER for f in self.files)

    def meta(self) -> dict[str, object]:
        """What the run records of a verified manifest."""
        return {"verified": True, "files": len(self.files), "sha256": self.sha256,
                "algorithms": sorted({f.algorithm for f in self.files}), "weaker": self.weaker}


def _pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise ManifestError(f"the path {key!r} is declared twice")
        seen[key] = value
    return seen


def load_manifest(path: Path) -> Manifest:
    """The manifest at ``path`` (see the module); ManifestError if it cannot be used."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ManifestError(f"{path}: cannot be read ({err.strerror})") from None
    try:
        text = raw.decode("utf-8")
        data = json.loads(text, object_pairs_hook=_pairs) if path.suffix == ".json" else tomllib.loads(text)
    except ManifestError as err:
        raise ManifestError(f"{path}: {err}") from None
    except (UnicodeDecodeError, ValueError) as err:
        raise ManifestError(f"{path}: not a {'JSON' if path.suffix == '.json' else 'TOML'} manifest: "
                            f"{str(err).splitlines()[0]}") from None
    if not isinstance(data, dict) or set(data) != {"files"} or not isinstance(data["files"], dict) \
            or not data["files"]:
        raise ManifestError(f"{path}: a manifest holds one non-empty table 'files' (path = digest), nothing else")
    files: dict[str, DeclaredFile] = {}
    for name, digest in data["files"].items():
        where = f"{path}: files.{json.dumps(name)}"
        norm = _normal(name, where)
        if norm in files:
            raise ManifestError(f"{where}: the path {norm!r} is declared twice")
        if not isinstance(digest, str) or HEX.fullmatch(digest.lower()) is None or len(digest) not in ALGORITHMS:
            raise ManifestError(f"{where}: the digest must be 64 hex digits (SHA-256) or 40 (SHA-1), "
                                f"not {str(digest)[:80]!r}")
        files[norm] = DeclaredFile(norm, ALGORITHMS[len(digest)], digest.lower())
    return Manifest(str(path), tuple(files.values()), hashlib.sha256(raw).hexdigest())


def _normal(name: str, where: str) -> str:
    """A declared path folded (``./``, ``//``); ManifestError for one outside the tree."""
    if not name or name.startswith("/") or "\\" in name or "\0" in name:
        raise ManifestError(f"{where}: a path relative to the vendor's tree, '/'-separated, is required")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts or not parts:
        raise ManifestError(f"{where}: the path leaves the vendor's tree ('..')")
    return posixpath.join(*parts)


def check_manifest(manifest: Manifest, listing: BuildListing) -> None:
    """ManifestMismatch naming the first declared file missing from the build or different."""
    entries = listing.by_path()
    for declared in manifest.files:
        entry = entries.get(declared.path)
        if entry is None or entry.kind != "file":
            raise ManifestMismatch(f"manifest {manifest.source}: {declared.path} is declared but "
                                   f"{'missing from' if entry is None else 'not a regular file in'} the vendor's "
                                   "build")
        actual = entry.sha256 if declared.algorithm == "sha256" else \
            file_digest(list(listing.roots), declared.path, hashlib.sha1)
        if actual != declared.digest:
            raise ManifestMismatch(f"manifest {manifest.source}: {declared.path} differs from the declared "
                                   f"{declared.algorithm.upper()} {declared.digest[:16]}... (the build's: "
                                   f"{(actual or '?')[:16]}...)")
