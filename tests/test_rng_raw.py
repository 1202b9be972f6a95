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
                           "--raw", "10000000", "--raw-repeat-words", "0", "--scaling", "--pairs", "2000", "--quiet", *extra],
                          capture_output=True, text=True, timeout=HANG)
    return done, read_summary(out)


def read_summary(out: Path) -> dict:
    summary = out / "raw-summary.json"
    return json.loads(summary.read_text()) if summary.exists() else {}


def test_reference_vendor_passes(tmp_path: Path) -> None:
    done, s = run_raw(tmp_path / "good", "good")
    assert done.returncode == 0, done.stdout + done.stderr
    assert s["verdict"] == "pass" and s["raw"]["sequences"] == 10 and len(s["raw"]["sha256"]) == 64
    assert [(x["kind"], x["n"], x["max_deviation"]) for x in s["scaling"]] == [("die", 6, "0"), ("shuffle", 53, "0"),
                                                                             ("range", 100, "0")]
    text = "\n".join(page.extract_text() for page in PdfReader(str(tmp_path / "good" / "rng-raw-report.pdf")).pages)
    assert "What remains for source review" in text and "seeding" in text and "rng.scale runs" in text
    assert s["paired_stream"]["decision"] == "pass" and not s["paired_stream"]["rejected"]
    assert next(t for t in s["raw"]["tests"] if t["test"] == "repeats")["period"] == 0


def test_lcg_low_bits_fail_the_raw_battery(tmp_path: Path) -> None:
    done, s = run_raw(tmp_path / "lcg", "lcg")
    assert done.returncode == 1 and s["raw"]["rejected"]
    assert "raw.rank.proportion" in s["raw"]["rejected"]


@pytest.mark.parametrize("mode, deviation", [("modulo-die", Fraction(2, 3 * T)), ("float-die", Fraction(2, 3 * T))])
def test_biased_die_scaling_fails_with_its_exact_deviation(tmp_path: Path, mode: str, deviation: Fraction) -> None:
    """w % 6 and floor(u * 6) on 32-bit words: faces short of 1/6 by 4 / (6 * 2^32) (worked out in
    tests/test_rng_scaling.py); the raw words are good, so only the scaling fails. The same scaler
    on the default range, 100: 2^32 = 100 * 42,949,672 + 96, so 4 outcomes have 42,949,672 words,
    short of 2^32 / 100 by 96/100: a deviation of 96 / (100 * 2^32) = 24 / (25 * 2^32)."""
    done, s = run_raw(tmp_path / mode, mode)
    assert done.returncode == 1
    die, _, hundred = s["scaling"]
    assert die["decision"] == "fail" and Fraction(die["max_deviation"]) == deviation
    assert hundred["n"] == 100 and Fraction(hundred["max_deviation"]) == Fraction(24, 25 * T)
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


def test_the_main_rng_report_names_the_raw_report_on_page_1(tmp_path: Path) -> None:
    """Outcomes first, then the raw stream into the same folder: page 1 of rng-report.pdf says where
    the raw report is and what it concluded; before the raw run, that it was not evaluated."""
    out = tmp_path / "both"
    cmd = f"{sys.executable} {VENDOR} modulo-die"
    outcomes = subprocess.run([sys.executable, "-m", "tablecert", "rng", "--vendor-cmd", cmd, "--out", str(out),
                               "--rolls", "20000", "--decks", "1000", "--quiet"], capture_output=True, text=True, timeout=HANG)
    assert outcomes.returncode == 0, outcomes.stderr
    page1 = PdfReader(str(out / "rng-report.pdf")).pages[0].extract_text()
    assert "Not evaluated in this folder" in " ".join(page1.split())
    done, s = run_raw(out, "modulo-die")
    assert done.returncode == 1 and "rng-report.pdf, which names it on page 1" in done.stdout
    page1 = " ".join(PdfReader(str(out / "rng-report.pdf")).pages[0].extract_text().split())
    assert "FAIL, in rng-raw-report.pdf of this folder" in page1
    assert "raw stream and scaling: FAIL" in page1 and "PASS" not in page1.split("outcomes:")[0]   # the banner
    assert f"die (6) scaling largest deviation {Fraction(2, 3 * T)}, fail" in page1
    assert s["raw"]["sha256"][:16] in page1
