"""What ``standard``'s round part reaches against what ``rounds`` reaches (issue #38 item 4): the
transitions, boundaries and refusal pairs of :mod:`tablecert.vectors.round_coverage`, counted for
both suites on the default profile, with what ``rounds`` reaches and ``standard`` does not (to be
none), the suites' sizes in rounds and the seconds each took.

    .venv/bin/python benchmarks/bench_round_coverage.py [--write-golden | --check]

``--write-golden`` writes what ``rounds`` reaches to vectors/golden/rounds.coverage.json (with the
golden rounds manifest's sha256); ``--check`` exits 1 when that file differs from a fresh replay.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from collections import Counter

from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.vectors import round_cases
from tablecert.vectors.round_coverage import COVERAGE_FILE, coverage_bytes, golden_rounds_digest, reached_by


def measure(bounds: round_cases.Bounds) -> tuple[set, int, float]:
    started = time.perf_counter()
    groups = [g for g in round_cases.round_groups(load_profile(DEFAULT_PROFILE).craps, bounds)]
    for g in groups:
        g.vectors = list(g.vectors)
    items = reached_by(groups)
    return items, sum(len(g.vectors) for g in groups), time.perf_counter() - started


def main() -> None:
    rounds, n_rounds, t_rounds = measure(round_cases.ROUNDS_BOUNDS)
    standard, n_standard, t_standard = measure(round_cases.STANDARD_BOUNDS)
    for name, items, n, seconds in (("rounds", rounds, n_rounds, t_rounds),
                                    ("standard", standard, n_standard, t_standard)):
        kinds = Counter(item[0] for item in items)
        print(f"{name}: {n:,} rounds, reaches {len(items)} items "
              f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}), {seconds:.1f} s")
    missing = sorted(rounds - standard, key=repr)
    print(f"reached by rounds, not by standard: {len(missing)}")
    for item in missing:
        print("  ", item)
    print(f"reached by standard, not by rounds: {len(standard - rounds)}")
    stored = Path(__file__).resolve().parents[1] / "vectors" / "golden" / COVERAGE_FILE
    fresh = coverage_bytes(rounds, golden_rounds_digest())
    if "--write-golden" in sys.argv:
        stored.write_bytes(fresh)
        print(f"wrote {stored}")
    elif "--check" in sys.argv:
        same = stored.exists() and stored.read_bytes() == fresh
        print(f"{stored}: {'as replayed' if same else 'DIFFERS from the replay'}")
        sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
