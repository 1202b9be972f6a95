"""Suite start-up of ``certify`` with a cold and a warm suite cache (harness/suites/cache.py).

    .venv/bin/python benchmarks/bench_suite_cache.py [--suite standard]

Times :func:`tablecert.harness.run.certify.prepare_suite` into a new run folder: first with an empty
cache (the suite is generated, then copied into the cache), then with the cache warm (copied into
the run folder and anchored in the release). Everything under a temporary folder."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tablecert.harness.run.certify import prepare_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="standard")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tablecert-bench-cache-") as tmp:
        cache = Path(tmp) / "cache"
        for label in ("cold", "warm", "warm"):
            out = Path(tmp) / f"run-{label}-{time.monotonic_ns()}"
            out.mkdir()
            t0 = time.perf_counter()
            _, anchor = prepare_suite(args.suite, None, out, None, cache=cache)
            print(f"{args.suite} {label} cache: {time.perf_counter() - t0:6.2f} s ({anchor.kind})", flush=True)


if __name__ == "__main__":
    main()
