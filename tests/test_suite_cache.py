"""The suite cache (harness/suites/cache.py): a second ``certify`` of the same suite takes it from
the cache instead of generating it; a cached suite is checked on every use, and a tampered one is
said so, removed and generated again, never run. Each test keeps its cache in its own folder
(``--suite-cache``), never the lab user's."""

from __future__ import annotations

import gzip
import hashlib
import json
import shlex
import subprocess
import sys
from pathlib import Path

from tablecert import __version__
from waits import HANG


def certify(out: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    vendor = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", vendor, "--suite", "edge",
                           "--out", str(out), "--suite-cache", str(cache), "--isolation", "none", *extra],
                          capture_output=True, text=True, timeout=HANG)


def entry(cache: Path) -> Path:
    (found,) = (cache / __version__).iterdir()
    return found


def manifest_sha(folder: Path) -> str:
    return hashlib.sha256((folder / "manifest.json").read_bytes()).hexdigest()


def test_second_certify_takes_the_suite_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = certify(tmp_path / "one", cache)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "generating" in first.stderr
    cached = entry(cache)
    assert cached.name.startswith("edge.") and manifest_sha(cached) == manifest_sha(tmp_path / "one" / "suite")
    stamp = (cached / "manifest.json").stat().st_mtime_ns

    second = certify(tmp_path / "two", cache)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "generating" not in second.stderr and "cached suite" not in second.stderr
    assert (cached / "manifest.json").stat().st_mtime_ns == stamp                  # read, not rewritten
    summary = json.loads((tmp_path / "two" / "summary.json").read_text())
    assert summary["verdict"] == "pass"
    assert summary["suite_manifest_sha256"] == manifest_sha(tmp_path / "one" / "suite")
    assert summary["suite_anchor"]["kind"] == "release"


def test_a_tampered_cache_is_detected_and_regenerated(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert certify(tmp_path / "one", cache, "--quiet").returncode == 0
    cached = entry(cache)
    release_sha = manifest_sha(cached)
    # Change one expected answer and re-hash the manifest, as a careful tamperer would.
    target = next((cached / "expected").glob("craps.settle.*.jsonl.gz"))
    lines = gzip.decompress(target.read_bytes()).decode().splitlines(keepends=True)
    i = next(n for n, line in enumerate(lines) if '"outcome":"win"' in line)
    lines[i] = lines[i].replace('"outcome":"win"', '"outcome":"lose"', 1)
    target.write_bytes(gzip.compress("".join(lines).encode()))
    manifest = json.loads((cached / "manifest.json").read_text())
    for f in manifest["files"]:
        if f["path"] == f"expected/{target.name}":
            f["sha256"] = hashlib.sha256(target.read_bytes()).hexdigest()
            f["size"] = target.stat().st_size
    (cached / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")

    again = certify(tmp_path / "two", cache)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "is not this release's" in again.stderr and str(cached) in again.stderr
    assert "generating" in again.stderr
    summary = json.loads((tmp_path / "two" / "summary.json").read_text())
    assert summary["verdict"] == "pass" and summary["suite_manifest_sha256"] == release_sha
    assert manifest_sha(entry(cache)) == release_sha                              # the entry made again

    # A changed byte without a new manifest is caught the same way.
    target = next((entry(cache) / "prompt").glob("paigow.settle.*.jsonl.gz"))
    target.write_bytes(target.read_bytes() + b"\0")
    third = certify(tmp_path / "three", cache, "--quiet")
    assert third.returncode == 0 and "is not this release's" in third.stderr, third.stderr
