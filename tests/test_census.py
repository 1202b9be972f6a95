"""The all-hands census reproduces the published hand counts of the 53-card deck.

Expected figures, stated here independently of the package data file:

* 53-card deck (52 + joker as bug), all C(53,7) hands: Wizard of Odds, pai gow poker hand
  tables for 7 cards from the 53-card deck; B. Alspach, "7-card poker hands with a joker".
* The no-joker part is ordinary 7-card poker from 52 cards, C(52,7) hands: the standard table
  (Wikipedia, "Poker probability", 7-card hands; B. Alspach, "7-card poker hands"): 4,324 royal
  flushes ... 23,294,460 high-card hands.
* Banker hands (no joker, no pair, no straight, no flush, 9/T/J high): Wizard of Odds, Imperial
  pai gow bonus (banker hand bonus) tables.
"""

from __future__ import annotations

import dataclasses
import json
from math import comb

import numpy as np
import pytest

from tablecert.oracle.cards import HAND_COUNT, JOKER
from tablecert.oracle.census import (
    census_as_dict,
    census_mismatches,
    format_census,
    published_counts,
    run_census,
)
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_CATEGORIES
from tablecert.oracle.labeller import Census, block_size, block_start, label_hands_with_top

# Wizard of Odds / Alspach, 53-card deck, 7 cards.
PUBLISHED_PLAYER = {
    "five_aces": 1_128,
    "royal_flush": 26_132,
    "straight_flush": 184_832,
    "four_of_a_kind": 307_472,
    "full_house": 4_188_528,
    "flush": 6_172_088,
    "straight": 11_236_028,
    "three_of_a_kind": 7_470_676,
    "two_pair": 35_553_816,
    "pair": 64_221_960,
    "high_card": 24_780_420,
}
PUBLISHED_TOTAL = 154_143_080

# Standard 52-card 7-card poker table (Wikipedia "Poker probability"; Alspach): the hands without the joker.
PUBLISHED_PLAYER_NO_JOKER = {
    "five_aces": 0,
    "royal_flush": 4_324,
    "straight_flush": 37_260,
    "four_of_a_kind": 224_848,
    "full_house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three_of_a_kind": 6_461_620,
    "two_pair": 31_433_400,
    "pair": 58_627_800,
    "high_card": 23_294_460,
}

# Wizard of Odds, banker hand bonus.
PUBLISHED_BANKER = {"nine_high": 31_080, "ten_high": 248_640, "jack_high": 963_480}


@pytest.fixture(scope="module")
def progress_calls() -> list[tuple[int, int]]:
    return []


@pytest.fixture(scope="module")
def census(progress_calls: list[tuple[int, int]]) -> Census:
    """The full census (all 154,143,080 hands), run once for this module."""
    return run_census(progress=lambda done, total: progress_calls.append((done, total)))


def test_published_figures_are_consistent() -> None:
    assert sum(PUBLISHED_PLAYER.values()) == PUBLISHED_TOTAL == comb(53, 7)
    assert sum(PUBLISHED_PLAYER_NO_JOKER.values()) == comb(52, 7)
    # five aces: four aces, the joker and any 2 of the other 48 cards
    assert PUBLISHED_PLAYER["five_aces"] == comb(48, 2)


@pytest.mark.parametrize("category", PLAYER_CATEGORIES)
def test_player_category_counts(census: Census, category: str) -> None:
    assert census.player[category].total == PUBLISHED_PLAYER[category]
    assert census.player[category].no_joker == PUBLISHED_PLAYER_NO_JOKER[category]


@pytest.mark.parametrize("label", list(PUBLISHED_BANKER))
def test_banker_label_counts(census: Census, label: str) -> None:
    assert census.banker[label].total == PUBLISHED_BANKER[label]
    assert census.banker[label].joker == 0  # a joker hand is never a banker bonus hand


def test_totals(census: Census) -> None:
    assert census.total == PUBLISHED_TOTAL
    assert sum(c.total for c in census.player.values()) == PUBLISHED_TOTAL
    assert sum(c.total for c in census.banker.values()) == PUBLISHED_TOTAL
    assert sum(c.joker for c in census.player.values()) == comb(52, 6)
    assert census.banker["none"].total == PUBLISHED_TOTAL - sum(PUBLISHED_BANKER.values())
    for count in [*census.player.values(), *census.banker.values()]:
        assert type(count.joker) is int and type(count.no_joker) is int


def test_player_labels_merge_below_trips(census: Census) -> None:
    labels = census.player_labels()
    assert list(labels)[-1] == "none"
    expected_none = sum(PUBLISHED_PLAYER[c] for c in ("two_pair", "pair", "high_card"))
    assert labels["none"].total == expected_none
    assert labels["three_of_a_kind"].total == PUBLISHED_PLAYER["three_of_a_kind"]


def test_progress_reported(census: Census, progress_calls: list[tuple[int, int]]) -> None:
    assert progress_calls, "progress callback never called"
    done = [d for d, _ in progress_calls]
    assert done == sorted(done)
    assert progress_calls[-1] == (HAND_COUNT, HAND_COUNT)


def test_streamed_labels_reproduce_census(census: Census) -> None:
    """The materialising kernel (label_hands_with_top), block by block over all 154,143,080
    hands, gives the same counts as the fused counting kernel."""
    player = np.zeros((2, len(PLAYER_CATEGORIES)), dtype=np.int64)
    banker = np.zeros((2, len(BANKER_LABELS)), dtype=np.int64)
    position = 0
    for top in range(6, 53):
        assert block_start(top) == position
        p, b = label_hands_with_top(top)
        assert len(p) == block_size(top)
        joker = int(top == JOKER)
        player[joker] += np.bincount(p, minlength=len(PLAYER_CATEGORIES))
        banker[joker] += np.bincount(b, minlength=len(BANKER_LABELS))
        position += len(p)
    assert position == PUBLISHED_TOTAL
    for i, name in enumerate(PLAYER_CATEGORIES):
        assert (int(player[0, i]), int(player[1, i])) == (census.player[name].no_joker, census.player[name].joker)
    for i, name in enumerate(BANKER_LABELS):
        assert (int(banker[0, i]), int(banker[1, i])) == (census.banker[name].no_joker, census.banker[name].joker)


def test_published_counts_data_file() -> None:
    published = published_counts()
    assert published.player == PUBLISHED_PLAYER
    assert published.player_no_joker == PUBLISHED_PLAYER_NO_JOKER
    assert published.banker == PUBLISHED_BANKER
    assert published.total == PUBLISHED_TOTAL
    assert "Wizard of Odds" in published.source and "Alspach" in published.source


def test_no_mismatches(census: Census) -> None:
    assert census_mismatches(census) == []


def test_mismatch_is_reported(census: Census) -> None:
    published = published_counts()
    wrong = dataclasses.replace(published, player={**published.player, "flush": published.player["flush"] + 1})
    assert census_mismatches(census, wrong) == ["player flush: census 6,172,088, published 6,172,089"]
    table = format_census(census, wrong)
    flush_row = next(line for line in table.splitlines() if line.startswith("flush "))
    assert flush_row.endswith("MISMATCH")


def test_format_census(census: Census) -> None:
    table = format_census(census)
    assert "MISMATCH" not in table
    assert "154,143,080" in table
    for category in PLAYER_CATEGORIES:
        row = next(line for line in table.splitlines() if line.startswith(category + " "))
        assert f"{PUBLISHED_PLAYER[category]:,}" in row and row.endswith(" ok")
    for label in PUBLISHED_BANKER:
        row = next(line for line in table.splitlines() if line.startswith(label + " "))
        assert f"{PUBLISHED_BANKER[label]:,}" in row and row.endswith(" ok")
    assert "Wizard of Odds" in table


def test_census_as_dict(census: Census) -> None:
    data = census_as_dict(census)
    assert list(data) == ["player", "banker", "total"]
    assert list(data["player"]) == list(PLAYER_CATEGORIES)
    assert list(data["banker"]) == list(BANKER_LABELS)
    for entry in [*data["player"].values(), *data["banker"].values()]:
        assert list(entry) == ["joker", "no_joker", "total"]
        assert entry["total"] == entry["joker"] + entry["no_joker"]
        assert all(type(v) is int for v in entry.values())
    assert data["player"]["royal_flush"]["total"] == PUBLISHED_PLAYER["royal_flush"]
    assert data["total"] == PUBLISHED_TOTAL
    assert json.loads(json.dumps(data)) == data
