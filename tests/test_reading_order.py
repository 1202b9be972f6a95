"""The reports read in order with plain ``pdftotext`` (its default mode: no -layout, no -raw), as the
text tools labs search certificates with: every heading, paragraph and table row of the
certificate and the findings (of a failing and of a passing run), of diff.pdf and of the RNG report
comes out whole and in the document's order, a table row as its cells from left to right.

What a document says, in order, is read from the XML it is laid out from (``document_xml``,
``diff_xml``, ``report_xml``); the PDF is read back page by page, its running header and footer
left out. Text between two items (chart labels, a table's header repeated on the next page) is
allowed; an item cut apart, or met before the one it follows, is not."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_reports import demo_run, ref_run  # noqa: F401 (the reports module's runs, as fixtures here)
from test_rng_cli import run_rng

from tablecert.reports import document_xml, render_report
from tablecert.reports.data import load_report_data
from tablecert.reports.inputs import load_submission
from tablecert.reports.run_diff import diff_pdf, diff_xml, run_diff
from tablecert.reports.rng_report import report_xml
from waits import HANG

PARAGRAPHS = {"title", "subtitle", "h1", "h2", "h3", "p", "note", "code"}
SPACE = re.compile(r"[\s\-\u00ad]+")      # pdftotext joins a word hyphenated at a line's end


def squeezed(text: str) -> str:
    """``text`` without white space or hyphens: lines wrapped anywhere compare equal."""
    return SPACE.sub("", text)


def element_text(el: ET.Element) -> str:
    parts = [el.text or ""]
    for child in el:
        parts += [" " if child.tag == "br" else "", element_text(child), child.tail or ""]
    return "".join(parts)


def reading_items(root: ET.Element) -> list[tuple[str, ...]]:
    """What the document says, in its order: each heading and paragraph, the verdict box's lines,
    each table row (its non-empty cells, left to right)."""
    items: list[tuple[str, ...]] = []
    for el in root:
        if el.tag in PARAGRAPHS:
            items.append((element_text(el),))
        elif el.tag == "verdict":
            items += [(element_text(part),) for part in el]
        elif el.tag == "table":
            items += [tuple(text for text in map(element_text, tr) if squeezed(text)) for tr in el.findall("tr")]
        elif el.tag == "keep":
            items += reading_items(el)
    return [item for item in items if item and squeezed("".join(item))]


def page_body(page: str, root: ET.Element, number: int, total: int) -> str:
    """A page's text as pdftotext reads it, without the running header, verdict word, footer and
    page number (a header too long for the line is cut with "...")."""
    def drawn(line: str, text: str) -> bool:
        line, text = squeezed(line), squeezed(text)
        return bool(line) and (line == text or (line.endswith("...") and text.startswith(line[:-3])))

    lines = [line for line in page.splitlines() if line.strip()]
    for top in (root.get("header", ""), root.get("verdict", "")):
        if lines and drawn(lines[0], top):
            lines.pop(0)
    for bottom in (f"page {number} of {total}", root.get("footer", "")):
        if lines and drawn(lines[-1], bottom):
            lines.pop()
    return "\n".join(lines)


def default_mode_text(pdf: Path, root: ET.Element) -> str:
    done = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True, timeout=HANG)
    pages = done.stdout.split("\f")
    pages = pages[:-1] if pages and not pages[-1].strip() else pages
    return "\n".join(page_body(page, root, n, len(pages)) for n, page in enumerate(pages, 1))


def reading_order_faults(pdf: Path, xml_text: str) -> list[str]:
    """Each item of the document that does not come out whole after the one before it."""
    root = ET.fromstring(xml_text)
    body = squeezed(default_mode_text(pdf, root))
    faults, at, previous = [], 0, "(the start)"
    for item in reading_items(root):
        said, want = " | ".join(item), squeezed("".join(item))
        found = body.find(want, at)
        if found < 0:
            where = "nowhere whole" if want not in body else "only before it"
            faults.append(f"{said[:160]!r}: after {previous[:80]!r} expected, found {where}")
            continue
        at, previous = found + len(want), said
    return faults


@pytest.fixture(params=["failing", "passing"])
def run(request, demo_run, ref_run) -> Path:  # noqa: F811 (the fixtures imported above)
    return demo_run if request.param == "failing" else ref_run


@pytest.mark.parametrize("kind", ["certificate", "findings"])
def test_every_page_of_both_reports_reads_in_order(run, kind, tmp_path):
    pdf = render_report(run, kind, tmp_path / f"{kind}.pdf")
    xml_text = document_xml(load_report_data(run, load_submission(None)), kind)
    assert len(reading_items(ET.fromstring(xml_text))) > 50
    assert reading_order_faults(pdf, xml_text) == []


def test_the_results_table_reads_header_then_each_row(demo_run, tmp_path):  # noqa: F811
    """The defect as seen: the Results table's header came out merged with its first row."""
    pdf = render_report(demo_run, "certificate", tmp_path / "certificate.pdf")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    lines = [line for line in text.splitlines() if line.strip()]
    totals = json.loads((demo_run / "summary.json").read_text())["totals"]
    start = lines.index("Outcome")
    share = re.compile(r"\d+\.\d%")
    expected = ["Outcome", "Vectors", "Share of run", "passed (answer agrees with the oracle)", f"{totals['pass']:,}",
                share, "failed (answer differs)", f"{totals['fail']:,}", share, "unsupported (op not declared in hello)"]
    read = lines[start:start + len(expected)]
    assert [line if isinstance(want, str) or not want.fullmatch(line) else want for line, want in zip(read, expected)] \
        == expected, read


def test_diff_pdf_reads_in_order(demo_run, ref_run, tmp_path):  # noqa: F811
    diff = run_diff(demo_run, ref_run)
    pdf = tmp_path / "diff.pdf"
    pdf.write_bytes(diff_pdf(diff, load_report_data(ref_run, load_submission(None)).finished))
    assert reading_order_faults(pdf, diff_xml(diff)) == []


def test_the_rng_report_reads_in_order(tmp_path):
    done = run_rng(tmp_path / "rng", "fair", "3")
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "rng" / "summary.json").read_text())
    xml_text = report_xml(summary)
    assert len(reading_items(ET.fromstring(xml_text))) > 100            # its tables: tests, power, run
    assert reading_order_faults(tmp_path / "rng" / "rng-report.pdf", xml_text) == []


def test_the_check_finds_a_row_or_cells_out_of_order(demo_run, tmp_path):  # noqa: F811
    """The same PDF against its XML with two rows, and then two cells of a row, swapped."""
    pdf = render_report(demo_run, "certificate", tmp_path / "certificate.pdf")
    xml_text = document_xml(load_report_data(demo_run, load_submission(None)), "certificate")
    passed, failed = "<td>passed (answer agrees with the oracle)</td>", "<td>failed (answer differs)</td>"
    rows = re.compile(f"(<tr>{re.escape(passed)}.*?</tr>)(\\s*)(<tr[^>]*>{re.escape(failed)}.*?</tr>)")
    swapped_rows = rows.sub(r"\3\2\1", xml_text, count=1)
    assert swapped_rows != xml_text
    assert [f for f in reading_order_faults(pdf, swapped_rows) if "passed (answer agrees" in f]
    swapped_cells = xml_text.replace("<th>Outcome</th><th>Vectors</th>", "<th>Vectors</th><th>Outcome</th>", 1)
    assert swapped_cells != xml_text
    assert [f for f in reading_order_faults(pdf, swapped_cells) if f.startswith("'Vectors | Outcome")]


def test_counts_of_one_are_said_in_the_singular(demo_run):  # noqa: F811
    """As a one-vector replay of a fuzz finding said them: "1 vectors run of 1", "1 more files"."""
    data = load_report_data(demo_run, load_submission(None))
    data.totals, data.suite_tests = {"pass": 0, "fail": 1, "unsupported": 0, "fault": 0}, 1
    data.classes = [dataclasses.replace(data.classes[0], replays_more=1)] + data.classes[1:]
    said = {kind: " ".join(" | ".join(item) for item in reading_items(ET.fromstring(document_xml(data, kind))))
            for kind in ("certificate", "findings")}
    assert "0 not answered (vendor fault) · 1 vector run of 1" in said["certificate"]
    assert "1 of 1 vector was answered differently from the reference oracle" in said["certificate"]
    assert re.search(r"Suite \| edge, generated by tablecert [\d.]+, 1 vector Suite manifest", said["certificate"])
    assert re.search(r"\band 1 more file\b", said["findings"])
    assert not re.search(r"\b1 (vectors|more files)\b", " ".join(said.values()))
