"""Render time and size of the certification PDFs: the demo vendor on the `edge` suite, then the
same run database with a million failure rows added (fabricated by SQL, as
``tests/test_reports.py`` does), where time and pages must stay bounded. Also the cost of signing (PAdES + summary) and of verifying.

    python benchmarks/bench_reports.py [--failures N]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pypdf import PdfReader

from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.run.runner import Runner
from tablecert.harness.record.seal import run_key, seal_folder
from tablecert.reports import KINDS, render_pdf, verify_report, write_reports
from tablecert.reports.data import load_report_data
from tablecert.vectors.suites import generate

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from test_reports import fabricate_failures  # noqa: E402  (the test suite's fabrication, shared)


def demo_run(folder: Path) -> Path:
    generate("edge", folder / "suite")
    adapter = PythonAdapter()
    spec = "tablecert.harness.vendors.demo_vendor:DemoVendor"
    Runner(lambda: adapter.open(spec, SessionOptions(timeout=60)), folder / "suite", folder).run()
    seal_folder(folder, run_key())          # as certify does after a run
    write_outputs(folder)
    return folder


def measure(label: str, run: Path) -> None:
    start = time.perf_counter()
    data = load_report_data(run)
    loaded = time.perf_counter() - start
    parts = [f"{label:<22} read {loaded:5.2f} s"]
    for kind in KINDS:
        start = time.perf_counter()
        pdf = render_pdf(data, kind)
        wall = time.perf_counter() - start
        (run / f"{kind}.pdf").write_bytes(pdf)
        pages = len(PdfReader(run / f"{kind}.pdf").pages)
        parts.append(f"{kind} {wall:5.2f} s {pages:>3} pages {len(pdf) // 1024:>5} KiB")
    print("  ".join(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--failures", type=int, default=1_000_000, help="failure rows to add (default 1,000,000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = demo_run(Path(tmp) / "demo")
        measure("demo run (edge)", run)
        key = Ed25519PrivateKey.generate()
        key_path = Path(tmp) / "lab.key"
        key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        start = time.perf_counter()
        write_reports(run, sign_key=key_path)
        signed = time.perf_counter() - start
        pub_path = Path(tmp) / "lab.pub.pem"
        pub_path.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                           serialization.PublicFormat.SubjectPublicKeyInfo))
        start = time.perf_counter()
        lines = verify_report(run / "certificate.pdf", pubkey=pub_path)
        print(f"{'render + sign both':<22} {signed:5.2f} s; verify one {time.perf_counter() - start:5.2f} s: "
              f"{'ok' if all(': ok' in line for line in lines) else lines}")
        big = Path(tmp) / "big"
        shutil.copytree(run, big, ignore=shutil.ignore_patterns("*.pdf", "*.sig*"))
        start = time.perf_counter()
        fabricate_failures(big, args.failures)
        print(f"{'(fabricate rows)':<22} {time.perf_counter() - start:5.2f} s, {args.failures:,} failures added")
        measure(f"+{args.failures:,} failures", big)


if __name__ == "__main__":
    main()
