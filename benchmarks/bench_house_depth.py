"""How deeply the ``rounds`` suite judges each house-rule value (issue 50 item 3): for every value
of every house rule, the rounds whose table uses it (what a vendor that declares only that value
is judged on), those of them on commission-free tables, and the state-machine edges
(:mod:`tablecert.vectors.round_coverage`: transitions, boundaries, refusal pairs) they reach
against those the rounds under the default house rules reach (what a default-rule vendor is
judged on), with the default rules' edges that value's rounds miss.

    .venv/bin/python benchmarks/bench_house_depth.py [--missing]

``--missing`` lists, per value, the default rules' edges its rounds do not reach. Replays every
round of the suite on the oracle (minutes: run it under ``nice``).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from fractions import Fraction

from tablecert.oracle.craps_round import HOUSE_RULES, parse_round_config
from tablecert.oracle.errors import ConfigError
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.vectors import round_cases
from tablecert.vectors.round_coverage import Item, reached_by


def main() -> None:
    started = time.perf_counter()
    rounds: Counter[tuple[str, object]] = Counter()
    free: Counter[tuple[str, object]] = Counter()
    items: dict[tuple[str, object], set[Item]] = {}
    defaults: set[Item] = set()
    default_rounds = 0
    for group in round_cases.round_groups(load_profile(DEFAULT_PROFILE).craps, round_cases.ROUNDS_BOUNDS):
        group.vectors = list(group.vectors)
        try:
            config = parse_round_config(group.config)
        except ConfigError:
            continue                                    # the malformed house rule
        reached = reached_by([group])
        n = len(group.vectors)
        charged = Fraction(group.config["commission_rate"]) != 0
        if all(config.house[name] == default for name, (_, default, _) in HOUSE_RULES.items()):
            defaults |= reached
            default_rounds += n
        for name, value in config.house.items():
            rounds[(name, value)] += n
            free[(name, value)] += 0 if charged else n
            items.setdefault((name, value), set()).update(reached)
    print(f"rounds under the default house rules: {default_rounds:,}, reaching {len(defaults)} edges")
    print(f"{'house rule value':40} {'rounds':>8} {'no commission':>14} {'edges':>6} {'default edges missed':>21}")
    for name, (values, default, _) in HOUSE_RULES.items():
        for value in values:
            key = (name, value)
            missed = defaults - items.get(key, set())
            mark = " (default)" if value == default else ""
            print(f"{name + '=' + str(value).lower() + mark:40} {rounds[key]:>8,} {free[key]:>14,} "
                  f"{len(items.get(key, ())):>6} {len(missed):>21}")
            if "--missing" in sys.argv:
                for item in sorted(missed, key=repr):
                    print("    ", item)
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
