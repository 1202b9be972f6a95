"""Vendors of the raw stream and scaling for ``tablecert rng --raw --scaling``, run as a real
subprocess: ``python tests/raw_vendor.py MODE``, MODE one of

    good            the reference vendor's (PCG64 words, rejection, Fisher-Yates): must pass
    lcg             raw words from a 32-bit LCG's low bytes
    stuck           good words with bit 31 stuck at 1 in 1 word in 10^4
    modulo-die      good words, the die scaled by w % 6
    float-die       good words, the die scaled by floor(u * 6), u = w / 2^32
    shuffle-one     good words, Fisher-Yates with w % 46 on one swap (rejection elsewhere)
    paired-other    rng.scale is exact, but the outcomes it pairs were scaled by multiply-shift

Everything else is the reference vendor's (hello, bye, the other ops).
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import raw_generators  # noqa: E402
import raw_scalers  # noqa: E402

from tablecert.oracle import outcomes  # noqa: E402
from tablecert.oracle.vendor import ReferenceVendor, serve  # noqa: E402

SCALERS = {"modulo-die": raw_scalers.as_scale(raw_scalers.modulo),
           "float-die": raw_scalers.as_scale(raw_scalers.floating),
           "shuffle-one": raw_scalers.as_scale(shuffle_step=raw_scalers.biased_on_swap(7))}


class RawVendor(ReferenceVendor):
    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode
        self.served = 0

    def results(self, op: str, config: object, cases: list[object]) -> list[dict[str, Any]]:
        if op == "rng.raw" and self.mode in ("lcg", "stuck"):
            out = []
            for case in cases:
                n = case["words"]
                gen = raw_generators.lcg_low_bits if self.mode == "lcg" else raw_generators.stuck_bit
                out.append({"words": outcomes.encode_words(gen(1 + self.served, n))})
                self.served += 1
            return out
        kind_scaler = SCALERS.get(self.mode)
        if op == "rng.scale" and kind_scaler and (cases[0]["kind"] == "shuffle") == (self.mode == "shuffle-one"):
            out = []
            for case in cases:
                words = np.frombuffer(base64.b64decode(case["words"]), dtype=">u4").tolist()
                got, used = kind_scaler(case["kind"], case["n"], words)
                out.append({"outcomes": got, "consumed": used})
            return out
        if op == "rng.paired" and self.mode == "paired-other" and cases[0]["kind"] == "die":
            out = []
            for case in cases:
                words = outcomes.words(case["count"])
                dealt = [(int(w) * 6) >> 32 for w in words]
                out.append({"outcomes": dealt, "consumed": [1] * len(dealt), "words": outcomes.encode_words(words)})
            return out
        return super().results(op, config, cases)


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout, RawVendor(sys.argv[1]))
