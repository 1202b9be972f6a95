"""The RNG evaluation report (``rng-report.pdf``), rendered from ``summary.json`` alone.

The wording is ``templates/rng.xml.j2`` (the reports' Jinja2 environment, with its escaping and
filters, pointed at this package's templates); the layout is the reports' renderer
(:func:`tablecert.reports.layout.build_pdf`); the charts are :mod:`tablecert.reports.rng_charts`. The PDF
is dated by the collection's recorded finish, never by the clock, so the same summary gives the
same bytes.
"""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader

from tablecert.reports.layout import build_pdf
from tablecert.reports.markup import environment
from tablecert.reports.rng_charts import rng_charts


@cache
def rng_environment() -> Environment:
    return environment().overlay(loader=PackageLoader("tablecert.rng", "templates"))


def render_report(summary: dict[str, Any]) -> bytes:
    xml_text = rng_environment().get_template("rng.xml.j2").render(s=summary)
    when = dt.datetime.fromisoformat(summary["collected"]["finished"])
    return build_pdf(xml_text, when, rng_charts(summary))
