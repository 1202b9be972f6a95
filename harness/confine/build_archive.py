"""The lab's copy of the files of a vendor it cannot read (an HTTP vendor, issue 49): the folder or
tar the lab gives with ``--build-archive``, made a folder the build's reads can digest
(:func:`~tablecert.harness.confine.build_files.digest_build`: the same bounded, no-follow reads
as a bound tree's).

A folder is digested where it is. A tar (any compression ``tarfile`` reads) is checked member by
member before anything is written: a member whose name is absolute or holds ``..``, a link (soft
or hard) whose target leaves the archive or is absolute, a device, a FIFO or any other kind than a
file, a folder or a link is refused (:class:`ArchiveError`, one line naming the archive and the
member); then it is extracted into a folder of the harness's (``tarfile``'s ``data`` filter too:
no setuid bits, no group or other write bits), streamed (memory bounded by the copy's buffer,
whatever the archive's size). The archive's own files are the vendor's: nothing in them decides
where anything is written.
"""

from __future__ import annotations

import posixpath
import tarfile
from pathlib import Path


class ArchiveError(ValueError):
    """The archive cannot be the lab's copy of the build (one line, what and where)."""


def _leaves(path: str) -> bool:
    """True when the archive path ``path`` is absolute or holds ``..`` anywhere."""
    return path.startswith("/") or ".." in path.split("/")


def _points_out(member: tarfile.TarInfo) -> bool:
    """True when the symbolic link ``member`` resolves (from its folder) outside the archive."""
    target = posixpath.normpath(posixpath.join(posixpath.dirname(member.name), member.linkname))
    return member.linkname.startswith("/") or target == ".." or target.startswith("../")


def check_member(archive: Path, member: tarfile.TarInfo) -> None:
    """ArchiveError when ``member`` may not be extracted (see the module)."""
    where = f"--build-archive {archive}: member {member.name!r}"
    if _leaves(member.name):
        raise ArchiveError(f"{where}: an absolute path or one with '..' (every member must stay in the archive)")
    if member.issym():
        if _points_out(member):
            raise ArchiveError(f"{where}: a link out of the archive (to {member.linkname!r})")
    elif member.islnk():
        if _leaves(member.linkname):
            raise ArchiveError(f"{where}: a hard link out of the archive (to {member.linkname!r})")
    elif member.ischr() or member.isblk():
        raise ArchiveError(f"{where}: a device (never extracted)")
    elif member.isfifo():
        raise ArchiveError(f"{where}: a FIFO (never extracted)")
    elif not (member.isreg() or member.isdir()):
        raise ArchiveError(f"{where}: neither a file, a folder nor a link")


def archive_root(archive: Path, into: Path) -> str:
    """The folder holding the build ``archive`` names: the folder itself, or a tar checked and
    extracted into ``into`` (an empty folder of the harness's); ArchiveError otherwise."""
    if archive.is_dir():
        return str(archive.resolve())
    if not archive.is_file():
        raise ArchiveError(f"--build-archive {archive}: no such folder or file")
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:              # every member checked before one is written
                check_member(archive, member)
            tar.extractall(into, filter="data")
    except (tarfile.TarError, OSError) as err:
        raise ArchiveError(f"--build-archive {archive}: not a folder or a readable tar archive ({err})") from None
    return str(into)
