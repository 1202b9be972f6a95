"""report.html of an RNG evaluation folder (``tablecert rng --out DIR``): its tables in the browser.

Rendered from what the folder's readers get, ``summary.json`` (the outcome battery: dice and
shuffles) and ``raw-summary.json`` (``--raw``: NIST SP 800-22's battery on the raw stream; with
``--scaling`` the exact scaling and the pairing), whichever the folder holds, into one
self-contained page (style inline, no script, no network) beside the PDFs: the verdict, the
collection, and each test with its statistic, p-value, Holm level and decision. Same summaries,
same bytes (nothing from the clock).

>>> write_rng_page(Path("out/rng"))   # doctest: +SKIP
PosixPath('out/rng/report.html')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tablecert import __version__
from tablecert.harness.lab_files import write_atomically
from tablecert.harness.vendor_text import for_terminal
from tablecert.reports.html import REPORT_NAME, TEXT_SHOWN, environment

OUTCOMES = "summary.json"
RAW = "raw-summary.json"


def _summary(path: Path, key: str) -> dict[str, Any] | None:
    """The RNG summary at ``path`` when the folder holds one (``key``: a field only it has)."""
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) and key in data else None


def rng_page(folder: Path) -> bytes | None:
    """The page of the RNG summaries in ``folder`` (None: it holds none)."""

    outcomes, raw = _summary(folder / OUTCOMES, "tests"), _summary(folder / RAW, "raw")
    if outcomes is None and raw is None:
        return None
    first = outcomes or raw or {}
    vendor = {k: for_terminal(str(v), TEXT_SHOWN) for k, v in (first.get("vendor") or {}).items()}
    page = environment().get_template("rng_report.html.j2").render(
        s=outcomes, r=raw, vendor=vendor, version=__version__,
        text=lambda v: for_terminal(v if isinstance(v, str) else json.dumps(v, sort_keys=True), TEXT_SHOWN))
    return page.encode("utf-8")


def write_rng_page(folder: Path) -> Path | None:
    """``report.html`` beside the RNG summaries in ``folder`` (None when it holds none)."""
    page = rng_page(Path(folder))
    return None if page is None else write_atomically(Path(folder) / REPORT_NAME, page)
