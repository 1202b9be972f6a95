"""The public face of ``tablecert.rng``: collect outcomes, run the battery, write the results.

* :func:`tablecert.rng.collect.collect` asks a vendor (any adapter) for rolls and decks;
* :func:`evaluate` runs the dice and shuffle batteries and decides them by the plan of
  :mod:`tablecert.rng.plan` (Holm at overall alpha 0.01);
* :func:`write_run` writes ``summary.json`` (every test with its power statement, the plan, what
  the sample would have caught, what statistics cannot show, the outcomes' sha256, chart data), the outcomes themselves (``dice.txt``: the digits as dealt; ``decks.txt``: a deck a line)
  and ``rng-report.pdf``, rendered from ``summary.json`` alone by the ``render`` the caller passes
  (the command line passes :func:`tablecert.reports.rng_report.render_report`: PDFs are the
  reports' job, a layer above this one), so the same summary gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tablecert import __version__
from tablecert.rng import DEFAULT_DECKS, DEFAULT_ROLLS  # noqa: F401 (part of this API)
from tablecert.rng.collect import Outcomes, decks_text, dice_text
from tablecert.rng.decks import deck_battery
from tablecert.rng.dice import dice_battery
from tablecert.rng.plan import ALPHA, TestResult, holm
from tablecert.rng.power import POWER

SUMMARY_FORMAT = "tablecert-rng/2"
PLAN = (f"Holm-Bonferroni over the whole family of tests at overall alpha = {ALPHA} (valid under any "
        "dependence between tests): sorted p-values p(1) <= ... <= p(m) are compared with alpha/(m - i + 1) "
        "until the first that is not below; that one and all larger pass. Tests run on disjoint sub-samples "
        "(blocks of rolls, blocks of decks, disjoint card groups) add a second-level Kolmogorov-Smirnov test "
        "of their p-values' uniformity to the family. A correct generator fails the battery with probability "
        f"at most {ALPHA}. Measured (benchmarks/bench_rng.py false): 2 of 200 correct generators failed at the "
        "default sizes (observed rate 0.010, one-sided 95% upper bound 0.031).")
POWER_TEXT = ("Power: for every test, the smallest bias of the kind it is aimed at that it would have caught with "
              f"probability {POWER:.0%} at this run's sample, at the level alpha/m (Holm's first step: the battery fails "
              "whenever one p-value is below it, so the figure holds whatever the other tests do). It is computed from "
              "the distribution of the test's statistic under that bias (noncentral chi-square with noncentrality "
              "n * sum (p_i - p0_i)^2 / p0_i; normal for a count or a sum; simulated for the second-level tests) and "
              "checked by simulation of biased generators (benchmarks/bench_rng.py). A bias smaller than the one "
              "stated may pass; one of another kind may be caught by another test or by none.")
LIMITS_TEXT = ("What these statistics cannot show. Every test of the battery looks at the outcomes alone. A generator "
               "whose outcomes can be predicted - seeded from the clock, from a small or fixed seed, from a state an "
               "observer can rebuild from past outcomes (a linear congruential generator, a Mersenne Twister after 624 "
               "outputs), or replaying a recorded stream - deals outcomes that pass this battery and any other battery "
               "of outcome tests, at any sample size. PASS says that the outcomes collected are consistent with fair "
               "dice and uniformly shuffled decks, to the power stated; it does not say that the next outcome cannot "
               "be foreseen. What a lab must review instead, as GLI-11 and GLI-19 ask of a random number generator: "
               "the RNG's source code and algorithm (a cryptographically strong generator), its seeding and reseeding "
               "(an entropy source no one can learn, guess or replay), the scaling of its output to die faces and card "
               "positions (no modulo bias), that no outcome is discarded or chosen, and that the build reviewed is the "
               "build that deals (its digests).")
HEADLINE = ("dice.face_a1", "dice.face_b1", "dice.totals", "dice.repeats", "dice.repeats_a", "decks.joker_seat_1",
            "decks.card_seat_worst", "decks.cut_check", "decks.duplicates")
"""The tests whose power is stated on the report's first page (the biases that ship)."""


def battery_seed(outcomes: Outcomes) -> int:
    """The default seed of the battery's own random choices: from the outcomes' digests, so it is
    fixed for the same outcomes and unknown to the vendor before it dealt them."""
    digest = hashlib.sha256(f"{outcomes.dice_sha256}:{outcomes.decks_sha256}".encode()).hexdigest()
    return int(digest[:15], 16)


def evaluate(faces: np.ndarray, decks: np.ndarray, seed: int, power: bool = True) -> list[TestResult]:
    """Every test of the battery on the outcomes given (an empty array skips its half), decided,
    with its power stated (``power``)."""
    results: list[TestResult] = []
    if len(faces):
        results += dice_battery(faces, seed)
    if len(decks):
        results += deck_battery(decks, seed)
    return holm(results, power=power)


def summary(outcomes: Outcomes, results: list[TestResult], seed: int, collected: dict[str, str]) -> dict[str, Any]:
    """The run's summary (``collected``: start and finish of the collection, as recorded)."""
    failed = [r.id for r in results if r.rejected]
    level = ALPHA / len(results)
    return {
        "format": SUMMARY_FORMAT,
        "tablecert": __version__,
        "vendor": outcomes.vendor,
        "collected": collected,
        "samples": {"rolls": int(len(outcomes.faces)), "decks": int(len(outcomes.decks))},
        "outcomes": {"dice.txt": {"sha256": outcomes.dice_sha256}, "decks.txt": {"sha256": outcomes.decks_sha256}},
        "seed": seed,
        "plan": {"alpha": ALPHA, "method": "holm", "family_size": len(results), "text": PLAN},
        "power": {"power": POWER, "level": float(f"{level:.6g}"), "text": POWER_TEXT,
                  "headline": [{"id": r.id, "words": r.power["words"]} for r in results
                               if r.id in HEADLINE and r.power]},
        "limits": LIMITS_TEXT,
        "verdict": "fail" if failed else "pass",
        "failed": failed,
        "tests": [r.as_dict() for r in results],
        "charts": {r.id: r.chart for r in results if r.chart},
    }


def write_run(out: Path, outcomes: Outcomes, data: dict[str, Any],
              render_report: Callable[[dict[str, Any]], bytes]) -> list[Path]:
    """Write the outcomes, ``summary.json`` and ``rng-report.pdf`` (``render_report`` of the
    summary) into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "dice.txt").write_bytes(dice_text(outcomes.faces))
    (out / "decks.txt").write_bytes(decks_text(outcomes.decks))
    (out / "summary.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    (out / "rng-report.pdf").write_bytes(render_report(data))
    return [out / name for name in ("summary.json", "rng-report.pdf", "dice.txt", "decks.txt")]
