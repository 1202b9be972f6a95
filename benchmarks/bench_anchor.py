"""The cost of anchoring a suite folder in the release (``tablecert.vectors.anchor``) before a run:
for each suite, the time to generate it, to ``verify`` it against its own manifest (what certify
did before), and to anchor it (verify + the release comparison + the link checks), and for
``prepare_suite`` reusing a suite already in OUT/suite.

    python benchmarks/bench_anchor.py [--suites edge,standard,joker,exhaustive]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tablecert.harness.certify import prepare_suite
from tablecert.vectors.anchor import anchor_suite
from tablecert.vectors.checks import verify
from tablecert.vectors.suites import generate


def timed(what: str, func):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = func()
    print(f"  {what:<28} {time.perf_counter() - start:7.2f} s")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", default="edge,standard,joker,exhaustive")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for suite in args.suites.split(","):
            print(suite)
            out = Path(tmp) / suite
            folder = out / "suite"
            timed("generate", lambda: generate(suite, folder))
            timed("verify (own manifest)", lambda: verify(folder))
            anchor = timed("anchor (verify + release)", lambda: anchor_suite(folder, suite))
            assert anchor.kind == "release", anchor
            timed("prepare_suite (reuse)", lambda: prepare_suite(suite, None, out, None))


if __name__ == "__main__":
    main()
