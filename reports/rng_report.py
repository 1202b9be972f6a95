"""The RNG evaluation report (``rng-report.pdf``), rendered from ``summary.json`` alone.

The wording is ``templates/rng.xml.j2`` (the reports' Jinja2 environment, with its escaping and
filters, beside the other reports' templates); page 1 names the raw-stream and scaling report of
the same folder (``rng-raw-report.pdf``) and its conclusion, or says that none was run; the layout is the reports' renderer
(:func:`tablecert.reports.layout.build_pdf`); the charts are :mod:`tablecert.reports.rng_charts`. The PDF
is dated by the collection's recorded finish, never by the clock, so the same summary gives the
same bytes.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from tablecert.reports.layout import build_pdf
from tablecert.reports.markup import environment
from tablecert.reports.rng_charts import rng_charts


def report_xml(summary: dict[str, Any], raw: dict[str, Any] | None = None) -> str:
    """The report's XML (:mod:`tablecert.reports.layout`), before it is laid out; ``raw``: the
    summary of ``tablecert rng --raw --scaling`` in the same folder (``raw-summary.json``), which
    page 1 names with its conclusion."""
    return environment().get_template("rng.xml.j2").render(s=summary, raw=raw)


def render_raw_report(summary: dict[str, Any]) -> bytes:
    """``rng-raw-report.pdf`` of ``tablecert rng --raw --scaling`` (template ``rng_raw.xml.j2``)."""
    when = dt.datetime.fromisoformat(summary["collected"]["finished"])
    return build_pdf(environment().get_template("rng_raw.xml.j2").render(s=summary), when, rng_charts(summary))


def render_report(summary: dict[str, Any], raw: dict[str, Any] | None = None) -> bytes:
    """``rng-report.pdf`` from ``summary.json`` (and ``raw-summary.json`` where there is one)."""
    when = dt.datetime.fromisoformat(summary["collected"]["finished"])
    return build_pdf(report_xml(summary, raw), when, rng_charts(summary))
