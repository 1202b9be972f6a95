"""``tablecert rng --raw --scaling`` end to end against the held-out faults of issue #51
(tests/raw_vendor.py): each fails with its figure and a true example on page 1 of the raw report;
the expected figures are worked out by hand in tests/test_rng_scaling_faults.py and here."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from pypdf import PdfReader
from test_rng_raw import run_raw

T = 1 << 32


def page1(out: Path) -> str:
    return " ".join(PdfReader(str(out / "rng-raw-report.pdf")).pages[0].extract_text().split())


def test_limit_one_too_high(tmp_path: Path) -> None:
    """Rejection at 2^32 - 3: face 0 has 715,827,883 of the 4,294,967,293 words accepted, off
    1/6 by 5 / (6 (2^32 - 3)); word 2^32 - 4 = 6 x 715,827,882 gives 0 and a correct scaler refuses it."""
    done, s = run_raw(tmp_path / "limit-high", "limit-high")
    assert done.returncode == 1, done.stderr
    die = s["scaling"][0]
    assert Fraction(die["max_deviation"]) == Fraction(5, 6 * (T - 3)) and die["example"]["word"] == T - 4
    assert all(x["decision"] == "pass" for x in s["pairing"])
    text = page1(tmp_path / "limit-high")
    assert "The die is biased" in text and "Smallest example: word 4,294,967,292 (2^32 - 4) gives 0" in text
    assert "returns nothing: it refuses the word" in text


def test_sattolo(tmp_path: Path) -> None:
    """Sattolo's algorithm: no card at its own position (0 where 1/53 is due)."""
    done, s = run_raw(tmp_path / "sattolo", "sattolo")
    assert done.returncode == 1, done.stderr
    shuffle = s["scaling"][1]
    assert "Sattolo" in shuffle["structure"] and Fraction(shuffle["max_deviation"]) == Fraction(1, 53)
    text = page1(tmp_path / "sattolo")
    assert "The shuffle of 53 cards is biased" in text and "with probability 0 where a correct shuffle" in text


def test_faces_one_to_six(tmp_path: Path) -> None:
    """Faces 1..6: no traceback; the scaling fails quoting a word that gave 6, the estimate puts
    1/6 of outcomes outside 0..5, and the dealt outcomes of 6 are counted outside too."""
    done, s = run_raw(tmp_path / "faces", "faces-1-6")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    die = s["scaling"][0]
    assert not die["proved"] and "gave 6, outside the outcomes 0..5" in die["reason"]
    assert 0.16 < die["estimate"]["outside_share"] < 0.17
    assert s["pairing"][0]["outside"] > 0 and "dealt 6" in s["pairing"][0]["first_outside"]
    assert "not proved" in page1(tmp_path / "faces")


def test_stream_repeating(tmp_path: Path) -> None:
    """rng.raw repeats every 2^17 words: 10^7 bits are 312,500 words, 312,499 windows, of which
    312,499 - 131,072 = 181,427 repeat."""
    done, s = run_raw(tmp_path / "period", "period-17")
    assert done.returncode == 1, done.stderr
    assert "raw.repeats.window" in s["raw"]["rejected"]
    row = next(t for t in s["raw"]["tests"] if t["test"] == "repeats")
    assert row["period"] == 1 << 17 and row["repeated_windows"] == 312_499 - (1 << 17)
    assert "The stream repeats after 131,072 words" in page1(tmp_path / "period")
    assert "repeats: 312,500 words seen (0 past the battery's), the stream repeats after 131,072 words" in done.stdout


def test_dealt_words_from_another_generator(tmp_path: Path) -> None:
    """rng.raw the reference's PCG64, rng.scale the reference's; the dealt words xorshift32's:
    every pair checks against rng.scale, the dealt stream fails (matrix rank)."""
    done, s = run_raw(tmp_path / "xorshift", "paired-xorshift")
    assert done.returncode == 1, done.stderr
    assert not s["raw"]["rejected"] and all(x["decision"] == "pass" for x in s["pairing"])
    assert s["paired_stream"]["decision"] == "fail" and "paired.rank" in s["paired_stream"]["rejected"]
    text = page1(tmp_path / "xorshift")
    assert "The words the game dealt from are not those of a fair generator" in text
    assert "the game does not deal from the stream tested above" in text


def test_mt19937_passes(tmp_path: Path) -> None:
    """MT19937 words, raw and dealt from one stream, scaled by rejection: PASS on every part."""
    done, s = run_raw(tmp_path / "mt", "mt19937")
    assert done.returncode == 0, done.stdout + done.stderr
    assert s["verdict"] == "pass" and s["paired_stream"]["decision"] == "pass"
    assert [x["max_deviation"] for x in s["scaling"]] == ["0", "0", "0"]
