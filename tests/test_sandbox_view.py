"""What a confined vendor can reach, run as a lab runs it: ``tablecert certify`` with its defaults.

* An answer thief (tests/thief_vendor.py) with other suites lying, world-readable, in a sibling of
  the run folder, in ``/tmp``, in HOME and in the suite cache: NOT CERTIFIED, and it found nothing.
  The same thief run unconfined (``--isolation none``, told where to look: a walk of a whole lab
  machine takes minutes) finds them and answers most vectors right: the thief works, only the
  sandbox stops it.
* A fork bomb and a disk filler: bounded by the limits (processes; file size and the private
  folders' sizes), the harness unharmed, the run NOT CERTIFIED with the fault named.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablecert.harness.confine import sandbox
from tablecert.harness.contract import SessionOptions
from tablecert.vectors.suites import generate
from waits import HANG

THIEF = Path(__file__).with_name("thief_vendor.py")
REPO = Path(__file__).resolve().parents[1]
FULL = sandbox.plan([sys.executable], SessionOptions(isolation="auto"))
pytestmark = pytest.mark.skipif("a user of its own" not in FULL.mechanisms,
                                reason=f"needs root and bubblewrap; this machine gives: {FULL.description}")


def _open_to_all(folder: Path) -> None:
    """Make a suite copy readable by any user: only the sandbox may keep it from the vendor."""
    for path in (folder, *folder.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    for parent in folder.parents:
        if parent in (Path("/"), Path("/tmp"), Path.home()):
            break
        parent.chmod(0o755)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """An edge suite planted where earlier runs leave theirs; the lab folder for this run."""
    edge = tmp_path_factory.mktemp("edge-src")
    generate("edge", edge)
    tag = uuid.uuid4().hex
    lab = tmp_path_factory.mktemp("lab")
    places = {"sibling": lab / "earlier-run" / "suite", "tmp": Path("/tmp") / f"tablecert-thief-{tag}" / "suite",
              "home": Path.home() / f"tablecert-thief-{tag}" / "suite",
              "cache": Path.home() / ".cache" / "tablecert" / f"thief-{tag}" / "suite"}
    for folder in places.values():
        shutil.copytree(edge, folder)
        _open_to_all(folder)
    lab.chmod(0o755)
    yield {"lab": lab, **places}
    for name in ("tmp", "home", "cache"):
        shutil.rmtree(places[name].parent, ignore_errors=True)


def certify(out: Path, mode: str, *extra: str) -> subprocess.CompletedProcess[str]:
    vendor = f"{sys.executable} {THIEF} {mode}"
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", vendor, "--suite", "edge",
                           "--out", str(out), "--quiet", *extra], capture_output=True, text=True, timeout=HANG,
                          cwd=REPO)


def _found(out: Path) -> str:
    return json.loads((out / "summary.json").read_text())["vendor"]["build"]


def test_the_thief_finds_nothing_confined_and_everything_unconfined(planted: dict[str, Path]) -> None:
    done = certify(planted["lab"] / "run", "steal")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "verdict: FAIL" in done.stdout
    assert _found(planted["lab"] / "run") == "found 0 files, 0 tests"
    summary = json.loads((planted["lab"] / "run" / "summary.json").read_text())
    assert summary["totals"]["pass"] == 0 and "a user of its own" in summary["isolation"]
    # The control: unconfined, the same thief reads the planted suites and answers from them.
    roots = ",".join(str(planted[name].parent) for name in ("sibling", "tmp", "home", "cache"))
    control = certify(planted["lab"] / "unconfined", f"steal-from={roots}", "--isolation", "none")
    assert control.returncode in (0, 1), control.stdout + control.stderr
    files = int(_found(planted["lab"] / "unconfined").split()[1])
    assert files >= 4 * 6                           # the four planted copies, six vector files each
    totals = json.loads((planted["lab"] / "unconfined" / "summary.json").read_text())["totals"]
    assert totals["pass"] > 0.9 * sum(totals.values())


def _fault_stderr(out: Path) -> str:
    import sqlite3

    db = sqlite3.connect(f"file:{out / 'run.db'}?mode=ro", uri=True)
    try:
        return "\n".join(row[0] for row in db.execute("SELECT stderr_tail FROM faults WHERE kind = 'crash'"))
    finally:
        db.close()


def _survivors(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                continue
    return found


def test_a_fork_bomb_is_bounded_and_fails_the_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = certify(out, "fork-bomb", "--max-processes", "48", "--retries", "0", "--no-bisect")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "vendor limits: processes 48" in done.stdout and "crash" in done.stdout
    held = [int(line.split("after ")[1].split()[0]) for line in _fault_stderr(out).splitlines()
            if line.startswith("fork-bomb: fork failed after")]
    assert held and max(held) < 48, _fault_stderr(out)[:500]
    assert _survivors(f"{THIEF} fork-bomb") == []


def test_a_disk_filler_is_bounded_by_its_private_folders(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = certify(out, "fill-disk", "--max-file-mb", "16", "--retries", "0", "--no-bisect")
    assert done.returncode == 1, done.stdout + done.stderr
    report = next(line for line in _fault_stderr(out).splitlines() if line.startswith("fill-disk: "))
    took = dict(part.split(": ", 1) for part in report[len("fill-disk: "):].split("; "))
    assert int(took["/tmp"].split()[0]) <= 16 and int(took["/dev/shm"].split()[0]) <= 16
    assert int(took[sandbox.VENDOR_HOME].split()[0]) <= 16
    assert took[str(REPO)].startswith("0 MiB") and took["/"].startswith("0 MiB"), report
    assert "fill-0" not in os.listdir(REPO) and "fill-0" not in os.listdir("/tmp")


def test_a_vendor_the_sandbox_user_cannot_read_is_named_in_one_line(tmp_path: Path) -> None:
    """pytest's folders are root's (0700): a vendor script there cannot be run as nobody, and the one
    line says so with the sandbox's own words, not a bare exit status."""
    (tmp_path / "vendor").mkdir()
    script = tmp_path / "vendor" / "vendor.sh"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -m tablecert reference-vendor\n")
    script.chmod(0o700)
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", str(script), "--suite",
                           "edge", "--out", str(tmp_path / "run"), "--quiet"], capture_output=True, text=True,
                          timeout=HANG, cwd=REPO)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "Permission denied" in done.stderr and "last line on stderr" in done.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["faults"] == [] and summary["start_failures"][0]["kind"] == "crash"
