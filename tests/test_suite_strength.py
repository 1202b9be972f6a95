"""Suite strength, the test that matters most: the `standard` suite must catch every one of the
faulty vendors in tests/faulty_vendors.py (each with one fault a real implementation could
have) and pass the reference vendor with zero failures. Prints the kill rate.

A pai gow faulty vendor is run on the standard suite's pai gow part (its files of the pai gow ops,
byte for byte): a vector of that part that catches it is a vector of the standard suite that
catches it, and the run (stopped at its first failing vector) no longer passes some 90,000 craps
vectors first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from faulty_vendors import FAULTY_VENDORS
from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.run.runner import Runner
from tablecert.harness.vendors.vendor_kit import PaigowVendor
from tablecert.vectors.suites import manifest_bytes, manifest_of


@pytest.fixture(scope="module")
def standard(standard_suite) -> Path:
    return standard_suite           # generated once per test run (conftest.py)


@pytest.fixture(scope="module")
def paigow_part(standard: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The standard suite's pai gow part: its files of the pai gow ops, copied unchanged, under a
    manifest listing just them."""
    manifest = json.loads((standard / "manifest.json").read_text(encoding="utf-8"))
    part = tmp_path_factory.mktemp("standard-paigow")
    files = [f for f in manifest["files"] if f["op"].startswith("paigow.")]
    assert {f["view"] for f in files} == set(manifest["views"])
    for entry in files:
        (part / entry["path"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(standard / entry["path"], part / entry["path"])
    (part / "manifest.json").write_bytes(manifest_bytes(manifest_of(
        manifest["suite"], manifest["profile"]["id"], manifest["profile"]["sha256"], tuple(manifest["views"]), files)))
    return part


def run(spec: str, suite: Path, out: Path, **kw):
    adapter = PythonAdapter()
    return Runner(lambda: adapter.open(spec, SessionOptions(timeout=60)), suite, out, batch_size=1000, **kw).run()


@pytest.mark.slow
def test_reference_vendor_passes_standard(reference_standard_run: Path) -> None:
    """The session's run of the reference vendor on ``standard`` (conftest.py; test_run_record
    reads the same run)."""
    summary = json.loads((reference_standard_run / "summary.json").read_text(encoding="utf-8"))
    assert summary["verdict"] == "pass"
    totals = summary["totals"]
    assert totals["fail"] == 0 and totals["fault"] == 0 and totals["pass"] > 385_000


@pytest.mark.slow
def test_standard_catches_every_faulty_vendor(standard, paigow_part, tmp_path, capsys):
    assert len(FAULTY_VENDORS) >= 20
    escaped = []
    for cls, fault, flag in FAULTY_VENDORS:
        # stop at the first failing vector: catching the fault is what is measured here
        suite = paigow_part if issubclass(cls, PaigowVendor) else standard
        result = run(f"faulty_vendors:{cls.__name__}", suite, tmp_path / cls.__name__, stop_after_failures=1)
        if result.verdict != "fail":
            escaped.append(f"{cls.__name__} ({fault}): {result.verdict}")
    caught = len(FAULTY_VENDORS) - len(escaped)
    with capsys.disabled():
        print(f"\nkill rate: {caught}/{len(FAULTY_VENDORS)} faulty vendors caught by the standard suite "
              f"({100 * caught // len(FAULTY_VENDORS)}%)")
    assert escaped == []
