"""Decided once, worded once (issue 52): a run's verdict, its reasons and its words are one value
(:class:`tablecert.harness.model.Decision`), kept when the run concludes; the terminal,
``summary.json``, junit, both PDFs (read back with pypdf) and the HTML report say the same words,
for every kind of verdict. Each run here is a real ``tablecert certify`` of a small part of a
generated suite, against the reference vendor (as itself or speaking ``tablecert-vendor/1``), the
demo vendor (its bug 1 fails ``craps.place_odds``) or a vendor declaring fewer table features
(tests/capability_vendor.py).

The words expected are the published ones: docs/labs/certify.md's table of verdicts ("CERTIFIED
FOR n OF m OPS, or CERTIFIED FOR A DECLARED SCOPE") and the certificate's words for a run of
contract v1 ("CERTIFIED FOR CONTRACT v1 ONLY", issue 52); before, the terminal said "PASS FOR THE
DECLARED BETS AND FEATURES ONLY" for that run.
"""

from __future__ import annotations

import html
import json
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pypdf import PdfReader

from tablecert.vectors.suites import generate
from waits import HANG

HERE = Path(__file__).parent
TABLECERT = [sys.executable, "-m", "tablecert"]
REFERENCE = shlex.join([*TABLECERT, "reference-vendor"])
V1 = shlex.join([*TABLECERT, "reference-vendor", "--protocol", "1"])
DEMO = shlex.join([*TABLECERT, "serve-vendor", "--plugin", "demo"])
NO_COMMISSION = json.dumps({"craps": {"commission": False, "bar": [12]}})

# kind -> (suite, ops of it, vendor, extra certify options, verdict, its words)
KINDS = {
    "pass": ("edge", ("paigow.settle",), REFERENCE, (), "pass", "CERTIFIED"),
    "scoped_pass, contract v1": ("edge", ("craps.settle",), V1, (), "scoped_pass", "CERTIFIED FOR CONTRACT v1 ONLY"),
    "scoped_pass, ops not declared": ("standard", ("craps.round", "craps.odds_limits"), V1, (), "scoped_pass",
                                      "CERTIFIED FOR 1 OF 2 OPS"),
    "scoped_pass, features not declared": ("edge", ("craps.place_odds",), "capability", (), "scoped_pass",
                                           "CERTIFIED FOR A DECLARED SCOPE"),
    "fail": ("edge", ("craps.place_odds",), DEMO, (), "fail", "NOT CERTIFIED"),
    "incomplete": ("edge", ("paigow.settle",), REFERENCE, ("--max-run-seconds", "0.000001", "--batch-size", "10"), "incomplete", "INCOMPLETE"),
    "fail, a shard": ("edge", ("craps.place_odds",), DEMO, ("--shard", "1/2"), "fail", "NOT CERTIFIED: SHARD 1/2 ONLY"),
    "incomplete, a shard": ("edge", ("paigow.settle",), REFERENCE, ("--shard", "2/2"), "incomplete",
                            "INCOMPLETE: SHARD 2/2 ONLY"),
    "a rerun": ("edge", ("craps.place_odds",), DEMO, ("rerun",), "fail", "RERUN OF FAILED VECTORS: NEVER CERTIFIED"),
}


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, tuple[str, ...]], Path]:
    out = {}
    for suite, ops, *_ in KINDS.values():
        if (suite, ops) not in out:
            folder = tmp_path_factory.mktemp("suites") / f"{suite}-{'-'.join(ops)}"
            generate(suite, folder, ops=ops)
            out[(suite, ops)] = folder
    return out


def certify(suite: str, suite_dir: Path, out: Path, vendor: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TABLECERT, "certify", "--vendor-cmd", vendor, "--suite", suite, "--suite-dir", str(suite_dir),
                           "--custom-suite", "--out", str(out), "--quiet", "--isolation", "none", *extra],
                          capture_output=True, text=True, timeout=HANG)


def words(text: str) -> str:
    return " ".join(text.split())


def wording(run: Path, terminal: str) -> dict[str, str]:
    """The verdict's words as each writer put them: the terminal's verdict line, summary.json,
    junit's ``verdict`` property, page 1 of each PDF (the verdict box's title) and the HTML's."""
    line = next(line for line in terminal.splitlines() if line.startswith("verdict: "))
    said = re.fullmatch(r"verdict: ([A-Z_]+)(?: \((.*?)\))?  pass .*", line)
    assert said, line
    found = {"terminal": said[2] or said[1],
             "summary.json": json.loads((run / "summary.json").read_text())["verdict_title"]}
    properties = ET.parse(run / "junit.xml").getroot().find("properties")
    found["junit"] = next(p.get("value") for p in properties if p.get("name") == "verdict")   # type: ignore[union-attr]
    for pdf in ("certificate.pdf", "findings.pdf"):
        page = words(PdfReader(run / pdf).pages[0].extract_text())
        found[pdf] = found["summary.json"] if words(found["summary.json"]) in page else page[:300]
    span = re.search(r'<span class="verdict v-[a-z_]+" id="verdict">(.*?)</span>', (run / "report.html").read_text())
    found["report.html"] = html.unescape(span[1]) if span else ""
    return found


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_writer_says_the_same_words_for_every_verdict(kind: str, suites: dict, tmp_path: Path,
                                                            vendor_files: Path) -> None:
    suite, ops, vendor, extra, verdict, title = KINDS[kind]
    suite_dir = suites[(suite, ops)]
    if vendor == "capability":
        script = vendor_files / "capability_vendor.py"
        script.write_text((HERE / "capability_vendor.py").read_text())
        vendor = shlex.join([sys.executable, str(script), "declare", NO_COMMISSION])
    if extra == ("rerun",):
        first = certify(suite, suite_dir, tmp_path / "first", vendor)
        assert first.returncode == 1, first.stdout + first.stderr
        extra = ("--rerun-failed", str(tmp_path / "first"))
    done = certify(suite, suite_dir, tmp_path / "run", vendor, *extra)
    assert done.returncode in (0, 1, 2), done.stdout + done.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["verdict"] == verdict, (summary["verdict"], summary["verdict_reasons"])
    found = wording(tmp_path / "run", done.stdout)
    assert found == dict.fromkeys(found, title), found
