"""Vendor text is data everywhere (issue 32): generated hostile strings through each medium's
escaping (:mod:`tablecert.harness.vendor_text`), and a real run of a vendor whose answers carry
them: the terminal never receives a control character from it, junit.xml always parses, the PDFs
render and read back with the text shown escaped, ``sandbox-check`` prints a vendor's stderr
escaped."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hostile_text_vendor import HOSTILE
from tablecert.harness.vendor_text import for_pdf, for_terminal, for_xml, pdf_visible
from waits import HANG

TESTS = Path(__file__).parent
FRAGMENTS = ["\x1b[2J", "\x1b[1;32mverdict: PASS\x1b[0m", "\r", "\x1b]8;;http://x\x07", "\x9b31m", "<b>", "</para>",
             "<font size=40>", "&", "&amp;", "&#0;", "]]>", '"', "'", "\\", "\u202e", "\ufffe", "\uffff", "\udc80",
             "\ud800", "\x00", "\x7f", "\x85", "\u2028", "\U0001f600"]
ANY_CHAR = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=())
HOSTILE_TEXT = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(ANY_CHAR, max_size=8)), max_size=12).map("".join)
BULLET = "\n\x7f "
"""How pypdf reads back ReportLab's list bullet (a glyph of the report, not vendor text)."""
MEGABYTE = ("\x1b[2J<b>&\x00\udc80\u202e" * 90_000)[:1 << 20]


def acts_on_a_terminal(ch: str) -> bool:
    """A character that is not shown as itself by a terminal: C0 and C1 controls, DEL, format and
    separator characters (bidi overrides, line separators), surrogates, unassigned code points."""
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


@settings(max_examples=400, deadline=None)
@given(HOSTILE_TEXT, st.integers(1, 200))
def test_the_terminal_never_receives_a_control_character(text: str, limit: int) -> None:
    shown = for_terminal(text, limit)
    assert not [ch for ch in shown if acts_on_a_terminal(ch)], shown
    shown.encode("utf-8")                                     # a lone surrogate cannot reach the terminal either
    assert len(shown) <= limit * 10 + 40                        # every character at most \UXXXXXXXX, and the note


def xml_document(text: str) -> ET.Element:
    value = for_xml(text)
    return ET.fromstring(f'<testcase name="{value}"><failure message="{value}">{value}</failure></testcase>')


@settings(max_examples=400, deadline=None)
@given(HOSTILE_TEXT)
def test_junit_xml_always_parses_and_holds_the_text_escaped(text: str) -> None:
    root = xml_document(text)
    (failure,) = list(root)
    assert not list(failure)                                  # vendor text never made an element
    assert root.get("name") == failure.get("message")
    shown = failure.text or ""
    assert not [ch for ch in shown if acts_on_a_terminal(ch) and ch not in "\n\t"]
    if all(ch.isprintable() or ch in " \n\t" for ch in text):
        assert shown == text                                  # nothing to escape: the text itself


def pdf_text(markup: str) -> str:
    from pypdf import PdfReader
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    out = io.BytesIO()
    SimpleDocTemplate(out, invariant=1).build([Paragraph(markup, getSampleStyleSheet()["BodyText"])])
    return "".join(page.extract_text() for page in PdfReader(out).pages)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOSTILE_TEXT)
def test_a_pdf_paragraph_of_vendor_text_renders_and_reads_back_escaped(text: str) -> None:
    read = re.sub(r"\s+", "", pdf_text(for_pdf(text)))
    assert read == re.sub(r"\s+", "", pdf_visible(text))


def test_a_megabyte_of_hostile_text_in_every_medium() -> None:
    shown = for_terminal(MEGABYTE, 4000)
    assert not [ch for ch in shown if acts_on_a_terminal(ch)] and "more characters" in shown
    assert not list(list(xml_document(MEGABYTE))[0])
    assert not list(ET.fromstring(f"<para>{for_pdf(MEGABYTE)}</para>"))      # paragraph markup: no element added
    assert "<b>" in pdf_text(for_pdf(MEGABYTE[:20_000]))


# -- a real run --------------------------------------------------------------------------------------
def controls(data: bytes) -> list[str]:
    """The control characters of a program's output but its line feeds."""
    return sorted({repr(ch) for ch in data.decode("utf-8") if acts_on_a_terminal(ch) and ch != "\n"})


@pytest.fixture(scope="module")
def hostile_run(edge: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[bytes]]:
    out = tmp_path_factory.mktemp("hostile") / "run"
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-plugin",
                           "hostile_text_vendor:HostileText", "--suite", "edge", "--suite-dir", str(edge), "--out",
                           str(out), "--no-suite-cache"], capture_output=True, timeout=HANG,
                          env={**os.environ, "PYTHONPATH": str(TESTS)})
    assert done.returncode == 1, done.stderr[-2000:]
    return out, done


def test_the_terminal_shows_a_run_of_hostile_answers_escaped(hostile_run: tuple[Path, Any]) -> None:
    _out, done = hostile_run
    assert controls(done.stdout) == [] and controls(done.stderr) == []
    text = done.stdout.decode("utf-8")
    verdicts = [line for line in text.splitlines() if "verdict:" in line and not line.startswith("  ")]
    assert len(verdicts) == 1 and verdicts[0].startswith("verdict: FAIL"), verdicts
    assert "\\x1b[1;32mverdict: PASS\\x1b[0m" in text                # the vendor's text, shown as data


def test_junit_xml_of_hostile_answers_parses(hostile_run: tuple[Path, Any]) -> None:
    out, _done = hostile_run
    root = ET.parse(out / "junit.xml").getroot()
    messages = " ".join(el.get("message") or "" for el in root.iter()) + " ".join(el.text or "" for el in root.iter())
    assert "\\x1b[1;32mverdict: PASS" in messages and "<b>bold</b>" in messages
    assert not [ch for ch in messages if acts_on_a_terminal(ch) and ch not in "\n\t"]


@pytest.mark.parametrize("pdf", ["certificate.pdf", "findings.pdf"])
def test_the_pdfs_of_hostile_answers_read_back_escaped(hostile_run: tuple[Path, Any], pdf: str) -> None:
    from pypdf import PdfReader

    out, _done = hostile_run
    read = "".join(page.extract_text() for page in PdfReader(out / pdf).pages).replace(BULLET, "")
    text = re.sub(r"\s+", "", read)
    if pdf == "findings.pdf":
        assert "\\u001b[1;32mverdict:PASS\\u001b[0m<b>bold</b>&amp;</para><fontsize=40>BIG</font>" in text
        assert "\\udc80" in text
    assert not [ch for ch in text if acts_on_a_terminal(ch)]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert any(HOSTILE in cause["cause"] for cause in summary["causes"]["causes"])     # summary.json: the text as is


def test_sandbox_check_prints_a_vendors_stderr_escaped(tmp_path: Path) -> None:
    vendor = tmp_path / "vendor.sh"
    vendor.write_text("#!/bin/sh\nprintf '\\033[2J\\033[1;32mgreeted: PASS\\033[0m\\007 \\302\\233 \\342\\200\\256' >&2\n"
                      "exit 3\n")
    vendor.chmod(0o755)
    done = subprocess.run([sys.executable, "-m", "tablecert", "sandbox-check", "--vendor-cmd", str(vendor),
                           "--isolation", "none"], capture_output=True, timeout=HANG)
    assert done.returncode == 2, done.stderr
    assert controls(done.stdout) == [] and controls(done.stderr) == []
    assert "\\x1b[1;32mgreeted: PASS\\x1b[0m\\x07 \\x9b \\u202e" in done.stdout.decode("utf-8")


def test_the_fuzz_findings_pdf_shows_hostile_vendor_text_escaped() -> None:
    from pypdf import PdfReader

    from tablecert.fuzz.findings import findings_pdf

    failure = {"id": 1, "signature": HOSTILE, "config": {}, "case": {}, "expected": {"result": 1},
               "actual": {"x": HOSTILE}, "vector_file": "v.jsonl", "divergence": HOSTILE}
    data = {"vendor": {"name": HOSTILE, "version": "<b>", "build": "&"}, "cases": 1, "examples": 1, "verdict": "fail",
            "replay": "tablecert certify --suite-dir RUN/vectors",
            "settings": {"seed": 0, "budget": 1, "profile": "p", "pinned": False, "ops": ["craps.settle"]},
            "failures": [failure]}
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(findings_pdf(data))).pages)
    squeezed = re.sub(r"\s+", "", text)
    assert "\\u001b[1;32mverdict:PASS\\u001b[0m<b>bold</b>&amp;</para>" in squeezed
    assert not [ch for ch in text.replace(BULLET, "") if acts_on_a_terminal(ch) and ch != "\n"]
