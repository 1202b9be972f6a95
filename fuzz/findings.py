"""What ``tablecert fuzz`` leaves in its run folder: every distinct failure as a replayable vector
file in the suites' own format (``vectors/``, a suite folder named ``fuzz`` with its manifest:
``tablecert vectors lint`` accepts it and ``tablecert certify --suite-dir RUN/vectors`` replays
it), ``summary.json``, a short ``findings.pdf`` and the lines printed on the terminal. None of
it is a certificate: fuzzing explores, the suites certify.
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Sequence
from io import BytesIO
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, Preformatted, SimpleDocTemplate, Spacer

from tablecert.fuzz.search import Failure, FuzzStats
from tablecert.harness.answers.causes import unwrapped
from tablecert.harness.contract import Hello
from tablecert.harness.answers.round_findings import divergence_note
from tablecert.harness.vendor_text import for_pdf, pdf_visible
from tablecert.oracle.profiles import load_profile
from tablecert.vectors.model import Vector, VectorGroup
from tablecert.vectors.suites import MANIFEST, build_manifest
from tablecert.vectors.writer import write_vector_set

SUITE = "fuzz"
VECTORS_DIR = "vectors"
SUMMARY = "summary.json"
FINDINGS_PDF = "findings.pdf"
#: (flags, clauses) of a replay vector per op family.
_TAGS = {"craps": (("TableConfig",), ("craps.sw.1",)), "paigow": (("HandCategory",), ("njac.11.19.c1",)),
         "craps.round": (("PlayRound",), ("craps.sw.1",))}


def write_vectors(out: Path, failures: list[Failure], profile_id: str) -> Path:
    """One vector file set per failure (a part ``finding-NNN``) and the manifest."""
    folder = out / VECTORS_DIR
    profile = load_profile(profile_id)
    written = []
    for n, failure in enumerate(failures, 1):
        flags, clauses = _TAGS.get(failure.op) or _TAGS[failure.op.split(".")[0]]
        vector = Vector(failure.case, f"fuzz finding {n}: {failure.signature}", flags, clauses)
        written += write_vector_set(folder, SUITE, failure.op, profile_id, profile.sha256,
                                    [VectorGroup(failure.op, failure.config, f"fuzz finding {n}", [vector])],
                                    part=f"finding-{n:03d}")
    manifest = build_manifest(SUITE, profile_id, profile.sha256, ("prompt", "expected"), folder, written)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return folder


def summary(stats: FuzzStats, hello: Hello, settings: dict[str, Any], replay: str) -> dict[str, Any]:
    return {
        "tool": "tablecert fuzz", "certificate": False,
        "note": "pre-submission exploration: no certificate is issued from a fuzz run",
        "vendor": {"name": hello.name, "version": hello.version, "build": hello.build, "ops": list(hello.ops)},
        "settings": settings,
        "examples": stats.examples, "cases": stats.cases, "cases_drawn": stats.drawn, "rounds": stats.rounds,
        "seconds": round(stats.seconds, 3),
        "cases_per_second": round(stats.cases / stats.seconds, 1) if stats.seconds else None,
        "verdict": "failures found" if stats.failures else "no failure found",
        "replay": replay,
        "failures": [{"id": n, "signature": f.signature, "op": f.op, "config": f.config, "case": f.case,
                      "expected": f.expected, "actual": f.actual,
                      "vector_file": f"{VECTORS_DIR}/expected/{f.op}.{settings['profile']}.finding-{n:03d}.jsonl.gz",
                      **({"divergence": divergence_note(f.case, f.expected["result"], f.actual)}
                         if f.op == "craps.round" and "result" in f.expected else {})}
                     for n, f in enumerate(stats.failures, 1)],
    }


REPLAY_FOLDER = "replay"
"""The run folder the replay command writes, inside the fuzz run's folder."""


def replay_command(vendor_args: Sequence[str], out: Path) -> str:
    """The command line that replays a fuzz run's vectors (a suite of their own, not this
    release's) against the vendor named by ``vendor_args`` (the fuzz run's own vendor options, as
    given), into ``out/replay``: runnable as printed."""
    return shlex.join(["tablecert", "certify", *vendor_args, "--suite", "fuzz", "--suite-dir", str(out / VECTORS_DIR),
                       "--custom-suite", "--out", str(out / REPLAY_FOLDER)])


def terminal_lines(data: dict[str, Any]) -> list[str]:
    lines = [f"vendor:   {data['vendor']['name']} {data['vendor']['version']} ({data['vendor']['build']})",
             f"explored: {data['cases']:,} cases in {data['examples']:,} examples, {data['seconds']:.1f} s "
             f"(seed {data['settings']['seed']})"]
    for f in data["failures"]:
        lines.append(f"  [{f['id']}] {f['signature']}")
        lines.append(f"      case {json.dumps(f['case'])}")
        if f.get("divergence"):
            lines.append(f"      {f['divergence']}")
        lines.append(f"      expected {json.dumps(unwrapped(f['expected']))}  answered {json.dumps(f['actual'])[:200]}")
    lines.append(f"result:   {data['verdict'].upper()} ({len(data['failures'])} distinct) - not a certificate")
    if data["failures"]:
        lines.append(f"replay:   {data['replay']}")
    return lines


def findings_pdf(data: dict[str, Any]) -> bytes:
    """A short PDF: the run, then each failure with its config, case, expected and actual answer."""
    styles = getSampleStyleSheet()
    buf = BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=A4, invariant=1, title="tablecert fuzz findings",
                            author="tablecert", leftMargin=40, rightMargin=40)
    vendor, s = data["vendor"], data["settings"]
    story: list[Any] = [
        Paragraph("tablecert fuzz: findings", styles["Title"]),
        Paragraph("Pre-submission exploration. <b>This is not a certificate.</b>", styles["Normal"]),
        Spacer(1, 8),
        Paragraph(f"Vendor: {for_pdf(vendor['name'])} {for_pdf(vendor['version'])} ({for_pdf(vendor['build'])})",
                  styles["Normal"]),
        Paragraph(f"Seed {s['seed']}, budget {s['budget']} s, profile {s['profile']}"
                  f"{' (pinned)' if s['pinned'] else ''}, ops: {', '.join(s['ops'])}", styles["Normal"]),
        Paragraph(f"Explored {data['cases']:,} cases in {data['examples']:,} examples. "
                  f"Result: {data['verdict']} ({len(data['failures'])} distinct).", styles["Normal"]),
        Spacer(1, 10),
    ]
    if data["failures"]:
        story.append(Paragraph(f"Replay every finding: <font face='Courier'>{escape(data['replay'])}</font>",
                               styles["Normal"]))
    for f in data["failures"]:
        story.append(Paragraph(f"Finding {f['id']}: {for_pdf(f['signature'])}", styles["Heading3"]))
        text = "\n".join([f"config:   {json.dumps(f['config'])}", f"case:     {json.dumps(f['case'])}",
                          f"expected: {json.dumps(unwrapped(f['expected']))}",
                          f"answered: {json.dumps(f['actual'])}", f"vector:   {f['vector_file']}"]
                         + ([f"where:    {f['divergence']}"] if f.get("divergence") else []))
        story.append(Preformatted(pdf_visible(text), styles["Code"], maxLineLength=95, newLineChars=""))
    doc.build(story)
    return buf.getvalue()


def write_outputs(out: Path, stats: FuzzStats, hello: Hello, settings: dict[str, Any],
                  replay: str) -> dict[str, Any]:
    """Write vectors/ (when something failed), summary.json and findings.pdf; return the summary.
    ``replay``: the command line that replays the vectors (:func:`replay_command`)."""
    data = summary(stats, hello, settings, replay)
    if (out / VECTORS_DIR).exists():
        shutil.rmtree(out / VECTORS_DIR)   # a previous run's findings in this folder
    if stats.failures:
        write_vectors(out, stats.failures, settings["profile"])
    (out / SUMMARY).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    (out / FINDINGS_PDF).write_bytes(findings_pdf(data))
    return data
