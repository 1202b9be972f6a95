"""tablecert: reference oracle, test vectors, certification harness and reports for casino
table-game wagers (craps free odds; New Jersey Imperial pai gow bonus)."""

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__version__ = "1.2.0"
"""The one place the version is written (pyproject.toml reads it: ``[tool.setuptools.dynamic]``);
a literal, not ``importlib.metadata``, whose import is a third of the reference vendor's own
imports at every restart of a live run (benchmarks/bench_cut_cost.py)."""

PACKAGES = ("tablecert", "tablecert.oracle", "tablecert.vectors", "tablecert.harness", "tablecert.reports",
            "tablecert.rng", "tablecert.fuzz", "tablecert.parallel", "tablecert.kits")
"""The packages tablecert is made of, outermost ones (pyproject.toml's list; a test checks they
agree): what a vendor started from tablecert's own environment also sees of it."""


def lazy_face(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's public face as a PEP 562 module ``__getattr__``: each public name (a key of
    ``names``) is imported from its module (the value, relative to ``package``; ``module:attr``
    where the module calls it otherwise) when first asked for, and kept. Importing the package
    itself imports none of them, so a face costs the command line's start-up nothing; a name must
    not be that of one of the package's submodules (importing the submodule would hide it:
    tests/test_layers.py checks)."""

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attr = where.partition(":")
        value = getattr(import_module(f"{package}.{module}"), attr or name)
        setattr(import_module(package), name, value)
        return value

    return __getattr__


__all__ = ["PACKAGES", "__version__", "lazy_face"]
