"""The shuffle battery: are the decks what a uniformly random permutation of 53 cards gives?

Input: an ``(n, 53)`` array of card indices (:mod:`tablecert.oracle.cards`: ``2c`` = 0 .. ``As`` =
51, joker 52), each row one deck in dealing order. Every test returns a
:class:`~tablecert.rng.plan.TestResult` whose p-value is uniform under a correct shuffle.

* card x position (53 x 53): each deck is a permutation matrix, whose cells have covariance
  (M x M)/(k-1) with M = I - J/k, so Pearson's statistic is (k/(k-1)) chi-square((k-1)^2); it is
  scaled by 52/53 before it is referred to chi-square(2704);
* which card follows which (53 x 53 off the diagonal): the cells' covariance is known exactly
  (variance (1/53)(52/53); -1/53^2 for two successions that cannot both happen; 1/(53^2 52) for
  the rest), and the statistic is referred to the scaled chi-square with the same mean and
  variance (Satterthwaite);
* the permutation test: 52 cards partitioned (seeded) into 13 groups of 4; the relative order of
  a group is one of 24, uniform, and disjoint groups are independent: the pooled chi-square
  (299 df) and a second-level test of the 13 group p-values;
* inversions against the card order: exact mean k(k-1)/4 and variance k(k-1)(2k+5)/72 per deck;
* the joker's position, uniform over 53; and the same in 20 blocks of decks (second level); the
  joker and every card by seat, as dealt, are :mod:`tablecert.rng.deal`'s;
* duplicate decks: their number is Poisson with mean C(n,2)/53! (about 1e-58 per pair);
* cut checks: successions kept from the previous deck, mean 52/53 and exact variance, uncorrelated
  from one deck pair to the next, tested upward (a deck cut instead of reshuffled keeps 51);
* the labels of every seat's hand against their exact probabilities (:mod:`tablecert.rng.labels`).

Each test carries the bias it is aimed at (:mod:`tablecert.rng.power`).
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, factorial

import numpy as np
from scipy import stats

from tablecert.oracle.cards import DECK_SIZE, JOKER, card_code
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_CATEGORIES
from tablecert.rng import MIN_DECKS
from tablecert.rng.deal import deal_tests, seat_cards
from tablecert.rng.labels import SEATS, label_probabilities, seat_labels
from tablecert.rng.plan import TestResult, chi_square, chi_square_p, merge_rare, normal, uniformity
from tablecert.rng.power import Alternative, cell_bias, percent

K = DECK_SIZE
GROUP_SIZE = 4
BLOCKS = 20

# One deck's successions (k(k-1) cells, 103 conflicting and 2652 compatible with each cell), as
# multiples of the cell's mean: the moments of Pearson's statistic over the succession table.
_CELL = Fraction(K - 1, K) ** 2 + 103 * Fraction(1, K) ** 2 + 2652 * Fraction(1, K * (K - 1)) ** 2
SUCCESSION_MEAN = Fraction(K * (K - 1) * (K - 1), K)
SUCCESSION_VAR = 2 * K * (K - 1) * _CELL
# Successions shared by two independent decks: 52 indicators of mean 1/53, pairwise 1/(53*52).
SHARED_MEAN = Fraction(K - 1, K)
SHARED_VAR = (K - 1) * Fraction(1, K) * Fraction(K - 1, K) + (K - 1) * (K - 2) * (Fraction(1, K * (K - 1)) - Fraction(1, K * K))


def positions(decks: np.ndarray) -> np.ndarray:
    """``pos[d, card]``: where each card lies in each deck."""
    pos = np.empty_like(decks)
    pos[np.arange(len(decks))[:, None], decks] = np.arange(K, dtype=decks.dtype)
    return pos


def successors(decks: np.ndarray) -> np.ndarray:
    """``nxt[d, card]``: the card dealt right after ``card`` in deck ``d`` (53 after the last card)."""
    n = len(decks)
    nxt = np.full((n, K + 1), K, dtype=np.int16)
    nxt[np.arange(n)[:, None], decks[:, :-1]] = decks[:, 1:]
    return nxt[:, :K]


def layout_tests(decks: np.ndarray, pos: np.ndarray) -> list[TestResult]:
    n = len(decks)
    idx = np.arange(K, dtype=np.int64)
    table = np.bincount((idx * K + decks.astype(np.int64)).ravel(), minlength=K * K).reshape(K, K)
    codes = [card_code(i) for i in range(K)]
    out = [chi_square("decks.card_position", "Card x position (53 x 53), scaled by 52/53", "decks", table,
                      np.full(K * K, 1 / K / K), scale=(K - 1) / K, df=(K - 1) ** 2,
                      chart={"kind": "heat", "row_name": "position", "col_name": "card",
                             "rows": [str(i + 1) for i in range(K)], "cols": codes,
                             "matrix": table.tolist(), "expected": n / K},
                      alternative=cell_bias(n, 1 / K, (K - 1) ** 2, lambda d: f"a card at least {percent(d)} more likely "
                                            "at one position than 1/53 would have been caught"))]
    a, b = decks[:, :-1].astype(np.int64), decks[:, 1:].astype(np.int64)
    follow = np.bincount((a * K + b).ravel(), minlength=K * K)
    off = ~np.eye(K, dtype=bool).ravel()
    g = float(SUCCESSION_VAR / (2 * SUCCESSION_MEAN))
    h = float(SUCCESSION_MEAN) / g
    res = chi_square("decks.follows", "Which card follows which (53 x 53), Satterthwaite", "decks", follow[off],
                     np.full(K * (K - 1), 1 / (K * (K - 1))), scale=1 / g, df=h,
                     chart={"kind": "heat", "row_name": "card", "col_name": "the card after it", "rows": codes,
                            "cols": codes, "matrix": follow.reshape(K, K).tolist(), "expected": n / K,
                            "diagonal_empty": True},
                     alternative=cell_bias(n * (K - 1) / K, 1 / (K - 1), h, lambda d: f"a card at least {percent(d)} "
                                           "more likely to follow one given card than 1/52 would have been caught",
                                           scale=1 / g))
    out.append(res)
    joker = np.bincount(pos[:, JOKER], minlength=K)
    out.append(chi_square("decks.joker_position", "Joker position 1-53 equally likely", "decks", joker,
                          np.full(K, 1 / K), chart={"kind": "bars", "labels": [str(i + 1) for i in range(K)],
                                                     "observed": joker.tolist(), "expected": [n / K] * K},
                          alternative=cell_bias(n, 1 / K, K - 1, lambda d: f"the joker at least {percent(d)} more likely "
                                                "at one position than 1/53 would have been caught")))
    size = n // BLOCKS
    blocks = pos[:BLOCKS * size, JOKER].astype(np.int64).reshape(BLOCKS, size)
    counts = np.bincount((np.arange(BLOCKS)[:, None] * K + blocks).ravel(), minlength=BLOCKS * K).reshape(BLOCKS, K)
    c = size / (K - 1)
    words = lambda d: (f"the joker at least {percent(d)} more likely at one position than 1/53 in every block of "  # noqa: E731
                       f"1/{BLOCKS} of the decks would have been caught (this test is aimed at a bias that comes and goes)")
    out.append(uniformity("decks.joker_blocks", f"Joker position in {BLOCKS} blocks: p-values uniform", "decks",
                          [chi_square_p(row, np.full(K, 1 / K)) for row in counts],
                          alternative=Alternative("ks", words, lam=lambda d: c * d * d, df=K - 1, blocks=BLOCKS,
                                                  hi=float(K - 1))))
    return out


def order_tests(decks: np.ndarray, pos: np.ndarray, seed: int) -> list[TestResult]:
    n = len(decks)
    cards = np.random.Generator(np.random.PCG64(seed)).permutation(K)[:K - K % GROUP_SIZE]
    groups = cards.reshape(-1, GROUP_SIZE)
    stats_, ps = [], []
    for group in groups:
        p = pos[:, group].astype(np.int64)
        code = np.zeros(n, dtype=np.int64)
        for i in range(GROUP_SIZE - 1):
            code = code * (GROUP_SIZE - i) + (p[:, i + 1:] < p[:, i:i + 1]).sum(axis=1)
        counts = np.bincount(code, minlength=24)
        r = chi_square("", "", "", counts, np.full(24, 1 / 24))
        stats_.append(r.statistic)
        ps.append(r.p_value)
    df = len(groups) * 23
    total = float(sum(stats_))
    one = lambda d: (f"one relative order of one group of 4 cards at least {percent(d)} more likely than 1/24 "  # noqa: E731
                     "would have been caught")
    every = lambda d: (f"one relative order at least {percent(d)} more likely than 1/24 in every group of 4 cards "  # noqa: E731
                       "would have been caught")
    out = [TestResult("decks.permutations", f"Relative order of {len(groups)} groups of 4 cards (pooled)", "decks",
                      "chi-square", total, df, float(stats.chi2.sf(total, df)), n,
                      alternative=cell_bias(n, 1 / 24, df, one)),
           uniformity("decks.permutation_groups", f"Relative order, {len(groups)} groups: p-values uniform", "decks", ps,
                      alternative=Alternative("ks", every, lam=lambda d: n / 23 * d * d, df=23, blocks=len(groups),
                                              hi=23.0))]
    inversions = np.zeros(n, dtype=np.int64)
    for i in range(K - 1):
        inversions += (decks[:, i + 1:] < decks[:, i:i + 1]).sum(axis=1)
    variance = n * K * (K - 1) * (2 * K + 5) / 72
    tau = lambda t: (f"decks that keep (or reverse) the new-deck order, an average Kendall correlation of at least "  # noqa: E731
                     f"{t:.2g} with it, would have been caught")
    out.append(normal("decks.inversions", "Inversions against the card order (Kendall)", "decks",
                      float(inversions.sum()), n * K * (K - 1) / 4, variance, n,
                      alternative=Alternative("normal", tau, shift=lambda t: t * n * K * (K - 1) / 4 / np.sqrt(variance),
                                              hi=0.5)))
    return out


def repeat_tests(decks: np.ndarray) -> list[TestResult]:
    n = len(decks)
    rows = np.ascontiguousarray(decks).view(np.dtype((np.void, K))).ravel()
    duplicates = n - len(np.unique(rows))
    lam = comb(n, 2) / factorial(K)
    p = 1.0 if duplicates == 0 else float(stats.poisson.sf(duplicates - 1, lam))
    out = [TestResult("decks.duplicates", "Duplicate decks (Poisson, mean C(n,2)/53!)", "decks", "Poisson",
                      float(duplicates), None, p, n,
                      alternative=Alternative("poisson", few_orders, lam=lambda d: comb(n, 2) * d, lo=1e-60))]
    nxt = successors(decks)
    shared = ((nxt[:-1] == nxt[1:]) & (nxt[:-1] != K)).sum()
    out.append(normal("decks.cut_check", "Successions kept from the previous deck (cut, not shuffled)", "decks",
                      float(shared), (n - 1) * float(SHARED_MEAN), (n - 1) * float(SHARED_VAR), n - 1, upper_only=True,
                      alternative=cut_alternative(n - 1)))
    return out


def few_orders(d: float) -> str:
    """Words for a generator that deals only 1/d different decks, equally likely."""
    bits = int(np.floor(np.log2(1 / d)))
    return (f"a generator that can deal at most {1 / d:.2g} different decks (a seed or state of {bits} bits) would "
            "have been caught")


CUT_KEEPS = K - 2
"""Successions a deck only cut (turned at one point) keeps from the deck before it."""


def cut_alternative(pairs: int) -> Alternative:
    """A share delta of the decks only cut, not reshuffled: each keeps 51 successions instead of 52/53
    on average (the sum's variance grows by the mixture's)."""
    gain, var = CUT_KEEPS - float(SHARED_MEAN), float(SHARED_VAR)
    return Alternative("normal", lambda d: f"decks cut instead of reshuffled in at least {percent(d)} of the deals "
                       "would have been caught", shift=lambda d: np.sqrt(pairs) * d * gain / np.sqrt(var),
                       spread=lambda d: float(np.sqrt(1 - d + d * (1 - d) * gain * gain / var)), upper=True, hi=0.999)


def label_tests(decks: np.ndarray) -> list[TestResult]:
    n = len(decks)
    player, banker = seat_labels(decks)
    p_probs, b_probs = label_probabilities()
    out = []
    for s in range(SEATS):
        seat = "first seven cards" if s == 0 else f"seat {s + 1}"
        for kind, codes, probs, names in (("player", player, p_probs, PLAYER_CATEGORIES),
                                          ("banker", banker, b_probs, BANKER_LABELS)):
            counts = np.bincount(codes[:, s], minlength=len(probs))
            merged_c, merged_p = merge_rare(counts, probs, n)
            chart = {}
            if s == 0:
                chart = {"kind": "bars", "labels": list(names), "observed": counts.tolist(),
                         "expected": [float(f"{n * p:.6g}") for p in probs]}
            top = int(np.argmax(probs))
            words = lambda d, kind=kind, name=names[top], where=seat_cards(s): (  # noqa: E731
                f"the {kind} label '{name}' at least {percent(d)} more likely in {where} than its exact probability "
                "(the others proportionally less) would have been caught")
            out.append(chi_square(f"decks.{kind}_labels_{s + 1}", f"{kind.capitalize()} labels, {seat}", "decks",
                                  merged_c, merged_p, chart=chart,
                                  alternative=cell_bias(n, float(probs[top]), len(merged_p) - 1, words)))
    return out


def deck_battery(decks: np.ndarray, seed: int) -> list[TestResult]:
    """Every shuffle test on ``decks`` (``(n, 53)`` card indices, n >= MIN_DECKS); ``seed`` picks the
    card groups of the permutation test."""
    if len(decks) < MIN_DECKS:
        raise ValueError(f"the shuffle battery needs at least {MIN_DECKS:,} decks, got {len(decks):,}")
    decks = np.ascontiguousarray(decks, dtype=np.uint8)
    pos = positions(decks)
    return (layout_tests(decks, pos) + deal_tests(pos) + order_tests(decks, pos, seed) + repeat_tests(decks)
            + label_tests(decks))
