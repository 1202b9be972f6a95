"""A run's record of the vendor's build, read back: the listing in run.db checked against the
signature its seal covers, and an installed copy compared with it in the field
(``tablecert verify-build RUN_FOLDER --tree DIR``).

The seal covers the meta ``build`` (its signature over the canonical listing,
:mod:`tablecert.harness.confine.build_files`); the ``build_files`` rows are checked against that
signature whenever they are read here, so a row changed after sealing is refused like any change
to the sealed record. A copy's files are read as the run read them (no link followed, no FIFO
opened) and compared path by path: ``match``, ``changed``, ``missing`` (in the record, not in the
copy) or ``extra`` (in the copy only). With a seed, each file's GAT-style keyed digest
(HMAC-SHA256 with the seed over its bytes) and the whole build's
(:func:`~tablecert.harness.confine.build_files.keyed_signature`) are given too, as a field device
answering ``build.authenticate`` for that seed would.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tablecert.harness.confine.build_files import (BuildFile, changed_files, digest_listed, file_digest, hasher,
                                                   keyed_signature, signature_of, walk_roots)
from tablecert.harness.record.seal import SealError, check_seal
from tablecert.harness.store import RunReader, open_reader


class BuildRecordError(ValueError):
    """A run whose build record cannot be used (one line)."""


@dataclass(frozen=True)
class FileCheck:
    status: str            # match | changed | missing | extra
    path: str
    keyed: str = ""        # HMAC-SHA256 with the seed, of the copy's file (empty without a seed or a file)

    def line(self) -> str:
        return f"{self.status:<8} {self.path}" + (f"  hmac-sha256 {self.keyed}" if self.keyed else "")


def recorded_build(db: RunReader, where: str) -> tuple[dict[str, object], list[BuildFile]]:
    """The run's meta ``build`` and its files; BuildRecordError when the run recorded no build,
    or its rows do not give the signature the meta holds."""
    build = db.run_meta().build
    if not isinstance(build, dict) or not build.get("authenticated"):
        why = build.get("why") if isinstance(build, dict) else "the run predates build records"
        raise BuildRecordError(f"{where}: the run recorded no build of the vendor's files ({why})")
    files = [BuildFile(*row) for row in db.build_files()]
    if signature_of(files) != build.get("signature"):
        raise BuildRecordError(f"{where}: run.db's build listing does not give the sealed build signature "
                               f"{str(build.get('signature'))[:16]}...: it changed after the run; not accepted")
    return build, files


def compare(recorded: list[BuildFile], trees: list[str], seed: bytes | None = None,
            listed: bool = False) -> list[FileCheck]:
    """Each file of the record and of the copy under ``trees``: match, changed, missing or extra
    (the record's order, then the extra ones in the copy's). ``listed``: the build is the files a
    plugin's RECORD names, not a whole tree: only those are read (none is extra)."""
    if listed:
        copy = {f.path: f for f in digest_listed(trees[0], [f.path for f in recorded]).files if f.kind != "missing"}
        keyed = {p: file_digest(trees[:1], p, hasher(seed)) or "" for p in copy} if seed is not None else {}
    else:
        copy = {f.path: f for f in walk_roots(trees)}
        keyed = {f.path: f.sha256 for f in walk_roots(trees, seed)} if seed is not None else {}
    checks = []
    for f in recorded:
        there = copy.pop(f.path, None)
        status = "missing" if there is None else "match" if there == f else "changed"
        checks.append(FileCheck(status, f.path, keyed.get(f.path, "")))
    checks += [FileCheck("extra", path, keyed.get(path, "")) for path in copy]
    return checks


@dataclass(frozen=True)
class FieldCheck:
    """``verify-build``'s finding: the seal's key, the build signature, each file, and with a seed
    the whole copy's keyed digest."""

    sealed_by: str
    signature: str
    files: list[FileCheck]
    keyed_build: str = ""

    @property
    def all_match(self) -> bool:
        return all(f.status == "match" for f in self.files)


def verify_build(run_dir: Path, trees: list[str], trusted: list[Ed25519PublicKey],
                 seed: bytes | None = None) -> FieldCheck:
    """The run's seal checked (SealError), then its build record (BuildRecordError), then the
    installed copy under ``trees`` compared with it."""
    where = str(run_dir)
    with open_reader(run_dir / "run.db") as db:
        sealed_by = check_seal(db, trusted, where)
        build, files = recorded_build(db, where)
    for tree in trees:
        if not Path(tree).exists():
            raise BuildRecordError(f"--tree {tree}: no such folder")
    listed = build.get("source") == "record"
    checks = compare(files, trees, seed, listed)
    keyed = ""
    if seed is not None:
        keyed = keyed_signature(seed, [BuildFile(c.path, "file", 0, 0, c.keyed) for c in checks if c.keyed] if listed
                                else list(walk_roots(trees, seed)))
    return FieldCheck(sealed_by, str(build["signature"]), checks, keyed)


DECLARED = ("name", "version", "build")
"""What a hello declares the build to be (the meta ``vendor``'s keys compared)."""


@dataclass(frozen=True)
class RecordedBuild:
    """What one run recorded of its vendor: the declared identity, the build signature, the files."""

    run: str
    vendor: dict[str, object]
    signature: str
    files: list[BuildFile]


def read_recorded(run_dir: Path) -> RecordedBuild | None:
    """A run folder's recorded build (None: it recorded none, or its listing does not give its
    signature)."""
    with open_reader(run_dir / "run.db") as db:
        vendor = db.run_meta().vendor or {}
        try:
            build, files = recorded_build(db, str(run_dir))
        except BuildRecordError:
            return None
    return RecordedBuild(str(run_dir), vendor, str(build["signature"]), files)


def same_declared_build(old: RecordedBuild, vendor: dict[str, object], signature: str,
                        files: list[BuildFile]) -> str | None:
    """"same declared build, different files: N changed, first X" when the vendor declares the
    build ``old`` declared (name, version, build) but the files differ; else None."""
    if any(old.vendor.get(k) != vendor.get(k) for k in DECLARED) or old.signature == signature:
        return None
    changed = changed_files(old.files, files)
    first = changed[0] if changed else "(the listing's order)"
    return f"same declared build, different files: {len(changed):,} changed, first {first} (against {old.run})"


__all__ = ["DECLARED", "RecordedBuild", "read_recorded", "same_declared_build", "BuildRecordError",
           "FieldCheck", "FileCheck", "SealError", "compare", "recorded_build",
           "verify_build"]
