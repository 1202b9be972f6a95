"""What ``certify`` and ``validate`` do with input they cannot use, or a run with nothing left to
do: one line (what and where), exit status 2, at once and before anything heavy is imported;
nothing written, copied or left behind; a run that concluded is left exactly as it was."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablecert.oracle.names import SUITE_NAMES
from tablecert.vectors.suites import SUITES
from waits import HANG

HEAVY = ("numba", "tablecert.harness.run.certify", "tablecert.vectors.suites", "tablecert.reports")
"""Modules a refused input must not have waited for (seconds on a busy machine)."""


def tablecert(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "tablecert", *args], capture_output=True,
                          text=True, timeout=HANG, cwd=cwd)


def imported(done: subprocess.CompletedProcess[str]) -> set[str]:
    """The modules the command imported (python -X importtime writes them on stderr)."""
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def said(done: subprocess.CompletedProcess[str]) -> list[str]:
    """What the command wrote on stderr, the import times left out."""
    return [line for line in done.stderr.splitlines() if not line.startswith("import time:")]


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and its modification time (ns)."""
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_suite_names_checked_at_once_are_the_suites() -> None:
    assert tuple(SUITES) == SUITE_NAMES


@pytest.mark.parametrize("bad", ["suite-dir", "suite", "out-file", "responses", "validate-suite-dir"])
def test_a_bad_path_or_name_is_refused_before_the_heavy_imports(tmp_path: Path, bad: str) -> None:
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "answers.jsonl").write_text("")
    vendor = ["--vendor-plugin", "reference"]
    args = {"suite-dir": ["certify", *vendor, "--suite", "edge", "--suite-dir", str(tmp_path / "nowhere"),
                          "--out", str(tmp_path / "run")],
            "suite": ["certify", *vendor, "--suite", "nosuch", "--out", str(tmp_path / "run")],
            "out-file": ["certify", *vendor, "--suite", "edge", "--out", str(tmp_path / "a-file")],
            "responses": ["validate", "--responses", str(tmp_path / "none.jsonl"), "--suite-dir", str(tmp_path),
                          "--out", str(tmp_path / "run")],
            "validate-suite-dir": ["validate", "--responses", str(tmp_path / "answers.jsonl"), "--suite-dir",
                                   str(tmp_path / "nowhere"), "--out", str(tmp_path / "run")]}[bad]
    done = tablecert(*args)
    assert done.returncode == 2 and len(said(done)) == 1, done.stderr[-2000:]
    assert any(name in said(done)[0] for name in ("nowhere", "nosuch", "a-file", "none.jsonl")), said(done)
    assert not imported(done) & set(HEAVY), imported(done) & set(HEAVY)
    assert not (tmp_path / "run").exists()


def certify(suite: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return tablecert("certify", "--vendor-plugin", "reference", "--suite", "edge", "--suite-dir", str(suite),
                     "--out", str(out), "--quiet", *extra)


def test_resuming_a_concluded_run_says_so_and_changes_nothing(edge: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert certify(edge, out).returncode == 0
    before = snapshot(out)
    assert {"run.db", "summary.json", "certificate.pdf", "findings.pdf"} <= set(before)
    again = certify(edge, out, "--resume")
    assert again.returncode == 0, again.stderr[-2000:]                    # the run's own exit status: PASS
    assert len(said(again)) == 1 and "concluded" in said(again)[0] and "nothing was changed" in said(again)[0]
    assert not imported(again) & set(HEAVY), imported(again) & set(HEAVY)   # said at once
    assert snapshot(out) == before                                        # bytes and times alike
    assert sorted(p.name for p in out.iterdir()) == sorted({Path(k).parts[0] for k in before} | {".tablecert.lock"})


def test_a_folder_holding_a_run_is_refused_without_resume(edge: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert certify(edge, out).returncode == 0
    before = snapshot(out)
    again = certify(edge, out)
    assert again.returncode == 2 and len(said(again)) == 1
    assert "--resume" in said(again)[0] and str(out) in said(again)[0]
    assert snapshot(out) == before


def test_a_refused_responses_file_leaves_no_copy_of_the_suite(edge: Path, tmp_path: Path) -> None:
    responses = tmp_path / "answers.jsonl"
    responses.write_text('{"file": "nope.jsonl.gz", "tcId": 1, "answer": {}}\n')
    out = tmp_path / "run"
    done = tablecert("validate", "--responses", str(responses), "--suite-dir", str(edge), "--out", str(out), "--quiet")
    assert done.returncode == 2 and len(said(done)) == 1 and "unknown" in said(done)[0], done.stderr[-2000:]
    assert str(out / "suite") not in said(done)[0]
    assert not (out / "suite").exists() and not (out / "run.db").exists()
    assert json.loads((edge / "manifest.json").read_text())["suite"] == "edge"      # the folder given, untouched


CHATTY_VENDOR = '''import sys
sys.stdout.write("Loading \\x1b[31mmodel\\x1b[0m " + "x" * 300 + "\\n")
sys.stdout.flush()
from tablecert.oracle.vendor import ReferenceVendor, serve
serve(sys.stdin, sys.stdout, ReferenceVendor())
'''

NEEDS_A_FILE = '''import sys
open(sys.argv[1] + "/weights.bin", "rb").read()
'''


def test_what_a_vendor_sent_before_its_hello_is_quoted_escaped_and_cut(edge: Path, tmp_path: Path) -> None:
    script = tmp_path / "chatty.py"
    script.write_text(CHATTY_VENDOR)
    done = tablecert(
        "certify", "--vendor-cmd", f"{sys.executable} {script}", "--isolation", "none", "--suite", "edge",
        "--suite-dir", str(edge), "--out", str(tmp_path / "run"), "--quiet")
    assert done.returncode == 2 and len(said(done)) == 1, done.stderr[-2000:]
    line = said(done)[0]
    assert 'the line it sent: "Loading \\x1b[31mmodel\\x1b[0m xxx' in line          # escaped, not a live escape
    assert "\x1b" not in line and "more bytes)" in line and "x" * 300 not in line   # cut
    assert "logs go to stderr" in line


def test_a_confined_vendor_missing_a_file_is_told_about_vendor_path(edge: Path, tmp_path: Path,
                                                                     vendor_files: Path) -> None:
    script = vendor_files / "needs.py"
    script.write_text(NEEDS_A_FILE)
    data = tmp_path / "model"                           # outside every folder bound into the sandbox: a folder
    data.mkdir()                                        # named on the command line brings nothing (a file would
    (data / "weights.bin").write_bytes(b"\0")           # bring its folder, here refused: it holds the run folder)
    done = tablecert("certify", "--vendor-cmd", f"{sys.executable} {script} {data}", "--isolation", "strict",
                     "--suite", "edge", "--suite-dir", str(edge), "--out", str(tmp_path / "run"), "--quiet")
    assert done.returncode == 2 and len(said(done)) == 1, done.stderr[-2000:]
    assert "weights.bin" in said(done)[0]                # the vendor's own last line on stderr
    assert "--vendor-path" in said(done)[0] and "tablecert sandbox-check" in said(done)[0]


def test_a_suite_refused_after_its_copy_leaves_no_copy(edge: Path, tmp_path: Path) -> None:
    """A custom suite whose vector file cannot be read (its manifest made to match) is refused as
    the copy is read: the copy goes too."""
    import gzip
    import hashlib
    import shutil

    suite = tmp_path / "suite"
    shutil.copytree(edge, suite)
    rel = "expected/craps.settle.odds-3-4-5x.jsonl.gz"
    lines = gzip.decompress((suite / rel).read_bytes()).decode().splitlines(keepends=True)
    lines[3] = lines[3][:20] + "\n"
    data = gzip.compress("".join(lines).encode(), mtime=0)
    (suite / rel).write_bytes(data)
    manifest = json.loads((suite / "manifest.json").read_text())
    for entry in manifest["files"]:
        if entry["path"] == rel:
            entry["sha256"], entry["size"] = hashlib.sha256(data).hexdigest(), len(data)
    (suite / "manifest.json").write_text(json.dumps(manifest))
    responses = tmp_path / "answers.jsonl"
    responses.write_text('{"file": "x", "tcId": 1, "answer": {}}\n')
    out = tmp_path / "run"
    done = tablecert("validate", "--responses", str(responses), "--suite-dir", str(suite), "--out", str(out),
                     "--custom-suite", "--quiet")
    assert done.returncode == 2 and len(said(done)) == 1 and "craps.settle" in said(done)[0], done.stderr[-2000:]
    assert not (out / "suite").exists()
