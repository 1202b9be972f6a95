"""The sandbox as a user other than root gets it (run by test_sandbox_unprivileged.py as that user).

Not collected by a plain ``pytest`` run (the name does not start with ``test_``): the outer test
starts ``pytest`` on this file as an unprivileged user, for real. That user gets bubblewrap in a
user namespace: the same allow-list file system, PID and network namespaces, no capabilities and
no_new_privs, but the vendor keeps the lab user's uid outside its namespace (so file permissions
cannot help; only what is bound is there).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

from tablecert.harness.confine import sandbox
from tablecert.harness.confine.vendor_trees import own_source_trees
from tablecert.harness.contract import SessionOptions
from tablecert.vectors.suites import generate
from waits import HANG

REPO = Path(__file__).resolve().parents[1]
THIEF = Path(__file__).with_name("thief_vendor.py")
BIN = Path(sys.executable).parent


def certify(vendor: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """As typed: the default suite cache under this user's HOME (not conftest's temporary one)."""
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
    return subprocess.run([str(BIN / "tablecert"), "certify", "--vendor-cmd", vendor, "--suite", "edge", "--out",
                           str(out), "--quiet", *extra], capture_output=True, text=True, timeout=HANG, cwd=REPO, env=env)


def test_not_root_gets_bubblewrap_in_a_user_namespace() -> None:
    assert os.geteuid() != 0
    got = sandbox.plan([sys.executable], SessionOptions(isolation="auto"))
    assert got.description.startswith("bubblewrap") and "user namespace" in got.mechanisms, got.description
    assert "a user of its own" not in got.mechanisms and "--unshare-user" in got.prefix


def test_the_reference_vendor_is_certified_as_this_user(tmp_path: Path) -> None:
    """The README's certify line as typed, twice (the second run reuses the suite cache)."""
    for run in ("first", "second"):
        done = certify(f"{BIN / 'tablecert'} reference-vendor", tmp_path / run)
        assert done.returncode == 0, done.stdout + done.stderr
        summary = json.loads((tmp_path / run / "summary.json").read_text())
        assert summary["verdict"] == "pass" and "user namespace" in summary["isolation"]
    assert Path(os.environ["HOME"], ".cache", "tablecert", "suites").is_dir(), done.stderr   # the default cache


def test_the_thief_finds_nothing_of_this_users_own_files(tmp_path: Path) -> None:
    """Suites the vendor's own uid may read (in HOME and in /tmp): the allow-list keeps them out."""
    home_suite = Path(os.environ["HOME"]) / f"old-run-{uuid.uuid4().hex}" / "suite"
    tmp_suite = Path("/tmp") / f"tablecert-user-{uuid.uuid4().hex}" / "suite"
    try:
        for folder in (home_suite, tmp_suite):
            generate("edge", folder)
        first = next((tmp_suite / "expected").glob("*.jsonl.gz"))
        with gzip.open(first, "rt") as f:
            assert f.readline()                            # this user can read them
        done = certify(f"{sys.executable} {THIEF} steal", tmp_path / "run")
        assert done.returncode == 1, done.stdout + done.stderr
        summary = json.loads((tmp_path / "run" / "summary.json").read_text())
        assert summary["vendor"]["build"] == "found 0 files, 0 tests" and summary["totals"]["pass"] == 0
    finally:
        for folder in (home_suite, tmp_suite):
            shutil.rmtree(folder.parent, ignore_errors=True)


def test_a_vendor_in_the_folder_of_this_users_earlier_runs_is_refused(tmp_path: Path) -> None:
    """Not root the vendor keeps this user's uid: only the binds protect. A vendor program placed in
    the folder that holds this user's earlier run (issue 32: it read every expected answer, PASS
    6,863) is refused before it starts, in one line (issue 47: refused, not covered)."""
    runs = Path(os.environ["HOME"]) / f"runs-{uuid.uuid4().hex}"
    try:
        runs.mkdir()
        done = certify(f"{BIN / 'tablecert'} reference-vendor", runs / "earlier")
        assert done.returncode == 0, done.stdout + done.stderr
        thief = runs / "thief.py"
        thief.write_text(THIEF.read_text())
        done = certify(f"{sys.executable} {thief} steal-from={runs}", tmp_path / "run")
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stdout + done.stderr
        assert f"holds the lab's folder {runs / 'earlier'}" in done.stderr
    finally:
        shutil.rmtree(runs, ignore_errors=True)


def test_a_shebang_into_this_users_suite_binds_nothing(tmp_path: Path) -> None:
    """Issue 47 as this user: a thief whose script's ``#!`` line names this user's suite (in HOME,
    never in the index: its mark removed) finds nothing; its own ``#!/`` is refused in one line."""
    lab = Path(os.environ["HOME"]) / f"lab-{uuid.uuid4().hex}"
    try:
        suite = lab / "suites" / "edge"
        generate("edge", suite)
        (suite / ".tablecert-lab").unlink()
        engine = lab / "vendor" / "engine.py"
        engine.parent.mkdir()
        engine.write_text(f"#!{suite}/expected/python3\n" + THIEF.read_text())
        engine.chmod(0o755)
        done = certify(f"{sys.executable} {engine} steal-from={lab}", tmp_path / "run")
        summary = json.loads((tmp_path / "run" / "summary.json").read_text())
        assert summary["vendor"]["build"] == "found 0 files, 0 tests", (summary["vendor"], done.stderr)
        assert done.returncode == 1 and summary["totals"]["pass"] == 0
        engine.write_text("#!/\n" + THIEF.read_text())
        done = subprocess.run([str(BIN / "tablecert"), "sandbox-check", "--vendor-cmd", str(engine)],
                              capture_output=True, text=True, timeout=HANG, cwd=REPO)
        assert done.returncode == 2 and "names / (outside the vendor's tree): not bound" in done.stderr, done.stderr
    finally:
        shutil.rmtree(lab, ignore_errors=True)
