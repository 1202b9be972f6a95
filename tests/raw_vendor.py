"""Vendors of the raw stream and scaling for ``tablecert rng --raw --scaling``, run as a real
subprocess: ``python tests/raw_vendor.py MODE``, MODE one of

    good            the reference vendor's (PCG64 words, rejection, Fisher-Yates): must pass
    lcg             raw words from a 32-bit LCG's low bytes
    stuck           good words with bit 31 stuck at 1 in 1 word in 10^4
    stuck-N         the same, stuck in 1 word in N (a share a small deep collection catches)
    modulo-die      good words, the die scaled by w % 6
    float-die       good words, the die scaled by floor(u * 6), u = w / 2^32
    shuffle-one     good words, Fisher-Yates with w % 46 on one swap (rejection elsewhere)
    paired-other    rng.scale is exact, but the outcomes it pairs were scaled by multiply-shift
    width-W         a correct vendor of W-bit raw words (W = 8, 16, 64): PCG64 words, rejection on
                    W-bit words, Fisher-Yates; hello declares raw_bits W
    width-W-packed  the same, declaring packed answers (since 1.1) and giving them; it refuses a
                    die's or a range's every word 0..2^W - 1 asked as JSON lists (the sweep must ask packed)
    limit-high      good words, the die by rejection at 2^32 - 3 (one word too many accepted), dealt so too
    sattolo         good words, the shuffle by Sattolo's algorithm (no card stays put), dealt so too
    faces-1-6       good words, the die as 1 + (rejection, w mod 6): faces 1..6, dealt so too
    period-N        rng.raw repeats the same 2^N words (PCG64) over and over
    paired-xorshift rng.raw and rng.scale the reference's, but the dealt words come from xorshift32
    mt19937         a correct vendor on MT19937 words (raw and dealt: one stream), the reference's scaling

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

DEALT = {"limit-high": ("die", raw_scalers.as_scale(raw_scalers.limit_one_high)),
         "sattolo": ("shuffle", raw_scalers.as_scale(shuffle_step=raw_scalers.sattolo)),
         "faces-1-6": ("die", raw_scalers.as_scale(raw_scalers.faces_from_one(32)))}
"""Faulty scalers that rng.scale runs and rng.paired deals with (the kind they replace)."""


def xorshift32(seed: int, n: int) -> list[int]:
    """Marsaglia's xorshift32 (13, 17, 5): a linear generator of 32 bits of state."""
    out, x = [], seed or 1
    for _ in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out.append(x)
    return out


def exact_at(width: int) -> raw_scalers.Value:
    """Rejection to a multiple of k on ``width``-bit words, then w mod k (exact)."""
    top = 1 << width
    return lambda w, k: w % k if w < top - top % k else None


class RawVendor(ReferenceVendor):
    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode
        self.served = 0
        self.width = int(mode.split("-")[1]) if mode.startswith("width-") else 32

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        packed = {"packed": True} if self.mode.endswith("-packed") else {}
        return {**hello, "rng": {**hello["rng"], "raw_bits": self.width, **packed}}

    def results(self, op: str, config: object, cases: list[object]) -> list[dict[str, Any]]:
        if op == "rng.raw" and (self.mode == "lcg" or self.mode.startswith("stuck")):
            out = []
            for case in cases:
                n = case["words"]
                gen = raw_generators.lcg_low_bits if self.mode == "lcg" else raw_generators.stuck_bit if \
                    self.mode == "stuck" else raw_generators.stuck_bit_at(1 / int(self.mode.split("-")[1]))
                out.append({"words": outcomes.encode_words(gen(1 + self.served, n))})
                self.served += 1
            return out
        if self.mode == "mt19937" and op in ("rng.raw", "rng.paired"):
            return [self.mt19937(op, case) for case in cases]
        if op == "rng.raw" and self.mode.startswith("period-"):
            period = 1 << int(self.mode.split("-")[1])
            cycle = raw_generators.good(1, period)
            out = []
            for case in cases:
                at = self.served % period
                out.append({"words": outcomes.encode_words(np.resize(np.roll(cycle, -at), case["words"]))})
                self.served += case["words"]
            return out
        fault = DEALT.get(self.mode)
        if fault and op in ("rng.scale", "rng.paired") and cases[0]["kind"] == fault[0]:
            return [self.dealt_by(fault[1], op, case) for case in cases]
        if op == "rng.paired" and self.mode == "paired-xorshift":
            out = []
            for case in cases:
                self.served += 1
                pool = xorshift32(2463534242 + self.served, 128 * case["count"])
                got, used = raw_scalers.as_scale(raw_scalers.rejection, lambda w, k, swap: raw_scalers.rejection(w, k))(
                    case["kind"], case["n"], pool)
                got, used = got[:case["count"]], used[:case["count"]]
                out.append({"outcomes": got, "consumed": used, "words": outcomes.encode_words(np.array(pool[:sum(used)]))})
            return out
        if self.width != 32 and op in ("rng.raw", "rng.scale", "rng.paired"):
            return [self.at_width(op, case) for case in cases]
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

    def mt19937(self, op: str, case: dict[str, Any]) -> dict[str, Any]:
        """rng.raw and rng.paired from one MT19937 stream (numpy's, seeded 19937)."""
        if not hasattr(self, "mt"):
            self.mt = np.random.Generator(np.random.MT19937(19937))
        if op == "rng.raw":
            return {"words": outcomes.encode_words(self.mt.integers(0, 1 << 32, size=case["words"], dtype=np.uint32))}
        exact = raw_scalers.as_scale(raw_scalers.rejection, lambda w, k, swap: raw_scalers.rejection(w, k))
        pool = self.mt.integers(0, 1 << 32, size=64 * case["count"], dtype=np.uint32).tolist()
        got, used = exact(case["kind"], case["n"], pool)
        got, used = got[:case["count"]], used[:case["count"]]
        return {"outcomes": got, "consumed": used, "words": outcomes.encode_words(np.array(pool[:sum(used)]))}

    def dealt_by(self, scaler: Any, op: str, case: dict[str, Any]) -> dict[str, Any]:
        """rng.scale, or rng.paired dealing good words, through a faulty scaler."""
        if op == "rng.scale":
            got, used = scaler(case["kind"], case["n"], np.frombuffer(base64.b64decode(case["words"]), dtype=">u4").tolist())
            return {"outcomes": got, "consumed": used}
        self.served += 1
        pool = raw_generators.good(2_000_000 + self.served, 64 * case["count"]).tolist()
        got, used = scaler(case["kind"], case["n"], pool)
        got, used = got[:case["count"]], used[:case["count"]]
        return {"outcomes": got, "consumed": used, "words": outcomes.encode_words(np.array(pool[:sum(used)]))}

    def at_width(self, op: str, case: dict[str, Any]) -> dict[str, Any]:
        """The three raw ops on words of this vendor's width (big-endian, base64)."""
        dtype = raw_generators.DTYPES[self.width]
        exact = exact_at(self.width)
        scaler = raw_scalers.as_scale(exact, lambda w, k, swap: exact(w, k))
        if op == "rng.raw":
            self.served += 1
            return {"words": base64.b64encode(raw_generators.good_at(self.width, self.served, case["words"])
                                              .astype(dtype).tobytes()).decode()}
        if op == "rng.scale":
            words = np.frombuffer(base64.b64decode(case["words"]), dtype=dtype).tolist()
            got, used = scaler(case["kind"], case["n"], words)
            if self.mode.endswith("-packed") and case["kind"] != "shuffle":
                if case.get("packed") is True:
                    return {"outcomes": base64.b64encode(np.array(got, dtype=np.uint64).astype(dtype).tobytes()).decode(),
                            "consumed": base64.b64encode(np.array(used, dtype=np.uint64).astype(dtype).tobytes()).decode()}
                if words == list(range(1 << self.width)):
                    return {"error": {"code": "invalid_request", "message": "this vendor sweeps packed only"}}
            return {"outcomes": got, "consumed": used}
        self.served += 1
        pool = raw_generators.good_at(self.width, 1_000_000 + self.served, 128 * case["count"]).tolist()
        got, used = scaler(case["kind"], case["n"], pool)
        got, used = got[:case["count"]], used[:case["count"]]
        return {"outcomes": got, "consumed": used,
                "words": base64.b64encode(np.array(pool[:sum(used)], dtype=np.uint64).astype(dtype).tobytes()).decode()}


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout, RawVendor(sys.argv[1]))
