"""The vendor's build digested as bound (harness/confine/build_files.py) and the submission manifest
(harness/confine/build_manifest.py), without a run: expected digests are hashlib's over the bytes
written here, never the module's own."""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
from pathlib import Path

import pytest

from tablecert.harness.confine import build_files, build_watch
from tablecert.harness.confine.build_files import BuildError, digest_build, file_digest, signature_of, walk_roots
from tablecert.harness.confine.build_watch import BuildWatch
from tablecert.harness.contract import FaultKind, VendorFault
from tablecert.harness.run.vendor_build import VendorBuild
from tablecert.harness.confine.build_manifest import (ManifestError, ManifestMismatch, check_manifest,
                                                      load_manifest)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "vendor"
    (root / "lib" / "sub").mkdir(parents=True)
    (root / "engine.py").write_bytes(b"print('hi')\n")
    (root / "lib" / "tables.dat").write_bytes(bytes(range(256)) * 5000)     # 1.28 MB: several chunks
    (root / "lib" / "sub" / "a.txt").write_bytes(b"")
    (root / "lib.txt").write_bytes(b"x")
    os.chmod(root / "engine.py", 0o755)
    return root


def test_every_file_is_listed_with_its_size_mode_and_sha256_in_canonical_order(tree: Path) -> None:
    listing = digest_build([str(tree)], [])
    rows = [(f.path, f.kind, f.mode, f.size, f.sha256) for f in listing.files]
    assert rows == [("engine.py", "file", 0o755, 12, sha(b"print('hi')\n")),
                    ("lib/sub/a.txt", "file", 0o644, 0, sha(b"")),
                    ("lib/tables.dat", "file", 0o644, 1_280_000, sha(bytes(range(256)) * 5000)),
                    ("lib.txt", "file", 0o644, 1, sha(b"x"))]
    canonical = b"tablecert-build-v1\n" + b"".join(
        f"file {mode:04o} {size} {digest} {path}\n".encode() for path, _, mode, size, digest in rows)
    assert listing.signature == sha(canonical)
    assert listing.total_bytes == 1_280_013


def test_one_byte_changed_changes_the_signature_and_names_the_file(tree: Path) -> None:
    before = digest_build([str(tree)], [])
    data = bytearray((tree / "lib" / "tables.dat").read_bytes())
    data[1000] ^= 1
    (tree / "lib" / "tables.dat").write_bytes(bytes(data))
    after = digest_build([str(tree)], [])
    assert before.signature != after.signature
    assert build_files.changed_files(before.files, after.files) == ["lib/tables.dat"]


def test_links_are_listed_never_followed_and_fifos_never_opened(tree: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"the lab's")
    os.symlink(secret, tree / "out")
    os.symlink("engine.py", tree / "in")
    os.mkfifo(tree / "pipe")                  # opened for reading, it would block the harness forever
    entries = {f.path: f for f in digest_build([str(tree)], []).files}
    assert entries["out"].kind == "link" and entries["out"].sha256 == sha(os.fsencode(str(secret)))
    assert entries["in"].kind == "link" and entries["in"].sha256 == sha(b"engine.py")
    assert entries["pipe"].kind == "fifo" and entries["pipe"].sha256 == "-"
    assert file_digest([str(tree)], "out") is None        # a link is never read through
    assert file_digest([str(tree)], "pipe") is None


def test_a_file_changing_while_it_is_read_is_read_again_then_a_fault_naming_it(tree: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    target = tree / "lib" / "tables.dat"
    changes = {"left": 1}
    real = os.readv

    def growing(fd: int, buffers: list[bytearray]) -> int:
        n = real(fd, buffers)
        if n and changes["left"] and os.fstat(fd).st_size == 1_280_000:
            changes["left"] -= 1
            with open(target, "ab") as f:
                f.write(b"!")
        return n

    monkeypatch.setattr(build_files.os, "readv", growing)
    once = {f.path: f for f in digest_build([str(tree)], []).files}["lib/tables.dat"]
    assert once.size == 1_280_001 and once.sha256 == sha(target.read_bytes())   # read again, whole
    changes["left"] = 10 ** 6
    monkeypatch.setattr(build_files.os, "readv", lambda fd, b: (growing(fd, b), target.open("ab").write(b"!"))[0])
    with pytest.raises(BuildError, match=r"lib/tables.dat: changed while it was digested"):
        digest_build([str(tree)], [])


def test_later_roots_are_prefixed_and_runtime_files_listed_apart(tree: Path, tmp_path: Path) -> None:
    extra = tmp_path / "data"
    extra.mkdir()
    (extra / "d.bin").write_bytes(b"d")
    python = tmp_path / "python"
    python.write_bytes(b"\x7fELF")
    listing = digest_build([str(tree), str(extra)], [str(python), str(tmp_path)])
    assert listing.files[-1].path == "@1/d.bin"
    assert [(f.path, f.sha256) for f in listing.runtime] == [(str(python), sha(b"\x7fELF"))]
    assert listing.runtime_roots == (str(python), str(tmp_path))
    assert listing.signature == signature_of(listing.files)


def test_keyed_digests_are_hmac_sha256_of_the_bytes(tree: Path) -> None:
    seed = bytes.fromhex("00112233445566778899aabbccddeeff")
    keyed = {f.path: f.sha256 for f in walk_roots([str(tree)], seed)}
    assert keyed["engine.py"] == hmac.new(seed, b"print('hi')\n", hashlib.sha256).hexdigest()
    assert file_digest([str(tree)], "lib/sub/a.txt", lambda: hmac.new(seed, digestmod=hashlib.sha256)) == \
        hmac.new(seed, b"", hashlib.sha256).hexdigest()


def test_odd_names_are_one_line_each() -> None:
    assert build_files.quoted(b"a\nb\tc") == "a\\x0ab\\x09c"
    assert build_files.quoted(b"caf\xc3\xa9 x") == "café x"
    assert build_files.quoted(b"\xff\\") == "\\xff\\\\"


# -- the manifest ----------------------------------------------------------------------------------
def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_manifest_of_the_build_checks_and_one_wrong_digest_names_its_file(tree: Path, tmp_path: Path) -> None:
    listing = digest_build([str(tree)], [])
    engine = sha(b"print('hi')\n")
    wrong = engine[:-1] + ("0" if engine[-1] != "0" else "1")
    right = write(tmp_path / "m.toml", f'[files]\n"engine.py" = "{wrong}"\n')
    sha1 = hashlib.sha1(b"x").hexdigest()
    good = write(tmp_path / "good.toml", f'[files]\n"./engine.py" = "{engine.upper()}"\n"lib.txt" = "{sha1}"\n')
    manifest = load_manifest(good)
    check_manifest(manifest, listing)
    assert manifest.weaker and manifest.meta()["algorithms"] == ["sha1", "sha256"]
    with pytest.raises(ManifestMismatch, match=r"engine.py differs from the declared SHA256"):
        check_manifest(load_manifest(right), listing)
    missing = write(tmp_path / "missing.toml", f'[files]\n"lib.txt" = "{sha1}"\n"gone.so" = "{"0" * 64}"\n')
    with pytest.raises(ManifestMismatch, match=r"gone.so is declared but missing"):
        check_manifest(load_manifest(missing), listing)
    wrong_sha1 = write(tmp_path / "w1.json", json.dumps({"files": {"lib.txt": hashlib.sha1(b"y").hexdigest()}}))
    with pytest.raises(ManifestMismatch, match=r"lib.txt differs from the declared SHA1"):
        check_manifest(load_manifest(wrong_sha1), listing)


@pytest.mark.parametrize(("text", "words"), [
    ("[files]\n\"a\" = \"abc\"\n", "64 hex digits"),
    ("[files]\n\"a\" = \"" + "g" * 64 + "\"\n", "64 hex digits"),
    ("[files]\n\"../a\" = \"" + "0" * 64 + "\"\n", "leaves the vendor's tree"),
    ("[files]\n\"/etc/passwd\" = \"" + "0" * 64 + "\"\n", "relative to the vendor's tree"),
    ("[files]\n\"a\" = \"" + "0" * 64 + "\"\n\"./a\" = \"" + "1" * 64 + "\"\n", "declared twice"),
    ("files = 3\n", "one non-empty table 'files'"),
    ("[files\n", "not a TOML manifest"),
])
def test_a_bad_manifest_is_one_line_saying_what_and_where(tmp_path: Path, text: str, words: str) -> None:
    with pytest.raises(ManifestError, match=words) as caught:
        load_manifest(write(tmp_path / "m.toml", text))
    assert "\n" not in str(caught.value) and str(tmp_path / "m.toml") in str(caught.value)


def test_a_json_manifest_naming_a_path_twice_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "m.json", '{"files": {"a": "' + "0" * 64 + '", "a": "' + "1" * 64 + '"}}')
    with pytest.raises(ManifestError, match="declared twice"):
        load_manifest(path)
    with pytest.raises(ManifestError, match="cannot be read"):
        load_manifest(tmp_path / "none.toml")


def test_a_restart_recheck_stats_the_tree_and_reads_again_only_what_moved(tree: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    listing = digest_build([str(tree)], [])
    reads: list[str] = []
    real = build_files.file_digest
    monkeypatch.setattr(build_files, "file_digest", lambda roots, path, *a: (reads.append(path), real(roots, path, *a))[1])
    assert build_files.recheck(listing) == [] and reads == []           # nothing moved: nothing read
    os.utime(tree / "engine.py", ns=(1, 1))                             # same bytes, another time
    assert build_files.recheck(listing) == [] and reads == ["engine.py"]
    assert build_files.recheck(listing) == [] and reads == ["engine.py"]   # its new stamp kept: not read again
    (tree / "lib.txt").write_bytes(b"y")
    (tree / "lib" / "sub" / "a.txt").unlink()
    (tree / "new.so").write_bytes(b"")
    assert build_files.recheck(listing) == ["lib/sub/a.txt", "lib.txt", "new.so"]


def test_a_watch_set_before_the_digest_names_what_changed_and_nothing_else_is_read(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    watch = BuildWatch.on([str(tree)])
    listing = digest_build([str(tree)], [])
    reads: list[str] = []
    real = build_files._read
    monkeypatch.setattr(build_files, "_read", lambda fd, name, where, *a: (reads.append(where), real(fd, name, where, *a))[1])
    monkeypatch.setattr(build_files, "walk_roots", None)            # a watched re-check never walks the tree
    try:
        assert watch.named() == [] and build_files.recheck(listing, []) == [] and reads == []
        os.utime(tree / "lib" / "sub" / "a.txt", ns=(1, 1))          # same bytes, another time: read, unchanged
        assert build_files.recheck(listing, watch.named()) == [] and reads == [f"{tree}/lib/sub/a.txt"]
        assert build_files.recheck(listing, watch.named()) == [] and len(reads) == 1    # no new event: not read again
        (tree / "lib.txt").write_bytes(b"y")
        (tree / "lib" / "tables.dat").unlink()
        (tree / "lib" / "sub" / "new.so").write_bytes(b"")
        os.chmod(tree / "engine.py", 0o700)
        assert build_files.recheck(listing, watch.named()) == ["engine.py", "lib.txt", "lib/sub/new.so",
                                                               "lib/tables.dat"]
        assert watch.why_not is None
    finally:
        watch.close()


def test_a_run_s_restart_check_reads_its_watch_and_names_the_changed_file(tree: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """certify's build (:class:`VendorBuild`, its watch set before its digest): a restart's check
    walks nothing, and a changed file is a build_changed fault naming it; the run's last check
    closes the watch and digests everything again."""
    watch = BuildWatch.on([str(tree)])
    build = VendorBuild(digest_build([str(tree)], []), watch=watch)
    walked = []
    real = build_files.walk_roots
    monkeypatch.setattr(build_files, "walk_roots", lambda *a, **k: (walked.append(a), real(*a, **k))[1])
    build.recheck()
    (tree / "lib" / "sub" / "a.txt").write_bytes(b"changed")
    with pytest.raises(VendorFault) as changed:
        build.recheck()
    assert (changed.value.kind, changed.value.detail) == (
        FaultKind.BUILD_CHANGED, "the vendor's build changed during the run: lib/sub/a.txt")
    assert walked == []
    assert build.changed() == ["lib/sub/a.txt"] and watch.why_not == "closed"


@pytest.mark.parametrize("change", ["a folder made", "a folder removed", "a folder renamed"])
def test_a_change_to_the_folders_stops_the_watch_vouching_for_good(tree: Path, change: str) -> None:
    watch = BuildWatch.on([str(tree)])
    try:
        if change == "a folder made":
            (tree / "lib" / "new").mkdir()
        elif change == "a folder removed":
            (tree / "lib" / "sub" / "a.txt").unlink()
            (tree / "lib" / "sub").rmdir()
        else:
            (tree / "lib" / "sub").rename(tree / "lib" / "other")
        assert watch.named() is None and watch.why_not
        (tree / "lib.txt").write_bytes(b"y")
        assert watch.named() is None                                 # the walk from now on, never trust
    finally:
        watch.close()


def test_an_overflowing_event_queue_stops_the_watch_vouching(tree: Path) -> None:
    """More events than the kernel queues (``max_queued_events``; two files written in turn, so no
    two neighbouring events are merged): the overflow event, then the walk."""
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    watch = BuildWatch.on([str(tree)])
    try:
        fds = [os.open(tree / name, os.O_WRONLY) for name in ("lib.txt", "engine.py")]
        for i in range(limit // 2 + 2):
            for fd in fds:
                os.pwrite(fd, b"x", 0)
        for fd in fds:
            os.close(fd)
        assert watch.named() is None and "Q_OVERFLOW" in str(watch.why_not)
    finally:
        watch.close()


def test_a_watch_that_cannot_be_set_falls_back_to_the_walk(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "is a file, not a folder" in str(BuildWatch.on([str(tree), str(tree / "lib.txt")]).why_not)
    calls: list[bytes] = []

    def full(inotify: object, path: bytes, mask: int) -> int:      # the user's max_user_watches reached at the 3rd
        calls.append(path)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return len(calls)

    monkeypatch.setattr(build_watch.INotify, "add_watch", full)
    watch = BuildWatch.on([str(tree)])
    assert watch.named() is None and watch.why_not == f"a watch cannot be set ({os.strerror(errno.ENOSPC)})"
    listing = digest_build([str(tree)], [])
    (tree / "lib.txt").write_bytes(b"y")
    assert build_files.recheck(listing, watch.named()) == ["lib.txt"]      # the stat walk


def test_a_python_plugin_s_build_is_its_distribution_s_record(edge: Path, tmp_path: Path) -> None:
    from importlib import metadata

    from tablecert.harness.adapters import VendorTarget
    from tablecert.harness.run.certify import certify

    _, summary = certify(VendorTarget("python", "demo"), "edge", tmp_path / "run", suite_dir=edge)
    build = summary["build"]
    dist = next(ep.dist for ep in metadata.entry_points(group="tablecert.vendors") if ep.name == "demo")
    recorded = sorted(p.as_posix() for p in dist.files or [] if ".." not in p.parts)
    assert build["authenticated"] and [f["path"] for f in build["listing"]] == recorded
    first = build["listing"][0]
    assert first["sha256"] == sha(Path(str(dist.locate_file(first["path"]))).read_bytes())
    _, unknown = certify(VendorTarget("python", "faulty_vendors:FreeOddsLimitUnitLow"), "edge", tmp_path / "other",
                         suite_dir=edge)
    assert unknown["build"] == {"authenticated": False, "why": "the Python plugin is not an installed distribution: "
                                                               "it has no RECORD of its files"}
