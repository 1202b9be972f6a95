"""A vendor process for the declared-capabilities tests: the reference oracle, except that it
refuses what its game does not offer, as an engine without those tables or bets would.

Usage: ``capability_vendor.py MODE [DECLARATION_JSON]``

* ``declare``: hello carries ``capabilities`` = DECLARATION_JSON; a craps table with a commission
  (when the declaration says ``commission: false``) or with a bar the declaration leaves out is
  answered ``invalid_config`` case by case, a bet it leaves out ``invalid_bet``.
* ``refuse-commission``: declares nothing (everything offered) but refuses every commission table
  as above.
* ``push-as-lose``: declares nothing and answers a craps settle push as a loss.
* ``refuse-dont``: declares nothing but answers every don't pass and don't come case
  ``invalid_bet``.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablecert.oracle.errors import ConfigError  # noqa: E402
from tablecert.oracle.table_config import parse_table_config  # noqa: E402
from tablecert.oracle.vendor import ReferenceVendor, error, serve  # noqa: E402


class CapabilityVendor(ReferenceVendor):
    def __init__(self, mode: str, declared: dict[str, Any] | None) -> None:
        self.mode, self.declared = mode, declared
        craps = (declared or {}).get("craps", {})
        self.commission = craps.get("commission", True) and mode != "refuse-commission"
        self.bars = craps.get("bar", [12, 2])
        self.bets = craps.get("bets", ["pass", "dont_pass", "come", "dont_come"])
        if mode == "refuse-dont":
            self.bets = ["pass", "come"]

    def hello(self) -> dict[str, Any]:
        answer = super().hello()
        if self.declared is not None:
            answer["capabilities"] = self.declared
        return answer

    def _refused(self, config: Any) -> bool:
        try:
            table = parse_table_config(config)
        except ConfigError:
            return False
        return (table.commission_rate != Fraction(0) and not self.commission) or table.bar not in self.bars

    def handle(self, request: object) -> dict[str, Any]:
        answer = super().handle(request)
        if not (isinstance(request, dict) and str(request.get("op", "")).startswith("craps.")
                and isinstance(answer.get("results"), list)):
            return answer
        if self._refused(request.get("config")):
            answer["results"] = [r if "error" in r and r["error"]["code"] in ("invalid_config", "invalid_request")
                                 else error("invalid_config", "this game offers no such table")
                                 for r in answer["results"]]
            return answer
        for i, case in enumerate(request["cases"]):
            result = answer["results"][i]
            if (isinstance(case, dict) and case.get("bet") not in self.bets and isinstance(case.get("bet"), str)
                    and not ("error" in result and result["error"]["code"] == "invalid_request")):
                answer["results"][i] = error("invalid_bet", "this game offers no such bet")
            elif self.mode == "push-as-lose" and request["op"] == "craps.settle" and result.get("outcome") == "push":
                answer["results"][i] = {**result, "outcome": "lose"}
        return answer


if __name__ == "__main__":
    mode = sys.argv[1]
    declared = json.loads(sys.argv[2]) if len(sys.argv) > 2 else None
    sys.exit(serve(sys.stdin, sys.stdout, CapabilityVendor(mode, declared)))
