"""Offline certification: export prompts, answer them as a vendor would, validate the responses."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablecert.oracle.vendor import ReferenceVendor, run_op
from waits import HANG


def answer_prompts(folder: Path) -> list[dict]:
    """What a vendor does offline: read each prompt file and answer every case."""
    lines = []
    for path in sorted((folder / "prompt").glob("*.jsonl.gz")):
        op = None
        config = None
        with gzip.open(path, "rt") as f:
            for raw in f:
                line = json.loads(raw)
                if line["type"] == "header":
                    op = line["op"]
                elif line["type"] == "group":
                    config = line["config"]
                elif line["type"] == "test":
                    (answer,) = run_op(op, config, [line["case"]])
                    lines.append({"file": path.name, "tcId": line["tcId"], "answer": answer})
    return lines


def write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    return path


def validate(responses: Path, suite: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablecert", "validate", "--responses", str(responses),
                           "--suite-dir", str(suite), "--out", str(out), "--quiet"], capture_output=True, text=True,
                          timeout=HANG)


def test_export_holds_prompts_only(tmp_path):
    out = subprocess.run([sys.executable, "-m", "tablecert", "vectors", "export", "--suite", "edge", "--out",
                          str(tmp_path / "x")], capture_output=True, text=True, timeout=HANG)
    assert out.returncode == 0
    assert (tmp_path / "x" / "prompt").is_dir() and not (tmp_path / "x" / "expected").exists()


def test_correct_responses_pass_and_a_wrong_one_fails(edge, tmp_path):
    lines = answer_prompts(edge)
    ok = validate(write(tmp_path / "ok.jsonl", lines), edge, tmp_path / "ok")
    assert ok.returncode == 0, ok.stderr
    assert json.loads((tmp_path / "ok" / "summary.json").read_text())["verdict"] == "pass"
    wrong = [dict(l) for l in lines]
    i = next(i for i, l in enumerate(wrong) if "commission" in l["answer"])
    wrong[i]["answer"] = {"commission": wrong[i]["answer"]["commission"] + 1}
    bad = validate(write(tmp_path / "bad.jsonl", wrong), edge, tmp_path / "bad")
    assert bad.returncode == 1
    assert json.loads((tmp_path / "bad" / "summary.json").read_text())["totals"]["fail"] == 1
    assert all((tmp_path / "bad" / f"{kind}.pdf").is_file() for kind in ("certificate", "findings"))  # as certify


@pytest.mark.parametrize("fault, words", [("missing", "no answer for"), ("duplicate", "duplicate answer"),
                                          ("unknown", "unknown"), ("garbage", "not JSON"), ("shape", "a line must be")])
def test_bad_responses_are_refused_in_one_line(edge, tmp_path, fault, words):
    lines = answer_prompts(edge)
    text = None
    if fault == "missing":
        lines = lines[:-1]
    elif fault == "duplicate":
        lines.append(lines[3])
    elif fault == "unknown":
        lines.append({"file": "nope.jsonl.gz", "tcId": 1, "answer": {}})
    elif fault == "shape":
        lines.append({"file": "x", "tcId": True, "answer": {}})
    path = write(tmp_path / "r.jsonl", lines)
    if fault == "garbage":
        path.write_text(path.read_text() + "{not json\n")
    out = validate(path, edge, tmp_path / "out")
    assert out.returncode == 2 and words in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
