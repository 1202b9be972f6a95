"""The certification PDFs: what they state (read back with pypdf), byte-identical regeneration,
signatures and their checks, escaping of vendor strings, the exact declared-figure comparison,
a million failures, and the command line."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from collections import Counter
from fractions import Fraction
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pypdf import PdfReader

from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.instance.recovery import FaultPolicy
from tablecert.harness.run.runner import Runner
from tablecert.harness.record.seal import run_key, seal_folder
from tablecert.oracle.vendor import ReferenceVendor
from tablecert.reports import (
    check_report,
    render_pdf,
    render_report,
    store_game_math,
    verify_report,
    write_reports,
)
from tablecert.reports.data import load_report_data
from tablecert.reports.figures import compare
from tablecert.reports.inputs import ReportInputError, load_declared, parse_figure
from tablecert.harness.vendor_text import pdf_visible as printable
from tablecert.vectors.suites import generate
from waits import HANG

EVIL = "<font size=40>EVIL</font> & <b>"


class EvilVendor(ReferenceVendor):
    """Markup in every string it sends, and a crash on paigow.settle with markup in the error."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        return dict(hello, implementation={"name": EVIL, "version": "1.0 <i>", "build": "b\u2603\\x"})

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "paigow.settle":
            raise RuntimeError(f"crash {EVIL}")
        return super().handle(request)


def run_vendor(spec: str, suite: Path, out: Path) -> Path:
    adapter = PythonAdapter()
    Runner(lambda: adapter.open(spec, SessionOptions(timeout=30)), suite, out, batch_size=500,
           policy=FaultPolicy(retries=0)).run()
    seal_folder(out, run_key())          # as certify does after a run
    write_outputs(out)
    return out


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> Path:
    """The demo vendor (it fails) on the edge suite, the suite inside the run folder."""
    out = tmp_path_factory.mktemp("demo-run")
    generate("edge", out / "suite")
    return run_vendor("tablecert.harness.vendors.demo_vendor:DemoVendor", out / "suite", out)


@pytest.fixture(scope="module")
def ref_run(tmp_path_factory, demo_run) -> Path:
    """The reference vendor (it passes), the suite outside the run folder."""
    return run_vendor("tablecert.oracle.vendor:ReferenceVendor", demo_run / "suite", tmp_path_factory.mktemp("ref-run"))


@pytest.fixture
def run_copy(demo_run, tmp_path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(demo_run, dst, ignore=shutil.ignore_patterns("*.pdf", "*.sig", "*.sig.json"))
    return dst


def pdf_text(data: bytes | Path) -> str:
    raw = data.read_bytes() if isinstance(data, Path) else data
    return "\n".join(page.extract_text() or "" for page in PdfReader(BytesIO(raw)).pages)


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def summary_of(run: Path) -> dict[str, Any]:
    return json.loads((run / "summary.json").read_text(encoding="utf-8"))


def key_file(tmp_path: Path) -> tuple[Ed25519PrivateKey, Path, Path]:
    key = Ed25519PrivateKey.generate()
    folder = tmp_path / "keys"
    folder.mkdir(parents=True, exist_ok=True)
    priv = folder / "lab.key"
    priv.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    pub = folder / "lab.pub"
    pub.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo))
    return key, priv, pub


# -- what the documents state
def test_certificate_states_verdict_identity_digests_and_counts(demo_run, tmp_path):
    pdf = render_report(demo_run, "certificate", tmp_path / "certificate.pdf")
    text = pdf_text(pdf)
    flat = squeezed(text)
    s = summary_of(demo_run)
    assert "NOT CERTIFIED" in text
    for value in (s["vendor"]["name"], s["vendor"]["version"], s["vendor"]["build"]):
        assert squeezed(value) in flat
    manifest = json.loads((demo_run / "suite" / "manifest.json").read_text())
    digests = [s["profile"]["sha256"], s["suite_manifest_sha256"]] + [f["sha256"] for f in manifest["files"]]
    import hashlib

    digests.append(hashlib.sha256((demo_run / "summary.json").read_bytes()).hexdigest())
    for digest in digests:
        assert digest in flat, digest
    for outcome in ("pass", "fail"):
        assert f"{s['totals'][outcome]:,}" in text
    for clause in s["by_clause"]:
        assert clause in flat
    for flag, n in attributed_failures(demo_run).items():      # each failure under its most specific flag
        assert flag in flat and f"{n:,}" in text
    assert "7/495" in text and "1.414%" in text           # the profile's exact craps figures
    assert "Traceability matrix" in text and "Interpretations relied on" in text
    assert "NOTTESTED" in flat                             # clauses the edge suite does not reach


def attributed_failures(run: Path) -> Counter[str]:
    """Failures per most specific flag (specificity from vectors/flag_ranking.toml, read here)."""
    spec = tomllib.loads((Path(__file__).parents[1] / "vectors" / "flag_ranking.toml").read_text())["specificity"]
    db = sqlite3.connect(run / "run.db")
    try:
        return Counter(min(json.loads(f), key=lambda x: (-spec.get(x, 2), x))
                       for (f,) in db.execute("SELECT flags FROM failures"))
    finally:
        db.close()


def test_findings_order_classes_and_name_replay_files(demo_run, tmp_path):
    pdf = render_report(demo_run, "findings", tmp_path / "findings.pdf")
    flat = squeezed(pdf_text(pdf))
    # Each failure under its most specific flag; classes worst for money first, then most specific.
    ranking = tomllib.loads((Path(__file__).parents[1] / "vectors" / "flag_ranking.toml").read_text())
    notes = tomllib.loads((Path(__file__).parents[1] / "vectors" / "notes.toml").read_text())
    spec = ranking["specificity"]
    owners = attributed_failures(demo_run)
    assert sum(owners.values()) == summary_of(demo_run)["totals"]["fail"]
    failing = sorted(owners, key=lambda f: (ranking["severity"].index(notes[f]["bugType"]), -spec.get(f, 2),
                                            -owners[f], f))
    positions = [flat.index(f"{i}.{flag}") for i, flag in enumerate(failing, 1)]
    assert positions == sorted(positions)
    for replay in sorted((demo_run / "failures").glob("*.jsonl")):
        assert replay.name in flat
    assert "vendor<failures/FILE.jsonl" in flat


def test_a_passing_run_is_certified_and_an_unfinished_one_incomplete(ref_run, run_copy):
    text = pdf_text(render_pdf(load_report_data(ref_run), "certificate"))
    assert "CERTIFIED" in text and "NOT CERTIFIED" not in text
    assert "suite folder is not inside the run folder" in text
    db = sqlite3.connect(run_copy / "run.db")
    with db:
        db.execute("UPDATE meta SET value = '\"running\"' WHERE key = 'state'")
    db.close()
    assert "INCOMPLETE" in pdf_text(render_pdf(load_report_data(run_copy), "certificate"))


# -- determinism
def test_the_same_run_database_gives_byte_identical_pdfs(demo_run, tmp_path):
    for kind in ("certificate", "findings"):
        first = render_report(demo_run, kind, tmp_path / f"a-{kind}.pdf").read_bytes()
        second = render_pdf(load_report_data(demo_run), kind)
        assert first == second
    created = PdfReader(tmp_path / "a-certificate.pdf").metadata.creation_date
    assert created.isoformat().startswith(summary_of(demo_run)["finished"][:19])


# -- signatures
def test_signed_reports_verify_and_no_key_material_is_written(run_copy, tmp_path):
    key, priv, pub = key_file(tmp_path)
    written = write_reports(run_copy, sign_key=priv)
    assert {p.name for p in written} == {"certificate.pdf", "findings.pdf", "summary.json.sig", "summary.json.sig.json",
                                         "report.html"}
    for kind in ("certificate", "findings"):
        lines = verify_report(run_copy / f"{kind}.pdf", pubkey=pub)
        assert [line.split(":")[0] for line in lines] == ["pdf signature", "summary signature", "summary digest"]
        assert all(": ok (" in line for line in lines), lines
    raw = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    pem = priv.read_bytes()
    for path in run_copy.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert raw not in data and pem not in data and b"PRIVATE KEY" not in data, path


def test_a_changed_byte_fails_the_part_it_is_in(run_copy, tmp_path):
    _, priv, pub = key_file(tmp_path)
    unsigned = render_pdf(load_report_data(run_copy), "certificate")
    write_reports(run_copy, sign_key=priv, kinds=("certificate",))
    pdf = run_copy / "certificate.pdf"
    good = pdf.read_bytes()
    changed = bytearray(good)
    changed[len(unsigned) // 2] ^= 0x01
    pdf.write_bytes(bytes(changed))
    parts = {p: ok for p, ok, _ in check_report(pdf, pubkey=pub)}
    assert parts["pdf signature"] is False and parts["summary signature"] is True
    pdf.write_bytes(good)
    summary = run_copy / "summary.json"
    data = bytearray(summary.read_bytes())
    data[data.index(b'"fail"')] = ord(b" ")
    summary.write_bytes(bytes(data))
    lines = verify_report(pdf, pubkey=pub)
    assert lines[0].startswith("pdf signature: ok")
    assert lines[1].startswith("summary signature: FAILED")
    assert lines[2].startswith("summary digest: FAILED")


def test_another_key_is_refused(run_copy, tmp_path):
    _, priv, _ = key_file(tmp_path)
    write_reports(run_copy, sign_key=priv, kinds=("findings",))
    _, _, other_pub = key_file(tmp_path / "other")
    parts = {p: ok for p, ok, _ in check_report(run_copy / "findings.pdf", pubkey=other_pub)}
    assert parts["pdf signature"] is False and parts["summary signature"] is False


# -- escaping
def test_vendor_strings_are_shown_literally(edge_suite_for_evil, tmp_path):
    run = edge_suite_for_evil
    for kind in ("certificate", "findings"):
        data = render_pdf(load_report_data(run), kind)
        text = " ".join(pdf_text(data).split())           # table cells wrap lines
        assert EVIL in text
        assert "1.0 <i>" in text
        assert "b\\u2603\\\\x" in text                       # unshowable characters as exact escapes
        assert f"crash {EVIL}" in text                       # a vendor error message
        assert "NOT CERTIFIED" in text                       # it crashed
    assert printable("a\u2603b\\\x00") == "a\\u2603b\\\\\\u0000"


@pytest.fixture
def edge_suite_for_evil(demo_run, tmp_path) -> Path:
    return run_vendor(f"{__name__}:EvilVendor", demo_run / "suite", tmp_path / "evil")


# -- game math and declared figures
def test_declared_figures_are_compared_exactly(run_copy, tmp_path):
    declared = tmp_path / "declared.toml"
    declared.write_text('tolerance = "0.0005%"\n"pass.flat" = "7/495"\n"dont_pass.flat" = "1.364%"\n'
                        '"pass.max_odds.per_wagered" = "0.38%"\n"no.such" = "1%"\n', encoding="utf-8")
    decl = load_declared(declared)
    rows = {r.name: r for r in compare(decl, load_report_data(run_copy).math)}
    assert rows["pass.flat"].difference == 0 and rows["pass.flat"].agrees
    assert rows["dont_pass.flat"].difference == Fraction(1364, 100000) - Fraction(3, 220)
    assert rows["dont_pass.flat"].agrees
    assert rows["pass.max_odds.per_wagered"].agrees is False
    assert rows["no.such"].agrees is None
    text = pdf_text(render_pdf(load_report_data(run_copy), "certificate", decl))
    assert "Declared return figures" in text and "NO" in text
    assert parse_figure("1.414%") == Fraction(1414, 100000) and parse_figure(" 7/495 ") == Fraction(7, 495)
    declared.write_text('"pass.flat" = 1.414\n', encoding="utf-8")
    with pytest.raises(ReportInputError, match="as a string"):
        load_declared(declared)


def test_stored_pai_gow_figures_are_shown_without_the_census(run_copy):
    # store_game_math takes the pai gow figures from the oracle's committed exact figures (which
    # tests/test_imperial_math.py recomputes), so the report shows them without running the census
    from tablecert.oracle.paigow_math import committed_returns

    imperial = -committed_returns().imperial
    store_game_math(run_copy)
    text = squeezed(pdf_text(render_pdf(load_report_data(run_copy), "certificate")))
    assert "paigow.imperial.house_edge" in text and f"{imperial.numerator}/{imperial.denominator}" in text


# -- scale
def fabricate_failures(run: Path, n: int) -> None:
    """Add ``n`` failure rows (copies of the run's own, new tcIds) and scale the counts to match."""
    db = sqlite3.connect(run / "run.db")
    base = db.execute("SELECT COUNT(*) FROM failures").fetchone()[0]
    with db:
        db.execute("CREATE TEMP TABLE proto AS SELECT row_number() OVER () - 1 AS k, * FROM failures")
        db.execute("""INSERT INTO failures WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
                      SELECT p.file, p.op, p.tg_id, 100000000 + i, p.config, p."case", p.expected, p.actual, p.flags,
                             p.clauses, p.comment FROM seq JOIN proto p ON p.k = i % ?""", (n, base))
        factor = (n + base) // base
        db.execute("UPDATE counts SET n = n * ? WHERE outcome = 'fail'", (factor,))
        # one failure of a class of its own, last of all: its exemplar is found only at the end
        db.execute("""INSERT INTO failures SELECT file, op, tg_id, 999999999, config, "case", expected, actual,
                      '["Exhaustive"]', clauses, comment FROM failures LIMIT 1""")
        db.execute("INSERT INTO counts VALUES ('flag', 'Exhaustive', 'fail', 1)")
    db.close()


@pytest.mark.slow
def test_a_million_failures_render_on_bounded_pages(run_copy):
    """Pages stay bounded however many vectors fail (the render time is benchmarks/bench_reports.py's).
    The two PDFs only: report.html embeds every failing vector by design, and its million is
    benchmarks/bench_html_report.py's (rendering it here took about 40 of this test's 53 s)."""
    fabricate_failures(run_copy, 1_000_000)
    paths = [render_report(run_copy, kind) for kind in ("certificate", "findings")]
    pages = [len(PdfReader(p).pages) for p in paths]
    assert all(n <= 30 for n in pages), pages
    text = pdf_text(paths[0])
    assert "NOT CERTIFIED" in text and "more failures of this class are not shown" in text
    assert "tcId 999999999" in " ".join(pdf_text(paths[1]).split())


# -- the command line
def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablecert.cli_reports", *args], capture_output=True, text=True,
                          timeout=HANG)


def test_cli_exit_codes(run_copy, tmp_path):
    _, priv, pub = key_file(tmp_path)
    bad_key = tmp_path / "bad.key"
    bad_key.write_text("not a key\n")
    for args in (("report", str(tmp_path / "missing")), ("report", str(run_copy), "--sign", str(bad_key)),
                 ("report", str(run_copy), "--out", str(tmp_path / "x.pdf")),
                 ("verify-report", str(tmp_path / "missing.pdf")),
                 ("report", str(run_copy), "--submission", str(tmp_path / "missing.toml"))):
        out = cli(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert out.stderr.startswith("tablecert: error:") and out.stderr.count("\n") == 1, out.stderr
    submission = tmp_path / "submission.json"
    submission.write_text(json.dumps({"lab": "Example Gaming Laboratories", "submission_id": "EGL-2026-0117"}))
    out = cli("report", str(run_copy), "--submission", str(submission), "--sign", str(priv))
    assert out.returncode == 0, out.stderr
    assert "Example Gaming Laboratories" in pdf_text(run_copy / "certificate.pdf")
    assert cli("verify-report", str(run_copy / "certificate.pdf"), "--pubkey", str(pub)).returncode == 0
    data = bytearray((run_copy / "summary.json").read_bytes())
    data[-2] = ord(" ")
    (run_copy / "summary.json").write_bytes(bytes(data))
    out = cli("verify-report", str(run_copy / "certificate.pdf"), "--pubkey", str(pub))
    assert out.returncode == 1 and "summary signature: FAILED" in out.stdout


def test_a_failing_vector_keeps_its_comment_in_run_db_and_the_findings(demo_run, tmp_path):
    import gzip

    db = sqlite3.connect(demo_run / "run.db")
    rows = db.execute("SELECT file, tc_id, comment FROM failures ORDER BY file, op, tc_id").fetchall()
    db.close()
    assert rows
    comments: dict[tuple[str, int], str] = {}
    for file in {f for f, _, _ in rows}:               # the suite's own expected view, read here
        with gzip.open(demo_run / "suite" / "expected" / file, "rt", encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("type") == "test":
                    comments[(file, rec["tcId"])] = rec["comment"]
    assert all(comment and comment == comments[(file, tc)] for file, tc, comment in rows)
    text = " ".join(pdf_text(render_report(demo_run, "findings", tmp_path / "f.pdf")).split())
    shown = re.findall(r"Why tcId (\d+) exists:", text)
    assert shown and all(any(comment[:30] in text for (_, tc), comment in comments.items() if tc == int(t))
                         for t in shown)


def test_page_1_names_what_the_suite_did_not_test(ref_run, tmp_path):
    """An edge certificate says on page 1 that live play (recovery and recall), round play and RNG
    were not tested (issue 38: it could be read as covering them)."""
    pdf = render_report(ref_run, "certificate", tmp_path / "certificate.pdf")
    page1 = " ".join(PdfReader(BytesIO(pdf.read_bytes())).pages[0].extract_text().split())
    assert "Not tested by this suite" in page1
    assert "recovery after a power loss and recall of the game records were not tested" in page1
    assert "round play" in page1 and "random outcomes (RNG" in page1
