"""A watch on the vendor's build, so that a live-table restart's re-check reads what changed
instead of stat'ing every file (issue 49: at most 5 ms added per cut, on a venv of thousands of
files as on a small tree).

:meth:`BuildWatch.on` sets an inotify watch (``inotify_simple``, as the live tables' power cuts
use it) on every folder of the vendor's roots, **before** the build is digested: each folder is
watched before its entries are listed, top down, so a change made at any time after the watch of
its folder is an event, and the digest (made after) is vouched for by a watch that was already
there. :meth:`BuildWatch.named` drains the events without waiting and names the entries they are
about; :func:`~tablecert.harness.confine.build_files.recheck` then reads only those (nothing at
all when no event came: nothing changed).

The watch stops vouching (``named`` answers None, and the re-check is the stat of every file, as
without a watch) for good as soon as it can no longer see everything: a root that is a file, not
a folder; a watch that cannot be set (``max_user_watches`` reached, ``ENOSPC``; no inotify
instance left, ``EMFILE``; a folder replaced by a link as it was watched); two folders answering
the same watch; the kernel's queue overflowing (``IN_Q_OVERFLOW``: events were lost); or an event
about a folder (one created, removed or moved: its entries are not watched) or about a watched
folder itself (removed, moved, its file system unmounted). Nothing the vendor can do makes the
watch trusted when it is not: the fall-back is the full walk, never trust.
"""

from __future__ import annotations

import os
import stat

from inotify_simple import INotify, flags

from tablecert.harness.confine.build_files import Named, quoted, root_prefix

BUILD_CHANGES = (flags.MODIFY | flags.ATTRIB | flags.CREATE | flags.DELETE | flags.MOVED_FROM | flags.MOVED_TO
                 | flags.DELETE_SELF | flags.MOVE_SELF | flags.CLOSE_WRITE)
"""Every change to a watched folder's entries (or to the folder itself) that a build can undergo."""
WATCHING = BUILD_CHANGES | flags.ONLYDIR | flags.DONT_FOLLOW
BLIND = (flags.Q_OVERFLOW | flags.IGNORED | flags.UNMOUNT | flags.DELETE_SELF | flags.MOVE_SELF | flags.ISDIR)
"""An event after which the watch no longer sees everything (see the module)."""


class BuildWatch:
    """The inotify watches on the folders of one build (see the module). Close it when the run ends."""

    def __init__(self, inotify: INotify | None, folders: dict[int, tuple[str, tuple[bytes, ...], str]],
                 why_not: str | None = None) -> None:
        self._inotify = inotify
        self._folders = folders           # watch descriptor -> (root, the folder's parts under it, listing prefix)
        self.why_not = why_not            # why the watch does not vouch (None while it does)

    @classmethod
    def on(cls, roots: list[str]) -> BuildWatch:
        """A watch on every folder under ``roots`` (set before the build is digested), or one that
        does not vouch, saying why."""
        try:
            inotify = INotify()
        except OSError as err:
            return cls(None, {}, f"no inotify instance ({err.strerror})")
        folders: dict[int, tuple[str, tuple[bytes, ...], str]] = {}
        try:
            for index, root in enumerate(roots):
                if not stat.S_ISDIR(os.stat(root).st_mode):
                    raise _Blind(f"{root} is a file, not a folder")
                _watch_folders(inotify, root, root_prefix(index), folders)
        except (OSError, _Blind) as err:
            inotify.close()
            return cls(None, {}, str(err) if isinstance(err, _Blind) else f"a watch cannot be set ({err.strerror})")
        return cls(inotify, folders)

    def named(self) -> list[Named] | None:
        """The entries the events since the last call name (a listing path, its root and its parts
        under the root), without waiting; None when the watch does not vouch (then for good)."""
        if self._inotify is None:
            return None
        found: dict[str, Named] = {}
        for event in self._inotify.read(timeout=0):
            folder = self._folders.get(event.wd)
            if event.mask & BLIND or folder is None or not event.name:
                self.close(f"an event the watch cannot follow ({flags.from_mask(event.mask)[0].name})")
                return None
            root, parts, prefix = folder
            raw = os.fsencode(event.name)
            path = prefix + quoted(raw)
            found[path] = (path, root, (*parts, raw))
        return [found[p] for p in sorted(found)]

    def close(self, why: str = "closed") -> None:
        if self._inotify is not None:
            self._inotify.close()
            self._inotify = None
            self.why_not = why


class _Blind(Exception):
    """The build cannot be watched whole (the message says why)."""


def _watch_folders(inotify: INotify, root: str, prefix: str,
                   seen: dict[int, tuple[str, tuple[bytes, ...], str]]) -> None:
    """Watch ``root`` and every folder below it, each before its entries are listed (links never
    followed), keeping in ``seen`` each watch's folder (root, parts under it, listing prefix)."""
    pending: list[tuple[tuple[bytes, ...], str]] = [((), prefix)]
    while pending:
        parts, at = pending.pop()
        path = os.path.join(os.fsencode(root), *parts)
        wd = inotify.add_watch(path, WATCHING)
        if wd in seen:
            raise _Blind(f"{os.fsdecode(path)}: two folders of the build are one (a bind or the same folder twice)")
        seen[wd] = (root, parts, at)
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    name = os.fsencode(entry.name)
                    pending.append(((*parts, name), f"{at}{quoted(name)}/"))
