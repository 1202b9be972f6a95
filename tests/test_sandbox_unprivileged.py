"""The sandbox tests of an unprivileged user, for real: ``tests/sandbox_as_user.py`` run by that user.

As root, this test makes the system user ``tablecert-ci`` (``useradd --system``, once per machine)
and starts ``pytest tests/sandbox_as_user.py`` as that user (``setpriv``, all groups dropped) with
a HOME of its own. The checkout, its venv and the venv's base Python must be readable by that
user: where one of them lies below a folder others cannot enter (``/root``, mode 0700, holding a
pyenv Python), the outer process first covers that folder, in a mount namespace of its own
(``unshare --mount``), with an empty tmpfs into which only those trees are bound back. Nothing of
the host changes. Skipped when not root (the inner tests then run as the user running pytest).
"""

from __future__ import annotations

import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from waits import HANG

REPO = Path(__file__).resolve().parents[1]
USER = "tablecert-ci"
INNER = Path(__file__).with_name("sandbox_as_user.py")


def _ensure_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True,
                       capture_output=True, text=True)
        return pwd.getpwnam(USER)


def _closed_folders(trees: list[Path]) -> dict[Path, list[Path]]:
    """For each folder others cannot enter above one of ``trees``: the trees to bind back under it."""
    closed: dict[Path, list[Path]] = {}
    for tree in trees:
        for folder in reversed(tree.parents):
            if folder != Path("/") and not os.stat(folder).st_mode & 0o001:
                closed.setdefault(folder, []).append(tree)
                break
    return closed


def _view_script(closed: dict[Path, list[Path]], stage: Path, command: list[str]) -> str:
    """Shell (run by root in a private mount namespace): cover each closed folder, bind its trees back, exec."""
    lines = ["set -e"]
    for i, (folder, trees) in enumerate(closed.items()):
        for j, tree in enumerate(trees):
            lines += [f"mkdir -p {stage}/{i}-{j}", f"mount --bind {shlex.quote(str(tree))} {stage}/{i}-{j}"]
        lines.append(f"mount -t tmpfs -o mode=0755 tmpfs {shlex.quote(str(folder))}")
        for j, tree in enumerate(trees):
            lines += [f"mkdir -p {shlex.quote(str(tree))}", f"mount --move {stage}/{i}-{j} {shlex.quote(str(tree))}"]
    lines.append("exec " + shlex.join(command))
    return "\n".join(lines)


@pytest.mark.skipif(os.geteuid() != 0, reason="runs the sandbox tests as another user: needs root")
def test_the_sandbox_tests_pass_as_an_unprivileged_user(tmp_path: Path) -> None:
    done = pytest_as_user(tmp_path, str(INNER))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    tests = len(re.findall(r"^def test_", INNER.read_text(), re.M))       # none skipped as that user
    assert f"{tests} passed" in done.stdout, done.stdout[-2000:]


def pytest_as_user(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pytest ARGS`` (one process, quiet) run as the unprivileged user (root only; see the module docstring)."""
    user = _ensure_user()
    work = Path(tempfile.mkdtemp(prefix="tablecert-as-user-"))     # pytest's own folders are root's (0700)
    home = work / "home"
    home.mkdir()
    work.chmod(0o755)
    home.chmod(0o700)
    os.chown(home, user.pw_uid, user.pw_gid)
    os.chown(work, user.pw_uid, user.pw_gid)
    venv = Path(sys.prefix)
    base = Path(os.path.realpath(sys.base_prefix))
    closed = _closed_folders([REPO, venv, base])
    stage = tmp_path / "stage"
    stage.mkdir()
    inner = [shutil.which("setpriv") or "setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
             "--clear-groups", "--", "/usr/bin/env", "-i", f"HOME={home}", "PATH=/usr/local/bin:/usr/bin:/bin",
             "LANG=C.UTF-8", sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-q",
             "--basetemp", str(work / "pytest"), "--rootdir", str(REPO), *args]
    command = ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
               _view_script(closed, stage, inner)] if closed else inner
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=HANG, cwd=REPO)
    finally:
        shutil.rmtree(work, ignore_errors=True)
