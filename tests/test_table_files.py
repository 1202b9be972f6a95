"""A lab's own table configuration given as ``--profile FILE``: vectors for exactly that table,
or, when the table breaks the regulation, one line naming the file and its first finding."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablecert.oracle import profiles
from tablecert.oracle.profiles import ProfileError, list_profiles, resolve_profile
from tablecert.vectors import suites
from tablecert.vectors.checks import lint
from tablecert.vectors.model import VectorGroup
from tablecert.vectors.suites import generate
from waits import HANG

SHIPPED = Path(profiles.__file__).with_name("profiles") / "odds-10x.toml"


def table_file(tmp: Path, name: str = "acme.toml", **edits: str) -> Path:
    """The shipped 10x profile with its id changed to ``acme-table-7`` and ``edits`` applied
    (``old=new`` pairs given as {"old": "new"} through keyword names a..z)."""
    text = SHIPPED.read_text().replace('id = "odds-10x"', 'id = "acme-table-7"')
    text = text.replace("unit = 100 ", "unit = 500 ")
    for old, new in edits.values():
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp / name
    path.write_text(text)
    return path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, timeout=HANG)


def test_vectors_for_a_labs_own_table(tmp_path: Path) -> None:
    path = table_file(tmp_path)
    assert resolve_profile(str(path)) == "acme-table-7"
    manifest = generate("edge", tmp_path / "suite", "acme-table-7")
    assert manifest["profile"]["id"] == "acme-table-7"
    assert manifest["profile"]["sha256"] == profiles.load_profile_file(path).sha256
    assert lint(tmp_path / "suite") == []
    name = "prompt/craps.place_odds.acme-table-7.jsonl.gz"
    with gzip.open(tmp_path / "suite" / name, "rt") as f:
        units = {json.loads(line)["config"]["unit"] for line in f if json.loads(line)["type"] == "group"}
    assert 500 in units                                   # the table's own unit (the shipped one is 100)


def test_the_standard_suite_adds_the_tables_domain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    resolve_profile(str(table_file(tmp_path)))
    labels: list[str] = []

    def record(base: dict, label: str):
        labels.append(label)
        return iter([VectorGroup(op, base, "stub") for op in suites.CRAPS_OPS])

    monkeypatch.setattr(suites.craps_cases, "domain_groups", record)
    for _ in suites._standard_sets("acme-table-7"):
        pass
    assert labels == list_profiles() + ["acme-table-7"]


def test_a_copy_of_a_shipped_profile_is_that_profile(tmp_path: Path) -> None:
    copy = tmp_path / "copy.toml"
    copy.write_bytes(SHIPPED.read_bytes())
    assert resolve_profile(str(copy)) == "odds-10x"
    altered = tmp_path / "altered.toml"
    altered.write_text(SHIPPED.read_text().replace("unit = 100 ", "unit = 200 "))
    with pytest.raises(ProfileError, match="is a shipped profile's"):
        resolve_profile(str(altered))


@pytest.mark.parametrize("command", [("vectors", "generate", "--suite", "edge"), ("certify", "--suite", "edge",
                                                                                 "--vendor-plugin", "reference")])
def test_a_non_compliant_table_is_refused_in_one_line(tmp_path: Path, command: tuple[str, ...]) -> None:
    # max odds 0 on the 4: the regulation lets every point be backed (craps.sw.1)
    path = table_file(tmp_path, a=('max_odds = { "4" = "10"', 'max_odds = { "4" = "0"'),
                      b=('free_odds = { "4" = "10"', 'free_odds = { "4" = "0"'))
    out = run(*command, "--profile", str(path), "--out", str(tmp_path / "out"))
    assert out.returncode == 2, out.stdout
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert f"{path}: the table is not compliant" in out.stderr and "(craps.sw.1)" in out.stderr, out.stderr
    assert not (tmp_path / "out" / "run.db").exists()


def test_certify_a_vendor_on_a_labs_own_table(tmp_path: Path) -> None:
    path = table_file(tmp_path)
    out = run("certify", "--vendor-plugin", "reference", "--suite", "edge", "--profile", str(path),
              "--out", str(tmp_path / "run"), "--quiet")
    assert out.returncode == 0, out.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["profile"]["id"] == "acme-table-7" and summary["verdict"] == "pass"
