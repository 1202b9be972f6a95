"""An HTTP vendor's build authenticated from the lab's copy of its files (issue 49, item 8):
``certify --vendor-url URL --manifest FILE --build-archive DIR_OR_TAR``, against the real HTTP
adapter and the reference vendor served over HTTP (``serve_http``), answering ``build.authenticate``
for the files under the folder it is given.

Expected digests are hashlib's over the bytes the test wrote, never the harness's own.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from tablecert.harness.adapters import VendorTarget
from tablecert.harness.adapters.http_server import serve_http
from tablecert.harness.confine.build_archive import ArchiveError, archive_root
from tablecert.harness.contract import SessionOptions
from tablecert.harness.run.certify import certify
from tablecert.oracle.vendor import ReferenceVendor
from tablecert.reports import render_report
from waits import HANG

FILES = {"engine.py": b"print('craps engine')\n", "data/table.txt": b"payout table v1\n",
         "data/rules.bin": bytes(range(256)) * 64}


def write_tree(folder: Path, files: dict[str, bytes] = FILES) -> Path:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def manifest(folder: Path, files: dict[str, bytes] = FILES) -> Path:
    path = folder / "manifest.json"
    path.write_text(json.dumps({"files": {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}}))
    return path


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The reference vendor over HTTP, its build the folder ``installed`` (as shipped: FILES)."""
    installed = write_tree(tmp_path / "installed")
    server, url = serve_http(ReferenceVendor(build_root=str(installed)))
    try:
        yield url, installed
    finally:
        server.shutdown()


def run(url: str, edge: Path, out: Path, manifest_file: Path, archive: Path) -> dict[str, Any]:
    _, summary = certify(VendorTarget("http", url, SessionOptions(timeout=60)), "edge", out, suite_dir=edge,
                         manifest=manifest_file, build_archive=archive)
    return summary


def tar_of(folder: Path, path: Path) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name in sorted(FILES):
            tar.add(folder / name, arcname=name)
    return path


@pytest.mark.parametrize("kind", ["folder", "tar"])
def test_an_http_vendor_answering_for_the_lab_s_copy_is_authenticated(served: tuple[str, Path], edge: Path,
                                                                       tmp_path: Path, kind: str) -> None:
    url, installed = served
    copy = write_tree(tmp_path / "received") if kind == "folder" else tar_of(installed, tmp_path / "received.tar.gz")
    summary = run(url, edge, tmp_path / "run", manifest(tmp_path), copy)
    build = summary["build"]
    assert summary["verdict"] == "pass" and summary["faults"] == []
    assert build["authenticated"] is True and build["vendor_answer"] == "matched" and "why" not in build
    assert build["source"] == "archive" and build["files"] == 3 and build["manifest"]["verified"] is True
    assert {f["path"]: f["sha256"] for f in build["listing"]} == {
        name: hashlib.sha256(data).hexdigest() for name, data in FILES.items()}
    if kind == "folder":                # the certificate says whose files these are (page 1 and appendix)
        text = " ".join(" ".join(page.extract_text() or "" for page in PdfReader(
            render_report(tmp_path / "run", "certificate", tmp_path / "certificate.pdf")).pages).split())
        assert "of the lab's copy of the files of a vendor reached over HTTP (--build-archive)" in text
        assert "build.authenticate answers for a fresh seed matched" in text


def test_an_http_vendor_running_other_files_fails_naming_the_file(served: tuple[str, Path], edge: Path,
                                                                  tmp_path: Path) -> None:
    url, installed = served
    (installed / "data" / "table.txt").write_bytes(b"payout table v2\n")    # what it runs is not what it submitted
    summary = run(url, edge, tmp_path / "run", manifest(tmp_path), write_tree(tmp_path / "received"))
    assert summary["verdict"] == "fail" and summary["build"]["authenticated"] is False
    assert [f["kind"] for f in summary["faults"]] == ["build_authentication"]
    assert "keyed digest of data/table.txt is not that of the bytes bound" in summary["faults"][0]["detail"]


def test_an_http_vendor_without_build_authenticate_is_not_authenticated(edge: Path, tmp_path: Path) -> None:
    server, url = serve_http(ReferenceVendor())           # no build root: it does not declare the op
    try:
        summary = run(url, edge, tmp_path / "run", manifest(tmp_path), write_tree(tmp_path / "received"))
    finally:
        server.shutdown()
    assert summary["verdict"] == "pass"
    assert summary["build"]["authenticated"] is False and "does not answer build.authenticate" in summary["build"]["why"]


def member(tar: tarfile.TarFile, name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> None:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    data = b"x" if kind == tarfile.REGTYPE else b""
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


@pytest.mark.parametrize(("name", "kind", "link", "words"), [
    ("../engine.py", tarfile.REGTYPE, "", "member '../engine.py': an absolute path or one with '..' (every member must stay in the archive)"),
    ("/etc/engine.py", tarfile.REGTYPE, "", "member '/etc/engine.py': an absolute path or one with '..' (every member must stay in the archive)"),
    ("data/out", tarfile.SYMTYPE, "../../secret", "member 'data/out': a link out of the archive (to '../../secret')"),
    ("data/abs", tarfile.SYMTYPE, "/etc/passwd", "member 'data/abs': a link out of the archive (to '/etc/passwd')"),
    ("data/hard", tarfile.LNKTYPE, "../x", "member 'data/hard': a hard link out of the archive (to '../x')"),
    ("data/tty", tarfile.CHRTYPE, "", "member 'data/tty': a device (never extracted)"),
    ("data/pipe", tarfile.FIFOTYPE, "", "member 'data/pipe': a FIFO (never extracted)"),
])
def test_a_tar_member_leaving_the_archive_or_not_a_file_is_refused(tmp_path: Path, name: str, kind: bytes,
                                                                   link: str, words: str) -> None:
    archive = tmp_path / "bad.tar"
    with tarfile.open(archive, "w") as tar:
        member(tar, "engine.py")
        member(tar, name, kind, link)
    (tmp_path / "into").mkdir()
    with pytest.raises(ArchiveError) as refused:
        archive_root(archive, tmp_path / "into")
    assert str(refused.value) == f"--build-archive {archive}: {words}"
    assert list((tmp_path / "into").iterdir()) == []          # nothing written: every member checked first


def test_a_link_staying_inside_the_archive_is_kept_as_a_link(tmp_path: Path) -> None:
    archive = tmp_path / "ok.tar"
    with tarfile.open(archive, "w") as tar:
        member(tar, "data/table.txt")
        member(tar, "data/current", tarfile.SYMTYPE, "table.txt")
        member(tar, "bin/table", tarfile.SYMTYPE, "../data/table.txt")
    (tmp_path / "into").mkdir()
    root = Path(archive_root(archive, tmp_path / "into"))
    assert (root / "data" / "current").is_symlink() and (root / "bin" / "table").read_bytes() == b"x"


def tablecert(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, timeout=HANG)


def test_a_bad_archive_or_a_wrong_digest_is_one_line_exit_2_before_any_vector(served: tuple[str, Path], edge: Path,
                                                                              tmp_path: Path) -> None:
    url, installed = served
    archive = tmp_path / "bad.tar"
    with tarfile.open(archive, "w") as tar:
        member(tar, "../engine.py")
    common = ["certify", "--vendor-url", url, "--suite", "edge", "--suite-dir", str(edge), "--quiet",
              "--no-suite-cache", "--manifest", str(manifest(tmp_path))]
    done = tablecert(*common, "--out", str(tmp_path / "run1"), "--build-archive", str(archive))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, (done.stdout, done.stderr)
    assert "member '../engine.py': an absolute path or one with '..'" in done.stderr
    changed = write_tree(tmp_path / "received", {**FILES, "data/rules.bin": b"other rules"})
    done = tablecert(*common, "--out", str(tmp_path / "run2"), "--build-archive", str(changed))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, (done.stdout, done.stderr)
    assert "data/rules.bin" in done.stderr
    assert not (tmp_path / "run1" / "run.db").exists() and not (tmp_path / "run2" / "run.db").exists()
    done = tablecert("certify", "--vendor-cmd", "true", "--suite", "edge", "--out", str(tmp_path / "run3"),
                     "--build-archive", str(changed))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, (done.stdout, done.stderr)
    assert "only for a vendor reached over HTTP (--vendor-url), with its submission manifest" in done.stderr
