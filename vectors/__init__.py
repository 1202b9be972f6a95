"""tablecert.vectors: test-vector suites generated from the oracle, shaped like NIST ACVP and
Wycheproof vector sets (schema and version, notes per flag, groups sharing a config, tests with
tcIds, flags, clause ids and comments), in two views: the *prompt* a vendor receives and the
*expected* answers a lab keeps.

Public API: :func:`generate`, :func:`lint`, :func:`verify`, :data:`SUITES`.
"""

from tablecert.vectors.checks import lint, verify
from tablecert.vectors.suites import SUITES, SuiteError, generate

__all__ = ["SUITES", "SuiteError", "generate", "lint", "verify"]
