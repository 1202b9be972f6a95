"""The deal: where each card lands when a deck is dealt to the seven seats of a pai gow table.

A deck in dealing order gives seat 1 the first seven cards, seat s the cards at positions
7(s-1)+1 .. 7s, and leaves the last four undealt (:mod:`tablecert.rng.labels`). A bias that
ships is in a seat, not in one of 53 positions: a shuffle that moves the joker into the first seven
cards in 1% of decks raises seat 1's joker share from 7/53 to about 7/53 + 0.9%, which the
53-position chi-square spreads over 52 degrees of freedom. So:

* the joker by seat (seven seats and the undealt four, chi-square 7 df), and the joker in each
  seat (its count against 7/53 of the decks, a normal test): the test aimed at the joker moved
  into one seat;
* each card by seat, the 53 x 8 table: every deck is a random assignment of the 53 cards to
  groups of sizes 7, ..., 7, 4, whose standardised cells have covariance (53/52) (M x M_w) (the
  card x position argument with columns grouped), so Pearson's statistic times 52/53 is
  chi-square(52 x 7 = 364);
* the card most misplaced by seat: each card's row is exactly multinomial over the decks (7 df);
  the smallest of the 53 p-values times 53 (Bonferroni, valid whatever their dependence).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy import stats

from tablecert.oracle.cards import DECK_SIZE, HAND_SIZE, JOKER, card_code
from tablecert.rng.labels import SEATS
from tablecert.rng.plan import TestResult, chi_square, normal
from tablecert.rng.power import Alternative, cell_bias, percent, proportion_bias

K = DECK_SIZE
GROUPS = SEATS + 1
"""Seven seats and the undealt cards."""

GROUP_P = np.array([HAND_SIZE] * SEATS + [K - SEATS * HAND_SIZE], dtype=np.float64) / K
"""Probability that a given card lands in each group."""

SEAT_P = HAND_SIZE / K
GROUP_NAMES = [f"seat {s + 1}" for s in range(SEATS)] + ["undealt"]


def seat_cards(seat: int) -> str:
    """'the first seven cards' or 'seat 3 (cards 15-21)'."""
    if seat == 0:
        return "the first seven cards (seat 1)"
    return f"seat {seat + 1} (cards {HAND_SIZE * seat + 1}-{HAND_SIZE * (seat + 1)})"


def card_seat_table(pos: np.ndarray) -> np.ndarray:
    """``table[card, group]``: decks in which each card landed in each seat (column 7: undealt)."""
    group = np.minimum(pos.astype(np.int64) // HAND_SIZE, SEATS)
    idx = np.arange(K, dtype=np.int64)
    return np.bincount((idx * GROUPS + group).ravel(), minlength=K * GROUPS).reshape(K, GROUPS)


def joker_moved(n: int, seat: int) -> Alternative:
    """A share delta of the decks with the joker moved into ``seat`` (placed fairly otherwise)."""
    return proportion_bias(n, SEAT_P, lambda d: f"the joker moved into {seat_cards(seat)} in at least {percent(d)} "
                           "of the decks would have been caught", towards=1.0)


def deal_tests(pos: np.ndarray) -> list[TestResult]:
    n = len(pos)
    table = card_seat_table(pos)
    joker = table[JOKER]
    out = [chi_square("decks.joker_seat", "Joker by seat (seven seats, the undealt four)", "decks", joker, GROUP_P,
                      chart={"kind": "bars", "labels": GROUP_NAMES, "observed": joker.tolist(),
                             "expected": [float(f"{n * p:.6g}") for p in GROUP_P]},
                      alternative=cell_bias(n, SEAT_P, GROUPS - 1, lambda d: f"the joker at least {percent(d)} more "
                                            "likely in one seat than 7/53 (the other groups proportionally less) "
                                            "would have been caught"))]
    for s in range(SEATS):
        out.append(normal(f"decks.joker_seat_{s + 1}", f"Joker in seat {s + 1} (7/53 of the decks)", "decks",
                          float(joker[s]), n * SEAT_P, n * SEAT_P * (1 - SEAT_P), n, alternative=joker_moved(n, s)))
    seat_words = lambda d: (f"a card at least {percent(d)} more likely in one seat than 7/53 would have "  # noqa: E731
                            "been caught")
    out.append(chi_square("decks.card_seat", "Card x seat (53 x 8), scaled by 52/53", "decks", table,
                          np.outer(np.full(K, 1 / K), GROUP_P).ravel(), scale=(K - 1) / K, df=(K - 1) * (GROUPS - 1),
                          chart={"kind": "heat", "row_name": "seat (U undealt)", "col_name": "card",
                                 "rows": [str(s + 1) for s in range(SEATS)] + ["U"],
                                 "cols": [card_code(i) for i in range(K)], "matrix": table.T.tolist(),
                                 "expected": n * SEAT_P, "row_expected": [float(f"{n * p:.6g}") for p in GROUP_P]},
                          alternative=cell_bias(n, SEAT_P, (K - 1) * (GROUPS - 1), seat_words)))
    expected = n * GROUP_P
    rows = ((table - expected) ** 2 / expected).sum(axis=1)
    worst = int(np.argmax(rows))
    p_worst = float(min(1.0, K * stats.chi2.sf(rows[worst], GROUPS - 1)))
    out.append(TestResult("decks.card_seat_worst", f"The card most misplaced by seat ({card_code(worst)}), "
                          "Bonferroni over 53", "decks", "chi-square (worst of 53)", float(rows[worst]),
                          GROUPS - 1, p_worst, n,
                          alternative=replace(cell_bias(n, SEAT_P, GROUPS - 1, seat_words), bonferroni=K)))
    return out
