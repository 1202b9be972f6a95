"""The build that was tested is the build that ships (issue 49): the reference vendor certified as
a tree of files, its build signature on the record, checked against a submission manifest before
testing, re-digested when the run ends, compared across runs and checked in the field with
``tablecert verify-build`` and the vendor's own ``build.authenticate``.

Expected digests are hashlib's over the bytes the test wrote, never the harness's own. Every run is
the ``edge`` suite against the reference vendor confined as certify confines it (the default
``--isolation auto``); tests that need a sandbox binding the vendor's tree are skipped where this
machine gives none.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablecert.harness.adapters import VendorTarget
from tablecert.harness.confine import sandbox
from tablecert.harness.contract import SessionOptions
from tablecert.harness.run.certify import certify as certify_run
from waits import HANG

BOUND = sandbox.plan([sys.executable], SessionOptions(isolation="auto"))
pytestmark = pytest.mark.skipif(not BOUND.prefix, reason=f"no sandbox binds a vendor's tree here: {BOUND.description}")

ENGINE = """\"\"\"A vendor as a tree of files: the reference vendor, started from this folder.\"\"\"
import os
import sys

from tablecert.cli import main

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, *sys.argv[1:]) if sys.argv[1:] else here   # the build it vouches for
sys.exit(main(["reference-vendor", "--build-root", root]))
"""
REWRITER = """\"\"\"The reference vendor, which first rewrites one file of its own tree (if it can).\"\"\"
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
try:
    with open(os.path.join(here, "data", "table.txt"), "a") as f:
        f.write("rewritten by the vendor\\n")
except OSError:
    pass
from tablecert.cli import main

sys.exit(main(["reference-vendor"]))
"""


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tablecert(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, timeout=HANG)


def make_tree(folder: Path, table: bytes = b"payout table v1\n", engine: str = ENGINE) -> Path:
    (folder / "data").mkdir(parents=True)
    (folder / "engine.py").write_text(engine)
    (folder / "data" / "table.txt").write_bytes(table)
    (folder / "data" / "rules.bin").write_bytes(bytes(range(256)) * 64)
    for path in (folder, folder / "data"):
        path.chmod(0o755)
    return folder


def certify(edge: Path, tree: Path, out: Path, *extra: str, args: str = "") -> subprocess.CompletedProcess[str]:
    command = shlex.join([sys.executable, str(tree / "engine.py")]) + (f" {args}" if args else "")
    return tablecert("certify", "--vendor-cmd", command, "--suite", "edge", "--suite-dir", str(edge), "--out",
                     str(out), "--quiet", "--no-suite-cache", *extra)


def summary(run: Path) -> dict[str, Any]:
    return json.loads((run / "summary.json").read_text())


@pytest.fixture(scope="module")
def lab() -> Iterator[Path]:
    """The lab's folder (its run folders, manifests) and, beside it, the vendor's trees: outside
    pytest's own temporary folders (mode 0700), which a vendor run as a user of its own cannot enter."""
    base = Path(tempfile.mkdtemp(prefix="tablecert-build-"))
    base.chmod(0o755)
    (base / "lab").mkdir()
    (base / "vendor").mkdir()
    (base / "vendor").chmod(0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def two_runs(edge: Path, lab: Path) -> dict[str, Path]:
    """The reference vendor as a tree certified, then the same tree with one byte changed."""
    tree = make_tree(lab / "vendor" / "v1")
    first = certify(edge, tree, lab / "lab" / "run1")
    assert first.returncode == 0, first.stderr
    data = bytearray((tree / "data" / "rules.bin").read_bytes())
    data[77] ^= 0x01
    (tree / "data" / "rules.bin").write_bytes(bytes(data))
    second = certify(edge, tree, lab / "lab" / "run2", "--previous", str(lab / "lab" / "run1"))
    assert second.returncode == 0, second.stderr
    return {"tree": tree, "run1": lab / "lab" / "run1", "run2": lab / "lab" / "run2"}


def test_one_byte_changed_changes_the_signature_and_diff_names_the_file(two_runs: dict[str, Path]) -> None:
    one, two = summary(two_runs["run1"])["build"], summary(two_runs["run2"])["build"]
    assert one["authenticated"] and one["files"] == two["files"] == 3
    assert one["signature"] != two["signature"]
    listing = {f["path"]: f["sha256"] for f in two["listing"]}
    assert listing["data/rules.bin"] == sha((two_runs["tree"] / "data" / "rules.bin").read_bytes())
    assert listing["engine.py"] == sha(ENGINE.encode())
    assert one["vendor_answer"] == two["vendor_answer"] == "matched"    # its own build.authenticate agreed
    done = tablecert("diff", str(two_runs["run1"]), str(two_runs["run2"]))
    assert "same declared build, different files: 1 changed, first data/rules.bin" in done.stdout, done.stdout
    assert two["previous"].startswith("same declared build, different files: 1 changed, first data/rules.bin")
    page_text = subprocess.run(["pdftotext", "-l", "1", str(two_runs["run2"] / "certificate.pdf"), "-"],
                               capture_output=True, text=True).stdout
    assert two["signature"][:32] in page_text and "3 files" in page_text


def test_a_manifest_with_one_wrong_digest_refuses_the_run_before_any_vector(edge: Path, lab: Path,
                                                                             two_runs: dict[str, Path]) -> None:
    tree = two_runs["tree"]
    wrong = sha(b"not the table")
    manifest = lab / "lab" / "manifest.toml"
    manifest.write_text(f'[files]\n"engine.py" = "{sha(ENGINE.encode())}"\n"data/table.txt" = "{wrong}"\n')
    out = lab / "lab" / "refused"
    done = certify(edge, tree, out, "--manifest", str(manifest))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "data/table.txt differs" in done.stderr and "Traceback" not in done.stderr
    assert not (out / "run.db").exists() and not (out / "summary.json").exists()     # nothing recorded
    right = lab / "lab" / "right.json"
    right.write_text(json.dumps({"files": {"data/table.txt": hashlib.sha1(b"payout table v1\n").hexdigest()}}))
    verified = certify(edge, tree, lab / "lab" / "verified", "--manifest", str(right))
    assert verified.returncode == 0, verified.stderr
    assert summary(lab / "lab" / "verified")["build"]["manifest"] == {
        "verified": True, "files": 1, "sha256": sha(right.read_bytes()), "algorithms": ["sha1"], "weaker": True}


def test_verify_build_matches_a_copy_and_names_each_difference(two_runs: dict[str, Path], lab: Path) -> None:
    copy = lab / "field-copy"
    shutil.copytree(two_runs["tree"], copy)
    done = tablecert("verify-build", str(two_runs["run2"]), "--tree", str(copy))
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "3 of 3 files match" in done.stdout
    (copy / "data" / "table.txt").write_bytes(b"payout table v2\n")
    (copy / "engine.py").unlink()
    (copy / "data" / "patch.so").write_bytes(b"\x7fELF")
    done = tablecert("verify-build", str(two_runs["run2"]), "--tree", str(copy))
    assert done.returncode == 1, (done.stdout, done.stderr)
    bad = [line.split() for line in done.stdout.splitlines() if line.split()[0] in ("changed", "missing", "extra")]
    assert bad == [["changed", "data/table.txt"], ["missing", "engine.py"], ["extra", "data/patch.so"]]


def test_the_seeded_digests_are_what_a_build_authenticate_vendor_answers(two_runs: dict[str, Path]) -> None:
    seed = "5eed" * 8
    done = tablecert("verify-build", str(two_runs["run2"]), "--tree", str(two_runs["tree"]), "--seed", seed)
    assert done.returncode == 0, (done.stdout, done.stderr)
    printed = {line.split()[1]: line.split()[-1] for line in done.stdout.splitlines() if line.startswith("match")}
    request = {"id": 1, "op": "build.authenticate", "seed": seed, "files": sorted(printed)}
    vendor = subprocess.run([sys.executable, str(two_runs["tree"] / "engine.py")], text=True, capture_output=True,
                            input=json.dumps(request) + "\n", timeout=HANG)
    answered = json.loads(vendor.stdout.splitlines()[0])["result"]["files"]
    assert answered == printed
    key = bytes.fromhex(seed)
    assert printed["engine.py"] == hmac.new(key, ENGINE.encode(), hashlib.sha256).hexdigest()


def test_a_vendor_answering_for_an_earlier_build_fails_naming_the_file(edge: Path, lab: Path) -> None:
    tree = make_tree(lab / "vendor" / "stale")
    shutil.copytree(tree, tree / "old")           # the earlier build, kept in the tree: it vouches for that
    (tree / "data" / "table.txt").write_bytes(b"payout table v2\n")
    out = lab / "lab" / "stale"
    done = certify(edge, tree, out, args="old")
    assert done.returncode == 1, (done.stdout, done.stderr)
    faults = summary(out)["faults"]
    assert [f["kind"] for f in faults] == ["build_authentication"]
    assert "keyed digest of data/table.txt is not that of the bytes bound" in faults[0]["detail"]


def test_the_bound_tree_is_read_only_and_a_rewrite_through_a_writable_path_fails_the_run(edge: Path,
                                                                                          lab: Path) -> None:
    tree = make_tree(lab / "vendor" / "rewriter", engine=REWRITER)
    (tree / "data").chmod(0o777)                  # any user may write it: only the read-only bind stops it
    (tree / "data" / "table.txt").chmod(0o666)
    command = shlex.join([sys.executable, str(tree / "engine.py")])
    out = lab / "lab" / "read-only"
    _, held = certify_run(VendorTarget("subprocess", command, SessionOptions(isolation="auto")), "edge", out,
                          suite_dir=edge)
    assert (tree / "data" / "table.txt").read_bytes() == b"payout table v1\n"      # the bind is read-only
    assert held["verdict"] == "pass" and held["build"]["authenticated"]
    writable = SessionOptions(isolation="auto", writable_paths=(str(tree / "data"),))   # a path it can reach
    _, rewritten = certify_run(VendorTarget("subprocess", command, writable), "edge", lab / "lab" / "rewritten",
                               suite_dir=edge)
    assert b"rewritten by the vendor" in (tree / "data" / "table.txt").read_bytes()
    assert rewritten["verdict"] == "fail"
    assert [(f["kind"], f["detail"]) for f in rewritten["faults"]] == [
        ("build_changed", "the vendor's build changed during the run: data/table.txt")]


def test_the_build_listing_cannot_be_changed_after_the_seal(two_runs: dict[str, Path], lab: Path) -> None:
    forged = lab / "forged"
    shutil.copytree(two_runs["run1"], forged)
    db = sqlite3.connect(forged / "run.db")
    db.execute("UPDATE build_files SET sha256 = ? WHERE path = 'data/rules.bin'",
               (sha((two_runs["tree"] / "data" / "rules.bin").read_bytes()),))
    db.commit()
    db.close()
    done = tablecert("verify-build", str(forged), "--tree", str(two_runs["tree"]))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, (done.stdout, done.stderr)
    assert "does not give the sealed build signature" in done.stderr


def test_verify_build_checks_a_signed_summary_too(two_runs: dict[str, Path], lab: Path) -> None:
    signed = lab / "signed"
    shutil.copytree(two_runs["run1"], signed)
    key = lab / "lab" / "sign.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(key)], check=True, capture_output=True)
    done = tablecert("report", str(signed), "--kind", "certificate", "--sign", str(key))
    assert done.returncode == 0, done.stderr
    done = tablecert("verify-build", str(signed), "--tree", str(lab / "vendor" / "v1"))
    assert "summary signature: not checked (intact" in done.stdout, (done.stdout, done.stderr)
    summary = (signed / "summary.json").read_text().replace('"files": 3', '"files": 4')
    (signed / "summary.json").write_text(summary)
    done = tablecert("verify-build", str(signed), "--tree", str(lab / "vendor" / "v1"))
    assert done.returncode == 2 and "summary.json's signature" in done.stderr, (done.stdout, done.stderr)
