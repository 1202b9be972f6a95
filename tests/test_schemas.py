"""The JSON Schemas of what a lab archives (tablecert/schemas/): each names the version the files
carry, a file of its kind written by tablecert validates, and one that strays from it does not;
the conftest hook that checks every such file the tests write finds a broken one."""

from __future__ import annotations

import json
import tempfile
from dataclasses import fields
from pathlib import Path

import pytest
from conftest import _check_archived

from tablecert.harness.record.outputs import SUMMARY_SCHEMA
from tablecert.reports.site import INDEX_SCHEMA, Build
from tablecert.rng.api import SUMMARY_FORMAT as RNG_FORMAT
from tablecert.rng.raw_api import SUMMARY_FORMAT as RAW_FORMAT
from tablecert.schemas import FAILURE_LINE, FILES, archived_schema, problems, schema

ROOT = Path(__file__).resolve().parents[1]


def test_each_schema_is_the_version_its_files_name() -> None:
    assert {SUMMARY_SCHEMA, RNG_FORMAT, RAW_FORMAT, INDEX_SCHEMA} < set(FILES)
    for schema_id, name in FILES.items():
        assert schema(schema_id)["$id"].endswith(f"/schemas/{name}")
        named = schema(schema_id)["properties"] if schema_id != FAILURE_LINE else {}
        assert schema_id == FAILURE_LINE or {"const": schema_id} in (named.get("schema"), named.get("format"))
    assert schema(SUMMARY_SCHEMA)["properties"]["schema"] == {"const": SUMMARY_SCHEMA}


def test_the_site_index_schema_holds_every_field_of_a_build() -> None:
    """The site's index.json writes each Build field but its folder: the schema follows the model."""
    build = schema(INDEX_SCHEMA)["properties"]["vendors"]["items"]["properties"]["builds"]["items"]
    assert set(build["properties"]) == {f.name for f in fields(Build)} - {"path"} | {"report"}
    assert set(build["required"]) == set(build["properties"])


@pytest.fixture(scope="module")
def run_summary(edge: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("schema-run") / "run"
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd",
                           f"{sys.executable} -m tablecert reference-vendor", "--suite", "edge", "--suite-dir", str(edge),
                           "--out", str(out), "--quiet"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    raw = (out / "summary.json").read_text()
    assert raw.startswith('{\n  "schema": "tablecert-run-summary/1",\n  "verdict": "pass",')   # one key added, first
    return json.loads(raw)


def test_a_run_summary_validates_and_one_that_strays_does_not(run_summary: dict) -> None:
    assert archived_schema(Path("run/summary.json"), run_summary) == SUMMARY_SCHEMA
    assert problems(SUMMARY_SCHEMA, run_summary) is None
    assert problems(SUMMARY_SCHEMA, {**run_summary, "verdict": "passed"}) is not None
    assert problems(SUMMARY_SCHEMA, {**run_summary, "new_key": 1}) is not None       # every key is described
    assert problems(SUMMARY_SCHEMA, {**run_summary, "totals": {"pass": -1}}) is not None
    without = {k: v for k, v in run_summary.items() if k != "faults"}
    assert problems(SUMMARY_SCHEMA, without) is not None


def test_failure_lines_are_requests_or_live_replays() -> None:
    hello = {"id": 0, "op": "hello", "protocol": "tablecert-vendor/2", "protocols": ["tablecert-vendor/2"]}
    request = {"id": 1, "op": "craps.settle", "config": {"odds": "3-4-5x"}, "cases": [{"bet": "pass"}]}
    assert all(problems(FAILURE_LINE, line) is None
               for line in (hello, request, {"id": 2, "op": "bye"}))
    assert problems(FAILURE_LINE, {**request, "cases": []}) is not None
    assert problems(FAILURE_LINE, {"replay": "tablecert live table"}) is not None


def test_the_conftest_check_counts_what_it_validated_and_names_what_breaks(run_summary: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:          # not pytest's folders: the session's own check skips these
        check_a_folder_with_a_broken_summary(run_summary, Path(tmp))


def check_a_folder_with_a_broken_summary(run_summary: dict, tmp_path: Path) -> None:
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "summary.json").write_text(json.dumps(run_summary))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "summary.json").write_text(json.dumps({**run_summary, "verdict": "maybe"}))
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "summary.json").write_text(json.dumps({"verdict": "pass"}))     # 0.1.x: names no schema
    (tmp_path / "good" / "failures").mkdir()
    (tmp_path / "good" / "failures" / "x.jsonl").write_text('{"id":0,"op":"hello","protocol":"tablecert-vendor/1"}\n'
                                                            '{"id":1,"op":"bye"}\n')
    counts, broken = _check_archived(tmp_path)
    assert counts == {"summary.json (tablecert-run-summary/1)": 2, "failures/*.jsonl lines": 2,
                      "summary.json naming no schema (not checked)": 1}
    assert len(broken) == 1 and str(tmp_path / "bad" / "summary.json") in broken[0]


def test_the_docs_print_every_schema_as_shipped() -> None:
    page = (ROOT / "docs" / "reference" / "schemas.md").read_text(encoding="utf-8")
    for name in FILES.values():
        assert f'--8<-- "tablecert/schemas/{name}"' in page


def test_the_docs_check_command_runs_as_written(run_summary: dict) -> None:
    """docs/reference/schemas.md's command, on a run folder at the path it names (in a folder of
    its own: the broken summary below is not for the session's check)."""
    with tempfile.TemporaryDirectory() as tmp:
        check_the_docs_command(run_summary, Path(tmp))


def check_the_docs_command(run_summary: dict, tmp_path: Path) -> None:
    import shlex
    import subprocess
    import sys

    page = (ROOT / "docs" / "reference" / "schemas.md").read_text(encoding="utf-8")
    (line,) = [line for line in page.splitlines() if line.startswith("python -c ")]
    argv = shlex.split(line)
    assert argv[-1] == "runs/acme-4.2.1/summary.json"
    (tmp_path / "runs" / "acme-4.2.1").mkdir(parents=True)
    (tmp_path / "runs" / "acme-4.2.1" / "summary.json").write_text(json.dumps(run_summary))
    done = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True, cwd=tmp_path)
    assert done.stdout == "valid\n", done.stderr
    (tmp_path / "runs" / "acme-4.2.1" / "summary.json").write_text(json.dumps({**run_summary, "verdict": "ok"}))
    done = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True, cwd=tmp_path)
    assert "verdict" in done.stdout, done.stdout
