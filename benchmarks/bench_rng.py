"""Benchmarks of the RNG battery (``tablecert.rng``): speed, false failures, power, stated power.

    python benchmarks/bench_rng.py perf    [--rolls 10000000 --decks 1000000]
    python benchmarks/bench_rng.py false   [--runs 200]
    python benchmarks/bench_rng.py power   [--seeds 200]
    python benchmarks/bench_rng.py stated  [--seeds 200] [--tests ID,...]

Outcomes are generated with numpy in this process and handed to the battery's evaluation
functions: no vendor subprocess, no collection, no report, so that 200 seeds are affordable.

* ``perf``: the whole battery on 10 million rolls and 1 million decks (limit 60 s).
* ``false``: a correct generator (numpy PCG64, independent seeds) at the default sizes, the whole
  battery decided by Holm (:func:`tablecert.rng.api.evaluate`, its power statements skipped: they
  change no decision): the observed rate of failed batteries, against the plan's family-wise 0.01.
* ``power``: each biased generator (``tests/rng_generators.py``: the issue's face +0.5%, joker into
  the first seven cards in 1% of decks, 2% cut, modulo biases, a roll repeated 0.2% more often)
  at the default sizes, ``--seeds`` seeds; each run evaluated by the group of tests aimed at
  it (faces, repeats, layout, deal or repeat tests; the rest of its half would only add
  rejections) and caught when one p-value is below alpha/m, where the battery fails whatever the
  other tests say. So the rate printed is a lower bound of the battery's power.
* ``stated``: for the tests whose figure the report's first page states, a generator with exactly
  the stated bias (and 0.7 and 0.85 times it) at a tenth of the default sizes: the measured power
  at the stated bias (99% if the statement is right) and the measured bias caught at 99%
  (interpolated on the probit scale).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))

import rng_generators as g  # noqa: E402

from tablecert.rng import DECK_TESTS, DICE_TESTS, deal, decks as deck_battery, dice  # noqa: E402
from tablecert.rng.api import DEFAULT_DECKS, DEFAULT_ROLLS, evaluate  # noqa: E402
from tablecert.rng.plan import ALPHA, TestResult  # noqa: E402
from tablecert.rng.power import POWER  # noqa: E402

LEVEL = ALPHA / (DICE_TESTS + DECK_TESTS)
Evaluation = Callable[[np.ndarray], list[TestResult]]


def layout(decks: np.ndarray) -> list[TestResult]:
    return deck_battery.layout_tests(decks, deck_battery.positions(decks))


def seats(decks: np.ndarray) -> list[TestResult]:
    return deal.deal_tests(deck_battery.positions(decks))


POWER_CASES: list[tuple[str, str, g.Generator, Evaluation]] = [
    ("rolls", "six of die A +0.5% (relative)", g.dice_face_relative, dice.face_tests),
    ("rolls", "a roll repeats the previous (+0.2%)", g.dice_sticky_small, dice.repeat_tests),
    ("rolls", "modulo bias (byte % 6)", g.dice_modulo_byte, dice.face_tests),
    ("rolls", "a face favoured (+0.3 points)", g.dice_favoured_face, dice.face_tests),
    ("decks", "joker into the first seven (1% of decks)", g.decks_joker_first_seven, seats),
    ("decks", "cut, not reshuffled (2%)", g.decks_cut_sometimes, deck_battery.repeat_tests),
    ("decks", "Fisher-Yates, byte % (i + 1)", g.decks_modulo_fisher_yates, layout),
    ("decks", "joker at byte % 53", g.decks_joker_modulo, seats),
]


def perf(rolls: int, decks: int) -> None:
    rng = np.random.default_rng(1)
    faces, shuffled = g.fair_dice(rng, rolls), g.fair_decks(rng, decks)
    evaluate(g.fair_dice(rng, 20_000), g.fair_decks(rng, 1_000), 0)      # compile the label kernel first
    t0 = time.perf_counter()
    results = evaluate(faces, np.zeros((0, 53), np.uint8), 7)
    t1 = time.perf_counter()
    results += evaluate(np.zeros((0, 2), np.uint8), shuffled, 7)
    t2 = time.perf_counter()
    print(f"dice battery, {rolls:,} rolls: {t1 - t0:.1f} s; shuffle battery, {decks:,} decks: {t2 - t1:.1f} s; "
          f"total {t2 - t0:.1f} s (limit 60 s); {len(results)} tests")


def false_failures(runs: int) -> None:
    t0 = time.perf_counter()
    failures = []
    for seed in range(runs):
        rng = np.random.default_rng([2026, seed])
        ids = [r.id for r in evaluate(g.fair_dice(rng, DEFAULT_ROLLS), g.fair_decks(rng, DEFAULT_DECKS), seed,
                                      power=False) if r.rejected]
        if ids:
            failures.append((seed, ids))
    rate = len(failures) / runs
    high = stats.beta.ppf(0.95, len(failures) + 1, runs - len(failures))
    print(f"correct generator, {runs} seeded runs at {DEFAULT_ROLLS:,} rolls + {DEFAULT_DECKS:,} decks: "
          f"{len(failures)} failed batteries, observed rate {rate:.3f} (95% upper bound {high:.3f}; plan: at most "
          f"{ALPHA}); {time.perf_counter() - t0:.0f} s")
    for seed, ids in failures:
        print(f"  seed {seed}: {', '.join(ids)}")


def power(seeds: int) -> None:
    print(f"power at the default sizes ({DEFAULT_ROLLS:,} rolls, {DEFAULT_DECKS:,} decks), caught = a p-value "
          f"below alpha/m = {LEVEL:.3g}, {seeds} seeds each")
    for half, name, gen, tests in POWER_CASES:
        t0 = time.perf_counter()
        n = DEFAULT_ROLLS if half == "rolls" else DEFAULT_DECKS
        caught, by = 0, {}
        for seed in range(seeds):
            outcomes = gen(np.random.default_rng([7, seed]), n)
            hits = [r.id for r in tests(outcomes) if r.p_value < LEVEL]
            caught += bool(hits)
            for hit in hits:
                by[hit] = by.get(hit, 0) + 1
        low = stats.beta.ppf(0.05, caught, seeds - caught + 1) if caught else 0.0
        top = ", ".join(f"{k} {v}" for k, v in sorted(by.items(), key=lambda kv: -kv[1])[:3])
        print(f"{name:42} caught {caught}/{seeds} = {caught / seeds:.3f} (95% lower bound {low:.3f}); by {top}; "
              f"{time.perf_counter() - t0:.0f} s", flush=True)


def _sticky_die(rng: np.random.Generator, n: int, share: float) -> np.ndarray:
    faces = g.fair_dice(rng, n)
    stick = rng.random(n) < share
    stick[0] = False
    faces[:, 0] = faces[np.maximum.accumulate(np.where(stick, 0, np.arange(n))), 0]
    return faces


def _seven(rng: np.random.Generator, n: int, delta: float) -> np.ndarray:
    sevens = np.add.outer(np.arange(6), np.arange(6)).ravel() == 5
    p = np.where(sevens, (1 + delta) / 36, (1 - (1 + delta) / 6) / 30)
    pair = rng.choice(36, size=n, p=p / p.sum())
    return np.stack([pair // 6, pair % 6], axis=1).astype(np.uint8)


def _follows(rng: np.random.Generator, n: int, delta: float) -> np.ndarray:
    """Card 1 (2d) moved right after card 0 (2c) in delta/52 of the decks: it follows 2c (1 + delta)
    times as often as 1/53 of the decks."""
    decks = g.fair_decks(rng, n)
    for row in np.flatnonzero(rng.random(n) < delta / 52):
        cards = [c for c in decks[row].tolist() if c != 1]
        cards.insert(cards.index(0) + 1, 1)
        decks[row] = cards
    return decks


# (test id, half, sample, the generator at bias d, the evaluation)
STATED: list[tuple[str, str, int, Callable[[np.random.Generator, int, float], np.ndarray], Evaluation]] = [
    ("dice.face_a6", "rolls", 1_000_000, lambda r, n, d: g.dice_face_relative(r, n, d), dice.face_tests),
    ("dice.faces_a", "rolls", 1_000_000, lambda r, n, d: g.dice_face_relative(r, n, d), dice.face_tests),
    ("dice.totals", "rolls", 1_000_000, _seven, dice.face_tests),
    ("dice.repeats", "rolls", 1_000_000, lambda r, n, d: g.dice_sticky(r, n, d), dice.repeat_tests),
    ("dice.repeats_a", "rolls", 1_000_000, _sticky_die, dice.repeat_tests),
    ("dice.totals_blocks", "rolls", 1_000_000, _seven, lambda f: [dice.block_test(f)]),
    ("decks.joker_seat_1", "decks", 20_000, lambda r, n, d: g.decks_joker_first_seven(r, n, d), seats),
    ("decks.joker_position", "decks", 20_000, lambda r, n, d: g.decks_joker_first_seven(r, n, d / 52, 1), layout),
    ("decks.follows", "decks", 20_000, _follows, layout),
    ("decks.card_position", "decks", 20_000, lambda r, n, d: g.decks_joker_first_seven(r, n, d / 52, 1), layout),
    ("decks.cut_check", "decks", 20_000, lambda r, n, d: g.decks_cut_sometimes(r, n, d), deck_battery.repeat_tests),
    # one card (the joker) (1 + d) 7/53 likely in seat 1: moved there in d * 7/46 of the decks
    ("decks.joker_seat", "decks", 20_000, lambda r, n, d: g.decks_joker_first_seven(r, n, d * 7 / 46), seats),
    ("decks.card_seat_worst", "decks", 20_000, lambda r, n, d: g.decks_joker_first_seven(r, n, d * 7 / 46), seats),
    ("decks.card_seat", "decks", 20_000, lambda r, n, d: g.decks_joker_first_seven(r, n, d * 7 / 46), seats),
]
MULTIPLES = (0.7, 0.85, 1.0)


def measured_bias(stated: float, rates: list[float]) -> float | None:
    """The bias caught at 99%, from the rates at MULTIPLES of the stated one (probit, least squares
    over the rates strictly between 0 and 1; None when fewer than two are)."""
    inside = [(m * stated, r) for m, r in zip(MULTIPLES, rates) if 0 < r < 1]
    if len(inside) < 2:
        return None
    slope, icpt = np.polyfit([x for x, _ in inside], stats.norm.ppf([r for _, r in inside]), 1)
    return float((stats.norm.ppf(POWER) - icpt) / slope) if slope > 0 else None


def stated(seeds: int, only: list[str]) -> None:
    print(f"stated against measured, at level {LEVEL:.3g}, {seeds} seeds per bias; power at the stated bias x "
          f"{' / '.join(map(str, MULTIPLES))}")
    for test_id, half, n, gen, tests in STATED:
        if only and test_id not in only:
            continue
        t0 = time.perf_counter()
        fair = g.fair_dice(np.random.default_rng(0), n) if half == "rolls" else g.fair_decks(np.random.default_rng(0), n)
        (probe,) = [r for r in tests(fair) if r.id == test_id]
        assert probe.alternative is not None
        bias = probe.alternative.detectable(LEVEL)
        assert bias is not None
        rates = []
        for m in MULTIPLES:
            hits = 0
            for seed in range(seeds):
                (r,) = [r for r in tests(gen(np.random.default_rng([11, seed]), n, m * bias)) if r.id == test_id]
                hits += r.p_value < LEVEL
            rates.append(hits / seeds)
        found = measured_bias(bias, rates)
        measured = f"{found:.4g} ({found / bias:.2f} x stated)" if found else "n/a (too few rates inside (0, 1))"
        print(f"{test_id:22} n {n:>9,}  stated {bias:.4g}  power {rates[0]:.3f} / {rates[1]:.3f} / {rates[2]:.3f}  "
              f"measured 99% at {measured}; {time.perf_counter() - t0:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("perf", "false", "power", "stated"))
    parser.add_argument("--rolls", type=int, default=10_000_000)
    parser.add_argument("--decks", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--tests", default="", help="stated: only these test ids (comma-separated)")
    args = parser.parse_args()
    if args.what == "perf":
        perf(args.rolls, args.decks)
    elif args.what == "false":
        false_failures(args.runs)
    elif args.what == "power":
        power(args.seeds)
    else:
        stated(args.seeds, [t for t in args.tests.split(",") if t])


if __name__ == "__main__":
    main()
