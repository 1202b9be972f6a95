"""tablecert.vectors: test-vector suites generated from the oracle, shaped like NIST ACVP and
Wycheproof vector sets (schema and version, notes per flag, groups sharing a config, tests with
tcIds, flags, clause ids and comments), in two views: the *prompt* a vendor receives and the
*expected* answers a lab keeps.

Public API: :func:`generate`, :func:`lint`, :func:`verify`, :data:`SUITES`.
"""

from typing import Any

from tablecert.vectors.checks import lint, verify

__all__ = ["SUITES", "SuiteError", "generate", "lint", "verify"]


def __getattr__(name: str) -> Any:
    """The generator (``generate``, ``SUITES``, ``SuiteError``) is imported when first asked for:
    reading and checking a suite (the harness, a Ray actor) never loads the suites' case
    generators and the labeller."""
    if name in ("SUITES", "SuiteError", "generate"):
        from tablecert.vectors import suites

        return getattr(suites, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
