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
