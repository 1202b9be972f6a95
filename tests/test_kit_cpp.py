"""The cpp vendor starter kit (kits/cpp) builds, greets confined, leaves the skeleton's vectors
unsupported and passes standard's craps.place_odds and craps.settle vectors (tests/kit_checks.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import shared_suite
from kit_checks import (KITS, built_kit, check_example_passes, check_greets_confined, check_live_journal,
                        check_skeleton_unsupported)

KIT = KITS["cpp"]


@pytest.fixture(scope="module")
def kit_folder() -> Iterator[Path]:
    yield from built_kit(KIT.lang)


def test_kit_greets_confined(kit_folder: Path) -> None:
    check_greets_confined(kit_folder, KIT)


def test_skeleton_vectors_unsupported(kit_folder: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    check_skeleton_unsupported(kit_folder, KIT, shared_suite(tmp_path_factory, "edge"), tmp_path / "run")


def test_example_passes_standard_place_odds_and_settle(kit_folder: Path, standard_suite: Path, tmp_path: Path) -> None:
    check_example_passes(kit_folder, KIT, standard_suite, tmp_path / "run")


def test_live_tables_journal_survives_a_kill(kit_folder: Path, tmp_path: Path) -> None:
    check_live_journal(kit_folder, KIT, tmp_path)


def test_rng_example_is_proved_exact_and_its_modulo_fault_exactly_biased(kit_folder: Path, tmp_path: Path) -> None:
    """The kit's rng example (src/example_rng.cpp: MT19937, rejection then w mod k), built with
    `make build/example_rng` and run confined: its die, shuffle and range proved exact (deviation 0)
    and the raw battery passed; `example_rng modulo` (w mod 6, no rejection) fails with the die's
    deviation worked out by hand: 2^32 = 6 x 715,827,882 + 4, so faces 0..3 have 715,827,883 words
    (above 1/6 by 2/(6 x 2^32)) and faces 4, 5 have 715,827,882 (below 1/6 by
    (2^32 - 6 x 715,827,882)/(6 x 2^32) = 4/(6 x 2^32) = 1/6,442,450,944, the furthest)."""
    import json
    import subprocess

    from kit_checks import readable_by_all, tablecert
    from waits import HANG

    built = subprocess.run(["make", "build/example_rng"], cwd=kit_folder, capture_output=True, text=True, timeout=HANG)
    assert built.returncode == 0, built.stderr[-3000:]
    readable_by_all(kit_folder)
    for argv, status in ((str(kit_folder / "build" / "example_rng"), 0),
                         (f"{kit_folder / 'build' / 'example_rng'} modulo", 1)):
        out = tmp_path / str(status)
        run = tablecert("rng", "--vendor-cmd", argv, "--out", str(out), "--raw", "10000000", "--raw-repeat-words", "0", "--scaling", "--quiet",
                        timeout=HANG)
        assert run.returncode == status, run.stdout[-3000:] + run.stderr[-3000:]
        summary = json.loads((out / "raw-summary.json").read_text())
        assert summary["declaration"]["raw_bits"] == 32 and not summary["raw"]["rejected"]
        die = summary["scaling"][0]
        assert die["max_deviation"] == ("0" if status == 0 else "1/6442450944"), die
