"""Certification PDFs from a run folder: a report a lab can sign and a vendor can act on.

Two documents come from one run database:

* ``certificate`` (certificate.pdf), for the laboratory and the regulator: identification, the
  verdict in a box nobody can miss, results per op and outcome, the traceability matrix, the
  interpretations relied on, the exact game math (and the vendor's declared figures against it),
  failures by bug class, the hand-label confusion matrix, a signature block and every digest;
* ``findings`` (findings.pdf), for the vendor's developers: the same failures ordered for fixing,
  smallest cases first, with the replay files that reproduce them;
* ``report.html`` beside them (:mod:`~tablecert.reports.html`): the same results in the browser,
  one self-contained file; and ``tablecert site`` (:mod:`~tablecert.reports.site`), a lab's static
  view over many run folders.

Wording is in ``templates/`` (Jinja2), the look in ``styles.toml``, the layout in
:mod:`~tablecert.reports.layout` (ReportLab). The same run database and inputs give byte-identical
unsigned PDFs. ``sign_run`` signs summary.json (Ed25519) and the PDFs (PAdES);
``verify_report`` checks them, one line per part.

>>> write_reports(Path("out/run"), submission="submission.toml")   # doctest: +SKIP
[PosixPath('out/run/certificate.pdf'), PosixPath('out/run/findings.pdf')]
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any
import hashlib

from reportlab.platypus import Flowable

from tablecert.harness.run.certify import OutputOptions
from tablecert.harness.lab_files import write_atomically
from tablecert.reports.data import EXEMPLAR_WINDOW, ReportData, RunFolderError, load_report_data
from tablecert.reports.figures import compare, store_game_math
from tablecert.reports.html import REPORT_NAME, write_html_report
from tablecert.reports.inputs import Declared, ReportInputError, Submission, load_declared, load_submission
from tablecert.reports.signing import SigningError
from tablecert import __version__
from tablecert.reports import signing
from tablecert.reports.markup import render_markup

KINDS = ("certificate", "findings")
CERTIFICATE_EXEMPLARS = 3

__all__ = ["KINDS", "REPORT_NAME", "ReportInputError", "RunFolderError", "SigningError", "check_report", "document_xml", "format_part",
           "render_pdf", "render_report", "report_step", "sign_run", "store_game_math", "verify_report", "write_html_report",
           "write_reports"]


def _submission(value: Submission | str | Path | None) -> Submission:
    return value if isinstance(value, Submission) else load_submission(value)


def _declared(value: Declared | str | Path | None) -> Declared | None:
    return value if isinstance(value, Declared) or value is None else load_declared(value)


def _charts(data: ReportData):  # type: ignore[no-untyped-def]
    from tablecert.reports.charts import confusion_chart  # lazy: 9.8 ms of report step start (bench_startup.py, at rest)

    def make(el: ET.Element, width: float) -> Flowable:
        if el.get("kind") == "confusion":
            for conf in data.confusion:
                if conf.op == el.get("op"):
                    return confusion_chart(conf, width)
        raise ValueError(f"report template: no chart {el.get('kind')} {el.get('op')}")

    return make


def document_xml(data: ReportData, kind: str, declared: Declared | None = None) -> str:
    """The XML of one document (:mod:`tablecert.reports.layout`), before it is laid out."""
    if kind not in KINDS:
        raise ValueError(f"unknown report kind {kind!r}; kinds: {', '.join(KINDS)}")
    comparison = compare(declared, data.math) if declared is not None else []
    return render_markup(kind, d=data, declared=declared, comparison=comparison, version=__version__,
                         shown=CERTIFICATE_EXEMPLARS, window=EXEMPLAR_WINDOW)


def render_pdf(data: ReportData, kind: str, declared: Declared | None = None) -> bytes:
    """One document's bytes (deterministic for the same data)."""
    from tablecert.reports.layout import build_pdf  # lazy: 6.9 ms of report step start (bench_startup.py, at rest)

    return build_pdf(document_xml(data, kind, declared), data.finished, _charts(data))


def render_report(run_dir: str | Path, kind: str = "certificate", out: str | Path | None = None, *,
                  submission: Submission | str | Path | None = None,
                  declared: Declared | str | Path | None = None) -> Path:
    """Render one unsigned document of a run folder to ``out`` (default RUN_DIR/KIND.pdf)."""
    run_dir = Path(run_dir)
    data = load_report_data(run_dir, _submission(submission))
    path = Path(out) if out is not None else run_dir / f"{kind}.pdf"
    return write_atomically(path, render_pdf(data, kind, _declared(declared)))


def write_reports(run_dir: str | Path, submission: Submission | str | Path | None = None,
                  declared: Declared | str | Path | None = None, sign_key: str | Path | None = None,
                  cert: str | Path | None = None, kinds: tuple[str, ...] = KINDS,
                  out: str | Path | None = None, seal_keys: list[Any] | None = None) -> list[Path]:
    """Both documents into the run folder (what ``tablecert certify`` calls); with ``sign_key``
    they are signed, and so is summary.json, once the run record is found sealed by one of the
    ``seal_keys`` (default: see :func:`tablecert.reports.signing.check_signable`). ``out`` names
    the file when one kind is asked for."""
    run_dir = Path(run_dir)
    if out is not None and len(kinds) != 1:
        raise ValueError("an output file name needs exactly one kind of report")
    key = signing.load_private_key(sign_key) if sign_key is not None else None
    certificate = signing.load_certificate(cert, key) if cert is not None and key is not None else None
    if cert is not None and key is None:
        raise SigningError("a certificate is given but no signing key")
    if key is not None:
        signing.check_signable(run_dir, seal_keys)
    data = load_report_data(run_dir, _submission(submission))
    if key is not None:
        data.fingerprint = signing.fingerprint(key.public_key())
    decl = _declared(declared)
    written = []
    for kind in kinds:
        path = Path(out) if out is not None else run_dir / f"{kind}.pdf"
        written.append(write_atomically(path, render_pdf(data, kind, decl)))
    if key is not None:
        for path in written:
            signing.sign_pdf(path, key, certificate)
        summary = run_dir / "summary.json"
        if summary.is_file():
            written.extend(signing.sign_summary(summary, key))
    if out is None:                                 # the run folder's own documents: report.html beside them
        written.append(write_html_report(data))
    return written


def report_step(outputs: OutputOptions) -> Callable[[Path, list[Any]], None]:
    """The step ``tablecert certify`` runs once a run is sealed and its outputs written (the
    harness calls it, ``CertifyOptions.then``, with the run folder still held): the game math
    stored, then both documents written, and signed with ``outputs.sign_key`` when given."""
    def write(run_dir: Path, seal_keys: list[Any]) -> None:
        store_game_math(run_dir)
        write_reports(run_dir, submission=outputs.submission, declared=outputs.declared, sign_key=outputs.sign_key,
                      cert=outputs.cert, seal_keys=seal_keys)
    return write


def sign_run(run_dir: str | Path, key_path: str | Path, cert_path: str | Path | None = None,
             seal_keys: list[Any] | None = None) -> list[Path]:
    """Sign summary.json and the reports already in the run folder (its record sealed by one of
    the ``seal_keys``, as :func:`write_reports` checks); returns the files changed."""
    run_dir = Path(run_dir)
    key = signing.load_private_key(key_path)
    cert = signing.load_certificate(cert_path, key) if cert_path is not None else None
    summary = run_dir / "summary.json"
    if not summary.is_file():
        raise RunFolderError(f"{run_dir}: no summary.json to sign")
    signing.check_signable(run_dir, seal_keys)
    changed = list(signing.sign_summary(summary, key))
    for kind in KINDS:
        pdf = run_dir / f"{kind}.pdf"
        if pdf.is_file():
            signing.sign_pdf(pdf, key, cert)
            changed.append(pdf)
    return changed


def check_report(pdf_path: str | Path, summary: str | Path | None = None, pubkey: str | Path | None = None,
                 cert: str | Path | None = None, trust: str | Path | None = None) -> list[tuple[str, bool | None, str]]:
    """(part, ok, detail) for the PDF signature, the summary signature and the summary digest the
    report states; ok is None for a part that could not be checked, and for a signature that is
    intact when no trusted key was named (``pubkey``, ``cert`` or a ``trust`` folder): a signature
    is good only by a key the lab trusts."""
    pdf = Path(pdf_path)
    if not pdf.is_file():
        raise FileNotFoundError(f"{pdf}: no such report")
    keys = signing.trusted_keys(pubkey, cert, trust)
    summary_path = Path(summary) if summary is not None else pdf.parent / "summary.json"
    if summary is not None and not summary_path.is_file():
        raise FileNotFoundError(f"{summary_path}: no such summary")
    parts: list[tuple[str, bool | None, str]] = []
    ok, what, keywords = signing.verify_pdf(pdf, keys)
    parts.append(("pdf signature", ok, what))
    if not summary_path.is_file():
        parts.append(("summary signature", None, "no summary.json beside the report; give --summary"))
        return parts
    ok, what = signing.verify_summary(summary_path, keys)
    parts.append(("summary signature", ok, what))
    stated = dict(item.strip().split("=", 1) for item in (keywords or "").split(";") if "=" in item)
    actual = hashlib.sha256(summary_path.read_bytes()).hexdigest()
    if keywords is None:
        parts.append(("summary digest", None, "the PDF signature failed"))
    elif stated.get("summary-sha256") == actual:
        parts.append(("summary digest", True, "summary.json is the one the report states"))
    else:
        parts.append(("summary digest", False, f"summary.json sha256 {actual[:16]}..., "
                                               f"the report states {stated.get('summary-sha256', 'none')[:16]}..."))
    return parts


def verify_report(pdf_path: str | Path, summary: str | Path | None = None, pubkey: str | Path | None = None,
                  cert: str | Path | None = None, trust: str | Path | None = None) -> list[str]:
    """One line per part: ``pdf signature: ok (...)``, ``... FAILED (reason)`` or ``... not checked``."""
    return [format_part(*part) for part in check_report(pdf_path, summary, pubkey, cert, trust)]


def format_part(part: str, ok: bool | None, detail: str) -> str:
    words = {True: "ok", False: "FAILED", None: "not checked"}
    return f"{part}: {words[ok]} ({detail})"
