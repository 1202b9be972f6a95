"""``tablecert rng`` end to end: real vendor subprocesses (tests/rng_vendor.py and the reference
vendor), the files it writes, the PDF read back, exit statuses, and vendor faults named in one line."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from tablecert.reports.rng_report import render_report
from waits import HANG

VENDOR = Path(__file__).parent / "rng_vendor.py"
SMALL = ("--rolls", "20000", "--decks", "1000", "--quiet")


def run_rng(out: Path, *vendor_args: str, extra: tuple[str, ...] = SMALL) -> subprocess.CompletedProcess:
    cmd = " ".join([sys.executable, str(VENDOR), *vendor_args])
    return subprocess.run([sys.executable, "-m", "tablecert", "rng", "--vendor-cmd", cmd, "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=HANG)


def pdf_text(path: Path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(str(path)).pages)


def test_a_fair_vendor_passes_and_everything_is_written(tmp_path):
    out = tmp_path / "run"
    done = run_rng(out, "fair", "3")
    assert done.returncode == 0, done.stderr
    assert "verdict: PASS  62 tests, 0 rejected" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "pass" and summary["samples"] == {"rolls": 20000, "decks": 1000}
    dice = (out / "dice.txt").read_bytes()
    assert len(dice) == 40000 and set(dice) == set(b"123456")
    decks = (out / "decks.txt").read_bytes()
    assert len(decks.splitlines()) == 1000 and len(decks) == 1000 * 107
    assert summary["outcomes"]["dice.txt"]["sha256"] == hashlib.sha256(dice).hexdigest()
    assert summary["outcomes"]["decks.txt"]["sha256"] == hashlib.sha256(decks).hexdigest()
    pdf = out / "rng-report.pdf"
    text = pdf_text(pdf)
    for needed in ("PASS", "decks.card_position", "dice.serial_corr_8", "Holm-Bonferroni",
                   summary["outcomes"]["dice.txt"]["sha256"], "What these statistics cannot show", "GLI-11",
                   "What this sample would have caught", "Power of each test"):
        assert needed in text
    # Every test states the bias it would have caught; the first page names the ones that ship.
    assert all(t["power"]["words"] for t in summary["tests"]) and "GLI-19" in summary["limits"]
    headline = {h["id"]: h["words"] for h in summary["power"]["headline"]}
    assert headline["decks.joker_seat_1"].startswith("the joker moved into the first seven cards (seat 1) in at least")
    # The report is a function of summary.json: rendered again, the same bytes.
    assert render_report(summary) == pdf.read_bytes()


def test_a_vendor_that_cuts_instead_of_shuffling_fails(tmp_path):
    out = tmp_path / "run"
    done = run_rng(out, "biased", "decks_cut_sometimes", "4", extra=("--rolls", "0", "--decks", "5000", "--quiet"))
    assert done.returncode == 1, done.stderr
    assert "rejected decks.cut_check" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "fail" and "decks.cut_check" in summary["failed"]
    assert summary["samples"]["rolls"] == 0 and (out / "dice.txt").read_bytes() == b""
    text = pdf_text(out / "rng-report.pdf")
    assert "FAIL" in text and "REJECT" in text


@pytest.mark.parametrize("mode, message", [
    ("short", "vendor fault (malformed): rng.dice request 1: 39,999 digits for 20,000 rolls"),
    ("badchar", "rng.dice request 1: character 11 is '7', not a die face 1-6"),
    ("dupcard", "rng.shuffle request 1 deck 3: missing 2d; held twice 2c"),
    ("badcode", "rng.shuffle request 1 deck 2: position 1 is 'XX', not a card code"),
    ("refuse", "rng.shuffle request 1: refused a valid count"),
    ("norng", "the vendor does not offer rng.dice"),
])
def test_vendor_faults_are_named_in_one_line_with_status_2(tmp_path, mode, message):
    done = run_rng(tmp_path / "run", mode)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in done.stderr


def test_detect_collects_the_sample_it_computed(tmp_path):
    out = tmp_path / "run"
    done = run_rng(out, "fair", "5", extra=("--rolls", "0", "--detect", "joker=5%", "--quiet"))
    assert done.returncode in (0, 1), done.stderr
    assert "--detect joker=5%: 3,000 decks catch it with 99% power" in done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["samples"] == {"rolls": 0, "decks": 3000}
    (seat1,) = [t for t in summary["tests"] if t["id"] == "decks.joker_seat_1"]
    assert seat1["power"]["bias"] <= 0.05


@pytest.mark.parametrize("args, message", [
    (("--rolls", "20000", "--detect", "face=1%"), "by --rolls/--decks or by --detect, not both"),
    (("--detect", "dice=1%"), "KIND one of face"),
    (("--rolls", "5"), "--rolls must be 0 or at least 20,000"),
    (("--decks", "10"), "--decks must be 0 or at least 1,000"),
    (("--rolls", "0", "--decks", "0"), "nothing to evaluate"),
])
def test_bad_sizes_are_one_line_status_2(tmp_path, args, message):
    done = run_rng(tmp_path / "run", "fair", "1", extra=(*args, "--quiet"))
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_reference_vendor_works_out_of_the_box(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "tablecert", "rng", "--vendor-cmd",
                           f"{sys.executable} -m tablecert reference-vendor", "--out", str(out), *SMALL],
                          capture_output=True, text=True, timeout=HANG)
    # Unseeded (os.urandom): a correct generator passes except at the plan's rate of 1%.
    assert done.returncode in (0, 1), done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["vendor"]["name"] == "tablecert reference oracle" and len(summary["tests"]) == 62
