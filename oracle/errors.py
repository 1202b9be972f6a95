"""Errors the oracle raises, each carrying a vendor-protocol error code.

A :class:`CaseError` rejects one case of a request (``invalid_hand``, ``above_maximum``, ...);
a :class:`ConfigError` rejects a whole table configuration and names the field at fault.
Both carry the exact code string the vendor protocol defines, so the protocol layer can turn
them into ``{"error": {"code": ..., "message": ...}}`` without translating.
"""

from __future__ import annotations


class CaseError(Exception):
    """A case the oracle rejects, with the protocol error code that a vendor must answer."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConfigError(Exception):
    """A malformed table configuration (every case of its request is ``invalid_config``).

    ``field`` is a dotted path into the configuration (``free_odds.6``, ``commission_rate``)."""

    code = "invalid_config"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
