"""The cost of anchoring a suite folder in the release (``tablecert.vectors.anchor``) before a run:
for each suite, the time to generate it, to ``verify`` it against its own manifest (what certify
did before), and to anchor it (verify + the release comparison + the link checks), and for
``prepare_suite`` reusing a suite already in OUT/suite.

    python benchmarks/bench_anchor.py [--suites edge,standard,joker,exhaustive]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from tablecert.harness.run.certify import prepare_suite
from tablecert.vectors.anchor import anchor_suite
from tablecert.vectors.checks import verify
from tablecert.vectors.suites import generate

sys.path.insert(0, str(Path(__file__).parent))
from bench_suites import timed  # noqa: E402  (the suites benchmark's timer, shared)


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
