"""A live vendor's state_dir: bounded as a file system, removed at any depth, never costing the
run its outputs (issue 47).

* The state_dir is a tmpfs of ``--max-state-mb``, kept across the vendor's restarts: as root
  mounted on the host before the vendor's first start; not root mounted by a holder in a user and
  mount namespace of the lab's own that every instance enters (harness/live/state_holder.py). The
  vendor's write that would cross the limit is refused (ENOSPC), so the lab's disk never holds
  more; the answer after it is a ``state_limit`` fault. Where neither can be had the folder is
  measured after every answer (the run fails; the vendor's write was not refused).
* Not root, a vendor started in the holder's namespaces runs as the same uid and sees exactly the
  mounts, folders and processes it sees without it; the state is the holder's, the host folder
  stays empty, and it is gone when the holder ends.
* A 1,500-deep chain of folders (each name 40 characters: past PATH_MAX), one of them shut, is
  removed (it once made the cleanup raise RecursionError, and the run wrote no summary.json).
* A cleanup that fails anyway is recorded in summary.json's ``live`` and the outputs are written.
* ``--resume`` of a concluded run whose summary.json is not there never says it is: it writes it.

The vendors are tests/live_faulty_vendors.py's ``deep-chain`` and ``state-flood``, real
subprocesses in the real sandbox.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

import tablecert.harness.live.instance as instance
import tablecert.harness.live.run as live_run
from tablecert.harness.adapters.registry import VendorTarget
from tablecert.harness.adapters.live_session import state_size, state_view
from tablecert.harness.confine import sandbox
from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.instance import STATE_PREFIX, remove_state, state_holder, vendor_state_dir
from tablecert.harness.live.run import LiveSettings
from tablecert.harness.live.state_holder import state_holds
from tablecert.harness.run.certify import certify
from tablecert.harness.store import RunStore
from test_live_vendors import OPTIONS, REFERENCE, faulty, small_suite  # noqa: F401  (small_suite: a fixture)
from waits import HANG

MIB = 1 << 20
ROOT = os.geteuid() == 0
HELD = not ROOT and state_holds()          # not root: a holder in a user namespace of the lab's own


def certify_live(vendor: str, suite: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", vendor, "--suite", "live",
                           "--suite-dir", str(suite), "--custom-suite", "--out", str(out), "--quiet", *extra],
                          capture_output=True, text=True, timeout=HANG)


def chain(top: Path, depth: int, name_length: int) -> Path:
    """A chain of ``depth`` folders under ``top`` (made through descriptors: past PATH_MAX), the
    middle one shut (mode 000), a file and a link to ``top``'s parent at the bottom."""
    here = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    shut = None
    for i in range(depth):
        name = f"{i:05d}".ljust(name_length, "n")
        os.mkdir(name, dir_fd=here)
        below = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=here)
        if i == depth // 2:
            shut = os.dup(below)
        os.close(here)
        here = below
    os.close(os.open("bottom", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=here))
    os.symlink(str(top.parent), "up", dir_fd=here)
    assert shut is not None
    os.chmod(f"/proc/self/fd/{shut}", 0)
    os.close(shut)
    os.close(here)
    return top


def test_a_chain_deeper_than_recursion_or_path_max_is_removed_and_no_link_followed(tmp_path: Path) -> None:
    keep = tmp_path / "lab-file"
    keep.write_text("the lab's")
    top = tmp_path / "state-parent"
    top.mkdir()
    try:
        chain(top, 1500, 40)
        assert sys.getrecursionlimit() < 1500 and 1500 * 41 > os.pathconf("/", "PC_PATH_MAX")
        remove_state(str(top))
        assert not top.exists() and keep.read_text() == "the lab's" and sorted(tmp_path.iterdir()) == [keep]
    finally:
        litter(tmp_path)


def litter(folder: Path) -> None:
    """Whatever a failing test left under ``folder`` removed by GNU rm (any depth), so that pytest's
    own removal of old temporary folders (recursive) never meets it."""
    subprocess.run(["chmod", "-R", "u+rwx", str(folder)], capture_output=True, check=False)
    subprocess.run(["rm", "-rf", "--one-file-system", str(folder)], capture_output=True, check=False)


def test_a_deep_chain_left_by_a_live_vendor_is_removed_and_the_run_written(small_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    try:
        done = certify_live(faulty("deep-chain"), small_suite, out, "--interruptions", "2")
        assert done.returncode == 0, done.stderr[-3000:]
        summary = json.loads((out / "summary.json").read_text())
        assert summary["verdict"] == "pass" and (out / "junit.xml").is_file()
        cuts = summary["live"]["interruptions"]         # the state kept across every power cut of the run
        assert cuts["made"] >= 2 and cuts["survived"] == cuts["made"], cuts
        assert "file system of its own" in summary["live"]["state_dir"] or not (ROOT or HELD), summary["live"]
        assert "state_dir_cleanup" not in summary["live"]
        assert not [p for p in out.iterdir() if p.name.startswith(STATE_PREFIX)]
    finally:
        litter(tmp_path)


def test_a_cleanup_that_fails_is_recorded_and_the_outputs_written(small_suite: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def cannot(folder: str) -> None:
        raise OSError(f"{folder}: could not remove all the vendor's state_dir left (1 entries: first x: Busy)")

    monkeypatch.setattr(instance, "remove_state", cannot)
    out = tmp_path / "run"
    result, summary = certify(VendorTarget("subprocess", REFERENCE, OPTIONS), "live", out, suite_dir=small_suite,
                              custom_suite=True, reports=False, live=LiveSettings(enabled=False))
    assert result.verdict == "pass" and (out / "junit.xml").is_file()
    written = json.loads((out / "summary.json").read_text())
    assert written["live"]["state_dir_cleanup"].startswith("the state_dir was not removed: ")
    assert "could not remove all the vendor's state_dir left" in written["live"]["state_dir_cleanup"]
    assert summary["live"] == written["live"]
    left = [p for p in out.iterdir() if p.name.startswith(STATE_PREFIX)]
    assert len(left) == 1
    remove_state(str(left[0]))


def test_resume_never_claims_a_summary_that_is_not_there(small_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = certify_live(REFERENCE, small_suite, out, "--no-interruptions")
    assert first.returncode == 0, first.stderr
    said = json.loads((out / "summary.json").read_text())
    (out / "summary.json").unlink()
    again = certify_live(REFERENCE, small_suite, out, "--no-interruptions", "--resume")
    assert again.returncode == 0, again.stderr
    assert "concluded" in again.stderr and "summary.json was not there" in again.stderr, again.stderr
    rewritten = json.loads((out / "summary.json").read_text())
    assert rewritten == said
    kept = certify_live(REFERENCE, small_suite, out, "--no-interruptions", "--resume")
    assert kept.returncode == 0 and f"(its results: {out}/summary.json)" in kept.stderr, kept.stderr


@pytest.mark.skipif(not (ROOT or HELD), reason="no file system of its own for the state_dir here (no user namespaces)")
def test_a_live_vendor_writing_past_the_limit_is_refused_at_the_write(small_suite: Path, tmp_path: Path) -> None:
    """The flood tries 40 MiB under --max-state-mb 4: its state_dir never holds more than 4 MiB
    (on main it held 40, found only after the answer; not root, the host folder holds nothing), the
    write past it refused with ENOSPC, and the answer after it a state_limit fault."""
    out = tmp_path / "run"
    seen: list[tuple[int, list[str]]] = []
    on_host: list[list[str]] = []

    def measured(state: str) -> None:
        if os.path.isdir(state):
            seen.append((sum(os.lstat(os.path.join(state, n)).st_blocks * 512 for n in os.listdir(state)),
                         sorted(os.listdir(state))))

    real_unmount, real_held = instance._unmount_state, instance.held_state

    def measured_then_unmounted(state: str) -> None:
        if os.path.basename(state) == "state":      # (not the mount probe)
            measured(state)
        real_unmount(state)

    @contextmanager
    def measured_then_ended(state: str, size: int, inodes: int) -> Iterator[int]:
        with real_held(state, size, inodes) as holder:
            yield holder
            measured(state_view(state, holder))
            on_host.append(os.listdir(state))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(instance, "_unmount_state", measured_then_unmounted, raising=False)
        patch.setattr(instance, "held_state", measured_then_ended)
        result, summary = certify(VendorTarget("subprocess", faulty("state-flood"), replace(OPTIONS, max_state_mb=4)),
                                  "live", out, suite_dir=small_suite, custom_suite=True, reports=False,
                                  live=LiveSettings(enabled=False))
    held, names = seen[0]
    assert held <= 4 * MIB and "flood" in names and "refused-ENOSPC" in names, (held, names)
    assert on_host == ([] if ROOT else [[]]), on_host
    with closing(RunStore(out / "run.db")) as db:      # a live vector's fault is its finding
        notes = [rec.comment for rec in db.failures()]
    assert result.verdict == "fail" and any("state_limit" in n and "a write refused" in n for n in notes), notes
    assert "file system of its own" in summary["live"]["state_dir"]
    assert ("user and mount namespace" in summary["live"]["state_dir"]) == (not ROOT), summary["live"]
    assert not [p for p in out.iterdir() if p.name.startswith(STATE_PREFIX)]


@pytest.mark.skipif(not ROOT, reason="mounts need root")
def test_the_state_file_system_is_of_the_limit_and_the_vendors_and_gone_at_the_end(tmp_path: Path) -> None:
    with vendor_state_dir(tmp_path, (65534, 65534), 2) as state:
        assert os.path.ismount(state) and os.stat(state).st_uid == 65534
        fs = os.statvfs(state)
        assert fs.f_blocks * fs.f_frsize == 2 * MIB and oct(os.stat(state).st_mode & 0o777) == "0o700"
    assert not os.path.exists(state) and not os.path.ismount(state)


@pytest.mark.skipif(not HELD, reason="not root only (root mounts on the host: the test above)")
def test_not_root_the_held_file_system_is_of_the_limit_the_users_and_gone_at_the_end(tmp_path: Path) -> None:
    with vendor_state_dir(tmp_path, None, 2) as state, state_holder(state, 2) as holder:
        assert holder is not None and not os.path.ismount(state)     # nothing mounted on the host
        view = state_view(state, holder)
        fs = os.statvfs(view)
        assert os.path.ismount(view) and fs.f_blocks * fs.f_frsize == 2 * MIB and fs.f_files == 2 * 256
        assert os.stat(view).st_uid == os.getuid() and oct(os.stat(view).st_mode & 0o777) == "0o700"
        Path(view, "kept").write_bytes(b"x")
        assert os.listdir(state) == [] and os.listdir(view) == ["kept"]
    assert not os.path.exists(view) and not os.path.exists(state)


DIES = """
import os, signal, sys
from tablecert.harness.live.state_holder import held_state
with held_state(sys.argv[1], 1 << 20, 256) as holder:
    print(holder, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.skipif(not HELD, reason="not root only")
def test_not_root_the_holder_dies_with_a_harness_killed_without_warning(tmp_path: Path) -> None:
    """A harness SIGKILLed (no cleanup of its own) takes its holder, and so the file system, with it
    (the pipe it waits on closes): nothing is left mounted or running; waited on by a pidfd."""
    harness = subprocess.Popen([sys.executable, "-c", DIES, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert harness.stdout is not None
    holder = int(harness.stdout.readline())
    try:
        ended = os.pidfd_open(holder)
    except ProcessLookupError:                 # already gone
        ended = None
    assert harness.wait(HANG) == -9
    if ended is not None:
        assert select.select([ended], [], [], HANG)[0] == [ended]
        os.close(ended)
    assert os.listdir(tmp_path) == []           # (its exit reaped by whoever adopted it)


SEEN = ("id -u; id -g; ls -a / /tmp /proc | tr '\\n' ' '; echo; cut -d' ' -f5 /proc/self/mountinfo | sort | tr '\\n' ' '; "
        "echo; ls -la {state} | tail -n +2 | cut -c1-10; echo > {state}/x && echo wrote")


@pytest.mark.skipif(not HELD or not sandbox.plan(["/bin/sh"], SessionOptions(isolation="auto")).prefix,
                    reason="not root with bubblewrap and user namespaces only")
def test_not_root_a_vendor_in_the_holders_namespaces_sees_what_it_saw_and_runs_as_the_lab_user(tmp_path: Path) -> None:
    """The same shell, confined, with and without the holder: the same uid and gid (the lab user's),
    the same folders, processes and mount points; its state folder writable in both, the holder's
    being the one written (the host folder keeps nothing)."""
    def seen(state: str, holder: int | None) -> list[str]:
        options = SessionOptions(isolation="auto", writable_paths=(state,), state_holder=holder)
        argv = ["/bin/sh", "-c", SEEN.format(state=state)]
        started = sandbox.plan(argv, options).start(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = started.proc.communicate(timeout=HANG)
        started.release()
        if started.status_fd is not None:
            os.close(started.status_fd)
        assert started.proc.returncode == 0, err
        return out.decode().splitlines()

    with vendor_state_dir(tmp_path, None, 2) as state, state_holder(state, 2) as holder:
        os.mkdir(Path(state).parent / "plain", 0o700)        # the same parent: the same folders above
        without = seen(str(Path(state).parent / "plain"), None)
        within = seen(state, holder)
        assert os.listdir(state) == [] and os.listdir(state_view(state, holder)) == ["x"]
    assert within[:2] == [str(os.getuid()), str(os.getgid())] and without[:2] == within[:2]
    assert within[2:] == [line.replace("plain", "state") for line in without[2:]], (within, without)
    assert within[-1] == "wrote"


def test_where_no_file_system_can_be_had_the_state_dir_is_measured_after_each_answer(
        small_suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root without CAP_SYS_ADMIN, or a kernel without user namespaces (both made so here): the
    flood's 40 MiB are written (the lab's disk takes them until the answer) and the answer after
    it is a state_limit fault."""
    for module in (instance, live_run):
        monkeypatch.setattr(module, "state_mounts", lambda: False)
        monkeypatch.setattr(module, "state_holds", lambda: False)
    out = tmp_path / "run"
    result, _ = certify(VendorTarget("subprocess", faulty("state-flood"), replace(OPTIONS, max_state_mb=4)),
                        "live", out, suite_dir=small_suite, custom_suite=True, reports=False,
                        live=LiveSettings(enabled=False))
    with closing(RunStore(out / "run.db")) as db:
        notes = [rec.comment for rec in db.failures()]
    assert result.verdict == "fail" and any("state_limit" in n and "holds more than 4 MiB" in n for n in notes), notes
    summary = json.loads((out / "summary.json").read_text())
    assert "measured after every answer" in summary["live"]["state_dir"]


@pytest.mark.skipif(not ROOT, reason="runs this file's tests as another user: needs root")
def test_the_state_dir_tests_pass_as_an_unprivileged_user(tmp_path: Path) -> None:
    """This file's tests as the unprivileged user of tests/test_sandbox_unprivileged.py: the deep
    chain, the failed cleanup, --resume, the write past the limit refused in the holder's file
    system, the holder's view, and the limit measured after the answer where nothing is mounted."""
    from test_sandbox_unprivileged import pytest_as_user

    done = pytest_as_user(tmp_path, str(Path(__file__)), "-k", "not unprivileged_user", "-rs")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "9 passed, 1 skipped, 1 deselected" in done.stdout, done.stdout[-2000:]
