"""Vector suites: deterministic bytes (golden manifests), prompt/expected separation, lint and
verify catching what they must, the hand-stream suites' descriptors, and the CLI."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from tablecert.vectors import suites, writer
from tablecert.vectors.checks import lint, verify
from waits import HANG

GOLDEN = resources.files("tablecert.vectors").joinpath("golden")


@pytest.fixture(scope="module")
def edge_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("edge")
    suites.generate("edge", out)
    return out


def _lines(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _rewrite(path: Path, lines: list[dict]) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def test_edge_matches_its_golden_manifest(edge_dir):
    # a change to any expected answer, case or comment shows up here as a changed digest
    golden = json.loads(GOLDEN.joinpath("edge.manifest.json").read_text())
    manifest = json.loads((edge_dir / "manifest.json").read_text())
    assert [(f["path"], f["sha256"]) for f in manifest["files"]] == [(f["path"], f["sha256"]) for f in golden["files"]]
    assert manifest == golden


def test_generation_is_byte_identical(edge_dir, tmp_path):
    suites.generate("edge", tmp_path)
    assert (tmp_path / "manifest.json").read_bytes() == (edge_dir / "manifest.json").read_bytes()


def test_edge_lints_and_verifies(edge_dir):
    assert lint(edge_dir) == []
    assert verify(edge_dir) == []


def test_edge_covers_every_op_and_its_error_codes(edge_dir):
    codes: dict[str, set] = {}
    for f in json.loads((edge_dir / "manifest.json").read_text())["files"]:
        if f["view"] == "expected":
            for line in _lines(edge_dir / f["path"]):
                if line["type"] == "test" and "error" in line["expected"]:
                    codes.setdefault(f["op"], set()).add(line["expected"]["error"])
    assert codes["craps.settle"] >= {"invalid_request", "invalid_bet", "invalid_point", "invalid_dice", "no_point",
                                     "not_positive", "bad_increment", "above_maximum"}
    assert codes["craps.place_odds"] >= {"invalid_request", "no_point", "not_positive", "bad_increment", "above_maximum"}
    assert codes["craps.odds_limits"] >= {"invalid_request", "invalid_config", "no_point", "not_positive", "bad_increment"}
    assert codes["paigow.settle"] >= {"invalid_request", "invalid_hand", "invalid_round"}
    assert codes["paigow.player_bonus"] >= {"invalid_hand"}


def test_prompt_holds_inputs_only(edge_dir):
    # structurally: a prompt test line is exactly {type, tcId, case}
    for path in sorted((edge_dir / "prompt").iterdir()):
        for line in _lines(path):
            if line["type"] == "test":
                assert set(line) == {"type", "tcId", "case"}
            if line["type"] == "header":
                assert "notes" not in line


def test_no_answer_can_leak_into_a_prompt(tmp_path, monkeypatch):
    # the prompt is a function of the inputs alone: an oracle giving other answers changes the
    # expected view and leaves the prompt byte for byte the same
    suites.generate("edge", tmp_path / "a", view="both")
    monkeypatch.setattr(writer, "expected_answer", lambda handle, parsed, case: {"result": {"leak": "SECRET-ANSWER"}})
    suites.generate("edge", tmp_path / "b", view="both")
    for path in sorted((tmp_path / "a" / "prompt").iterdir()):
        assert path.read_bytes() == (tmp_path / "b" / "prompt" / path.name).read_bytes()
        assert b"SECRET-ANSWER" not in gzip.decompress((tmp_path / "b" / "prompt" / path.name).read_bytes())
    assert any(p.read_bytes() != (tmp_path / "b" / "expected" / p.name).read_bytes()
               for p in (tmp_path / "a" / "expected").iterdir())


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_verify_names_a_file_with_one_changed_byte(edge_dir, tmp_path):
    d = _copy(edge_dir, tmp_path / "s")
    target = d / "expected" / "craps.settle.odds-3-4-5x.jsonl.gz"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    problems = verify(d)
    assert len(problems) == 1 and problems[0].startswith("expected/craps.settle.odds-3-4-5x.jsonl.gz")


def test_verify_reports_missing_and_unlisted_files(edge_dir, tmp_path):
    d = _copy(edge_dir, tmp_path / "s")
    (d / "prompt" / "paigow.settle.odds-3-4-5x.jsonl.gz").unlink()
    (d / "prompt" / "stray.jsonl.gz").write_bytes(b"x")
    problems = verify(d)
    assert any("paigow.settle" in p and "missing" in p for p in problems)
    assert any("stray.jsonl.gz" in p and "not listed" in p for p in problems)


@pytest.mark.parametrize("fault, message", [
    ("duplicate_tcid", "duplicate or out of order"),
    ("footer", "footer says"),
    ("flag", "not defined in the header's notes"),
    ("clause", "unknown clause id"),
    ("schema", "schema:"),
    ("truncated", "no footer"),
])
def test_lint_catches(edge_dir, tmp_path, fault, message):
    d = _copy(edge_dir, tmp_path / "s")
    path = d / "expected" / "craps.place_odds.odds-3-4-5x.jsonl.gz"
    lines = _lines(path)
    tests = [i for i, l in enumerate(lines) if l["type"] == "test"]
    if fault == "duplicate_tcid":
        lines[tests[1]]["tcId"] = lines[tests[0]]["tcId"]
    elif fault == "footer":
        lines[-1]["numberOfTests"] += 1
    elif fault == "flag":
        lines[tests[0]]["flags"] = ["NoSuchFlag"]
    elif fault == "clause":
        lines[tests[0]]["clauses"] = ["craps.sw.99"]
    elif fault == "schema":
        lines[tests[0]]["expected"] = {"answer": 3}
    elif fault == "truncated":
        lines = lines[:-1]
    _rewrite(path, lines)
    problems = lint(d)
    assert any(message in p for p in problems), problems


def test_lint_reports_a_truncated_gzip(edge_dir, tmp_path):
    d = _copy(edge_dir, tmp_path / "s")
    path = d / "prompt" / "craps.settle.odds-3-4-5x.jsonl.gz"
    path.write_bytes(path.read_bytes()[:-40])
    assert any("not a readable gzip" in p for p in lint(d))


def test_cli_generate_lint_verify_list(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, "-m", "tablecert", "vectors", *a], capture_output=True, text=True,
                                    timeout=HANG)
    out = run("generate", "--suite", "edge", "--out", str(tmp_path / "e"), "--view", "prompt", "--quiet")
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / "e" / "expected").exists()
    assert run("lint", str(tmp_path / "e")).returncode == 0
    assert run("verify", str(tmp_path / "e")).returncode == 0
    listing = run("list").stdout
    assert all(name in listing for name in ("edge", "standard", "joker", "exhaustive"))
    bad = run("generate", "--suite", "nope", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "unknown suite" in bad.stderr
    bad = run("generate", "--suite", "edge", "--profile", "nope", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "unknown profile" in bad.stderr
    bad = run("lint", str(tmp_path / "nowhere"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


@pytest.mark.slow
def test_standard_matches_its_golden_manifest(standard_suite):
    manifest = json.loads((standard_suite / "manifest.json").read_text())   # generated once (conftest.py)
    golden = json.loads(GOLDEN.joinpath("standard.manifest.json").read_text())
    assert manifest == golden
    assert lint(standard_suite) == []


def test_joker_suite_descriptor_and_stream(tmp_path):
    import tomllib

    manifest = suites.generate("joker", tmp_path)
    assert manifest["numberOfTests"] == 2 * 20_358_520
    desc = json.loads((tmp_path / "expected" / "paigow.hands.json").read_text())
    golden = tomllib.loads(GOLDEN.joinpath("hand_streams.toml").read_text())
    assert desc["streamSha256"] == golden["joker"]["sha256"]
    assert (tmp_path / "expected" / "paigow.hands.labels").stat().st_size == 2 * 20_358_520
    assert lint(tmp_path) == [] and verify(tmp_path) == []
