"""Confining a subprocess vendor: what it can see, who it runs as, and that it cannot outlive its session.

:func:`plan` turns a vendor command line and :class:`SessionOptions` into the command actually
started: with util-linux ``unshare``, ``setpriv`` and :mod:`tablecert.harness.sandbox_stage`,

* a PID namespace (``--fork --kill-child``) with its own ``/proc``, whose init is the stage: the
  vendor sees no process of the harness, and everything it starts (``setsid`` or not) is killed
  when it ends or when the harness kills the session;
* a network namespace holding only loopback (unless ``vendor_network``);
* a private mount view in which the folders given in ``hidden_paths`` (certify gives the run
  folder, the suite folder and the signing key's) and the harness user's HOME are covered by an empty read-only tmpfs, except the
  vendor program's own install tree (``PREFIX`` of ``PREFIX/bin/PROGRAM``, both as named and with
  links resolved), which stays readable;
* the vendor's ``HOME`` is a private empty writable tmpfs over the harness's HOME (its caches);
* as root: the user ``nobody`` and group ``nogroup`` (the vendor's files must be readable by
  them), no supplementary groups; always ``no_new_privs`` and empty capability sets.

Not root: the same inside a user namespace (``unshare -r``) where the kernel allows one (the
vendor keeps the lab's uid outside it); else only the process-group kill. ``isolation`` is
``auto`` (the strongest available), ``strict`` (refuse to start unless root's full set is
available) or ``none``. :attr:`Sandbox.description` names what a session actually got.
"""

from __future__ import annotations

import functools
import json
import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tablecert.harness.contract import FaultKind, SessionOptions, VendorFault

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"   # the whole PATH a vendor process gets
ISOLATION_LEVELS = ("auto", "strict", "none")
SANDBOX_USER = "nobody"
SANDBOX_GROUP = "nogroup"
STAGE = Path(__file__).with_name("sandbox_stage.py")
PRIVATE_HOME_SIZE = "512m"    # the vendor's own HOME: a tmpfs, memory used only as written
NO_ISOLATION = "none (process group only)"


@dataclass(frozen=True)
class Sandbox:
    """The command prefix that confines a vendor, and the mechanisms it gives."""

    prefix: tuple[str, ...]          # unshare ... python stage SPEC (then the status fd)
    drop: tuple[str, ...]            # setpriv and its options, up to "--"
    mechanisms: tuple[str, ...]

    @property
    def description(self) -> str:
        """The mechanisms, comma-separated, or ``none (...)`` when there are none."""
        return ", ".join(self.mechanisms) if self.mechanisms else NO_ISOLATION

    def wrap(self, argv: list[str], status_fd: int) -> list[str]:
        """The confined command; the vendor's wait status is written to ``status_fd`` when it ends."""
        return [*self.prefix, str(status_fd), *self.drop, *argv] if self.prefix else argv


@functools.lru_cache(maxsize=None)
def _works(*command: str) -> bool:
    """True if this namespace set can be created here (tried once per process)."""
    try:
        return subprocess.run([*command, "true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _namespaces(user_ns: bool, network: bool) -> list[str]:
    unshare = shutil.which("unshare") or "unshare"
    return [unshare, *(["--map-root-user"] if user_ns else []), "--pid", "--fork", "--kill-child", "--mount-proc",
            *([] if network else ["--net"]), "--"]


def _prefix_of(program: str) -> list[str]:
    """The install tree of a program, as named and with links resolved (``PREFIX/bin/x`` -> PREFIX)."""
    found = shutil.which(program, path=SAFE_PATH) if "/" not in program else program
    if not found:
        return []
    trees = []
    for path in (Path(os.path.abspath(found)), Path(os.path.realpath(found))):
        folder = path.parent
        trees.append(str(folder.parent if folder.name == "bin" else folder))
    return list(dict.fromkeys(trees))


def _home() -> str | None:
    """The harness user's HOME, links resolved."""
    try:
        home = os.environ.get("HOME") or pwd.getpwuid(os.geteuid()).pw_dir
    except KeyError:
        return None
    return os.path.realpath(home)


def _hidden(options: SessionOptions) -> list[str]:
    folders = []
    for path in (*options.hidden_paths, _home()):
        if path and os.path.isdir(path):
            real = os.path.realpath(path)
            if real != "/":
                folders.append(real)
    return list(dict.fromkeys(folders))


def plan(argv: list[str], options: SessionOptions) -> Sandbox:
    """How to start ``argv`` under ``options.isolation`` (VendorFault START if ``strict`` cannot be met)."""
    if options.isolation == "none":
        return Sandbox((), (), ())
    root = os.geteuid() == 0
    network = options.vendor_network
    setpriv = shutil.which("setpriv")
    user_ns = not root and _works(*_namespaces(True, network))
    if not setpriv or not (root and _works(*_namespaces(False, network)) or user_ns):
        if options.isolation == "strict":
            raise VendorFault(FaultKind.START, "isolation 'strict' needs util-linux unshare/setpriv and the right to "
                                               "create PID, mount and network namespaces (run as root)")
        return Sandbox((), (), ())
    if options.isolation == "strict" and not root:
        raise VendorFault(FaultKind.START, "isolation 'strict' needs root (to run the vendor as another user)")
    hide = _hidden(options)
    home = _home()
    user = pwd.getpwnam(SANDBOX_USER) if root else pwd.getpwuid(0)
    spec = {"hide": [path for path in hide if path != home], "expose": _prefix_of(argv[0]), "loopback": not network,
            "home": {"path": home, "size": PRIVATE_HOME_SIZE, "uid": user.pw_uid, "gid": user.pw_gid}
            if home in hide else None}
    drop = ["--pdeathsig=KILL", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all"]
    mechanisms = ["pid namespace", "private mounts (run folder, suite, key folder and HOME hidden)",
                  "network: vendor's own" if network else "network: loopback only"]
    if root:
        drop = [f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", *drop]
        mechanisms.append(f"user {SANDBOX_USER}")
    else:
        mechanisms.append("user namespace")
    mechanisms.append("no capabilities, no_new_privs")
    prefix = (*_namespaces(user_ns, network), sys.executable, "-I", "-S", str(STAGE),
              json.dumps(spec, separators=(",", ":")))
    return Sandbox(prefix, (setpriv, *drop, "--"), tuple(mechanisms))
