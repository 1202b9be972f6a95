"""tablecert.vectors: test-vector suites generated from the oracle, shaped like NIST ACVP and
Wycheproof vector sets (schema and version, notes per flag, groups sharing a config, tests with
tcIds, flags, clause ids and comments), in two views: the *prompt* a vendor receives and the
*expected* answers a lab keeps.

Public API: :func:`generate`, :func:`lint`, :func:`verify`, :data:`SUITES`.
"""

from tablecert import lazy_face
from tablecert.vectors.checks import lint, verify

__all__ = ["SUITES", "SuiteError", "generate", "lint", "verify"]
__getattr__ = lazy_face(__name__, dict.fromkeys(("SUITES", "SuiteError", "generate"), "suites"))
"""The generator (``generate``, ``SUITES``, ``SuiteError``) is imported when first asked for:
reading and checking a suite (the harness, a Ray actor) never loads the suites' case generators
and the labeller."""
