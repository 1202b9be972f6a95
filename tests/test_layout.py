"""The reports' layout (tablecert.reports.layout) on small documents: a heading with a table longer
than a page starts where it is (no page left nearly empty before it), and a plain cell too long for
its column is broken onto lines of it (never run into the next column), read back with pdftotext."""

from __future__ import annotations

import datetime as dt
import re
import subprocess
from pathlib import Path

from reportlab.pdfbase.pdfmetrics import stringWidth

from tablecert.reports.layout import broken, build_pdf

WHEN = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def no_charts(el, width):  # type: ignore[no-untyped-def]
    raise AssertionError("no charts here")


def pages(pdf: bytes, tmp_path: Path) -> list[str]:
    path = tmp_path / "doc.pdf"
    path.write_bytes(pdf)
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return [page for page in text.split("\f") if page.strip()]


def document(body: str) -> str:
    return f'<document title="t" header="Layout test" footer="footer">{body}</document>'


def test_a_heading_and_a_table_longer_than_a_page_start_on_the_page_they_reach(tmp_path):
    filler = "".join(f"<p>Paragraph {i} filling the first half of the page.</p>" for i in range(24))
    rows = "".join(f"<tr><td>file-{i:03}</td><td>{i}</td></tr>" for i in range(120))
    pdf = build_pdf(document(f'{filler}<h2>Suite files</h2><table kind="plain" widths="50 50">'
                             f'<tr class="head"><th>File</th><th>Vectors</th></tr>{rows}</table>'), WHEN, no_charts)
    first = pages(pdf, tmp_path)[0]
    assert "Paragraph 23" in first and "Suite files" in first and "file-000" in first


def test_a_heading_and_a_table_that_fit_on_the_next_page_move_there_together(tmp_path):
    filler = "".join(f"<p>Paragraph {i} filling most of the page.</p>" for i in range(45))
    rows = "".join(f"<tr><td>file-{i:03}</td><td>{i}</td></tr>" for i in range(20))
    pdf = build_pdf(document(f'{filler}<h2>Suite files</h2><table kind="plain" widths="50 50">'
                             f'<tr class="head"><th>File</th><th>Vectors</th></tr>{rows}</table>'), WHEN, no_charts)
    first, second = pages(pdf, tmp_path)[:2]
    assert "Suite files" not in first and "Suite files" in second and "file-019" in second


def test_a_long_plain_cell_is_broken_onto_lines_of_its_column(tmp_path):
    name = "expected/paigow.banker_bonus.odds-3-4-5x-commission-10x.configs.jsonl.gz"
    lines = broken(name, "Helvetica", 6.2, 120).split("\n")
    assert "".join(lines) == name and len(lines) > 1
    assert all(stringWidth(line, "Helvetica", 6.2) <= 120 for line in lines)
    assert all(line[-1] in "./_" for line in lines[:-1])           # after a mark, not inside a word
    assert broken("short.jsonl", "Helvetica", 6.2, 120) == "short.jsonl"
    pdf = build_pdf(document(f'<table kind="plain" widths="30 70"><tr><td>{name}</td><td>8</td></tr>'
                             '<tr><td>next</td><td>568</td></tr></table>'), WHEN, no_charts)
    words = pages(pdf, tmp_path)[0].split()
    assert "8" in words and "568" in words and name in "".join(words)    # searchable whole, hyphens kept
    (tmp_path / "doc.pdf").write_bytes(pdf)
    boxes = subprocess.run(["pdftotext", "-bbox", str(tmp_path / "doc.pdf"), "-"], capture_output=True, text=True,
                           check=True).stdout
    found = [(float(x0), float(x1), word) for x0, x1, word in
             re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', boxes)]
    column_two = min(x0 for x0, _, word in found if word == "8")
    assert all(x1 < column_two for _, x1, word in found if len(word) > 4 and word in name)   # not into column 2


def test_a_row_taller_than_a_page_is_split_inside_it(tmp_path):
    """A craps.round cause's differing ``steps`` (4,594 characters) was a row taller than the page:
    ReportLab raised LayoutError and certify wrote no findings.pdf."""
    value = " ".join(f'{{"step": {i}, "events": [{{"bet": "pass", "flat_win": {i * 100}}}]}}' for i in range(400))
    pdf = build_pdf(document(f'<p>Before.</p><table widths="20 80" size="small"><tr><th>Expected</th>'
                             f'<td class="code">{value}</td></tr><tr><th>Next</th><td>after</td></tr></table>'
                             '<p>After.</p>'), WHEN, no_charts)
    read = pages(pdf, tmp_path)
    assert len(read) >= 2 and "Before." in read[0] and '"step": 0,' in read[0] and "After." in read[-1]
    assert "".join("".join(page.split()) for page in read).count('"flat_win"') == 400     # all of it, once
