"""Vectors per second through the subprocess and Python adapters on the `standard` suite,
against the reference vendor (the suite is generated once, outside the timing; its generation is
timed too). Targets: standard generated in at most 90 s, certified through the subprocess adapter
in at most 2 minutes.

    python benchmarks/bench_certify.py [--adapters subprocess,python]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from pathlib import Path

from tablecert.harness.adapters import VendorTarget
from tablecert.harness.contract import SessionOptions
from tablecert.harness.run.runner import Runner
from tablecert.vectors.suites import generate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapters", default="subprocess,python")
    wanted = parser.parse_args().adapters.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "standard"
        start = time.perf_counter()
        manifest = generate("standard", suite)
        print(f"generate standard: {time.perf_counter() - start:.1f} s, {manifest['numberOfTests']:,} vectors")
        command = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])
        for adapter, target in [(a, t) for a, t in (("subprocess", command), ("python", "reference")) if a in wanted]:
            for batch_size in (1000,):
                target_obj = VendorTarget(adapter, target, SessionOptions(timeout=120))
                out = Path(tmp) / f"run-{adapter}-{batch_size}"
                start = time.perf_counter()
                result = Runner(target_obj.opener(), suite, out, batch_size=batch_size).run()
                wall = time.perf_counter() - start
                n = sum(result.totals.values())
                print(f"{adapter:<10} batch {batch_size:>5}: {wall:6.1f} s  {n / wall:>9,.0f} vectors/s  verdict {result.verdict}")


if __name__ == "__main__":
    main()
