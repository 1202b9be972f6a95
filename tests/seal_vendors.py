"""Vendors for tests/test_seal.py (a test helper module, not a test file): a wrong vendor, and the
same vendor slowed down so that a test can change files while its run goes on."""

from __future__ import annotations

import time
from typing import Any

from faulty_vendors import FreeOddsLimitUnitLow


class SlowFreeOddsLimitUnitLow(FreeOddsLimitUnitLow):
    """FreeOddsLimitUnitLow taking 20 ms per request (a run of edge in batches of 50: about 3 s)."""

    def results(self, op: str, config: object, cases: list[object]) -> list[dict[str, Any]]:
        time.sleep(0.02)
        return super().results(op, config, cases)
