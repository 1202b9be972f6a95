"""The packages of tablecert's wheel and sdist, found in the tree instead of listed by hand.

tablecert's import names live under one namespace, ``tablecert.*``, while the sources keep the
design card's top-level folders (``oracle/``, ``vectors/``, ``harness/``...). The outermost
packages and their folders are ``tablecert.PACKAGES`` (read from ``tablecert/__init__.py``
without importing it); every folder with an ``__init__.py`` below one of them is found with
setuptools' own ``find_packages`` and mapped under its parent's name. A package listed by hand
is a package forgotten: 0.1.x's wheel lacked ``tablecert.harness.instance`` and
``tablecert.harness.store`` (17 names listed, 19 on disk). tests/test_install.py checks the built
wheel against the tree. Everything else about the build is in pyproject.toml.
"""

from __future__ import annotations

import ast
from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).resolve().parent


def outermost_packages() -> tuple[str, ...]:
    """``tablecert.PACKAGES``, read from the source (setup.py must not import the package)."""
    tree = ast.parse((ROOT / "tablecert" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PACKAGES" for t in node.targets):
            packages: tuple[str, ...] = ast.literal_eval(node.value)
            return packages
    raise SystemExit("setup.py: tablecert/__init__.py defines no PACKAGES")


def folder_of(package: str) -> str:
    """The top-level folder an outermost package is built from: ``tablecert.oracle`` -> ``oracle``."""
    return package if package == "tablecert" else package.split(".", 1)[1]


def package_map() -> dict[str, str]:
    """Every package of the wheel -> its folder, relative to the project root (posix)."""
    found: dict[str, str] = {}
    for outer in outermost_packages():
        top = folder_of(outer)
        found[outer] = top
        for sub in sorted(find_packages(where=str(ROOT / top))):
            found[f"{outer}.{sub}"] = f"{top}/{sub.replace('.', '/')}"
    return found


if __name__ == "__main__":
    PACKAGE_MAP = package_map()
    setup(packages=list(PACKAGE_MAP), package_dir=PACKAGE_MAP)
