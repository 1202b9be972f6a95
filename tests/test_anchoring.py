"""Suites anchored in the release: a forged suite (expected answers replaced, manifest re-hashed)
is refused by ``certify --suite-dir``, ``validate`` and ``vectors verify``; with ``--custom-suite``
it runs and the certificate's first page names it a custom suite with its digest; ``--suite`` and
the folder's suite must agree; links in a suite folder are refused; a profile other than the
default (a lab's own table) and a hand suite anchor too."""

from __future__ import annotations

import gzip
import hashlib
import json
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from tablecert.vectors.anchor import CUSTOM, RELEASE, SuiteAnchorError, anchor_suite
from tablecert.vectors.suites import generate
from waits import HANG

REFERENCE = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])
FORGED = "expected/craps.settle.odds-3-4-5x.jsonl.gz"


def tablecert(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, timeout=HANG)


def one_line_refusal(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("tablecert: error:"), done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


def rehash(suite: Path) -> None:
    """What a forger does after editing: make the manifest match the files again."""
    manifest = json.loads((suite / "manifest.json").read_text())
    for entry in manifest["files"]:
        data = (suite / entry["path"]).read_bytes()
        entry["sha256"], entry["size"] = hashlib.sha256(data).hexdigest(), len(data)
    (suite / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


@pytest.fixture(scope="module")
def forged(edge: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The edge suite with every winning odds payout of craps.settle one unit higher (what a vendor
    that rounds up answers), the manifest re-hashed: it verifies and lints."""
    suite = tmp_path_factory.mktemp("forged") / "suite"
    shutil.copytree(edge, suite)
    lines = gzip.decompress((suite / FORGED).read_bytes()).decode().splitlines(keepends=True)
    changed = 0
    for i, line in enumerate(lines):
        obj = json.loads(line)
        if obj["type"] == "test" and obj["expected"].get("result", {}).get("odds_win", 0) > 0:
            obj["expected"]["result"]["odds_win"] += 1
            lines[i] = json.dumps(obj, separators=(",", ":")) + "\n"
            changed += 1
    assert changed > 10
    (suite / FORGED).write_bytes(gzip.compress("".join(lines).encode(), mtime=0))
    rehash(suite)
    assert tablecert("vectors", "lint", str(suite)).returncode == 0
    return suite


def test_the_generated_edge_suite_is_the_release(edge: Path) -> None:
    anchor = anchor_suite(edge, "edge")
    assert anchor.kind == RELEASE
    assert anchor.manifest_sha256 == hashlib.sha256((edge / "manifest.json").read_bytes()).hexdigest()
    assert tablecert("vectors", "verify", str(edge)).returncode == 0


def test_a_forged_suite_is_not_run(forged: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = tablecert("certify", "--vendor-cmd", REFERENCE, "--suite", "edge", "--suite-dir", str(forged),
                     "--out", str(out), "--quiet")
    one_line_refusal(done, "not the 'edge' suite of this tablecert release", FORGED, "--custom-suite")
    assert not (out / "run.db").exists() and not (out / "certificate.pdf").exists()
    verify = tablecert("vectors", "verify", str(forged))
    assert verify.returncode == 1 and "not the 'edge' suite of this tablecert release" in verify.stdout, verify.stdout
    with pytest.raises(SuiteAnchorError, match="custom suite"):
        anchor_suite(forged, "edge")


def test_validate_refuses_a_forged_suite(forged: Path, tmp_path: Path) -> None:
    responses = tmp_path / "responses.jsonl"
    responses.write_text("")
    done = tablecert("validate", "--responses", str(responses), "--suite-dir", str(forged), "--out",
                     str(tmp_path / "run"), "--quiet")
    one_line_refusal(done, "not the 'edge' suite of this tablecert release")
    assert not (tmp_path / "run" / "run.db").exists()


def test_validate_judges_a_custom_suite_when_asked_and_records_it(forged: Path, tmp_path: Path) -> None:
    from test_offline import answer_prompts, write

    responses = write(tmp_path / "responses.jsonl", answer_prompts(forged))   # the oracle's own answers
    done = tablecert("validate", "--responses", str(responses), "--suite-dir", str(forged), "--out",
                     str(tmp_path / "run"), "--quiet", "--custom-suite")
    assert done.returncode == 1, done.stdout + done.stderr                  # the forged answers disagree
    anchor = json.loads((tmp_path / "run" / "summary.json").read_text())["suite_anchor"]
    assert anchor["kind"] == CUSTOM and FORGED in anchor["reason"]


def test_a_custom_suite_runs_only_when_asked_and_the_certificate_says_so(forged: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = tablecert("certify", "--vendor-cmd", REFERENCE, "--suite", "edge", "--suite-dir", str(forged),
                     "--out", str(out), "--quiet", "--custom-suite")
    assert done.returncode == 1, done.stdout + done.stderr        # the oracle disagrees with the forged answers
    assert "CUSTOM SUITE" in done.stdout
    digest = hashlib.sha256((forged / "manifest.json").read_bytes()).hexdigest()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["suite_anchor"]["kind"] == CUSTOM
    assert summary["suite_anchor"]["manifest_sha256"] == digest
    with sqlite3.connect(out / "run.db") as db:
        meta = dict(db.execute("SELECT key, value FROM meta"))
    assert json.loads(meta["suite_anchor"])["kind"] == CUSTOM
    page1 = "".join(PdfReader(out / "certificate.pdf").pages[0].extract_text().split())
    assert "Customsuite." in page1 and digest in page1


def test_the_release_suite_certificate_says_release(edge: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = tablecert("certify", "--vendor-cmd", REFERENCE, "--suite", "edge", "--suite-dir", str(edge),
                     "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((out / "summary.json").read_text())["suite_anchor"]["kind"] == RELEASE
    text = " ".join(" ".join(PdfReader(out / "certificate.pdf").pages[i].extract_text().split()) for i in range(2))
    assert "release suite" in text and "Custom suite" not in text


def test_the_suite_asked_for_and_the_folder_must_agree(edge: Path, tmp_path: Path) -> None:
    done = tablecert("certify", "--vendor-cmd", REFERENCE, "--suite", "standard", "--suite-dir", str(edge),
                     "--out", str(tmp_path / "run"), "--quiet")
    one_line_refusal(done, "holds the 'edge' suite, not the 'standard' asked for")
    done = tablecert("certify", "--vendor-cmd", REFERENCE, "--suite", "edge", "--profile", "odds-10x",
                     "--suite-dir", str(edge), "--out", str(tmp_path / "run"), "--quiet")
    one_line_refusal(done, "for profile 'odds-3-4-5x', not the 'odds-10x' asked for")
    assert not (tmp_path / "run" / "run.db").exists()


@pytest.mark.parametrize("what", ["vector-file", "manifest", "view-folder"])
def test_links_in_a_suite_folder_are_refused(edge: Path, tmp_path: Path, what: str) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(edge, suite)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = {"vector-file": suite / FORGED, "manifest": suite / "manifest.json", "view-folder": suite / "expected"}[what]
    moved = elsewhere / target.name
    shutil.move(target, moved)
    target.symlink_to(moved)
    with pytest.raises(SuiteAnchorError, match="symbolic link"):
        anchor_suite(suite, "edge")
    done = tablecert("certify", "--vendor-cmd", REFERENCE, "--suite", "edge", "--suite-dir", str(suite),
                     "--out", str(tmp_path / "run"), "--quiet", "--custom-suite")
    one_line_refusal(done, "symbolic link")


def test_a_hand_suite_is_anchored_by_its_committed_stream_digest(tmp_path: Path) -> None:
    suite = tmp_path / "joker"
    generate("joker", suite)
    assert anchor_suite(suite, "joker").kind == RELEASE
    labels = suite / "expected" / "paigow.hands.labels"
    data = bytearray(labels.read_bytes())
    data[1001] = (data[1001] + 1) % 4                  # one banker label changed
    labels.write_bytes(bytes(data))
    rehash(suite)
    anchor = anchor_suite(suite, allow_custom=True)
    assert anchor.kind == CUSTOM and "paigow.hands.labels" in anchor.reason
    from tablecert.harness.run.hand_batches import HandSuite

    descriptor = suite / "expected" / "paigow.hands.json"
    desc = json.loads(descriptor.read_text())
    shutil.copy(labels, tmp_path / "outside.labels")
    desc["stream"] = "../../outside.labels"                # a custom suite reading outside its folder
    descriptor.write_text(json.dumps(desc, indent=2) + "\n")
    rehash(suite)
    with pytest.raises(ValueError, match="not a file of expected/"):
        HandSuite.load(suite)


def test_a_labs_own_table_is_anchored_by_regenerating_with_its_file(tmp_path: Path) -> None:
    table = tmp_path / "our-table.toml"
    table.write_text(resources_text("odds-10x.toml").replace('id = "odds-10x"', 'id = "lab-table-7"'))
    suite = tmp_path / "suite"
    assert tablecert("vectors", "generate", "--suite", "edge", "--profile", str(table), "--out", str(suite),
                     "--quiet").returncode == 0
    unknown = tablecert("vectors", "verify", str(suite))
    assert unknown.returncode == 1 and "'lab-table-7' is not one this tablecert knows" in unknown.stdout, unknown.stdout
    known = tablecert("vectors", "verify", str(suite), "--profile", str(table))
    assert known.returncode == 0 and "the 'edge' suite of this tablecert release" in known.stdout, known.stdout
    from tablecert.oracle.profiles import resolve_profile

    assert resolve_profile(str(table)) == "lab-table-7"
    path = suite / "expected" / "craps.settle.lab-table-7.jsonl.gz"
    lines = gzip.decompress(path.read_bytes()).decode().splitlines(keepends=True)
    lines[2] = lines[2].replace('"comment":"', '"comment":"edited ', 1)
    path.write_bytes(gzip.compress("".join(lines).encode(), mtime=0))
    rehash(suite)
    anchor = anchor_suite(suite, "edge", allow_custom=True)
    assert anchor.kind == CUSTOM and "craps.settle.lab-table-7" in anchor.reason


def resources_text(name: str) -> str:
    from importlib import resources

    return resources.files("tablecert.oracle").joinpath("profiles", name).read_text(encoding="utf-8")
