"""Memory and process limits for a vendor instance as a whole, by the kernel's controllers.

``RLIMIT_AS`` limits each process alone (four children of 512 MiB each hold 2 GiB) and
``RLIMIT_NPROC`` counts a whole uid. Where the host lets this process make control groups (root,
with cgroup v1's ``memory`` and ``pids`` controllers mounted, or a cgroup v2 group whose
``cgroup.subtree_control`` already enables both), each vendor instance gets a group of its own,
made before it starts and removed after it is reaped: ``memory.limit_in_bytes`` / ``memory.max``
for all its processes together, ``pids.max`` for all its tasks. The started process joins the
group between ``fork`` and ``exec`` (it writes ``0`` to ``cgroup.procs``), so everything the
vendor starts is counted. Elsewhere :mod:`tablecert.harness.confine.sandbox` falls back to
rlimits, and the run records which applied (:attr:`Controllers.name`).
"""

from __future__ import annotations

import functools
import itertools
import os
import time
from dataclasses import dataclass

MIB = 1 << 20
REMOVE_TRIES = 100
_serial = itertools.count()


@dataclass(frozen=True)
class Controllers:
    """Where this process may make groups: (file of the memory limit, of the pids limit) -> the
    parent folder for each, and what to call the mechanism."""

    name: str                       # "cgroup v1 memory+pids" or "cgroup v2"
    memory_parent: str
    pids_parent: str
    memory_file: str                # memory.limit_in_bytes (v1) or memory.max (v2)

    def group(self, memory_mb: int | None, processes: int | None) -> Group:
        """A new group with these limits (OSError if the kernel refuses)."""
        name = f"tablecert-{os.getpid()}-{next(_serial)}"
        folders = tuple(dict.fromkeys((os.path.join(self.memory_parent, name), os.path.join(self.pids_parent, name))))
        made: list[str] = []
        try:
            for folder in folders:
                os.mkdir(folder, 0o700)
                made.append(folder)
            memory = os.path.join(folders[0], self.memory_file)
            _write(memory, str(memory_mb * MIB) if memory_mb is not None else "max" if self.memory_file ==
                   "memory.max" else "-1")
            _write(os.path.join(folders[-1], "pids.max"), str(processes) if processes is not None else "max")
        except OSError:
            Group(tuple(made)).remove()
            raise
        return Group(folders)


@dataclass(frozen=True)
class Group:
    """One vendor instance's control group(s): joined by the started process, removed after."""

    folders: tuple[str, ...]

    @property
    def procs(self) -> tuple[str, ...]:
        return tuple(os.path.join(f, "cgroup.procs") for f in self.folders)

    def remove(self) -> None:
        """Remove the groups once the kernel has let go of their last task (it frees a reaped
        task's place a moment after ``wait`` returns: up to :data:`REMOVE_TRIES` tries); a group
        still busy after that is left, empty of anything that runs."""
        for folder in reversed(self.folders):
            for _ in range(REMOVE_TRIES):
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def _write(path: str, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _own_groups() -> dict[str, str]:
    """This process's group per controller (``/proc/self/cgroup``); key ``""`` for cgroup v2."""
    groups: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, names, path = line.rstrip("\n").split(":", 2)
                for name in names.split(",") if names else [""]:
                    groups[name] = path
    except (OSError, ValueError):
        pass
    return groups


def _mounts() -> dict[str, str]:
    """Mount point per v1 controller, and ``""`` for the v2 hierarchy (``/proc/self/mountinfo``)."""
    found: dict[str, str] = {}
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, extra = left.split(), right.split()
                if len(fields) < 5 or len(extra) < 3:
                    continue
                if extra[0] == "cgroup2":
                    found.setdefault("", fields[4])
                elif extra[0] == "cgroup":
                    for option in extra[2].split(","):
                        if option in ("memory", "pids"):
                            found.setdefault(option, fields[4])
    except OSError:
        pass
    return found


def _usable(folder: str) -> bool:
    return os.path.isdir(folder) and os.access(folder, os.W_OK)


def remove_stale(parents: tuple[str, ...]) -> int:
    """Remove the empty groups left by tablecert processes that are gone (killed before they could
    remove their own): how many."""
    removed = 0
    for parent in dict.fromkeys(parents):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            owner = name.split("-")[1] if name.startswith("tablecert-") and name.count("-") == 2 else ""
            if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
                try:
                    os.rmdir(os.path.join(parent, name))
                    removed += 1
                except OSError:
                    pass
    return removed


@functools.lru_cache(maxsize=1)
def available() -> Controllers | None:
    """The controllers this process can use for its vendors, or None (rlimits only); found once
    per process, which first removes what killed processes left (:func:`remove_stale`)."""
    found = _available()
    if found is not None:
        remove_stale((found.memory_parent, found.pids_parent))
    return found


def _available() -> Controllers | None:
    if os.geteuid() != 0:
        return None
    mounts, groups = _mounts(), _own_groups()
    if "memory" in mounts and "pids" in mounts and "memory" in groups and "pids" in groups:
        memory = mounts["memory"] + groups["memory"].rstrip("/")
        pids = mounts["pids"] + groups["pids"].rstrip("/")
        if _usable(memory) and _usable(pids) and os.path.exists(os.path.join(memory, "memory.limit_in_bytes")):
            return Controllers("cgroup v1 memory and pids", memory, pids, "memory.limit_in_bytes")
    if "" in mounts and "" in groups:
        own = mounts[""] + groups[""].rstrip("/")
        try:
            with open(os.path.join(own, "cgroup.subtree_control")) as f:
                enabled = f.read().split()
        except OSError:
            enabled = []
        if "memory" in enabled and "pids" in enabled and _usable(own):
            return Controllers("cgroup v2", own, own, "memory.max")
    return None
