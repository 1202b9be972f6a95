"""Versions that mean something: one version, a changelog entry for every release, the contract's
markers naming the release that added each part, and ``tablecert --version`` saying which
contract versions and suite releases this tablecert speaks."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from tablecert import __version__

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "harness" / "vendor-protocol.md"
CHANGELOG = ROOT / "CHANGELOG.md"
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)


def releases() -> list[tuple[str, str]]:
    return RELEASE.findall(CHANGELOG.read_text(encoding="utf-8"))


def test_the_contract_says_since_which_release_not_new() -> None:
    """0.1.x's contract carried about 76 "New" / "new in this release" markers: none is left, and
    every "since X.Y[.Z]" names a release of the changelog."""
    text = CONTRACT.read_text(encoding="utf-8")
    markers = re.findall(r"\bNew\b|(?i:\bnew in\b|this release|\*\*new\b|\(new\))", text)
    assert markers == []
    named = set(re.findall(r"(?i)\bsince (\d+\.\d+(?:\.\d+)?)\b", text))
    known = {v for v, _ in releases()} | {v.rsplit(".", 1)[0] for v, _ in releases()}
    assert len(named) >= 4 and named <= known, named - known


def test_the_changelog_lists_every_release_newest_first_with_this_one_on_top() -> None:
    text = CHANGELOG.read_text(encoding="utf-8")
    found = releases()
    assert found[0][0] == __version__ == "1.2.0"
    assert [tuple(map(int, v.split("."))) for v, _ in found] == sorted(
        (tuple(map(int, v.split("."))) for v, _ in found), reverse=True)
    assert [d for _, d in found] == sorted((d for _, d in found), reverse=True)
    sections = set(re.findall(r"^### (.+)$", text, re.M))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, sections
    for name in ("tablecert-vendor/1", "tablecert-vendor/2"):       # the contract versions, each introduced
        assert f"**Contract: `{name}`**" in text


def test_the_0_1_releases_are_the_days_of_the_history() -> None:
    """Each 0.1.x section is dated by a day the history has commits on (how the markers were dated)."""
    days = set(subprocess.run(["git", "log", "--format=%ad", "--date=short"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.split())
    if not days:                                          # not a git checkout (an sdist): nothing to compare
        return
    assert {d for v, d in releases() if v.startswith("0.1.")} <= days


def test_version_names_the_package_the_contract_and_each_suite_anchor() -> None:
    done = subprocess.run([sys.executable, "-m", "tablecert", "--version"], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    lines = done.stdout.splitlines()
    assert lines[0] == f"tablecert {__version__}"
    assert lines[1] == "vendor contract: tablecert-vendor/2, tablecert-vendor/1"    # the contract's title, v1 kept
    anchors = dict(line.split(None, 1) for line in lines[3:])
    golden = ROOT / "vectors" / "golden"
    for suite in ("edge", "standard", "rounds", "live"):    # the committed manifests' own bytes, hashed here
        assert anchors[suite] == f"manifest.json sha256 {hashlib.sha256((golden / f'{suite}.manifest.json').read_bytes()).hexdigest()}"
    streams = tomllib.loads((golden / "hand_streams.toml").read_text())
    assert anchors["joker"] == f"expected stream sha256 {streams['joker']['sha256']} (20,358,520 hands)"
    assert anchors["exhaustive"] == f"expected stream sha256 {streams['exhaustive']['sha256']} (154,143,080 hands)"
