"""Bad suites handed to ``tablecert certify --suite-dir``: a byte changed, a truncated gzip (with
and without a manifest made to match), a file of another schema version, a view of another op.
Each is refused in one line naming the file, exit status 2, no traceback; a run that meets a
damaged file part way keeps every result recorded before it."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tablecert.vectors.suites import generate
from waits import HANG

TARGET = "expected/craps.settle.odds-3-4-5x.jsonl.gz"


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("edge")
    generate("edge", out)
    assert (out / TARGET).is_file()
    return out


def certify(suite: Path, out: Path) -> subprocess.CompletedProcess:
    """With --custom-suite: a relisted file is no release suite, and the readers behind the anchor
    check must still refuse what they cannot read (tests/test_anchoring.py covers the refusal)."""
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-plugin", "reference", "--suite",
                           "edge", "--suite-dir", str(suite), "--out", str(out), "--quiet", "--batch-size", "50",
                           "--custom-suite"],
                          capture_output=True, text=True, timeout=HANG)


def relist(suite: Path, rel: str) -> None:
    """Make the manifest match the file as it now is (a damaged file that a digest cannot catch)."""
    manifest = json.loads((suite / "manifest.json").read_text())
    data = (suite / rel).read_bytes()
    for entry in manifest["files"]:
        if entry["path"] == rel:
            entry["sha256"], entry["size"] = hashlib.sha256(data).hexdigest(), len(data)
    (suite / "manifest.json").write_text(json.dumps(manifest, indent=2))


def rewrite_header(suite: Path, rel: str, **changes: object) -> None:
    lines = gzip.decompress((suite / rel).read_bytes()).decode().splitlines(keepends=True)
    lines[0] = json.dumps({**json.loads(lines[0]), **changes}, separators=(",", ":")) + "\n"
    (suite / rel).write_bytes(gzip.compress("".join(lines).encode(), mtime=0))
    relist(suite, rel)


def flip_byte(suite: Path, rel: str) -> None:
    data = bytearray((suite / rel).read_bytes())
    data[len(data) // 2] ^= 0x01
    (suite / rel).write_bytes(bytes(data))


def truncate(suite: Path, rel: str) -> None:
    data = (suite / rel).read_bytes()
    (suite / rel).write_bytes(data[: len(data) * 2 // 3])


DAMAGE: dict[str, tuple[Callable[[Path, str], None], str]] = {
    "byte-changed": (flip_byte, "file altered"),
    "truncated": (truncate, "size"),
    "truncated-relisted": (lambda s, r: (truncate(s, r), relist(s, r)), "cannot be read"),
    "schema-version-2": (lambda s, r: rewrite_header(s, r, schemaVersion=2), "version 2"),
    "other-schema": (lambda s, r: rewrite_header(s, r, schema="acvp-vectors"), "'acvp-vectors'"),
    "other-op": (lambda s, r: rewrite_header(s, r, op="craps.place_odds"), "header op 'craps.place_odds'"),
    "prompt-for-expected": (lambda s, r: rewrite_header(s, r, view="prompt"), "header view 'prompt'"),
    "unknown-op": (lambda s, r: (rewrite_header(s, r, op="craps.teleport"), relist_op(s, r, "craps.teleport")),
                   "craps.teleport"),
}


def relist_op(suite: Path, rel: str, op: str) -> None:
    """Name another op for the file in the manifest (its digest already matches)."""
    manifest = json.loads((suite / "manifest.json").read_text())
    for entry in manifest["files"]:
        if entry["path"] == rel:
            entry["op"] = op
    (suite / "manifest.json").write_text(json.dumps(manifest, indent=2))


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_suite_is_refused_in_one_line(edge: Path, tmp_path: Path, damage: str) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(edge, suite)
    harm, words = DAMAGE[damage]
    harm(suite, TARGET)
    out = tmp_path / "run"
    done = certify(suite, out)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("tablecert: error:")
    assert words in done.stderr, done.stderr
    assert TARGET.split("/")[1] in done.stderr or damage == "unknown-op", done.stderr
    if damage == "truncated-relisted":
        # found only while reading: what was judged before the damaged file is kept
        db = sqlite3.connect(out / "run.db")
        assert db.execute("SELECT COUNT(*) FROM batches").fetchone()[0] > 0
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    else:
        assert not (out / "run.db").exists()                 # refused before the run began
