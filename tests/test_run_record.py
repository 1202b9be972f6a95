"""The typed run record changes no byte of what a lab archives but the fields added on purpose
(issue 52). The demo's two runs (``tablecert demo``: the demo vendor, which fails, and the
reference vendor, which passes, on the ``standard`` suite) are made with this tree; then the code
of the release before the typed record (commit :data:`BEFORE`, its tree taken from git and laid out
as its pyproject maps the package) writes ``summary.json`` and ``junit.xml`` again from the same
run database. They must be byte for byte this tree's, but for what was added on purpose:
summary.json's ``verdict_title`` and junit's ``verdict`` property (the verdict's words, one
wording). The old code analyses the causes afresh, this tree reads the analysis kept when the run
was sealed: equal bytes show the kept analysis is the analysis."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.instance import FaultPolicy
from tablecert.harness.model import dumps
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.record.seal import run_key, seal_folder
from tablecert.harness.run.runner import Runner
from package_tree import lay_out
from waits import HANG

REPO = Path(__file__).resolve().parents[1]
BEFORE = "c5237c0"
"""The last commit before the typed run record (main when issue 52 began)."""
VENDORS = {"demo": "tablecert.harness.vendors.demo_vendor:DemoVendor",
           "reference": "tablecert.oracle.vendor:ReferenceVendor"}
ADDED_SINCE_BEFORE = ("schema", "verdict_title")
"""summary.json's top-level fields added in 1.0.0 after :data:`BEFORE` (CHANGELOG.md): the JSON
Schema's name (issue 48), the verdict in the certificate's words (issue 52)."""
OLD_OUTPUTS = """
import sys
from pathlib import Path
from tablecert.harness.record.outputs import write_junit, write_summary
from tablecert.harness.store import RunStore
run = Path(sys.argv[1])
db = RunStore(run / "run.db")
write_junit(db, run, write_summary(db, run)["causes"])
db.close()
"""


@pytest.fixture(scope="module")
def before(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose ``tablecert`` package is :data:`BEFORE`'s code (for PYTHONPATH)."""
    base = tmp_path_factory.mktemp("before")
    tree, root = base / "tree", base / "path"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", BEFORE], capture_output=True, timeout=HANG)
    assert archive.returncode == 0, f"git archive {BEFORE}: {archive.stderr.decode()} (the test needs the history)"
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True, timeout=HANG)
    return lay_out(tree, root)


@pytest.fixture(scope="module")
def demo_runs(standard_suite: Path, reference_standard_run: Path,
              tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The demo's two runs of ``standard``, made, sealed and written as certify does (the reference
    vendor's is the session's: conftest.py)."""
    runs = {"reference": reference_standard_run}
    for name, spec in VENDORS.items():
        if name in runs:
            continue
        out = tmp_path_factory.mktemp(f"{name}-run")
        adapter = PythonAdapter()
        Runner(lambda: adapter.open(spec, SessionOptions(timeout=120)), standard_suite, out,   # noqa: B023
               policy=FaultPolicy()).run()
        seal_folder(out, run_key())
        write_outputs(out)
        runs[name] = out
    return runs


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_summary_and_junit_are_the_release_befores_but_the_fields_added(vendor: str, demo_runs: dict[str, Path],
                                                                         before: Path, tmp_path: Path) -> None:
    run = demo_runs[vendor]
    old = tmp_path / "old"
    old.mkdir()
    shutil.copy2(run / "run.db", old / "run.db")
    with sqlite3.connect(old / "run.db") as db:       # BEFORE reads schema 1: the build's table (schema 2) dropped
        db.execute("DROP TABLE build_files")
        db.execute("PRAGMA user_version = 1")
    db.close()
    if (run / "suite").is_dir():
        shutil.copytree(run / "suite", old / "suite")
    done = subprocess.run([sys.executable, "-c", OLD_OUTPUTS, str(old)], env={**os.environ, "PYTHONPATH": str(before)},
                          capture_output=True, text=True, timeout=HANG, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((run / "summary.json").read_text())
    added = {key: summary.pop(key) for key in ADDED_SINCE_BEFORE if key in summary}
    assert sorted(added) == sorted(ADDED_SINCE_BEFORE)
    title = added["verdict_title"]
    assert title == {"demo": "NOT CERTIFIED", "reference": "CERTIFIED"}[vendor]
    assert summary["verdict"] == {"demo": "fail", "reference": "pass"}[vendor]
    assert dumps(summary, indent=2, separators=(",", ": ")) + "\n" == (old / "summary.json").read_text()
    junit = (run / "junit.xml").read_text()
    verdict_line = f'<property name="verdict" value="{title}"/>'
    assert junit.count(verdict_line) == 1
    assert junit.replace(verdict_line, "") == (old / "junit.xml").read_text()
