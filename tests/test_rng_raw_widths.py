"""Raw words of every width the contract allows (8, 16, 32, 64 bits): unpacked most significant bit
first, hashed as sent, tested by word position at their own width, and the scaling analysed on
them; end to end against vendors declaring 8, 16 and 64 (tests/raw_vendor.py width-W)."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import raw_generators as g
import raw_scalers
import raw_vendor

from tablecert.rng.raw_collect import MAX_WORDS, RngDeclaration, collect_raw
from tablecert.rng.scale_analysis import analyse
from waits import HANG

VENDOR = Path(__file__).parent / "raw_vendor.py"


class WordsSession:
    """``rng.raw`` from a list of words (Python ints), big-endian at ``width`` bits."""

    def __init__(self, words: list[int], width: int) -> None:
        self.words, self.width, self.at = words, width, 0

    def batch(self, op: str, config: dict, cases: list[dict]) -> list[dict]:
        n = cases[0]["words"]
        chunk = self.words[self.at:self.at + n]
        self.at += n
        raw = b"".join(w.to_bytes(self.width // 8, "big") for w in chunk)
        return [{"words": base64.b64encode(raw).decode()}]


@pytest.mark.parametrize("width", [8, 16, 32, 64])
def test_words_are_unpacked_most_significant_bit_first(width: int) -> None:
    """Each word's bits as ``format(w, '0Wb')`` writes them, word after word, cut into sequences
    of 3 words; the sha256 is that of the words' big-endian bytes."""
    rng = np.random.Generator(np.random.PCG64(width))
    words = [int(w) for w in rng.integers(0, 1 << width, size=12, dtype=np.uint64)] + [1, (1 << width) - 2]
    seen: list[str] = []
    record = collect_raw(WordsSession(words, width), RngDeclaration(width, ""), len(words) * width, 3 * width,
                         lambda bits: seen.append("".join(map(str, bits.tolist()))))
    text = "".join(format(w, f"0{width}b") for w in words)
    assert seen == [text[i:i + 3 * width] for i in range(0, 12 * width, 3 * width)]       # the last 2 words: no whole sequence
    assert record.sha256 == hashlib.sha256(b"".join(w.to_bytes(width // 8, "big") for w in words)).hexdigest()
    assert record.words == 14 and record.sequences == 4


@pytest.mark.parametrize("width, deviation", [(8, Fraction(1, 384)), (16, Fraction(1, 98_304))])
def test_modulo_die_on_narrow_words(width: int, deviation: Fraction) -> None:
    """w % 6 on 8-bit words: 256 = 6 * 42 + 4, faces 0..3 have 43 words and faces 4, 5 have 42,
    furthest from 1/6: 1/6 - 42/256 = 4/1,536 = 1/384; on 16-bit words 65,536 = 6 * 10,922 + 4,
    1/6 - 10,922/65,536 = 4/393,216 = 1/98,304. Every word is sent."""
    result = analyse(raw_scalers.as_scale(raw_scalers.modulo), "die", 6, width)
    assert result["decision"] == "fail" and Fraction(result["max_deviation"]) == deviation
    assert result["models"] == [f"every one of the 2^{width} words sent"]


@pytest.mark.parametrize("width", [8, 16, 64])
def test_exact_shuffle_at_every_width(width: int) -> None:
    """Rejection then w mod k on W-bit words, Fisher-Yates: every card at every position 1/53."""
    exact = raw_vendor.exact_at(width)
    result = analyse(raw_scalers.as_scale(exact, lambda w, k, swap: exact(w, k)), "shuffle", 53, width)
    assert result["decision"] == "pass" and result["max_deviation"] == "0", result.get("reason")
    assert result["structure"] == "Fisher-Yates from the top"


def served_words(width: int, total: int) -> bytes:
    """The bytes the width-W vendor streams: request i (from 1) is PCG64(i)'s words, requests of at
    most MAX_WORDS words, as the harness asks them."""
    out, i, left = [], 0, total
    while left:
        i += 1
        n = min(MAX_WORDS, left)
        out.append(g.good_at(width, i, n).astype(g.DTYPES[width]).tobytes())
        left -= n
    return b"".join(out)


@pytest.mark.parametrize("width", [8, 16, 64])
def test_vendor_of_each_width_end_to_end(tmp_path: Path, width: int) -> None:
    cmd = f"{sys.executable} {VENDOR} width-{width}"
    done = subprocess.run([sys.executable, "-m", "tablecert", "rng", "--vendor-cmd", cmd, "--out", str(tmp_path),
                           "--raw", "10000000", "--raw-repeat-words", "0", "--scaling", "--pairs", "500", "--quiet"],
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr
    s = json.loads((tmp_path / "raw-summary.json").read_text())
    words = 10_000_000 // width
    assert s["declaration"]["raw_bits"] == width and s["raw"]["words"] == words and s["raw"]["sequences"] == 10
    assert s["raw"]["sha256"] == hashlib.sha256(served_words(width, words)).hexdigest()
    positions = s["raw"]["tests"][-1]
    assert positions["test"] == "bit_positions" and positions["positions"] == width and positions["words"] == words
    assert [(x["kind"], x["n"], x["max_deviation"]) for x in s["scaling"]] == [("die", 6, "0"), ("shuffle", 53, "0"),
                                                                             ("range", 100, "0")]
    assert [(x["kind"], x["decision"]) for x in s["pairing"]] == [("die", "pass"), ("shuffle", "pass"), ("range", "pass")]
