"""How deeply the ``rounds`` suite judges each house-rule value and each pair of values (issue 50):
for every value of every house rule, and every pair of two rules' values other than the defaults
(:func:`tablecert.vectors.house_depth.settings`), the rounds that judge a vendor offering only
those (*since 1.2*: the rounds whose table uses them, and those whose play never reads the rules
at another value, which the harness sends on a table with them), those of them on commission-free
tables, and the state-machine edges (:mod:`tablecert.vectors.round_coverage`: transitions,
boundaries, refusal pairs) they reach against those the rounds under the default house rules
reach (what a default-rule vendor is judged on), with the default rules' edges they miss. Then the
same for crapssim 0.4.1's real rules on the one table it offers (no commission, bar 12, payouts
exact), against the edges the default rules' rounds reach on that table, and the rounds each
setting met before 1.2 (its tables' values only).

    .venv/bin/python benchmarks/bench_house_depth.py [--missing]

``--missing`` lists, per setting, the default rules' edges its rounds do not reach. Replays every
round of the suite on the oracle twice (minutes: run it under ``nice``).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from fractions import Fraction

from tablecert.oracle.craps_round import HOUSE_RULES, parse_round_config, rules_read
from tablecert.oracle.errors import CaseError, ConfigError
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.vectors import round_cases
from tablecert.vectors.house_depth import Setting, setting_name, settings
from tablecert.vectors.round_coverage import Item, reached

REAL: Setting = (("bar_push", "returned"), ("press_unset", True))


def main() -> None:
    started = time.perf_counter()
    every = settings()
    rounds: Counter[Setting] = Counter()
    free: Counter[Setting] = Counter()
    before: Counter[Setting] = Counter()
    items: dict[Setting, set[Item]] = {s: set() for s in every}
    real_rounds, real_items = 0, set()
    defaults: set[Item] = set()
    default_rounds = 0
    table_defaults: set[Item] = set()          # the default rules' edges on crapssim's table
    for group in round_cases.round_groups(load_profile(DEFAULT_PROFILE).craps, round_cases.ROUNDS_BOUNDS):
        try:
            config = parse_round_config(group.config)
        except ConfigError:
            continue                                    # the malformed house rule
        charged = Fraction(group.config["commission_rate"]) != 0
        crapssim_table = not charged and config.table.bar == 12 and config.table.payout_rounding == "exact"
        at_defaults = all(config.house[name] == default for name, (_, default, _) in HOUSE_RULES.items())
        for vector in group.vectors:
            try:
                read = rules_read(config, vector.case)[1]
            except CaseError:
                read = frozenset()
            bad = {"InvalidInput", "InvalidConfig"} & set(vector.flags)
            edges = set() if bad else reached(config, vector.case)
            if at_defaults:
                defaults |= edges
                default_rounds += 1
                if crapssim_table:
                    table_defaults |= edges
            for setting in every:
                if all(config.house[name] == v or name not in read for name, v in setting):
                    rounds[setting] += 1
                    free[setting] += not charged
                    items[setting] |= edges
                    before[setting] += all(config.house[name] == v for name, v in setting)
            if crapssim_table and all(config.house[name] == v or name not in read for name, v in REAL):
                real_rounds += 1
                real_items |= edges
    print(f"rounds under the default house rules: {default_rounds:,}, reaching {len(defaults)} edges")
    print(f"{'house rule setting':58} {'rounds':>7} {'no commission':>14} {'edges':>6} {'default edges missed':>21} "
          f"{'before 1.2':>11}")
    for setting in every:
        missed = defaults - items[setting]
        print(f"{setting_name(setting):58} {rounds[setting]:>7,} {free[setting]:>14,} {len(items[setting]):>6} "
              f"{len(missed):>21} {before[setting]:>11,}")
        if "--missing" in sys.argv:
            for item in sorted(missed, key=repr):
                print("    ", item)
    print(f"crapssim's real rules on its table (no commission, bar 12, exact): {real_rounds:,} rounds, "
          f"{len(real_items)} edges; the default rules' rounds on that table reach {len(table_defaults)}, of which "
          f"{len(table_defaults - real_items)} missed")
    if "--missing" in sys.argv:
        for item in sorted(table_defaults - real_items, key=repr):
            print("    ", item)
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
