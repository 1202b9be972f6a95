"""A deep raw collection (``tablecert rng --raw BITS --raw-sequences N``): NIST SP 800-22's 15
tests on the first N sequences of 10^6 bits, the bit-position member on every word of BITS.

Issue #35's stuck bit in 1 word in 10^4 needs about 1.7 x 10^11 bits (run once, in
benchmarks/bench_rng_raw.py ``deep`` and docs/labs/rng.md); here the same mechanism on a share a
small deep collection catches: bit 31 stuck in 1 word in 150 (tests/raw_vendor.py ``stuck-150``).
At 10^7 bits (312,500 words) its count is shifted by sqrt(312,500) / 150 = 3.7 sigma, under the
5.0 sigma Holm's first step asks of 189 members and 32 positions; at 10^8 bits (3,125,000 words)
by 11.8 sigma.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import raw_generators as g
from pypdf import PdfReader
from waits import HANG

from tablecert.rng.bit_positions import BitPositions

VENDOR = Path(__file__).parent / "raw_vendor.py"


def run(out: Path, mode: str, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    done = subprocess.run([sys.executable, "-m", "tablecert", "rng", "--vendor-cmd", f"{sys.executable} {VENDOR} {mode}",
                           "--out", str(out), "--quiet", "--raw-repeat-words", "0", *extra], capture_output=True, text=True, timeout=HANG)
    summary = out / "raw-summary.json"
    return done, json.loads(summary.read_text()) if summary.exists() else {}


def stream_sha256(words: int, rate: float) -> str:
    """The sha256 of the vendor ``stuck-N``'s first ``words`` words, made as it makes them: one
    seed per ``rng.raw`` request (1, 2, ...), requests of the contract's 262,144 words at most."""
    digest = hashlib.sha256()
    for request, start in enumerate(range(0, words, 262_144), start=1):
        digest.update(g.stuck_bit(request, min(262_144, words - start), rate).astype(">u4").tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize("width", [8, 16, 32, 64])
def test_packed_counts_are_the_ones_at_each_position(width: int) -> None:
    """Counting the packed big-endian words gives, at position j (0: the most significant), the
    number of words whose bit width-1-j is set, as Python's integers say; in two parts or one."""
    values = [int(x) for x in np.random.Generator(np.random.PCG64(width)).integers(0, 1 << width, 1001, dtype=np.uint64)]
    values[:3] = [(1 << width) - 1, 0, 1 << (width - 1)]
    raw = b"".join(v.to_bytes(width // 8, "big") for v in values)
    counts = BitPositions(width)
    counts.add_packed(raw[:width // 8 * 500])
    counts.add_packed(raw[width // 8 * 500:])
    assert counts.words == 1001
    assert counts.ones.tolist() == [sum(v >> (width - 1 - j) & 1 for v in values) for j in range(width)]


def test_deep_collection_catches_what_the_same_tests_miss(tmp_path: Path) -> None:
    """The same vendor (bit stuck in 1 word in 150), the same 10 sequences through NIST's tests:
    at 10^7 bits the battery passes; with 10^8 bits counted by position it fails on the
    bit-position member alone, and the summary says what was tested on how much."""
    shallow, s = run(tmp_path / "shallow", "stuck-150", "--raw", "10000000")
    assert shallow.returncode == 0, shallow.stdout + shallow.stderr
    assert "depth" not in s["raw"] and s["raw"]["tests"][-1]["words"] == 312_500
    done, s = run(tmp_path / "deep", "stuck-150", "--raw", "100000000", "--raw-sequences", "10")
    assert done.returncode == 1, done.stdout + done.stderr
    raw = s["raw"]
    assert raw["rejected"] == ["raw.bit_positions.frequency"]
    assert (raw["bits"], raw["words"], raw["sequences"]) == (100_000_000, 3_125_000, 10)
    assert raw["depth"] == {"nist_sequences": 10, "nist_bits": 10_000_000,
                            "nist_on": "the first 10 sequences of 1,000,000 bits of the stream",
                            "bit_positions_words": 3_125_000, "bit_positions_bits": 100_000_000,
                            "bit_positions_on": "every word collected"}
    assert raw["sha256"] == stream_sha256(3_125_000, 1 / 150)                 # every word, tested or not
    positions = raw["tests"][-1]
    assert positions["words"] == 3_125_000 and positions["worst_position"] == 0 and positions["decision"] == "fail"
    assert max(t["sequences"] for t in raw["tests"][:-1] if "sequences" in t) == 10   # excursions: fewer apply
    assert "deep: NIST's 15 tests on the first 10 sequences" in done.stdout
    page1 = " ".join(PdfReader(str(tmp_path / "deep" / "rng-raw-report.pdf")).pages[0].extract_text().split())
    assert "NIST SP 800-22 rev. 1a on the first 10,000,000, the bit positions on all 100,000,000" in page1
    assert "A deep collection: NIST SP 800-22's 15 tests ran on the first 10 sequences" in page1
    assert "counted every one of the 3,125,000 words collected (100,000,000 bits)" in page1
    assert "more than this collection holds" in page1
    assert "The scaling and the pairing were not evaluated in this run" in page1


def test_a_deep_run_of_every_sequence_is_the_plain_run(tmp_path: Path) -> None:
    """A deep run of 10 sequences tested of 10 reads the same words as a plain run of that size
    (the vendor ``stuck-150`` is seeded: the same stream each session): the same sha256, and the
    packed count of every word gives the plain run's bit-position figures exactly."""
    _, plain = run(tmp_path / "plain", "stuck-150", "--raw", "10000000")
    _, deep = run(tmp_path / "deep", "stuck-150", "--raw", "10000000", "--raw-sequences", "10")
    assert deep["raw"]["sha256"] == plain["raw"]["sha256"]
    assert deep["raw"]["tests"] == plain["raw"]["tests"]          # the same words counted, the same P-values


@pytest.mark.parametrize("extra, words", [
    (["--raw", "10000000", "--raw-sequences", "0"], "--raw-sequences 0: must be from 10 to 10,"),
    (["--raw", "20500000", "--raw-sequences", "21"], "--raw-sequences 21: must be from 10 to 20, the whole sequences"),
    (["--raw-sequences", "100", "--scaling", "--tolerance", "x"], "--tolerance"),   # 10^8 bits by default: 100 fit
    (["--raw-sequences", "101", "--scaling"], "--raw-sequences 101: must be from 10 to 100"),
    (["--raw-sequences", "10"], "--raw-sequences needs --raw BITS"),
    (["--raw", "10000000", "--raw-repeat-words", "-1"], "--raw-repeat-words -1: must be 0 (the battery's words only) or more"),
    (["--rolls", "100"], "--raw-repeat-words needs --raw BITS"),     # run() passes --raw-repeat-words 0
])
def test_bad_raw_sequences_is_one_line(tmp_path: Path, extra: list[str], words: str) -> None:
    done, _ = run(tmp_path / "bad", "good", *extra)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and words in done.stderr, done.stderr
    assert not (tmp_path / "bad").exists()


def test_the_main_report_names_a_deep_raw_run_as_such(tmp_path: Path) -> None:
    """rng-report.pdf's page 1 (outcomes, with the raw run of the same folder) says the 15 tests ran
    on the first bits only."""
    out = tmp_path / "both"
    outcomes = subprocess.run([sys.executable, "-m", "tablecert", "rng", "--vendor-cmd", f"{sys.executable} {VENDOR} good",
                               "--out", str(out), "--rolls", "20000", "--decks", "1000", "--quiet"],
                              capture_output=True, text=True, timeout=HANG)
    assert outcomes.returncode == 0, outcomes.stderr
    done, _ = run(out, "stuck-150", "--raw", "20000000", "--raw-sequences", "10")
    assert done.returncode == 1, done.stdout + done.stderr          # 625,000 words: shifted by 5.3 sigma, caught
    page1 = " ".join(PdfReader(str(out / "rng-report.pdf")).pages[0].extract_text().split())
    assert "raw stream and scaling: FAIL" in page1
    assert ("20,000,000 raw bits of 32-bit words, a deep collection: NIST SP 800-22's 15 tests on the first "
            "10,000,000, the bit-position test on all of them") in page1
