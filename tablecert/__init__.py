"""tablecert: reference oracle, test vectors, certification harness and reports for casino
table-game wagers (craps free odds; New Jersey Imperial pai gow bonus)."""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("tablecert")
except _metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
