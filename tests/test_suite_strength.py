"""Suite strength, the test that matters most: the `standard` suite must catch every one of the
faulty vendors in tests/faulty_vendors.py (each with one fault a real implementation could
have) and pass the reference vendor with zero failures. Prints the kill rate."""

from __future__ import annotations

from pathlib import Path

import pytest

from faulty_vendors import FAULTY_VENDORS
from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.run.runner import Runner


@pytest.fixture(scope="module")
def standard(standard_suite) -> Path:
    return standard_suite           # generated once per test run (conftest.py)


def run(spec: str, suite: Path, out: Path, **kw):
    adapter = PythonAdapter()
    return Runner(lambda: adapter.open(spec, SessionOptions(timeout=60)), suite, out, batch_size=1000, **kw).run()


@pytest.mark.slow
def test_reference_vendor_passes_standard(standard, tmp_path):
    result = run("reference", standard, tmp_path)
    assert result.verdict == "pass"
    assert result.totals["fail"] == 0 and result.totals["fault"] == 0 and result.totals["pass"] > 385_000


@pytest.mark.slow
def test_standard_catches_every_faulty_vendor(standard, tmp_path, capsys):
    assert len(FAULTY_VENDORS) >= 20
    escaped = []
    for cls, fault, flag in FAULTY_VENDORS:
        # stop at the first failing vector: catching the fault is what is measured here
        result = run(f"faulty_vendors:{cls.__name__}", standard, tmp_path / cls.__name__, stop_after_failures=1)
        if result.verdict != "fail":
            escaped.append(f"{cls.__name__} ({fault}): {result.verdict}")
    caught = len(FAULTY_VENDORS) - len(escaped)
    with capsys.disabled():
        print(f"\nkill rate: {caught}/{len(FAULTY_VENDORS)} faulty vendors caught by the standard suite "
              f"({100 * caught // len(FAULTY_VENDORS)}%)")
    assert escaped == []
