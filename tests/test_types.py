"""The product's type check (issue 52): mypy over the whole ``tablecert`` package, its error count
held to a baseline that can only shrink.

mypy, not pyright: it installs from PyPI as a Python package alone (pyright's PyPI package fetches
Node.js at run time, which neither this machine nor CI can do), and it is what the codebases this
project copies use (pokerkit's ``mypy --strict``). The package is laid out as ``pyproject.toml``'s
``package-dir`` maps it (``tablecert.harness`` is ``harness/`` ...) in a temporary folder of links,
so mypy sees the module names the code imports. Options: Python 3.11, imports of libraries without
type information ignored (reportlab, numba ...), otherwise mypy's defaults.

The test fails when the count grows past ``tests/mypy_baseline.txt`` (fix the new errors: the
message lists them) and when it falls below it (lower the baseline to the new count, so that it
stays the most errors allowed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from package_tree import lay_out
from waits import HANG

REPO = Path(__file__).resolve().parents[1]
BASELINE = REPO / "tests" / "mypy_baseline.txt"
ERROR = re.compile(r"^\S+\.py:\d+: error: ", re.M)


def baseline() -> int:
    return int(next(line for line in BASELINE.read_text().splitlines() if line and not line.startswith("#")))


def test_the_type_check_finds_no_more_errors_than_the_baseline(tmp_path: Path) -> None:
    lay_out(REPO, tmp_path)
    done = subprocess.run([sys.executable, "-m", "mypy", "--python-version", "3.11", "--ignore-missing-imports",
                           "--cache-dir", str(tmp_path / ".mypy_cache"), "--no-color-output", "-p", "tablecert"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=HANG)
    assert done.returncode in (0, 1), done.stdout + done.stderr           # 2: mypy itself could not run
    errors = ERROR.findall(done.stdout)
    allowed = baseline()
    assert len(errors) <= allowed, (f"mypy: {len(errors)} errors, more than the baseline's {allowed}: fix the new "
                                    f"ones\n{done.stdout}")
    assert len(errors) == allowed, (f"mypy: {len(errors)} errors, fewer than the baseline's {allowed}: lower "
                                    f"{BASELINE.relative_to(REPO)} to {len(errors)}")


def test_the_package_says_it_is_typed() -> None:
    """PEP 561: the marker in the top package (setuptools 69 and later ship ``py.typed`` files)."""
    assert (REPO / "tablecert" / "py.typed").is_file()
