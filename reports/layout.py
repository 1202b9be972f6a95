"""The layout of the reports: the XML that the templates render, turned into ReportLab platypus
flowables on A4 pages with a running header and a "page N of M" footer.

Determinism: the same XML gives the same bytes. The canvas is in ReportLab's invariant mode (fixed
document id seed, no comments with times), and the creation date is the run's finish time, never
the clock's; nothing iterates an unordered collection.

The XML vocabulary (root ``<document title author subject keywords header status footer>``):

``h1 h2 h3 title subtitle p note code`` (``p class="small|tiny|..."``)
    a paragraph of ReportLab markup in that style (``h1`` also makes an outline entry);
``verdict status="pass|scoped_pass|fail|incomplete"`` with ``<big>`` and ``<small>``
    the coloured verdict box;
``table widths="w1 w2 ..." size="normal|small|tiny" kind="grid|kv|plain" mono="2 3"``
    rows ``<tr class="head|fail|warn">`` of ``<td|th span="n" class="code">``;
    ``kind="plain"`` cells are plain strings (fast, for long digest lists);
``chart kind="confusion" op="..."``, ``spacer h="6"``, ``pagebreak``, ``condbreak h="90"``, ``keep``.

Reading order. Labs search the PDFs with text tools, so a table must come out of ``pdftotext``'s
default mode row by row. That mode cuts the page into blocks and orders them by Breuel's rules,
which read a grid of separate cells column by column, unless it recognises the grid as a table:
four neighbouring cells whose two columns are aligned alike (both left edges, both right edges or
both centres) and whose two rows are aligned alike; a table's cells are then read row by row. So:

* every cell is left-aligned (a right-aligned number column beside a left-aligned text column is
  never recognised, and its rows came out merged or out of order);
* the text of neighbouring cells is at least ``column_gap`` apart, more than the largest cell font
  (words closer than one font size are joined into one line, which merged a cell into its
  neighbour's line);
* one font size within a cell (a line of another size is a block of its own, read after the
  table), so a cell's secondary line is italic, not smaller;
* space after every table, so that a paragraph of the cells' size below it is not taken for
  another line of the last row's cells.

``tests/test_reading_order.py`` reads every page of the documents back with default-mode
``pdftotext`` and checks that each heading, paragraph and table row comes out whole and in order.
"""

from __future__ import annotations

import copy
import datetime as dt
import io
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.lib.utils import TimeStamp
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    KeepTogether,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

PARAGRAPH_TAGS = {"h1": "h1", "h2": "h2", "h3": "h3", "title": "title", "subtitle": "subtitle", "p": "body",
                  "note": "note", "code": "code"}
CELL_STYLES = {"normal": "cell", "small": "cell_small", "tiny": "cell_tiny"}


@cache
def styles_config() -> dict[str, Any]:
    text = resources.files("tablecert.reports").joinpath("styles.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def color(name: str) -> colors.Color:
    """A colour by its name in ``[colors]`` or as ``#rrggbb``."""
    palette = styles_config()["colors"]
    return colors.HexColor(palette.get(name, name))


@cache
def paragraph_styles() -> dict[str, ParagraphStyle]:
    out: dict[str, ParagraphStyle] = {}
    for name, attrs in styles_config()["paragraph"].items():
        attrs = dict(attrs)
        parent = out.get(attrs.pop("parent", ""), None)
        if "textColor" in attrs:
            attrs["textColor"] = color(attrs["textColor"])
        out[name] = ParagraphStyle(name, parent=parent, **attrs)
    return out


@cache
def code_style(cell_style: str) -> ParagraphStyle:
    """A table's code cells: its cell style in the monospaced font, the same size and leading, so
    that every cell of a row stands on the same baselines (see "Reading order" above)."""
    variant = copy.copy(paragraph_styles()[cell_style])
    variant.name = f"{cell_style}-code"
    variant.fontName = styles_config()["fonts"]["mono"]
    return variant


def page_size() -> tuple[float, float]:
    return letter if styles_config()["page"]["size"].lower() == "letter" else A4


def frame_width() -> float:
    return page_size()[0] - 2 * styles_config()["page"]["margin_mm"] * mm


def inner_markup(el: ET.Element) -> str:
    """The ReportLab markup inside an element (its text and child elements, escaped again)."""
    return escape(el.text or "") + "".join(ET.tostring(child, encoding="unicode") for child in el)


def plain_text(el: ET.Element) -> str:
    return "".join(el.itertext())


class Builder:
    """Turns the XML document into flowables; ``charts`` builds a named chart for a width."""

    def __init__(self, charts: Callable[[ET.Element, float], Flowable]) -> None:
        self.charts = charts
        self.styles = paragraph_styles()
        self.width = frame_width()
        self.sections = 0

    def flowables(self, parent: ET.Element) -> list[Flowable]:
        out: list[Flowable] = []
        for el in parent:
            out.extend(self.element(el))
        return out

    def element(self, el: ET.Element) -> list[Flowable]:
        tag = el.tag
        if tag in PARAGRAPH_TAGS:
            style = self.styles[el.get("class", PARAGRAPH_TAGS[tag])]
            para = Paragraph(inner_markup(el), style)
            if tag == "h1":
                self.sections += 1
                para._outline = (f"s{self.sections}", plain_text(el))  # type: ignore[attr-defined]
            return [para]
        if tag == "verdict":
            return [self.verdict(el)]
        if tag == "table":
            return [self.table(el)]
        if tag == "chart":
            return [self.charts(el, self.width)]
        if tag == "spacer":
            return [Spacer(1, float(el.get("h", "6")))]
        if tag == "pagebreak":
            return [PageBreak()]
        if tag == "condbreak":
            return [CondPageBreak(float(el.get("h", "72")))]
        if tag == "keep":
            return [KeepTogether(self.flowables(el))]
        raise ValueError(f"report template: unknown element <{tag}>")

    def verdict(self, el: ET.Element) -> Flowable:
        cfg = styles_config()["verdict"]
        big, small = el.find("big"), el.find("small")
        title = copy.copy(self.styles["verdict_title"])
        title.fontSize, title.leading = cfg["title_size"], cfg["title_size"] * 1.15
        sub = copy.copy(self.styles["verdict_sub"])
        sub.fontSize, sub.leading = cfg["sub_size"], cfg["sub_size"] * 1.35
        rows = [[Paragraph(inner_markup(big) if big is not None else "", title)]]
        if small is not None:
            rows.append([Paragraph(inner_markup(small), sub)])
        box = Table(rows, colWidths=[self.width])
        box.setStyle(TableStyle([
            ("BACKGROUND", (0, 0), (-1, -1), colors.HexColor(cfg[el.get("status", "incomplete")])),
            ("TOPPADDING", (0, 0), (-1, 0), 12), ("BOTTOMPADDING", (0, -1), (-1, -1), 12),
            ("LEFTPADDING", (0, 0), (-1, -1), 14), ("RIGHTPADDING", (0, 0), (-1, -1), 14),
        ]))
        return box

    def table(self, el: ET.Element) -> Flowable:
        cfg = styles_config()["table"]
        kind = el.get("kind", "grid")
        weights = [float(w) for w in el.get("widths", "1").split()]
        widths = [self.width * w / sum(weights) for w in weights]
        cell_style = CELL_STYLES[el.get("size", "normal")]
        plain = kind == "plain"
        rows: list[list[Any]] = []
        cmds: list[tuple[Any, ...]] = [
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), cfg["padding"]),
            ("RIGHTPADDING", (0, 0), (-1, -1), cfg["column_gap"] - cfg["padding"]),
            ("TOPPADDING", (0, 0), (-1, -1), cfg["padding"] * 0.6),
            ("BOTTOMPADDING", (0, 0), (-1, -1), cfg["padding"] * 0.8),
        ]
        head_rows = 0
        mono = el.get("mono", "").split()
        for r, tr in enumerate(el.findall("tr")):
            row: list[Any] = []
            cls = tr.get("class", "")
            if cls == "head":
                head_rows = r + 1 if head_rows == r else head_rows
                cmds.append(("BACKGROUND", (0, r), (-1, r), color("head_bg")))
            elif cls in ("fail", "warn"):
                cmds.append(("BACKGROUND", (0, r), (-1, r), color(f"{cls}_bg")))
            for td in tr:
                c = len(row)
                span = int(td.get("span", "1"))
                if plain:
                    fonts = styles_config()["fonts"]
                    font = fonts["bold"] if td.tag == "th" else fonts["mono"] if str(c + 1) in mono and r >= head_rows \
                        else fonts["body"]
                    room = sum(widths[c:c + span]) - cfg["column_gap"]
                    row.append(broken(plain_text(td), font, cfg["plain_font_size"], room))
                    if td.tag == "th":
                        cmds.append(("FONTNAME", (c, r), (c, r), fonts["bold"]))
                else:
                    name = "cell_head" if td.tag == "th" and cell_style == "cell" else cell_style
                    style = code_style(cell_style) if td.get("class") == "code" else self.styles[name]
                    text = inner_markup(td)
                    row.append([Paragraph(f"<b>{text}</b>" if td.tag == "th" and name != "cell_head" else text, style)])
                if span > 1:
                    cmds.append(("SPAN", (c, r), (c + span - 1, r)))
                    row.extend([""] * (span - 1))
            row.extend([""] * (len(widths) - len(row)))
            rows.append(row)
        if plain:
            fonts = styles_config()["fonts"]
            size = cfg["plain_font_size"]
            cmds += [("FONTNAME", (0, 0), (-1, -1), fonts["body"]), ("FONTSIZE", (0, 0), (-1, -1), size),
                     ("LEADING", (0, 0), (-1, -1), size * 1.2)]
            for col in mono:
                cmds.append(("FONTNAME", (int(col) - 1, head_rows), (int(col) - 1, -1), fonts["mono"]))
        if kind == "kv":
            cmds += [("LINEBELOW", (0, 0), (-1, -1), 0.25, color("grid"))]
        else:
            cmds += [("GRID", (0, 0), (-1, -1), 0.25, color("grid")),
                     ("BOX", (0, 0), (-1, -1), 0.5, color("rule"))]
        table = ReportTable(rows, colWidths=widths, repeatRows=head_rows, hAlign="LEFT", spaceAfter=cfg["space_after"])
        table.setStyle(TableStyle(cmds))
        return table


class ReportTable(Table):
    """A table split between rows, as ReportLab does; a row taller than a whole page (a value
    thousands of characters long: a round's differing ``steps``) is split inside itself once it
    starts a page, where ReportLab raised LayoutError and no document was written."""

    def split(self, availWidth: float, availHeight: float) -> list[Flowable]:  # noqa: N803 (ReportLab's names)
        parts = super().split(availWidth, availHeight)
        if parts or availHeight < 0.9 * (page_size()[1] - 2 * styles_config()["page"]["margin_mm"] * mm):
            return parts
        return self._splitRows(availHeight, doInRowSplit=True)


def broken(text: str, font: str, size: float, width: float) -> str:
    """A plain cell's ``text`` with line breaks so that no line is wider than ``width`` (ReportLab
    never wraps a plain cell: a long file name ran into the next column, and pdftotext read the two
    as one word), broken after the last ``.``, ``/`` or ``_`` that fits, else anywhere (never after
    a ``-``: pdftotext takes a line's last hyphen for a word broken in two and drops it)."""
    if stringWidth(text, font, size) <= width:
        return text
    lines, line = [], ""
    for ch in text:
        if line and stringWidth(line + ch, font, size) > width:
            cut = max(line.rfind(mark) for mark in "./_") + 1
            cut = cut if cut > len(line) // 2 else len(line)
            lines.append(line[:cut])
            line = line[cut:]
        line += ch
    return "\n".join(lines + [line])


def run_timestamp(when: dt.datetime) -> TimeStamp:
    """A ReportLab timestamp at ``when`` (UTC), for the PDF's creation and modification dates."""
    ts = TimeStamp(invariant=1)
    utc = when.astimezone(dt.timezone.utc)
    ts.t = utc.timestamp()
    ts.lt = utc.timetuple()
    ts.YMDhms = tuple(ts.lt)[:6]
    ts.dhh = ts.dmm = 0
    return ts


def canvas_maker(when: dt.datetime, head: dict[str, str]) -> Callable[..., Canvas]:
    """A canvas class that dates the document ``when`` and draws header and footer on every page
    (footer "page N of M": pages are kept until the total is known)."""
    fonts = styles_config()["fonts"]
    page = styles_config()["page"]
    verdict_colors = styles_config()["verdict"]

    class ReportCanvas(Canvas):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["invariant"] = 1
            super().__init__(*args, **kwargs)
            self._doc._timeStamp = run_timestamp(when)
            self._pending: list[dict[str, Any]] = []

        def showPage(self) -> None:  # noqa: N802 (ReportLab's name)
            self._pending.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._pending)
            for number, state in enumerate(self._pending, 1):
                self.__dict__.update(state)
                self._decorate(number, total)
                Canvas.showPage(self)
            Canvas.save(self)

        def _fit(self, text: str, font: str, size: float, width: float) -> str:
            if stringWidth(text, font, size) <= width:
                return text
            while text and stringWidth(text + "...", font, size) > width:
                text = text[:-1]
            return text + "..."

        def _decorate(self, number: int, total: int) -> None:
            w, h = self._pagesize
            margin = page["margin_mm"] * mm
            top = h - margin + 3 * mm
            self.saveState()
            self.setStrokeColor(color("rule"))
            self.setLineWidth(0.5)
            self.line(margin, top - 1.6 * mm, w - margin, top - 1.6 * mm)
            status = head.get("status", "")
            word = head.get("verdict", "")
            self.setFont(fonts["bold"], 8)
            word_w = stringWidth(word, fonts["bold"], 8)
            if word:
                self.setFillColor(colors.HexColor(verdict_colors.get(status, verdict_colors["incomplete"])))
                self.drawRightString(w - margin, top, word)
            self.setFillColor(color("muted"))
            self.setFont(fonts["body"], 8)
            self.drawString(margin, top, self._fit(head.get("header", ""), fonts["body"], 8, w - 2 * margin - word_w - 12))
            bottom = margin - 6 * mm
            self.line(margin, bottom + 3.2 * mm, w - margin, bottom + 3.2 * mm)
            self.setFont(fonts["body"], 7)
            right = f"page {number} of {total}"
            self.drawRightString(w - margin, bottom, right)
            room = w - 2 * margin - stringWidth(right, fonts["body"], 7) - 12
            self.drawString(margin, bottom, self._fit(head.get("footer", ""), fonts["body"], 7, room))
            self.restoreState()

    return ReportCanvas


class KeptWithNext(KeepTogether):
    """A heading kept with what follows it (``keepWithNext``): moved to the next page when it does
    not fit here, unless it is taller than a page anyway (a heading and a long table), which then
    starts here when at least ``START_ROOM`` is left: a long table after its heading left the page
    before it nearly empty."""

    START_ROOM = 96.0        # points: the heading and the table's first rows

    def split(self, aW: float, aH: float) -> list[Flowable]:  # noqa: N803 (ReportLab's names)
        if getattr(self, "_wrapInfo", None) != (aW, aH):
            self.wrap(aW, aH)
        frame = getattr(self, "_frame", None)
        if frame is not None and self._H > frame._height and aH >= self.START_ROOM:
            return list(self._content)
        return super().split(aW, aH)


class ReportDoc(BaseDocTemplate):
    """One frame per page; level-0 outline entries for ``h1`` headings."""

    def afterFlowable(self, flowable: Flowable) -> None:  # noqa: N802 (ReportLab's name)
        outline = getattr(flowable, "_outline", None)
        if outline:
            key, title = outline
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(title, key, level=0)


def build_pdf(xml_text: str, when: dt.datetime, charts: Callable[[ET.Element, float], Flowable]) -> bytes:
    """The PDF of one rendered template (see the module docstring for the vocabulary)."""
    root = ET.fromstring(xml_text)
    page = styles_config()["page"]
    size = page_size()
    margin = page["margin_mm"] * mm
    buf = io.BytesIO()
    doc = ReportDoc(buf, pagesize=size, leftMargin=margin, rightMargin=margin, topMargin=margin,
                    bottomMargin=margin, invariant=1, pageCompression=1, title=root.get("title", ""),
                    author=root.get("author", ""), subject=root.get("subject", ""),
                    keywords=root.get("keywords", ""), creator=root.get("creator", "tablecert"),
                    keepTogetherClass=KeptWithNext)
    frame = Frame(margin, margin, size[0] - 2 * margin, size[1] - 2 * margin, id="body",
                  leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame])])
    head = {k: root.get(k, "") for k in ("header", "footer", "verdict", "status")}
    doc.build(Builder(charts).flowables(root), canvasmaker=canvas_maker(when, head))
    return buf.getvalue()
