"""Every suite as a lab runs it (issue 50): generated into a folder, then the reference vendor
certified from that folder with ``certify --suite-dir`` (a lab generates one suite and runs it
against many vendors). A generated ``live`` suite could not be certified: the manifest schema's
op list, typed by hand, lacked ``craps.stations``. The schemas' op lists are now filled from the
op registry (:data:`tablecert.vectors.writer.VECTOR_OPS`), and every suite of
:data:`tablecert.oracle.names.SUITE_NAMES` is run here:

* ``edge``, ``configs``, ``live``: ``tablecert vectors generate`` into a folder, ``vectors lint``,
  then ``certify --suite-dir`` (the live tables without the harness's cuts: the cuts are
  test_live_vendors'; here the folder is what is tested);
* ``rounds``, ``standard``, ``joker``: the session's shared folders (conftest.py's
  ``shared_suite``, the same :func:`~tablecert.vectors.suites.generate` the command calls), each
  anchored as the release's by ``vectors verify`` and certified from its folder (``joker`` on its
  first 40,000 hands, ``--range``; ``standard`` on a part of it, see the test);
* ``exhaustive``: its expected labels are 308 MB computed over 154,143,080 hands (minutes), so the
  command generates its prompt view only, which ``vectors verify`` anchors as the release's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablecert.oracle.names import SUITE_NAMES
from tablecert.vectors.checks import schema
from tablecert.vectors.suites import generate
from tablecert.vectors.writer import MANIFEST_OPS, VECTOR_OPS
from waits import HANG

REFERENCE = f"{sys.executable} -m tablecert.oracle.vendor"
GENERATED = ("edge", "configs", "live")
SHARED = {"rounds": "rounds_suite", "standard": "standard_suite", "joker": "joker_suite"}
PROMPT_ONLY = ("exhaustive",)


def tablecert(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, timeout=HANG)


def certified(suite: str, folder: Path, out: Path, *extra: str, verdict: str = "pass", anchor: str = "release") -> None:
    done = tablecert("certify", "--vendor-cmd", REFERENCE, "--suite", suite, "--suite-dir", str(folder),
                     "--out", str(out), "--quiet", *extra)
    assert done.returncode == {"pass": 0, "incomplete": 2}[verdict], (suite, done.stdout[-2000:], done.stderr[-2000:])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == verdict and summary["suite_anchor"]["kind"] == anchor, summary["suite_anchor"]
    assert summary["totals"]["fail"] == summary["totals"]["fault"] == 0 and summary["totals"]["pass"] > 0


def test_every_suite_is_run_here() -> None:
    assert sorted((*GENERATED, *SHARED, *PROMPT_ONLY)) == sorted(SUITE_NAMES)


def test_the_schemas_op_lists_are_the_registry() -> None:
    manifest = schema("manifest.schema.json")["properties"]["files"]["items"]["properties"]["op"]
    assert manifest == {"enum": list(MANIFEST_OPS)}
    for view in ("prompt", "expected"):
        header = schema(f"vector-line.{view}.schema.json")["definitions"]["header"]["properties"]["op"]
        assert header == {"enum": list(VECTOR_OPS)}
    assert {"craps.stations", "craps.table", "paigow.table", "craps.round", "paigow.hands"} <= set(MANIFEST_OPS)


@pytest.mark.parametrize("suite", GENERATED)
def test_a_generated_suite_folder_certifies_the_reference_vendor(suite: str, tmp_path: Path) -> None:
    folder = tmp_path / suite
    done = tablecert("vectors", "generate", "--suite", suite, "--out", str(folder), "--quiet")
    assert done.returncode == 0, done.stderr
    lint = tablecert("vectors", "lint", str(folder))
    assert lint.returncode == 0, lint.stdout[-2000:]
    certified(suite, folder, tmp_path / "run", *(("--no-interruptions",) if suite == "live" else ()))


@pytest.mark.parametrize("suite", SHARED)
def test_a_shared_suite_folder_is_the_releases_and_certifies_the_reference_vendor(
        suite: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """``rounds`` whole; ``joker`` on its first 40,000 hands (a slice: verdict incomplete, every
    hand of it passed); ``standard`` (480,695 vectors, about 20 minutes of this test on a loaded
    machine) anchored as the release's by ``vectors verify`` and certified on a part of it (its
    ``craps.place_odds`` files, a custom suite), its rounds part being ``rounds``'."""
    folder = request.getfixturevalue(SHARED[suite])
    verify = tablecert("vectors", "verify", str(folder))
    assert verify.returncode == 0 and f"the {suite!r} suite of this tablecert release" in verify.stdout, verify.stdout
    if suite == "joker":
        certified(suite, folder, tmp_path / "run", "--range", "0:40000", verdict="incomplete")
    elif suite == "standard":
        part = tmp_path / "part"
        generate(suite, part, ops=("craps.place_odds",))
        certified(suite, part, tmp_path / "run", "--custom-suite", anchor="custom")
    else:
        certified(suite, folder, tmp_path / "run")


@pytest.mark.parametrize("suite", PROMPT_ONLY)
def test_a_hand_suites_prompt_folder_is_the_releases(suite: str, tmp_path: Path) -> None:
    folder = tmp_path / suite
    done = tablecert("vectors", "generate", "--suite", suite, "--out", str(folder), "--view", "prompt", "--quiet")
    assert done.returncode == 0, done.stderr
    verify = tablecert("vectors", "verify", str(folder))
    assert verify.returncode == 0 and f"the {suite!r} suite of this tablecert release" in verify.stdout, verify.stdout
