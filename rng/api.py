"""The public face of ``tablecert.rng``: collect outcomes, run the battery, write the results.

* :func:`tablecert.rng.collect.collect` asks a vendor (any adapter) for rolls and decks;
* :func:`evaluate` runs the dice and shuffle batteries and decides them by the plan of
  :mod:`tablecert.rng.plan` (Holm at overall alpha 0.01);
* :func:`write_run` writes ``summary.json`` (every test, the plan, the outcomes' sha256, chart
  data), the outcomes themselves (``dice.txt``: the digits as dealt; ``decks.txt``: a deck a line)
  and ``rng-report.pdf``, rendered from ``summary.json`` alone, so the same summary gives the same
  bytes (:func:`tablecert.rng.report.render_report`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from tablecert import __version__
from tablecert.rng import DEFAULT_DECKS, DEFAULT_ROLLS  # noqa: F401 (part of this API)
from tablecert.rng.collect import Outcomes, decks_text, dice_text
from tablecert.rng.decks import deck_battery
from tablecert.rng.dice import dice_battery
from tablecert.rng.plan import ALPHA, TestResult, holm

SUMMARY_FORMAT = "tablecert-rng/1"
PLAN = (f"Holm-Bonferroni over the whole family of tests at overall alpha = {ALPHA} (valid under any "
        "dependence between tests): sorted p-values p(1) <= ... <= p(m) are compared with alpha/(m - i + 1) "
        "until the first that is not below; that one and all larger pass. Tests run on disjoint sub-samples "
        "(blocks of rolls, blocks of decks, disjoint card groups) add a second-level Kolmogorov-Smirnov test "
        "of their p-values' uniformity to the family. A correct generator fails the battery with probability "
        f"at most {ALPHA}.")


def battery_seed(outcomes: Outcomes) -> int:
    """The default seed of the battery's own random choices: from the outcomes' digests, so it is
    fixed for the same outcomes and unknown to the vendor before it dealt them."""
    digest = hashlib.sha256(f"{outcomes.dice_sha256}:{outcomes.decks_sha256}".encode()).hexdigest()
    return int(digest[:15], 16)


def evaluate(faces: np.ndarray, decks: np.ndarray, seed: int) -> list[TestResult]:
    """Every test of the battery on the outcomes given (an empty array skips its half), decided."""
    results: list[TestResult] = []
    if len(faces):
        results += dice_battery(faces, seed)
    if len(decks):
        results += deck_battery(decks, seed)
    return holm(results)


def summary(outcomes: Outcomes, results: list[TestResult], seed: int, collected: dict[str, str]) -> dict[str, Any]:
    """The run's summary (``collected``: start and finish of the collection, as recorded)."""
    failed = [r.id for r in results if r.rejected]
    return {
        "format": SUMMARY_FORMAT,
        "tablecert": __version__,
        "vendor": outcomes.vendor,
        "collected": collected,
        "samples": {"rolls": int(len(outcomes.faces)), "decks": int(len(outcomes.decks))},
        "outcomes": {"dice.txt": {"sha256": outcomes.dice_sha256}, "decks.txt": {"sha256": outcomes.decks_sha256}},
        "seed": seed,
        "plan": {"alpha": ALPHA, "method": "holm", "family_size": len(results), "text": PLAN},
        "verdict": "fail" if failed else "pass",
        "failed": failed,
        "tests": [r.as_dict() for r in results],
        "charts": {r.id: r.chart for r in results if r.chart},
    }


def write_run(out: Path, outcomes: Outcomes, data: dict[str, Any]) -> list[Path]:
    """Write the outcomes, ``summary.json`` and ``rng-report.pdf`` into ``out``."""
    from tablecert.rng.report import render_report

    out.mkdir(parents=True, exist_ok=True)
    (out / "dice.txt").write_bytes(dice_text(outcomes.faces))
    (out / "decks.txt").write_bytes(decks_text(outcomes.decks))
    (out / "summary.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    (out / "rng-report.pdf").write_bytes(render_report(data))
    return [out / name for name in ("summary.json", "rng-report.pdf", "dice.txt", "decks.txt")]
