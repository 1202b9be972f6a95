"""The wording of the reports: Jinja2 templates (``templates/*.xml.j2``) that render a small XML
document of headings, paragraphs in ReportLab paragraph markup, tables, the verdict box and charts
(:mod:`tablecert.reports.layout` turns it into PDF flowables).

Every string a template prints goes through the reports' escaping of vendor text
(:func:`tablecert.harness.vendor_text.for_pdf`), so a vendor's name such as
``<font size=40>EVIL</font> & <b>`` is shown literally and can never add markup, and every
character is visible and exact: characters the report fonts cannot show (outside Windows-1252),
control and invisible characters become ``\\uXXXX`` escapes, and a backslash is doubled, so two
different strings never look the same.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from tablecert.harness.vendor_text import for_pdf

from tablecert.reports.figures import percent
from tablecert.reports.template_cache import lab_cache
from tablecert.reports.data import difference_value, example_json


def _finalize(value: Any) -> Any:
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return Markup(for_pdf(value))
    if value is None:
        return ""
    return value


def num(value: int | None) -> str:
    """An integer with thousands separators."""
    return "-" if value is None else f"{int(value):,}"


def share(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage to one decimal (exact rounding, no float)."""
    return percent(Fraction(part, whole), 1) if whole else "-"


def lines(text: str) -> Markup:
    """Multi-line text with its line breaks and indentation kept (each line escaped)."""
    out = []
    for line in text.splitlines():
        body = line.lstrip(" ")
        out.append(Markup("\u00a0" * (len(line) - len(body))) + Markup(for_pdf(body)))
    return Markup("<br/>").join(out)


@cache
def environment() -> Environment:
    env = Environment(loader=PackageLoader("tablecert.reports", "templates"), bytecode_cache=lab_cache(), autoescape=True,
                      undefined=StrictUndefined, finalize=_finalize, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=False)

    env.filters.update(num=num, share=share, lines=lines, pct=percent, example_json=example_json,
                       difference_value=difference_value)
    env.tests["long_difference"] = long_difference
    return env


LONG_DIFFERENCE = 400
"""Characters of an expected or answered value past which its difference is shown on rows of its
own, the full width of the page, rather than side by side in a third of it (a round's whole
``steps`` was a row taller than a page)."""


def long_difference(difference: Any) -> bool:
    return max(len(difference_value(difference.expected)), len(difference_value(difference.actual))) > LONG_DIFFERENCE


def render_markup(kind: str, **context: Any) -> str:
    """The XML text of one document (``certificate`` or ``findings``)."""
    return environment().get_template(f"{kind}.xml.j2").render(**context)
