"""The ``tablecert`` package of a source tree laid out as its build maps it (``tablecert.harness``
is ``harness/`` ...: ``pyproject.toml``'s ``package-dir``, since 1.0.0 setup.py), as links in a folder: put on
``PYTHONPATH`` (another commit's code, tests/test_run_record.py and benchmarks/record_figures.py)
or handed to a type checker (tests/test_types.py), it gives the module names the code imports."""

from __future__ import annotations

import os
import runpy
import tomllib
from pathlib import Path


def package_dirs(tree: Path) -> dict[str, str]:
    """The outermost packages of ``tree`` -> their folders: ``pyproject.toml``'s ``package-dir``
    (before 1.0.0), else what the tree's own setup.py maps them to (since 1.0.0 it finds the
    packages: ``tablecert.oracle`` is ``oracle/``)."""
    setuptools = tomllib.loads((tree / "pyproject.toml").read_text()).get("tool", {}).get("setuptools", {})
    if "package-dir" in setuptools:
        return dict(setuptools["package-dir"])
    setup = runpy.run_path(str(tree / "setup.py"), run_name="setup")
    return {name: setup["folder_of"](name) for name in setup["outermost_packages"]()}


def lay_out(tree: Path, root: Path) -> Path:
    """Links in ``root`` making ``root/tablecert`` the package of ``tree``; returns ``root``."""
    dirs = package_dirs(tree)
    package = root / "tablecert"
    package.mkdir(parents=True)
    for entry in (tree / dirs["tablecert"]).iterdir():
        if entry.name != "__pycache__":
            os.symlink(entry, package / entry.name)
    for name, folder in dirs.items():
        if name.count(".") == 1:
            os.symlink(tree / folder, package / name.split(".")[1])
    return root
