"""The ``tablecert`` package of a source tree laid out as its ``pyproject.toml`` maps it
(``package-dir``: ``tablecert.harness`` is ``harness/`` ...), as links in a folder: put on
``PYTHONPATH`` (another commit's code, tests/test_run_record.py and benchmarks/record_figures.py)
or handed to a type checker (tests/test_types.py), it gives the module names the code imports."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path


def lay_out(tree: Path, root: Path) -> Path:
    """Links in ``root`` making ``root/tablecert`` the package of ``tree``; returns ``root``."""
    dirs = tomllib.loads((tree / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    package = root / "tablecert"
    package.mkdir(parents=True)
    for entry in (tree / dirs["tablecert"]).iterdir():
        if entry.name != "__pycache__":
            os.symlink(entry, package / entry.name)
    for name, folder in dirs.items():
        if name.count(".") == 1:
            os.symlink(tree / folder, package / name.split(".")[1])
    return root
