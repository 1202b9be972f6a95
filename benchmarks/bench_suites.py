"""Time the generation, lint and verify of the `edge` and `standard` suites (target: standard
generated in at most 60 s), and the expected streams of the `joker` and `exhaustive` suites.

    python benchmarks/bench_suites.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from tablecert.vectors import lint, verify
from tablecert.vectors.hand_stream import expected_stream_digest
from tablecert.vectors.suites import generate


def timed(label: str, func):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = func()
    print(f"{label:<40} {time.perf_counter() - start:8.2f} s")
    return result


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for suite in ("edge", "standard"):
            out = Path(tmp) / suite
            manifest = timed(f"generate {suite}", lambda: generate(suite, out))
            size = sum(f["size"] for f in manifest["files"])
            print(f"{'':<40} {manifest['numberOfTests']:,} tests, {size / 1e6:.1f} MB in {len(manifest['files'])} files")
            problems = timed(f"lint {suite}", lambda: lint(out))
            assert problems == [], problems[:5]
            assert timed(f"verify {suite}", lambda: verify(out)) == []
    for suite in ("joker", "exhaustive"):
        start = time.perf_counter()
        digest, hands = expected_stream_digest(suite)
        wall = time.perf_counter() - start
        print(f"{'expected stream ' + suite:<40} {wall:8.2f} s  {hands:,} hands, {hands / wall / 1e6:.1f} M hands/s")


if __name__ == "__main__":
    main()
