"""Charts drawn with ``reportlab.graphics``: the hand-label confusion matrix as a heat map.

Rows are the oracle's labels, columns the vendor's answers. A cell's shade is its share of the row
in eight steps (integer arithmetic), green on the diagonal (agreement) and red off it, with the
count printed in the cell; the table beside the chart has the exact counts.
"""

from __future__ import annotations

from reportlab.graphics.shapes import Drawing, Group, Rect, String
from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth

from tablecert.reports.data import Confusion
from tablecert.reports.layout import color, styles_config

LABEL_FONT = 6.5
COUNT_FONT = 6
CAPTION_FONT = 7
DISAGREE_MIN_LEVEL = 3


def compact(n: int) -> str:
    """A count that fits a cell: ``9,999``, ``12k``, ``3.4M`` (rounded down)."""
    if n < 10_000:
        return f"{n:,}"
    if n < 1_000_000:
        return f"{n // 1000:,}k"
    return f"{n // 1_000_000}.{(n % 1_000_000) // 100_000}M"


def shade_level(n: int, row_total: int, steps: int) -> int:
    """1..steps: the ceiling of ``steps * n / row_total`` (0 for an empty cell)."""
    if n <= 0 or row_total <= 0:
        return 0
    return min(steps, max(1, (steps * n + row_total - 1) // row_total))


def confusion_chart(conf: Confusion, width: float) -> Drawing:
    cfg = styles_config()["chart"]
    fonts = styles_config()["fonts"]
    labels = conf.labels
    n = max(1, len(labels))
    label_w = min(cfg["label_width"], max(stringWidth(lb, fonts["body"], LABEL_FONT) for lb in labels) + 8)
    cell = min(float(cfg["cell_max"]), (width - label_w - 4) / n)
    top_h = max(stringWidth(lb, fonts["body"], LABEL_FONT) for lb in labels) + 8
    caption_h = 14
    grid_h = cell * n
    height = caption_h + top_h + grid_h + 4
    d = Drawing(width, height)
    d.hAlign = "LEFT"
    ink, muted = color("ink"), color("muted")
    d.add(String(0, height - CAPTION_FONT - 1, f"{conf.op}: rows = expected label, columns = vendor's answer; "
                 "shade = share of the row (green agree, red disagree)", fontName=fonts["body"],
                 fontSize=CAPTION_FONT, fillColor=muted))
    grid_top = grid_h + 2
    for j, label in enumerate(labels):
        x = label_w + j * cell + cell / 2 + LABEL_FONT / 3
        g = Group(String(0, 0, label, fontName=fonts["body"], fontSize=LABEL_FONT, fillColor=ink))
        g.transform = (0, 1, -1, 0, x, grid_top + 4)
        d.add(g)
    agree, disagree = cfg["agree"], cfg["disagree"]
    for i, expected in enumerate(labels):
        y = grid_top - (i + 1) * cell
        d.add(String(label_w - 4, y + cell / 2 - LABEL_FONT / 3, expected, fontName=fonts["body"],
                     fontSize=LABEL_FONT, fillColor=ink, textAnchor="end"))
        row_total = conf.row_total(expected)
        for j, actual in enumerate(labels):
            count = conf.cells.get((expected, actual), 0)
            palette = agree if expected == actual else disagree
            level = shade_level(count, row_total, len(palette))
            if level and expected != actual:
                level = max(level, DISAGREE_MIN_LEVEL)   # any disagreement is plainly red
            fill = colors.HexColor(palette[level - 1] if level else cfg["empty"])
            x = label_w + j * cell
            d.add(Rect(x, y, cell, cell, fillColor=fill, strokeColor=color("grid"), strokeWidth=0.3))
            if count:
                text_color = colors.white if level > len(palette) // 2 else ink
                d.add(String(x + cell / 2, y + cell / 2 - COUNT_FONT / 3, compact(count), fontName=fonts["body"],
                             fontSize=COUNT_FONT, fillColor=text_color, textAnchor="middle"))
    return d
