"""A vendor of random outcomes for the ``tablecert rng`` tests, run as a real subprocess:

    python tests/rng_vendor.py fair SEED          a correct, seeded generator (deterministic outcomes)
    python tests/rng_vendor.py biased NAME SEED   a generator of tests/rng_generators.py by function name
    python tests/rng_vendor.py FAULT              short | badchar | dupcard | badcode | refuse | norng

Everything else is the reference vendor's (hello, bye, the wager ops).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import rng_generators  # noqa: E402

from tablecert.oracle.outcomes import CARD_CODES, case_count  # noqa: E402
from tablecert.oracle.vendor import ReferenceVendor, serve  # noqa: E402


class RngVendor(ReferenceVendor):
    def __init__(self, mode: str, args: list[str]) -> None:
        self.mode = mode
        seed = int(args[-1]) if args and args[-1].isdigit() else 1
        self.rng = np.random.default_rng(seed)
        self.dice_gen = self.deck_gen = None
        if mode == "biased":
            gen = getattr(rng_generators, args[0])
            self.dice_gen = gen if args[0].startswith("dice_") else None
            self.deck_gen = gen if args[0].startswith("decks_") else None

    def hello(self) -> dict[str, Any]:
        answer = super().hello()
        if self.mode == "norng":
            answer["ops"] = [op for op in answer["ops"] if not op.startswith("rng.")]
        return answer

    def handle(self, request: object) -> dict[str, Any]:
        if not isinstance(request, dict) or request.get("op") not in ("rng.dice", "rng.shuffle"):
            return super().handle(request)
        op, rid = request["op"], request["id"]
        results = []
        for case in request["cases"]:
            n = case_count(op, case)
            if self.mode == "refuse" and op == "rng.shuffle":
                results.append({"error": {"code": "invalid_count", "message": "no"}})
            elif op == "rng.dice":
                faces = (self.dice_gen or rng_generators.fair_dice)(self.rng, n)
                text = (faces.astype(np.uint8) + ord("1")).tobytes().decode("ascii")
                if self.mode == "short":
                    text = text[:-1]
                if self.mode == "badchar":
                    text = text[:10] + "7" + text[11:]
                results.append({"dice": text})
            else:
                decks = (self.deck_gen or rng_generators.fair_decks)(self.rng, n)
                if self.mode == "dupcard":
                    decks[2][decks[2] == 1] = 0          # deck 3: 2d replaced by a second 2c
                texts = ["".join(row) for row in CARD_CODES[decks].tolist()]
                if self.mode == "badcode":
                    texts[1] = "XX" + texts[1][2:]
                results.append({"decks": texts})
        return {"id": rid, "results": results}


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout, RngVendor(sys.argv[1], sys.argv[2:]))
