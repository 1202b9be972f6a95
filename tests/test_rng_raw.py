"""``tablecert rng --raw --scaling`` end to end against vendors run as subprocesses
(tests/raw_vendor.py): the reference vendor passes; each fault of issue #35 fails where it should."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from pypdf import PdfReader
from waits import HANG

VENDOR = Path(__file__).parent / "raw_vendor.py"
T = 1 << 32


def run_raw(out: Path, mode: str, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    cmd = f"{sys.executable} {VENDOR} {mode}"
    done = subprocess.run([sys.executable, "-m", "tablecert", "rng", "--vendor-cmd", cmd, "--out", str(out),
                           "--raw", "10000000", "--scaling", "--pairs", "2000", "--quiet", *extra],
                          capture_output=True, text=True, timeout=HANG)
    summary = out / "raw-summary.json"
    return done, json.loads(summary.read_text()) if summary.exists() else {}


def test_reference_vendor_passes(tmp_path: Path) -> None:
    done, s = run_raw(tmp_path / "good", "good")
    assert done.returncode == 0, done.stdout + done.stderr
    assert s["verdict"] == "pass" and s["raw"]["sequences"] == 10 and len(s["raw"]["sha256"]) == 64
    assert [x["max_deviation"] for x in s["scaling"]] == ["0", "0"]
    text = "\n".join(page.extract_text() for page in PdfReader(str(tmp_path / "good" / "rng-raw-report.pdf")).pages)
    assert "What remains for source review" in text and "seeding" in text and "rng.scale runs" in text


def test_lcg_low_bits_fail_the_raw_battery(tmp_path: Path) -> None:
    done, s = run_raw(tmp_path / "lcg", "lcg")
    assert done.returncode == 1 and s["raw"]["rejected"]
    assert "raw.rank.proportion" in s["raw"]["rejected"]


@pytest.mark.parametrize("mode, deviation", [("modulo-die", Fraction(2, 3 * T)), ("float-die", Fraction(2, 3 * T))])
def test_biased_die_scaling_fails_with_its_exact_deviation(tmp_path: Path, mode: str, deviation: Fraction) -> None:
    """w % 6 and floor(u * 6) on 32-bit words: faces short of 1/6 by 4 / (6 * 2^32) (worked out in
    tests/test_rng_scaling.py); the raw words are good, so only the scaling fails."""
    done, s = run_raw(tmp_path / mode, mode)
    assert done.returncode == 1
    die = s["scaling"][0]
    assert die["decision"] == "fail" and Fraction(die["max_deviation"]) == deviation
    assert not s["raw"]["rejected"] and s["scaling"][1]["decision"] == "pass"


def test_shuffle_modulo_bias_on_one_position(tmp_path: Path) -> None:
    done, s = run_raw(tmp_path / "one", "shuffle-one")
    assert done.returncode == 1
    assert s["scaling"][1]["biased_swaps"] == [8] and s["scaling"][0]["decision"] == "pass"


def test_paired_outcomes_scaled_by_another_function(tmp_path: Path) -> None:
    done, s = run_raw(tmp_path / "paired", "paired-other")
    assert done.returncode == 1
    die = s["pairing"][0]
    assert die["decision"] == "fail" and die["mismatches"] > 1000 and "rng.scale" in die["first_mismatch"]
    assert all(x["decision"] == "pass" for x in s["scaling"])


def test_bad_tolerance_is_one_line(tmp_path: Path) -> None:
    done, _ = run_raw(tmp_path / "bad", "good", "--tolerance", "a lot")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--tolerance" in done.stderr
