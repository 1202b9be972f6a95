"""The run folder is ours alone: links planted in OUT (at the outputs' names and their old
temporary names, run.db and SQLite's files beside it, suite/, failures/, OUT itself) give a
refusal in one line or a safe write, and the file outside the run folder is untouched (bytes and
mtime); a second run of a folder while one runs is refused."""

from __future__ import annotations

import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablecert.harness.lab_files import UnsafeRunFolder, write_atomically

from tablecert.harness.record.run_folder import locked_run_folder
from waits import HANG

REFERENCE = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])
POISON_VENDOR = Path(__file__).with_name("poison_vendor.py")


def certify(out: Path, *extra: str, vendor: str = REFERENCE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", vendor, "--suite", "edge",
                           "--out", str(out), "--quiet", *extra], capture_output=True, text=True, timeout=HANG)


class Outside:
    """A file outside the run folder that a planted link points at."""

    def __init__(self, tmp: Path, name: str = "precious.txt") -> None:
        self.path = tmp / "outside" / name
        self.path.parent.mkdir(exist_ok=True)
        self.path.write_bytes(b"the lab's own file\n")
        past = time.time() - 3600
        os.utime(self.path, (past, past))
        self.stat = self.path.stat()

    def untouched(self) -> bool:
        now = self.path.stat()
        return self.path.read_bytes() == b"the lab's own file\n" and now.st_mtime_ns == self.stat.st_mtime_ns


def refused_in_one_line(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


OUTPUT_NAMES = ("summary.json", "junit.xml", "certificate.pdf", "findings.pdf",
                ".summary.json.tmp", ".junit.xml.tmp", ".certificate.pdf.tmp", ".findings.pdf.tmp")


def test_links_at_the_output_names_are_replaced_not_followed(edge: Path, tmp_path: Path) -> None:
    """Links at every output's name and at the old fixed temporary names, in one run."""
    out = tmp_path / "run"
    out.mkdir()
    outside = {name: Outside(tmp_path, f"precious-{name.strip('.')}") for name in OUTPUT_NAMES}
    for name, file in outside.items():
        (out / name).symlink_to(file.path)
    done = certify(out, "--suite-dir", str(edge))
    assert done.returncode == 0, done.stdout + done.stderr
    for name, file in outside.items():
        assert file.untouched(), name
        if not name.startswith("."):
            assert not (out / name).is_symlink() and (out / name).stat().st_size > 100, name
    assert json.loads((out / "summary.json").read_text())["verdict"] == "pass"


@pytest.mark.parametrize("name", ["run.db", "run.db-wal", "run.db-shm", "run.db-journal"])
def test_a_link_at_the_database_is_refused(edge: Path, tmp_path: Path, name: str) -> None:
    out = tmp_path / "run"
    out.mkdir()
    outside = Outside(tmp_path)
    (out / name).symlink_to(outside.path)
    refused_in_one_line(certify(out, "--suite-dir", str(edge)), "symbolic link", name)
    assert outside.untouched()
    assert not (out / "summary.json").exists()


def test_a_dangling_database_link_creates_nothing_elsewhere(edge: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere.db"
    (out / "run.db").symlink_to(elsewhere)
    refused_in_one_line(certify(out, "--suite-dir", str(edge)), "symbolic link")
    assert not elsewhere.exists()


def test_a_linked_suite_folder_is_refused_and_kept(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    outside = Outside(tmp_path)
    (out / "suite").symlink_to(outside.path.parent, target_is_directory=True)
    refused_in_one_line(certify(out), "suite/", "symbolic link")
    assert outside.untouched() and sorted(p.name for p in outside.path.parent.iterdir()) == ["precious.txt"]


def test_a_linked_failures_folder_is_refused_and_kept(edge: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    outside = Outside(tmp_path)
    (out / "failures").symlink_to(outside.path.parent, target_is_directory=True)
    done = certify(out, "--suite-dir", str(edge), "--vendor-plugin", "demo", vendor="")
    refused_in_one_line(done, "failures/", "symbolic link")
    assert outside.untouched() and sorted(p.name for p in outside.path.parent.iterdir()) == ["precious.txt"]


def test_a_linked_run_folder_is_refused(edge: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "run").symlink_to(real, target_is_directory=True)
    refused_in_one_line(certify(tmp_path / "run", "--suite-dir", str(edge)), "the run folder is a symbolic link")
    assert list(real.iterdir()) == []


def test_failures_are_rebuilt_in_a_fresh_folder(edge: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    outside = Outside(tmp_path)
    (out / ".failures.tmp").symlink_to(outside.path.parent, target_is_directory=True)   # the old fixed name
    done = certify(out, "--suite-dir", str(edge), "--vendor-plugin", "demo", vendor="")
    assert done.returncode == 1, done.stdout + done.stderr
    replays = list((out / "failures").glob("*.jsonl"))
    assert replays and all(not p.is_symlink() for p in replays)
    assert outside.untouched() and sorted(p.name for p in outside.path.parent.iterdir()) == ["precious.txt"]
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp") and not p.is_symlink()]


def test_write_atomically_replaces_a_link_and_leaves_no_part(tmp_path: Path) -> None:
    outside = Outside(tmp_path)
    target = tmp_path / "summary.json"
    target.symlink_to(outside.path)
    write_atomically(target, b"new\n")
    assert target.read_bytes() == b"new\n" and not target.is_symlink() and outside.untouched()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "summary.json"]
    assert oct(target.stat().st_mode & 0o777) == oct(0o600)     # the lab's user only (issue 21)


def test_the_lock_refuses_a_second_holder(tmp_path: Path) -> None:
    with locked_run_folder(tmp_path):
        probe = subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; "
                                "from tablecert.harness.record.run_folder import locked_run_folder\n"
                                "with locked_run_folder(Path(sys.argv[1])): pass", str(tmp_path)],
                               capture_output=True, text=True, timeout=HANG)
        assert probe.returncode == 1 and "another tablecert run is using this run folder" in probe.stderr
    with locked_run_folder(tmp_path):                  # released when the block ends
        pass
    (tmp_path / ".tablecert.lock").unlink()
    (tmp_path / ".tablecert.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafeRunFolder, match="symbolic link"):
        with locked_run_folder(tmp_path):
            pass
    assert not (tmp_path / "elsewhere").exists()


def test_a_second_run_of_a_folder_in_use_is_refused(edge: Path, tmp_path: Path, vendor_files: Path) -> None:
    """Run 1 meets a vendor that hangs on its first request; while it waits, a second certify of the
    same folder (new or --resume) is refused in one line. Progress is read from run.db."""
    spec = vendor_files / "hang.json"                  # read by the (confined) vendor
    spec.write_text(json.dumps({"ops": ["craps.odds_limits", "craps.place_odds", "craps.settle"]}))
    hanging = shlex.join([sys.executable, str(POISON_VENDOR), str(spec), "hang"])
    out = tmp_path / "run"
    first = subprocess.Popen([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", hanging, "--suite", "edge",
                              "--suite-dir", str(edge), "--out", str(out), "--quiet", "--timeout", "600"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while True:                                    # wait until run 1 has greeted its vendor
            assert first.poll() is None, first.communicate()
            if (out / "run.db").exists():
                try:
                    with sqlite3.connect(out / "run.db") as db:
                        if db.execute("SELECT 1 FROM meta WHERE key = 'vendor'").fetchone():
                            break
                except sqlite3.OperationalError:
                    pass
            time.sleep(0.05)
        for extra in ((), ("--resume",)):
            refused_in_one_line(certify(out, "--suite-dir", str(edge), *extra), "another tablecert run")
        assert first.poll() is None
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=HANG)


def test_an_out_that_is_a_file_an_unrelated_folder_or_an_unknown_suite_is_refused(edge: Path, tmp_path: Path) -> None:
    """One line, exit 2, nothing written: not into a file, not into a folder of someone else's
    files, not an empty run folder with a lock file for a suite that does not exist."""
    afile = tmp_path / "a-file"
    afile.write_text("not a folder\n")
    refused_in_one_line(certify(afile, "--suite-dir", str(edge)), "exists and is not a folder")
    assert afile.read_text() == "not a folder\n"
    unrelated = tmp_path / "papers"
    unrelated.mkdir()
    (unrelated / "notes.txt").write_text("mine\n")
    refused_in_one_line(certify(unrelated, "--suite-dir", str(edge)), "not empty and not a run folder", "notes.txt")
    assert sorted(p.name for p in unrelated.iterdir()) == ["notes.txt"]
    new = tmp_path / "new"
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", REFERENCE, "--suite", "nosuch",
                           "--out", str(new), "--quiet"], capture_output=True, text=True, timeout=HANG)
    refused_in_one_line(done, "unknown suite", "nosuch")
    assert not new.exists()
