"""The vendor's tree is one folder the lab names (issue 47): nothing a vendor file says decides a bind,
lab folders are marked and refused at any depth, no shared host folder is ever bound.

Each fall of the issue's fifth hostile set is here, with the thief's controls beside it: the same
thief, unconfined (``--isolation none``), finds the suite and passes every vector (sighted), so a
blind "found 0 files" can only mean the sandbox kept the suite out. Every vendor is a real program
started by the real harness under bubblewrap; as root it runs as its own box user, not root as a
user namespace (tests/sandbox_as_user.py repeats the refusals as an unprivileged user).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablecert.harness.confine import sandbox
from tablecert.harness.confine.vendor_trees import SHARED_FOLDERS
from tablecert.harness.contract import SessionOptions, VendorFault
from tablecert.vectors.lab_mark import MARK, indexed
from tablecert.vectors.suites import generate
from waits import HANG

HERE = Path(__file__).parent
REPO = HERE.parent
THIEF = HERE / "thief_vendor.py"
AUTO = SessionOptions(isolation="auto")
FULL = sandbox.plan([sys.executable], AUTO)
confined = pytest.mark.skipif(not FULL.prefix, reason=f"needs bubblewrap; this machine gives: {FULL.description}")
root_only = pytest.mark.skipif(sandbox.OWN_USER not in FULL.mechanisms,
                               reason=f"needs root and bubblewrap; this machine gives: {FULL.description}")


@pytest.fixture
def lab() -> Iterator[Path]:
    """A lab folder outside pytest's own 0700 ones, readable by any user (only the sandbox protects)."""
    folder = Path(tempfile.mkdtemp(prefix="tablecert-lab-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(folder)], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def _open(folder: Path) -> None:
    """Every folder below ``folder`` 0755 and file 0644 (executables 0755): only the sandbox protects."""
    for path in [folder, *folder.rglob("*")]:
        if path.is_symlink():
            continue
        if path.is_dir():
            path.chmod(0o755)
        elif path.is_file():
            path.chmod(0o755 if os.access(path, os.X_OK) else 0o644)


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True,
                          timeout=HANG, cwd=cwd)


def certify(vendor: str, suite: Path, out: Path, *extra: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run("certify", "--vendor-cmd", vendor, "--suite", "edge", "--suite-dir", str(suite), "--custom-suite",
               "--out", str(out), "--quiet", *extra, cwd=cwd)


def _summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


def _thief(folder: Path, shebang: str) -> Path:
    """The thief as an executable script whose ``#!`` line is ``shebang``, run by the lab's Python."""
    folder.mkdir(parents=True, exist_ok=True)
    engine = folder / "engine.py"
    engine.write_text(f"#!{shebang}\n" + THIEF.read_text())
    engine.chmod(0o755)
    return engine


@confined
@pytest.mark.parametrize("relative", [False, True], ids=["absolute", "relative"])
def test_a_shebang_into_a_generated_suite_binds_nothing(lab: Path, relative: bool) -> None:
    """``#!LAB/suites/edge/expected/python3`` (or relative to the lab's working folder): before issue
    47 the harness bound that folder and the thief was CERTIFIED 6,863/6,863. Now the line is never
    read to bind: blind, the thief finds nothing; sighted (unconfined), it answers over 90 % of the
    vectors from what it reads."""
    suite = lab / "suites" / "edge"
    done = run("vectors", "generate", "--suite", "edge", "--out", str(suite))
    assert done.returncode == 0, done.stderr
    (suite / MARK).unlink()          # the shebang alone, without the mark's help
    shebang = "suites/edge/expected/python3" if relative else f"{suite}/expected/python3"
    engine = _thief(lab / "vendor", shebang)
    _open(lab)
    vendor = f"{sys.executable} {engine} steal-from={lab}"
    plan = sandbox.plan([sys.executable, str(engine)], AUTO)
    assert not any(str(lab / "suites").startswith(b) or b.startswith(str(lab / "suites")) for b in plan.bound)
    blind = certify(vendor, suite, lab / "blind", cwd=lab)
    assert _summary(lab / "blind")["vendor"]["build"] == "found 0 files, 0 tests", blind.stderr
    assert blind.returncode == 1
    sighted = certify(vendor, suite, lab / "sighted", "--isolation", "none", cwd=lab)
    summary = _summary(lab / "sighted")               # the control: the same thief, unconfined, answers
    assert summary["vendor"]["build"].startswith("found ") and summary["totals"]["pass"] > 0.9 * 6863, \
        sighted.stdout + sighted.stderr              # from the suite it reads (its keys miss a few cases)


@confined
@pytest.mark.parametrize("named", ["/", "/tmp", "/home", "/root", "/run"])
def test_a_shebang_naming_a_shared_folder_binds_nothing_and_the_program_is_refused(lab: Path, named: str) -> None:
    """``#!/`` bound the whole host read-only over the sandbox's private mounts (the vendor read the
    lab's files, listed /tmp and 106 host processes, reached a host socket). As a script's line it
    binds nothing; as the program's own, the start is refused in one line saying what it names."""
    engine = _thief(lab / "vendor", named)
    _open(lab)
    plan = sandbox.plan([sys.executable, str(engine)], AUTO)
    assert not any(b in SHARED_FOLDERS for b in plan.bound), plan.bound
    assert plan.vendor == (str(lab / "vendor"),), plan.vendor
    with pytest.raises(VendorFault, match=f"names {named} \\(outside the vendor's tree\\): not bound"):
        sandbox.plan([str(engine)], AUTO)
    done = run("sandbox-check", "--vendor-cmd", str(engine))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stdout + done.stderr
    assert f"names {named} (outside the vendor's tree): not bound" in done.stderr


@confined
def test_a_shebang_into_the_lab_keys_is_refused_and_the_keys_folder_never_bound(lab: Path) -> None:
    """As the lab's own user, ``#!`` into the keys folder put the lab's Ed25519 signing key into the
    run's summary.json. The interpreter it names is refused; the folder named by the lab, too."""
    keys = Path(os.environ["XDG_CONFIG_HOME"]) / "tablecert"
    keys.mkdir(parents=True, exist_ok=True)
    (keys / "seal-key-copy").write_text("-----BEGIN PRIVATE KEY-----\n")
    engine = _thief(lab / "vendor", str(keys / "seal-key-copy"))
    _open(lab)
    done = run("sandbox-check", "--vendor-cmd", str(engine))
    assert done.returncode == 2 and f"names {keys / 'seal-key-copy'} (outside the vendor's tree)" in done.stderr
    with pytest.raises(VendorFault, match="lies inside the lab's folder"):
        sandbox.plan(["/usr/bin/python3", "-c", "pass"], SessionOptions(isolation="auto", vendor_paths=(str(keys),)))


@confined
def test_a_link_in_the_vendors_tree_to_a_lab_tool_binds_nothing_of_the_tool(lab: Path) -> None:
    """The vendor's program is a link to a lab tool whose folder holds a suite five folders down (the
    old downward search stopped at four): the link's target is not bound; named by the lab, the
    tool's folder is refused, the suite found at that depth."""
    tool = lab / "tool"
    (tool / "bin").mkdir(parents=True)
    (tool / "bin" / "python3").symlink_to(sys.executable)
    suite = tool / "a" / "b" / "c" / "d" / "e" / "suite"
    generate("edge", suite)
    (suite / MARK).unlink()                      # found by what a suite of earlier releases holds
    (lab / "vendor" / "bin").mkdir(parents=True)
    (lab / "vendor" / "bin" / "engine").symlink_to(tool / "bin" / "python3")
    _open(lab)
    plan = sandbox.plan([str(lab / "vendor" / "bin" / "engine"), str(THIEF)], AUTO)
    assert not any(b.startswith(str(tool)) for b in plan.bound), plan.bound
    assert str(lab / "vendor") in plan.vendor
    with pytest.raises(VendorFault, match=f"holds the lab's folder {suite}"):
        sandbox.plan(["/usr/bin/python3", "-c", "pass"], SessionOptions(isolation="auto", vendor_paths=(str(tool),)))


@confined
def test_a_run_folder_the_lab_moved_is_still_refused(lab: Path) -> None:
    """A run folder moved away from where the index knows it keeps its mark: a tree that holds it,
    however deep, is refused; so is a folder inside it."""
    done = run("certify", "--vendor-cmd", f"{sys.executable} -m tablecert reference-vendor", "--suite", "edge",
               "--out", str(lab / "runs" / "r1"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert (lab / "runs" / "r1" / MARK).is_file() and str(lab / "runs" / "r1") in indexed()
    moved = lab / "archive" / "2026" / "12" / "acme" / "certified" / "r1"
    moved.parent.mkdir(parents=True)
    os.rename(lab / "runs" / "r1", moved)
    for named, words in ((lab / "archive", f"holds the lab's folder {moved}"),
                         (moved / "suite", f"lies inside the lab's folder {moved}")):
        with pytest.raises(VendorFault, match=words):
            sandbox.plan(["/usr/bin/python3", "-c", "pass"], SessionOptions(isolation="auto",
                                                                            vendor_paths=(str(named),)))


@confined
def test_pipx_s_lock_beside_its_environment_is_not_a_lab_folder(lab: Path) -> None:
    """pipx keeps ``venvs/.tablecert.lock`` beside the environment it makes for tablecert: the name of
    a run folder's lock, which is therefore no mark (1.0.0's wheel test met it: every vendor of a
    pipx-installed tablecert was refused); a folder with a run.db still is."""
    venvs = lab / "pipx" / "venvs"
    (venvs / "tablecert" / "bin").mkdir(parents=True)
    (venvs / ".tablecert.lock").touch()
    options = SessionOptions(isolation="auto", vendor_paths=(str(venvs / "tablecert"),))
    assert str(venvs / "tablecert") in sandbox.plan(["/usr/bin/python3", "-c", "pass"], options).vendor
    (venvs / "run.db").touch()
    with pytest.raises(VendorFault, match=f"lies inside the lab's folder {venvs}"):
        sandbox.plan(["/usr/bin/python3", "-c", "pass  # another command line: not the plan made above"], options)


@confined
def test_a_host_unix_socket_in_a_named_folder_is_refused(lab: Path) -> None:
    """A socket of the host is reached by its path whatever the network namespace: a folder that holds
    one (0777, as the one the issue's vendor connected to) is not bound."""
    folder = lab / "tools" / "run"
    folder.mkdir(parents=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(folder / "agent.sock"))
        os.chmod(folder / "agent.sock", 0o777)
        with pytest.raises(VendorFault, match=f"holds a unix socket {folder / 'agent.sock'}"):
            sandbox.plan(["/usr/bin/python3", "-c", "pass"], SessionOptions(isolation="auto",
                                                                            vendor_paths=(str(lab / "tools"),)))
    finally:
        server.close()


@pytest.mark.parametrize("named", ["/", "/tmp", "/var/tmp", "/dev/shm", "/home", "/root", "/run", "/proc", "/sys",
                                   "/dev", "/mnt", "/media", "HOME"])
def test_the_lab_cannot_name_a_shared_folder(named: str) -> None:
    """``--vendor-path`` of a folder the host shares: one line, exit 2, before anything starts."""
    path = os.path.realpath(os.path.expanduser("~")) if named == "HOME" else named
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist here")
    done = run("sandbox-check", "--vendor-cmd", "/usr/bin/python3 -c pass", "--vendor-path", path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stdout + done.stderr
    assert "a folder the host shares" in done.stderr and "Traceback" not in done.stderr


def test_a_generated_suite_is_marked_indexed_and_its_answers_closed(lab: Path) -> None:
    """``vectors generate`` marks the suite (the mark, the index), and its expected answers are the
    lab user's only: folders 0700, files 0600."""
    suite = lab / "suite"
    done = run("vectors", "generate", "--suite", "edge", "--out", str(suite))
    assert done.returncode == 0, done.stderr
    assert (suite / MARK).read_text().startswith("tablecert lab folder: suite")
    assert str(suite) in indexed()
    expected = suite / "expected"
    assert expected.stat().st_mode & 0o777 == 0o700
    files = [p for p in expected.rglob("*") if p.is_file()]
    assert files and all(p.stat().st_mode & 0o777 == 0o600 for p in files)


@root_only
def test_folders_above_a_bind_keep_the_hosts_modes(lab: Path) -> None:
    """A vendor placed under a folder the host keeps 0700: inside the sandbox that folder stays 0700,
    so the vendor's own user cannot reach it (it was rebuilt 0755 before issue 47, which opened a
    0700 suite or run folder's ``expected/`` to the vendor's user)."""
    closed = lab / "closed"
    program = closed / "vendor" / "bin" / "run"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    _open(lab)
    closed.chmod(0o700)
    plan = sandbox.plan([str(program)], AUTO)
    at = plan.prefix.index(str(closed))
    assert plan.prefix[at - 3:at] == ("--perms", "0700", "--dir"), plan.prefix[at - 3:at + 1]
    done = run("sandbox-check", "--vendor-cmd", str(program))
    assert done.returncode == 2 and "Permission denied" in done.stderr, done.stdout + done.stderr
    closed.chmod(0o755)
    done = run("sandbox-check", "--vendor-cmd", str(program))
    assert "Permission denied" not in done.stderr, done.stdout + done.stderr


@confined
def test_the_binds_fixed_by_the_run_are_the_binds_of_every_instance(lab: Path) -> None:
    """Issue 47: a Ray actor or worker starts its vendor in another process, where the working folder,
    PATH and environment may differ. With the binds fixed by the run's own process
    (``fix_binds``), that process's sandbox is the run's, option for option; derived there afresh,
    it is not (here: another working folder)."""
    import pickle

    program = lab / "vendor" / "bin" / "run"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    elsewhere = lab / "elsewhere"
    elsewhere.mkdir()
    _open(lab)
    code = ("import pickle, sys; from tablecert.harness.confine import sandbox; argv, options = pickle.load(sys.stdin"
            ".buffer); sys.stdout.buffer.write(pickle.dumps(sandbox.plan(sandbox.resolve(argv, options.binds), "
            "options).prefix))")

    def prefix_elsewhere(options: SessionOptions) -> tuple[str, ...]:
        done = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(([str(program)], options)),
                              capture_output=True, cwd=elsewhere, env={**os.environ, "PATH": "/usr/bin:/bin"},
                              timeout=HANG)
        assert done.returncode == 0, done.stderr.decode()
        return pickle.loads(done.stdout)

    fixed = sandbox.fix_binds([str(program)], AUTO)
    assert fixed.binds is not None and fixed.binds.vendor == (str(lab / "vendor"),)
    here = sandbox.plan([str(program)], fixed).prefix
    assert prefix_elsewhere(fixed) == here
    assert prefix_elsewhere(AUTO) != sandbox.plan([str(program)], AUTO).prefix
