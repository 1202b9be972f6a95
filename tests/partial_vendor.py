"""A partial implementation (issue 53): the reference vendor declaring only the craps ops, as a
vendor that has not written its pai gow ops yet would."""

from __future__ import annotations

from typing import Any

from tablecert.oracle.vendor import ReferenceVendor


class CrapsOnly(ReferenceVendor):
    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        return {**hello, "ops": [op for op in hello["ops"] if op.startswith("craps.")]}
