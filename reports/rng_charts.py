"""Charts of the RNG report, drawn with ``reportlab.graphics`` from the chart data in summary.json.

* ``heat``: a table of counts (the 36 dice pairs, card x position, which card follows which), each
  cell shaded by its standardised residual (O - E)/sqrt(E): blue below, red above, full at +-4;
* ``bars``: observed counts as bars with the expected count as a tick, and each cell's residual
  printed under it (so a rare category's deviation is visible even when its bar is not);
* ``phist``: a histogram of p-values in ten bins with the uniform expectation as a line.
"""

from __future__ import annotations

import math
from typing import Any

from reportlab.graphics.shapes import Drawing, Group, Line, Rect, String
from reportlab.lib import colors

from tablecert.reports.layout import color, styles_config

CAPTION = 7
FULL_SHADE_Z = 4.0


def _font() -> str:
    return str(styles_config()["fonts"]["body"])


def residual_color(z: float) -> colors.Color:
    """White at 0, blue below, red above, full colour at +-FULL_SHADE_Z (steps of 1/8)."""
    t = min(1.0, abs(z) / FULL_SHADE_Z)
    t = math.floor(t * 8) / 8
    if z < 0:
        return colors.Color(1 - 0.8 * t, 1 - 0.6 * t, 1.0)
    return colors.Color(1.0, 1 - 0.8 * t, 1 - 0.8 * t)


def _residual(observed: float, expected: float) -> float:
    return (observed - expected) / math.sqrt(expected) if expected > 0 else 0.0


def heat_chart(data: dict[str, Any], title: str, width: float) -> Drawing:
    rows, cols, matrix = data["rows"], data["cols"], data["matrix"]
    expected = float(data["expected"])
    row_expected = [float(e) for e in data.get("row_expected", [expected] * len(rows))]
    empty_diagonal = bool(data.get("diagonal_empty"))
    label_w = 18.0
    cell = min(24.0, (width - label_w) / len(cols))
    font = _font()
    label_size = min(7.0, cell * 0.6)
    grid_h = cell * len(rows)
    height = grid_h + label_w + 2 * CAPTION + 8
    d = Drawing(width, height)
    d.hAlign = "LEFT"
    share = "the row's share" if "row_expected" in data else f"{expected:,.1f} per cell"
    d.add(String(0, height - CAPTION - 1, f"{title}: rows {data.get('row_name', '')}, columns {data.get('col_name', '')}; shade = (O - E)/sqrt(E), E = {share}; blue below, "
                 f"red above, full at +-{FULL_SHADE_Z:g}", fontName=font, fontSize=CAPTION, fillColor=color("muted")))
    top = grid_h + 2
    for j, label in enumerate(cols):
        g = Group(String(0, 0, label, fontName=font, fontSize=label_size, fillColor=color("ink")))
        g.transform = (0, 1, -1, 0, label_w + j * cell + cell / 2 + label_size / 3, top + 2)
        d.add(g)
    for i, label in enumerate(rows):
        y = top - (i + 1) * cell
        d.add(String(label_w - 2, y + cell / 2 - label_size / 3, label, fontName=font, fontSize=label_size,
                     fillColor=color("ink"), textAnchor="end"))
        for j in range(len(cols)):
            if empty_diagonal and i == j:
                fill = color("grid")
            else:
                fill = residual_color(_residual(float(matrix[i][j]), row_expected[i]))
            d.add(Rect(label_w + j * cell, y, cell, cell, fillColor=fill, strokeColor=color("grid"),
                       strokeWidth=0.2 if cell < 12 else 0.4))
            if cell >= 20:
                d.add(String(label_w + j * cell + cell / 2, y + cell / 2 - 2, f"{matrix[i][j]:,}", fontName=font,
                             fontSize=5, fillColor=color("ink"), textAnchor="middle"))
    return d


def bars_chart(data: dict[str, Any], title: str, width: float) -> Drawing:
    labels, observed, expected = data["labels"], data["observed"], data["expected"]
    font = _font()
    plot_h = 90.0
    slot = (width - 30) / len(labels)
    narrow = slot < 14           # residuals written upright, so that neighbours do not overprint
    label_h = 46.0 if max(len(lb) for lb in labels) > 3 else 12.0
    label_h += 14.0 if narrow else 0.0
    height = plot_h + label_h + 2 * CAPTION + 16
    d = Drawing(width, height)
    d.hAlign = "LEFT"
    d.add(String(0, height - CAPTION - 1, f"{title}: bars observed, ticks expected; under each bar (O - E)/sqrt(E)",
                 fontName=font, fontSize=CAPTION, fillColor=color("muted")))
    top = max(max(observed), max(expected)) * 1.08 or 1.0
    base = label_h + 10
    d.add(Line(28, base, width, base, strokeColor=color("rule"), strokeWidth=0.5))
    d.add(String(26, base + plot_h - 3, f"{top:,.0f}", fontName=font, fontSize=5, textAnchor="end",
                 fillColor=color("muted")))
    for k, (lb, o, e) in enumerate(zip(labels, observed, expected)):
        x = 30 + k * slot
        z = _residual(float(o), float(e))
        d.add(Rect(x + slot * 0.15, base, slot * 0.7, plot_h * o / top, fillColor=residual_color(z) if abs(z) >= 2
                   else color("head_bg"), strokeColor=color("rule"), strokeWidth=0.3))
        ye = base + plot_h * e / top
        d.add(Line(x + slot * 0.05, ye, x + slot * 0.95, ye, strokeColor=color("ink"), strokeWidth=0.8))
        size = min(6.0, slot * 0.7)
        below = base - (21 if narrow else 7)        # where the label row starts
        if len(lb) > 3:
            g = Group(String(0, 0, lb, fontName=font, fontSize=size, fillColor=color("ink"), textAnchor="end"))
            g.transform = (0, 1, -1, 0, x + slot / 2 + size / 3, below - 5)
            d.add(g)
        else:
            d.add(String(x + slot / 2, below - 9, lb, fontName=font, fontSize=size, textAnchor="middle",
                         fillColor=color("ink")))
        residual = String(0, 0, f"{z:+.1f}", fontName=font, fontSize=5.0, textAnchor="end" if narrow else "middle",
                          fillColor=color("fail_ink") if abs(z) >= 3 else color("muted"))
        if narrow:
            g = Group(residual)
            g.transform = (0, 1, -1, 0, x + slot / 2 + 2, base - 2)
            d.add(g)
        else:
            residual.x, residual.y = x + slot / 2, base - 7
            d.add(residual)
    return d


def phist_chart(p_values: list[float], title: str, width: float) -> Drawing:
    bins = [0] * 10
    for p in p_values:
        bins[min(9, int(p * 10))] += 1
    return histogram_chart(bins, f"{title}: {len(p_values)} p-values in ten bins; line = uniform expectation", width)


def histogram_chart(bins: list[int], caption: str, width: float) -> Drawing:
    """Ten bins of p-values [0, 0.1) ... [0.9, 1] with the uniform expectation as a line."""
    font = _font()
    plot_h = 60.0
    height = plot_h + 2 * CAPTION + 18
    chart_w = min(width, 260.0)
    d = Drawing(width, height)
    d.hAlign = "LEFT"
    d.add(String(0, height - CAPTION - 1, caption, fontName=font, fontSize=CAPTION, fillColor=color("muted")))
    expected = sum(bins) / 10
    top = max(max(bins), expected) * 1.15 or 1.0
    slot = (chart_w - 20) / 10
    base = 12.0
    for k, n in enumerate(bins):
        d.add(Rect(20 + k * slot + 1, base, slot - 2, plot_h * n / top, fillColor=color("head_bg"),
                   strokeColor=color("rule"), strokeWidth=0.3))
        d.add(String(20 + k * slot + slot / 2, base + plot_h * n / top + 1, str(n), fontName=font, fontSize=5,
                     textAnchor="middle", fillColor=color("ink")))
        d.add(String(20 + k * slot, base - 7, f"{k / 10:.1f}", fontName=font, fontSize=5, fillColor=color("muted")))
    y = base + plot_h * expected / top
    d.add(Line(20, y, 20 + 10 * slot, y, strokeColor=color("fail_ink"), strokeWidth=0.6, strokeDashArray=[2, 2]))
    d.add(Line(20, base, 20 + 10 * slot, base, strokeColor=color("rule"), strokeWidth=0.5))
    return d


def rng_charts(summary: dict[str, Any]):  # type: ignore[no-untyped-def]
    """The chart builder for :func:`tablecert.reports.layout.build_pdf`: ``<chart kind="test"
    test="ID"/>`` draws that test's chart; ``<chart kind="family"/>`` the family's p-values;
    ``<chart kind="raw" test="NAME"/>`` the P-values of one test of the raw battery (a raw summary)."""
    if "raw" in summary:
        rows = {r["test"]: r for r in summary["raw"]["tests"]}
        return lambda el, width: histogram_chart(
            rows[el.get("test")]["histogram"],
            f"{rows[el.get('test')]['title']}: P-values of {rows[el.get('test')]['statistics']} statistic(s) x "
            f"{rows[el.get('test')]['sequences']} sequences; line = uniform", width)
    titles = {t["id"]: t["title"] for t in summary["tests"]}

    def make(el: Any, width: float) -> Drawing:
        if el.get("kind") == "family":
            return phist_chart([t["p_value"] for t in summary["tests"]], "All tests of the family", width)
        test = el.get("test", "")
        data = summary["charts"][test]
        kind = data["kind"]
        if kind == "heat":
            return heat_chart(data, titles[test], width)
        if kind == "bars":
            return bars_chart(data, titles[test], width)
        return phist_chart(data["p_values"], titles[test], width)

    return make
