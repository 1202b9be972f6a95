"""tablecert: reference oracle, test vectors, certification harness and reports for casino
table-game wagers (craps free odds; New Jersey Imperial pai gow bonus)."""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("tablecert")
except _metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

PACKAGES = ("tablecert", "tablecert.oracle", "tablecert.vectors", "tablecert.harness", "tablecert.reports",
            "tablecert.rng", "tablecert.fuzz", "tablecert.parallel", "tablecert.kits")
"""The packages tablecert is made of, outermost ones (pyproject.toml's list; a test checks they
agree): what a vendor started from tablecert's own environment also sees of it."""

__all__ = ["PACKAGES", "__version__"]
