"""The machine fails the harness: the run folder's disk fills up mid-run, or the folder is
read-only. Each ends with one line on stderr and exit status 2, the run database stays intact,
and once there is room again ``--resume`` ends with the summary of an uninterrupted run. A
finished run folder made read-only (an archive) still renders the same report.

A real small disk: a tmpfs mounted in a private mount namespace (``unshare``; as root, or as a
user where user namespaces are allowed), so nothing outside the test sees it.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from waits import HANG

COMPARED = ("verdict", "totals", "by_op", "by_clause", "by_flag", "batches", "faults", "suite_manifest_sha256", "vendor")


def unshare_prefix() -> list[str] | None:
    """The unshare command line that may mount here, or None."""
    if shutil.which("unshare") is None:
        return None
    with tempfile.TemporaryDirectory() as where:
        for prefix in (["unshare", "-m"], ["unshare", "-r", "-m"]):
            probe = subprocess.run([*prefix, "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", where],
                                   capture_output=True)
            if probe.returncode == 0:
                return prefix
    return None


UNSHARE = unshare_prefix()
pytestmark = pytest.mark.skipif(UNSHARE is None, reason="cannot mount a tmpfs in a private mount namespace here")


def tablecert(*args: str) -> str:
    return shlex.join([sys.executable, "-m", "tablecert", *args])


def certify_line(suite: Path, out: Path, *extra: str) -> str:
    return tablecert("certify", "--vendor-plugin", "demo", "--suite", "edge", "--suite-dir", str(suite),
                     "--out", str(out), "--batch-size", "10", "--quiet", *extra)


def in_namespace(script: str, tmp: Path) -> subprocess.CompletedProcess:
    path = tmp / "scenario.sh"
    path.write_text("set -u\n" + script)
    done = subprocess.run([*UNSHARE, "sh", str(path)], capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def integrity(db: str) -> str:
    code = f"import sqlite3; print(sqlite3.connect({db!r}).execute('PRAGMA integrity_check').fetchone()[0])"
    return shlex.join([sys.executable, "-c", code])


def batches(db: str) -> str:
    code = f"import sqlite3; print(sqlite3.connect({db!r}).execute('SELECT COUNT(*) FROM batches').fetchone()[0])"
    return shlex.join([sys.executable, "-c", code])


def test_full_disk_then_read_only_then_resume(edge: Path, tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    done = subprocess.run(shlex.split(certify_line(edge, whole)), capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 1, done.stderr
    expected = json.loads((whole / "summary.json").read_text())

    disk, seen = tmp_path / "disk", tmp_path / "seen"
    disk.mkdir()
    seen.mkdir()
    run = disk / "run"
    db = str(run / "run.db")
    # certify copies the suite into the run folder before the run (the bytes judged are the bytes
    # anchored): the disk holds that copy, then fills up during the run
    room = 320 + sum(p.stat().st_size + 4096 for p in edge.rglob("*")) // 1024
    in_namespace(f"""
mount -t tmpfs -o size={room}k tmpfs {disk}
{certify_line(edge, run)} >{seen}/full.out 2>{seen}/full.err; echo $? >{seen}/full.rc
{integrity(db)} >{seen}/full.integrity
{batches(db)} >{seen}/full.batches
mount -o remount,ro {disk}
{certify_line(edge, run, "--resume")} >{seen}/ro.out 2>{seen}/ro.err; echo $? >{seen}/ro.rc
{certify_line(edge, disk / "new")} >{seen}/ro-new.out 2>{seen}/ro-new.err; echo $? >{seen}/ro-new.rc
mount -o remount,rw,size=256m {disk}
{integrity(db)} >{seen}/ro.integrity
{batches(db)} >{seen}/ro.batches
{certify_line(edge, run, "--resume")} >{seen}/resume.out 2>{seen}/resume.err; echo $? >{seen}/resume.rc
cp {run}/summary.json {seen}/summary.json
ls -a {run} >{seen}/listing
mount -o remount,ro {disk}
{tablecert("report", str(run), "--kind", "certificate", "--out", str(seen / "again.pdf"), "--quiet")} \
    2>{seen}/report.err; echo $? >{seen}/report.rc
cp {run}/certificate.pdf {seen}/certificate.pdf
""", tmp_path)

    def read(name: str) -> str:
        return (seen / name).read_text()

    # the disk filled mid-run: one line naming the database and the cause, exit 2, nothing lost
    assert read("full.rc").strip() == "2"
    err = read("full.err")
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "run.db" in err and "full" in err, err
    assert read("full.integrity").strip() == "ok"
    recorded = int(read("full.batches"))
    assert recorded > 0, "the disk filled before any batch was recorded: make the tmpfs larger"
    # read-only: resuming says so in one line, and a new run cannot start there either
    for name in ("ro", "ro-new"):
        assert read(f"{name}.rc").strip() == "2"
        err = read(f"{name}.err")
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert "read-only" in err.lower() or "readonly" in err.lower(), err
    assert read("ro.integrity").strip() == "ok"
    assert int(read("ro.batches")) == recorded
    # with room again, --resume ends exactly where an uninterrupted run does
    assert read("resume.rc").strip() == "1", read("resume.err")
    got = json.loads(read("summary.json"))
    for key in COMPARED:
        assert got[key] == expected[key], key
    assert not [name for name in read("listing").split() if name.endswith(".tmp")]
    # the finished run folder, now read-only (an archive), still renders the same certificate
    assert read("report.rc").strip() == "0", read("report.err")
    assert (seen / "again.pdf").read_bytes() == (seen / "certificate.pdf").read_bytes()
