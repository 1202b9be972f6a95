"""A live vendor's state_dir: bounded as a file system, removed at any depth, never costing the
run its outputs (issue 47).

* As root the state_dir is a tmpfs of ``--max-state-mb`` on the host, mounted before the vendor's
  first start and kept across its restarts: the vendor's write that would cross the limit is
  refused (ENOSPC), so the lab's disk never holds more; the answer after it is a ``state_limit``
  fault. Not root no file system can be mounted: the folder is measured after every answer (the
  run fails; the vendor's write was not refused), as before.
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
import subprocess
import sys
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

import tablecert.harness.live.instance as instance
from tablecert.harness.adapters.registry import VendorTarget
from tablecert.harness.adapters.live_session import state_size
from tablecert.harness.live.instance import STATE_PREFIX, remove_state, vendor_state_dir
from tablecert.harness.live.run import LiveSettings
from tablecert.harness.run.certify import certify
from tablecert.harness.store import RunStore
from test_live_vendors import OPTIONS, REFERENCE, faulty, small_suite  # noqa: F401  (small_suite: a fixture)
from waits import HANG

MIB = 1 << 20
ROOT = os.geteuid() == 0


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


@pytest.mark.skipif(not ROOT, reason="a file system of its own for the state_dir needs root (not root: measured "
                                     "after each answer, test_a_state_dir_past_the_lab_limit_is_the_vendors_fault...)")
def test_a_live_vendor_writing_past_the_limit_is_refused_at_the_write(small_suite: Path, tmp_path: Path) -> None:
    """The flood tries 40 MiB under --max-state-mb 4: its state_dir never holds more than 4 MiB
    (on main it held 40, found only after the answer), the write past it refused with ENOSPC, and
    the answer after it a state_limit fault."""
    out = tmp_path / "run"
    seen: list[tuple[int, list[str]]] = []
    real = instance.remove_state

    def looked_at_first(folder: str) -> None:        # what the state_dir held at the end, before removal
        state = Path(folder) / "state"
        if state.is_dir():
            seen.append((state_size(str(state), 1 << 40), sorted(os.listdir(state))))
        real(folder)

    real_unmount = instance._unmount_state

    def measured_then_unmounted(state: str) -> None:
        if os.path.basename(state) == "state" and os.path.isdir(state):     # (not the mount probe)
            seen.append((sum(os.lstat(os.path.join(state, n)).st_blocks * 512 for n in os.listdir(state)),
                         sorted(os.listdir(state))))
        real_unmount(state)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(instance, "_unmount_state", measured_then_unmounted, raising=False)
        patch.setattr(instance, "remove_state", looked_at_first)
        result, summary = certify(VendorTarget("subprocess", faulty("state-flood"), replace(OPTIONS, max_state_mb=4)),
                                  "live", out, suite_dir=small_suite, custom_suite=True, reports=False,
                                  live=LiveSettings(enabled=False))
    held, names = seen[0]
    assert held <= 4 * MIB and "flood" in names and "refused-ENOSPC" in names, (held, names)
    with closing(RunStore(out / "run.db")) as db:      # a live vector's fault is its finding
        notes = [rec.comment for rec in db.failures()]
    assert result.verdict == "fail" and any("state_limit" in n and "a write refused" in n for n in notes), notes
    assert "file system of its own" in summary["live"]["state_dir"]


@pytest.mark.skipif(not ROOT, reason="mounts need root")
def test_the_state_file_system_is_of_the_limit_and_the_vendors_and_gone_at_the_end(tmp_path: Path) -> None:
    with vendor_state_dir(tmp_path, (65534, 65534), 2) as state:
        assert os.path.ismount(state) and os.stat(state).st_uid == 65534
        fs = os.statvfs(state)
        assert fs.f_blocks * fs.f_frsize == 2 * MIB and oct(os.stat(state).st_mode & 0o777) == "0o700"
    assert not os.path.exists(state) and not os.path.ismount(state)


@pytest.mark.skipif(ROOT, reason="as root the write is refused (test_a_live_vendor_writing_past_the_limit_is_refused...)")
def test_not_root_a_vendor_past_the_limit_fails_at_the_answer_after_its_write(small_suite: Path,
                                                                              tmp_path: Path) -> None:
    """Not root no file system of its own can be mounted: the flood's 40 MiB are written (this
    user's disk takes them until the answer) and the answer after it is a state_limit fault."""
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
    chain, the failed cleanup, --resume and the limit measured after the answer."""
    from test_sandbox_unprivileged import pytest_as_user

    done = pytest_as_user(tmp_path, str(Path(__file__)), "-k", "not unprivileged_user", "-rs")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "5 passed, 2 skipped, 1 deselected" in done.stdout, done.stdout[-2000:]
