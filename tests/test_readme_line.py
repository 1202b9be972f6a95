"""The README's certify line, run exactly as a lab types it.

``tablecert certify --vendor-cmd CMD --suite edge --out DIR`` with every default: the real HOME and
its suite cache (``~/.cache/tablecert/suites``), ``--isolation auto``, no ``--suite-dir``, from the
checkout's folder. The vendors are the README's own: the venv's console command
``.venv/bin/tablecert reference-vendor``, ``python -m tablecert reference-vendor`` with the venv on
``PATH`` (an activated venv), and a shell wrapper; each twice in a row (the second run reuses the
suite cache), and once with ``--workers 2``. Then a first attempt with a typo in the vendor command
and ``--resume`` with the right one: CERTIFIED, the failed start kept in the run's history.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from waits import HANG

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent          # the venv the tests run in (.venv/bin under make test)
TABLECERT = BIN / "tablecert"


def _as_typed(path: Path) -> str:
    """A path as the README writes it: relative to the checkout when it lies inside it."""
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


VENDORS = {
    "console": f"{_as_typed(TABLECERT)} reference-vendor",
    "python -m": "python -m tablecert reference-vendor",
    "shell wrapper": f"bash -c '{_as_typed(TABLECERT)} reference-vendor | cat'",
}
# As after `source .venv/bin/activate`; and the lab's own suite cache under the real HOME (tests/conftest.py
# points every other test at a temporary one).
ENV = {**{k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}, "PATH": f"{BIN}:{os.environ.get('PATH', '')}"}
REAL_CACHE = Path.home() / ".cache" / "tablecert" / "suites"


def certify(vendor: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TABLECERT), "certify", "--vendor-cmd", vendor, "--suite", "edge", "--out", str(out),
                           "--quiet", *extra], capture_output=True, text=True, timeout=HANG, cwd=REPO, env=ENV)


@pytest.mark.skipif(not TABLECERT.exists(), reason=f"no console command {TABLECERT}")
@pytest.mark.parametrize("kind", sorted(VENDORS))
def test_the_certify_line_as_typed_twice(kind: str, tmp_path: Path) -> None:
    for attempt in ("first", "second"):
        done = certify(VENDORS[kind], tmp_path / attempt)
        assert done.returncode == 0, f"{attempt} run of {VENDORS[kind]!r}: {done.stdout}{done.stderr}"
        assert "verdict: PASS" in done.stdout and "vendor isolation: bubblewrap" in done.stdout, done.stdout
        assert "certificate.pdf, findings.pdf, report.html" in done.stdout.splitlines()[-1], done.stdout   # said where it is
        summary = json.loads((tmp_path / attempt / "summary.json").read_text())
        assert summary["verdict"] == "pass" and summary["totals"]["pass"] == 6863
        assert (tmp_path / attempt / "suite").stat().st_mode & 0o777 == 0o700
        assert REAL_CACHE.is_dir() and REAL_CACHE.stat().st_mode & 0o077 == 0   # the real cache, the lab's only


@pytest.mark.skipif(not TABLECERT.exists(), reason=f"no console command {TABLECERT}")
def test_the_certify_line_with_two_workers(tmp_path: Path) -> None:
    done = certify(VENDORS["console"], tmp_path / "run", "--workers", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["verdict"] == "pass"


@pytest.mark.skipif(not TABLECERT.exists(), reason=f"no console command {TABLECERT}")
def test_a_typo_then_resume_is_certified_with_the_failed_start_in_its_history(tmp_path: Path) -> None:
    out = tmp_path / "run"
    typo = certify(f"{_as_typed(TABLECERT)} refrence-vendor", out)
    assert typo.returncode == 2 and typo.stderr.count("\n") == 1, typo.stderr
    assert "could not be started or greeted" in typo.stderr
    assert "invalid choice: 'refrence-vendor'" in typo.stderr          # the vendor's own last line on stderr
    done = certify(VENDORS["console"], out, "--resume")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "attempts that did not start" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "pass" and summary["faults"] == []
    assert [f["kind"] for f in summary["start_failures"]] == ["crash"]
    assert summary["target"] == VENDORS["console"]          # how the vendor was reached: the right command
    assert "invalid choice" in summary["start_failures"][0]["stderr"]
