"""The vendor's build as it was bound: every file of the vendor's tree digested (SHA-256), one
line per file, and one *build signature* over the listing, so that a certificate names the bytes
that ran, and a regulator can check an installed copy against it (``tablecert verify-build``).

:func:`digest_build` takes plain root paths: the vendor's roots (its install tree, the folders
the lab names with ``--vendor-path``) and the runtime's (the interpreter and the harness's own
environment when the vendor runs on it; listed by path apart, a file among them digested, a
folder never walked: it is the lab's, not the vendor's).

How a file is read: each entry of a folder is opened relative to its folder's descriptor, as a
path, never following a link (``O_PATH | O_NOFOLLOW``), checked to be a regular file, and only then
reopened for reading through that descriptor, and read in bounded chunks into one buffer (memory
bounded by the chunk, whatever the file's size). Nothing else is opened: a link is listed with the
digest of what it says (its target is never read), a FIFO, device or socket is listed by its kind
and never opened. A file whose size or modification time differs before and after it was read is
read once more; a second change is :class:`BuildError` naming it.

The canonical listing (what the signature covers) walks each root depth first, the entries of a
folder in the order of their names' bytes; a line is ``KIND MODE SIZE SHA256 PATH`` with the path
relative to its root (``@N/`` before the paths of the N-th root after the first), escaped so that
one line is one file (:func:`quoted`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tablecert.oracle.build_authenticate import file_hash

CHUNK = 1 << 20
LISTING_HEADER = b"tablecert-build-v1\n"
KINDS = {stat.S_IFREG: "file", stat.S_IFLNK: "link", stat.S_IFIFO: "fifo", stat.S_IFCHR: "device",
         stat.S_IFBLK: "device", stat.S_IFSOCK: "socket"}
NOT_READ = "-"
"""The digest column of an entry never opened (a FIFO, device or socket)."""


class BuildError(Exception):
    """The build cannot be digested as bound (one line naming the file)."""


@dataclass(frozen=True)
class BuildFile:
    """One entry of the build: its path (relative, ``/``-separated, :func:`quoted`), kind, mode
    bits, size and SHA-256 (of a link: of its target text; ``-`` for an entry never opened)."""

    path: str
    kind: str
    mode: int
    size: int
    sha256: str

    def line(self) -> str:
        return f"{self.kind} {self.mode:04o} {self.size} {self.sha256} {self.path}"


@dataclass(frozen=True)
class BuildListing:
    """The vendor's build as bound (see the module)."""

    roots: tuple[str, ...]
    files: tuple[BuildFile, ...]
    runtime: tuple[BuildFile, ...] = ()
    runtime_roots: tuple[str, ...] = ()
    signature: str = field(default="")
    stamps: dict[str, tuple[int, int, int, int]] = field(default_factory=dict, compare=False, repr=False)
    listed: tuple[str, ...] = ()      # the files named (a plugin's RECORD) instead of a walk of the roots

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files if f.kind == "file")

    def by_path(self) -> dict[str, BuildFile]:
        return {f.path: f for f in self.files}

    def meta(self) -> dict[str, object]:
        """What run.db's meta ``build`` holds (the files themselves go in their own table)."""
        return {"signature": self.signature, "files": len(self.files), "bytes": self.total_bytes,
                **({"source": "record"} if self.listed else {}),
                "roots": list(self.roots), "runtime_roots": list(self.runtime_roots),
                "runtime": [{"path": f.path, "size": f.size, "sha256": f.sha256} for f in self.runtime]}


def quoted(raw: bytes) -> str:
    """A file name's bytes as one line of text: UTF-8 kept, a backslash doubled, any other byte
    that is not printable UTF-8 (a newline, a tab, an invalid sequence) as ``\\xNN``."""
    text = raw.replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")
    return text if text.isprintable() else "".join(c if c.isprintable() else _escape(c) for c in text)


def _escape(c: str) -> str:
    return "".join(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogateescape"))


def signature_of(files: list[BuildFile] | tuple[BuildFile, ...]) -> str:
    """SHA-256 of the canonical listing of ``files`` (in their order)."""
    digest = hashlib.sha256(LISTING_HEADER)
    for f in files:
        digest.update(f.line().encode("utf-8") + b"\n")
    return digest.hexdigest()


def keyed_signature(seed: bytes, keyed: list[BuildFile]) -> str:
    """The GAT-style keyed digest of the whole build: HMAC-SHA256 with ``seed`` over the canonical
    listing whose digests are the files' own keyed digests (:func:`walk_roots` with the seed), so
    that no stored answer can be replayed for a new seed."""
    digest = hmac.new(seed, LISTING_HEADER, hashlib.sha256)
    for f in keyed:
        digest.update(f.line().encode("utf-8") + b"\n")
    return digest.hexdigest()


Hasher = Callable[[], Any]
"""Makes a fresh hash object (``hashlib.sha256``, ``hashlib.sha1``, an HMAC with a seed)."""


def hasher(key: bytes | None) -> Hasher:
    """SHA-256, or HMAC-SHA256 with ``key``."""
    return hashlib.sha256 if key is None else lambda: hmac.new(key, digestmod=hashlib.sha256)


def _read(dir_fd: int | None, name: str | bytes, where: str, make: Hasher = hashlib.sha256,
          buffer: bytearray | None = None) -> tuple[int, int, str]:
    """(mode, size, hex digest) of the regular file ``name`` (relative to ``dir_fd``), hashed with
    ``make``, read as the module says (into ``buffer``, else a new one); BuildError if it is not
    one or keeps changing."""
    for _attempt in (1, 2):
        try:
            handle = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
        except OSError as err:
            raise BuildError(f"{where}: cannot be opened ({err.strerror})") from None
        try:
            before = os.fstat(handle)
            if not stat.S_ISREG(before.st_mode):
                raise BuildError(f"{where}: not a regular file (never read)")
            fd = os.open(f"/proc/self/fd/{handle}", os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError as err:
            raise BuildError(f"{where}: cannot be read ({err.strerror})") from None
        finally:
            os.close(handle)
        try:
            digest = make()
            view = memoryview(buffer if buffer is not None else bytearray(CHUNK))
            read, limit = 0, before.st_size + 1      # a file growing as it is read is read no further
            while read < limit:
                n = os.readv(fd, [view[:min(CHUNK, limit - read)]])
                if not n:
                    break
                digest.update(view[:n])
                read += n
            after = os.fstat(fd)
        except OSError as err:
            raise BuildError(f"{where}: cannot be read ({err.strerror})") from None
        finally:
            os.close(fd)
        if (before.st_size, before.st_mtime_ns) == (after.st_size, after.st_mtime_ns) and read == after.st_size:
            return stat.S_IMODE(before.st_mode), read, digest.hexdigest()
    raise BuildError(f"{where}: changed while it was digested (size or modification time), twice")


@dataclass
class _How:
    """How a walk reads: ``key`` HMAC-SHA256 instead of SHA-256; ``stamps`` filled with each
    entry's (mode, size, mtime, inode); ``read`` False: regular files are only stat'ed (their
    digest column left empty), for :func:`recheck`."""

    key: bytes | None = None
    stamps: dict[str, tuple[int, int, int, int]] | None = None
    read: bool = True
    buffer: bytearray | None = None       # one a walk that reads, whatever its files (made by walk_roots)


def _walk(root: str, prefix: str, how: _How) -> Iterator[BuildFile]:
    """Every entry under ``root`` (a folder, or one file), as the module says."""
    try:
        top = os.stat(root)
    except OSError as err:
        raise BuildError(f"{root}: cannot be read ({err.strerror})") from None
    if not stat.S_ISDIR(top.st_mode):
        rel = prefix + quoted(os.fsencode(os.path.basename(root)))
        if how.stamps is not None:
            how.stamps[rel] = (top.st_mode, top.st_size, top.st_mtime_ns, top.st_ino)
        mode, size, digest = _read(None, root, root, hasher(how.key)) if how.read else \
            (stat.S_IMODE(top.st_mode), top.st_size, "")
        yield BuildFile(rel, "file", mode, size, digest)
        return
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as err:
        raise BuildError(f"{root}: cannot be read ({err.strerror})") from None
    try:
        yield from _folder(fd, root, prefix, how)
    finally:
        os.close(fd)


def _folder(fd: int, where: str, prefix: str, how: _How) -> Iterator[BuildFile]:
    names = sorted(os.listdir(fd), key=os.fsencode)
    for name in names:
        path = f"{where}/{name}"
        rel = prefix + quoted(os.fsencode(name))
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError as err:
            raise BuildError(f"{path}: cannot be read ({err.strerror})") from None
        kind = stat.S_IFMT(st.st_mode)
        if how.stamps is not None and kind != stat.S_IFDIR:
            how.stamps[rel] = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino)
        if kind == stat.S_IFDIR:
            try:
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except OSError as err:
                raise BuildError(f"{path}: cannot be read ({err.strerror})") from None
            try:
                yield from _folder(sub, path, rel + "/", how)
            finally:
                os.close(sub)
        else:
            yield _entry(fd, name, path, rel, st, how)


def _entry(fd: int, name: str | bytes, path: str, rel: str, st: os.stat_result, how: _How) -> BuildFile:
    """The listing's line of the entry ``name`` of the folder ``fd`` (not a folder), stat'ed ``st``."""
    kind = stat.S_IFMT(st.st_mode)
    if kind == stat.S_IFREG:
        mode, size, digest = _read(fd, name, path, hasher(how.key), how.buffer) if how.read else \
            (stat.S_IMODE(st.st_mode), st.st_size, "")
        return BuildFile(rel, "file", mode, size, digest)
    if kind == stat.S_IFLNK:
        text = os.readlink(os.fsencode(name), dir_fd=fd)      # bytes in, bytes out
        link = hasher(how.key)()
        link.update(text)
        return BuildFile(rel, "link", 0o777, len(text), link.hexdigest())
    if kind == stat.S_IFDIR:
        return BuildFile(rel, "folder", stat.S_IMODE(st.st_mode), 0, NOT_READ)
    return BuildFile(rel, KINDS.get(kind, "other"), stat.S_IMODE(st.st_mode), 0, NOT_READ)


def root_prefix(index: int) -> str:
    """What the paths of the ``index``-th vendor root begin with (nothing for the first)."""
    return "" if index == 0 else f"@{index}/"


def walk_roots(roots: list[str], key: bytes | None = None, how: _How | None = None) -> Iterator[BuildFile]:
    """Every entry of the vendor's roots, in canonical order (HMAC-SHA256 with ``key`` instead of
    SHA-256 when given)."""
    how = how or _How(key)
    if how.read and how.buffer is None:
        how.buffer = bytearray(CHUNK)
    for index, root in enumerate(roots):
        yield from _walk(root, root_prefix(index), how)


def digest_build(vendor_roots: list[str], runtime_roots: list[str]) -> BuildListing:
    """The vendor's build as bound: every file under ``vendor_roots`` digested, the signature over
    the listing; ``runtime_roots`` listed apart (a file among them digested, a folder by its path).
    Each entry's (mode, size, mtime, inode) is kept with it for :func:`recheck`."""
    stamps: dict[str, tuple[int, int, int, int]] = {}
    files = tuple(walk_roots(vendor_roots, how=_How(stamps=stamps)))
    runtime = tuple(BuildFile(quoted(os.fsencode(p)), "file", *_read(None, p, p)) for p in runtime_roots
                    if os.path.isfile(p))
    return BuildListing(tuple(vendor_roots), files, runtime, tuple(runtime_roots), signature_of(files), stamps)


def digest_listed(root: str, paths: list[str]) -> BuildListing:
    """A build that is a list of files under ``root`` (a Python plugin's distribution, as its
    installed RECORD names them): each read as a walk reads a file, the folders on the way opened
    without following a link; a path that leaves ``root`` is left out, one that is not a regular
    file there is listed ``missing``."""
    buffer = bytearray(CHUNK)
    files = []
    for path in sorted(p for p in dict.fromkeys(paths) if p and not p.startswith("/") and ".." not in p.split("/")):
        parts = path.split("/")
        try:
            fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as err:
            raise BuildError(f"{root}: cannot be read ({err.strerror})") from None
        try:
            for part in parts[:-1]:
                sub = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                os.close(fd)
                fd = sub
            mode, size, digest = _read(fd, parts[-1], f"{root}/{path}", hashlib.sha256, buffer)
            files.append(BuildFile(quoted(os.fsencode(path)), "file", mode, size, digest))
        except (OSError, BuildError):
            files.append(BuildFile(quoted(os.fsencode(path)), "missing", 0, 0, NOT_READ))
        finally:
            os.close(fd)
    return BuildListing((root,), tuple(files), signature=signature_of(files), listed=tuple(paths))


def again(listing: BuildListing) -> BuildListing:
    """The same build digested again, as it was first (a tree walked, or the files listed)."""
    if listing.listed:
        return digest_listed(listing.roots[0], list(listing.listed))
    return digest_build(list(listing.roots), list(listing.runtime_roots))


Named = tuple[str, str, tuple[bytes, ...]]
"""An entry of the build named by a watch (:mod:`~tablecert.harness.confine.build_watch`): its
listing path, its root and its name's parts (bytes) under the root."""


def recheck(listing: BuildListing, named: list[Named] | None = None) -> list[str]:
    """The files of ``listing`` that differ now, found cheaply (a live-table restart's check).
    Without ``named`` the tree is only stat'ed, and only an entry whose (mode, size, mtime, inode)
    moved is digested again; with ``named`` (what a watch set before the digest saw change) only
    those entries are looked at. An entry found unchanged keeps its new stamp, so an unchanged
    rewrite is read once."""
    if named is not None:
        return _recheck_named(listing, named)
    now: dict[str, tuple[int, int, int, int]] = {}
    entries = {f.path: f for f in walk_roots(list(listing.roots), how=_How(stamps=now, read=False))}
    before = listing.by_path()
    changed = []
    for path in dict.fromkeys([*before, *entries]):
        old, new = before.get(path), entries.get(path)
        if old is None or new is None:
            changed.append(path)
        elif listing.stamps.get(path) != now.get(path):
            if new.kind == "file":
                new = BuildFile(path, "file", new.mode, new.size, file_digest(list(listing.roots), path) or "")
            if new != old:
                changed.append(path)
            else:
                listing.stamps[path] = now[path]
    return changed


def _recheck_named(listing: BuildListing, named: list[Named]) -> list[str]:
    if not named:
        return []
    before = listing.by_path()
    changed = []
    for path, root, parts in named:
        stamp, now = _named_entry(root, parts, path)
        if now != before.get(path):
            changed.append(path)
        elif stamp is not None:
            listing.stamps[path] = stamp
    return changed


def _named_entry(root: str, parts: tuple[bytes, ...], path: str) -> tuple[tuple[int, int, int, int] | None,
                                                                          BuildFile | None]:
    """(stamp, listing line) of the entry ``parts`` under ``root`` now, read as a walk reads it;
    (None, None) when there is none."""
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None, None
    try:
        for part in parts[:-1]:
            sub = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = sub
        st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
        entry = _entry(fd, parts[-1], f"{root}/{os.fsdecode(b'/'.join(parts))}", path, st, _How())
    except (OSError, BuildError):
        return None, None
    finally:
        os.close(fd)
    return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino), entry


def changed_files(before: Iterable[BuildFile], after: Iterable[BuildFile]) -> list[str]:
    """The paths that differ between two listings of one build (changed, missing or extra), in order."""
    old, new = {f.path: f for f in before}, {f.path: f for f in after}
    return [p for p in dict.fromkeys([*old, *new]) if old.get(p) != new.get(p)]


def file_digest(roots: list[str], path: str, make: Hasher = hashlib.sha256) -> str | None:
    """The digest (``make``) of the build's regular file ``path`` (a listing path: relative, ``@N/``
    for a later root), every folder on the way opened without following a link; None when there is
    no such regular file there."""
    index = 0
    if path.startswith("@") and "/" in path:
        head, path = path[1:].split("/", 1)
        index = int(head) if head.isdigit() else len(roots)
    if index >= len(roots) or not path:
        return None
    parts = path.split("/")
    root = roots[index]
    if os.path.isdir(root):
        return file_hash(root, path, make)
    try:
        return _read(None, root, root, make)[2] if parts == [os.path.basename(root)] else None
    except BuildError:
        return None
