"""Exact return of the Imperial pai gow bonus as the one wager it is (INT-ONE-WAGER).

The wager wins if the player's hand qualifies for the player hand bonus (three of a kind or
better) or the banker's hand qualifies for the banker hand bonus (nine, ten or jack high), and
loses only if neither does. Per unit wagered (the cap does not bind at the minimum wager)::

    return = E[player bonus win] + E[banker bonus win] - P(neither qualifies)
    P(neither) = 1 - P(player qualifies) - P(banker qualifies) + P(both qualify)

The two marginal expectations and probabilities come from the census. The two hands come from
one deck, so ``P(both)`` is not the product of the marginals; it is counted exactly here:

    N_both = #{(P, D) disjoint : P qualifies, D is nine/ten/jack high}
           = sum over D of #{qualifying P avoiding D}
           = sum over card sets T of (-1)^|T| * Q(T) * M(T)         (inclusion-exclusion on D's cards)

where ``Q(T)`` is the number of qualifying player hands holding every card of T and ``M(T)`` the
number of banker-qualifying hands holding T. Banker-qualifying hands have seven different ranks
from 2..J, no joker and no suit five times, so T ranges over such partial hands only, and both
``Q`` and ``M`` depend on T only through its *signature*: its rank set and which of its cards
share a suit (suits are interchangeable). ``M`` is a closed formula; ``Q`` is counted by
evaluating every completion of one representative hand per signature with the fast labeller's
per-hand evaluation (about 0.6 billion hands). ``P(both) = N_both / (C(53,7) * C(46,7))``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from fractions import Fraction
from itertools import combinations
from math import comb, factorial, perm

import numba
import numpy as np
from numba import njit, prange

from tablecert.oracle.cards import DECK_SIZE, HAND_COUNT, HAND_SIZE, JOKER, RANKS
from tablecert.oracle.hands import banker_label
from tablecert.oracle.labeller import CARD_BIT, THREE_OF_A_KIND, _evaluate
from tablecert.oracle.census import JointCount

SUIT_COUNT = 4
MAX_PER_SUIT = 4  # a banker-qualifying hand has no flush: at most four cards of a suit


@njit(cache=True)
def _qualifying_completions(base_word: int, base_joker: bool, avail: np.ndarray, first: int, m: int) -> int:
    """Qualifying player hands made of the base cards, ``avail[first]`` and ``m - 1`` more cards
    from ``avail[first + 1:]`` (``avail`` ascending)."""
    n = avail.shape[0]
    c = avail[first]
    word0 = base_word | CARD_BIT[c]
    joker0 = base_joker or c == JOKER
    if m == 1:
        p, _ = _evaluate(word0, joker0)
        return 1 if p <= THREE_OF_A_KIND else 0
    idx = np.empty(m, np.int64)
    words = np.empty(m, np.int64)
    jokers = np.empty(m, np.bool_)
    idx[0], words[0], jokers[0] = first, word0, joker0
    level = 1
    idx[1] = first
    count = 0
    while level > 0:
        idx[level] += 1
        if idx[level] > n - (m - level):
            level -= 1
            continue
        c = avail[idx[level]]
        words[level] = words[level - 1] | CARD_BIT[c]
        jokers[level] = jokers[level - 1] or c == JOKER
        if level == m - 1:
            p, _ = _evaluate(words[level], jokers[level])
            if p <= THREE_OF_A_KIND:
                count += 1
        else:
            level += 1
            idx[level] = idx[level - 1]
    return count


@njit(cache=True, parallel=True)
def _run_tasks(base_words: np.ndarray, base_jokers: np.ndarray, avails: np.ndarray, n_avail: np.ndarray,
               task_base: np.ndarray, task_first: np.ndarray, task_m: np.ndarray, n_workers: int) -> np.ndarray:
    """Count of each task, tasks dealt round-robin to the workers."""
    out = np.zeros(task_base.shape[0], np.int64)
    n_tasks = task_base.shape[0]
    for worker in prange(n_workers):
        for t in range(worker, n_tasks, n_workers):
            b = task_base[t]
            out[t] = _qualifying_completions(base_words[b], base_jokers[b], avails[b, : n_avail[b]], task_first[t], task_m[t])
    return out


def count_qualifying_avoiding(cards: tuple[int, ...]) -> int:
    """Qualifying player hands dealt from the deck without ``cards``, by evaluating every one
    (the direct count that the inclusion-exclusion replaces; used to check it)."""
    rest = np.array([c for c in range(DECK_SIZE) if c not in cards], dtype=np.int64)
    n = len(rest)
    tasks = np.arange(n - HAND_SIZE + 1, dtype=np.int64)
    counts = _run_tasks(np.zeros(1, np.int64), np.zeros(1, np.bool_), rest.reshape(1, n), np.array([n]),
                        np.zeros_like(tasks), tasks, np.full_like(tasks, HAND_SIZE), numba.get_num_threads())
    return int(counts.sum())


PROGRESS_STEPS = 40
"""Slices of the work in count_qualifying_containing, each followed by a progress report."""


def count_qualifying_containing(bases: list[tuple[int, ...]], progress: Callable[[int, int], None] | None = None) -> list[int]:
    """For each base card set, the number of qualifying player hands (from the whole 53-card deck)
    that hold every card of it; a base of 7 cards counts itself. Exact integers."""
    n = len(bases)
    base_words = np.zeros(n, np.int64)
    base_jokers = np.zeros(n, np.bool_)
    avails = np.zeros((n, DECK_SIZE), np.int64)
    n_avail = np.zeros(n, np.int64)
    tasks: list[tuple[int, int, int]] = []
    results = [0] * n
    for i, base in enumerate(bases):
        word = 0
        for c in base:
            word |= int(CARD_BIT[c])
        base_words[i], base_jokers[i] = word, JOKER in base
        rest = [c for c in range(DECK_SIZE) if c not in base]
        avails[i, : len(rest)] = rest
        n_avail[i] = len(rest)
        m = HAND_SIZE - len(base)
        if m == 0:
            p, _ = _evaluate_one(word, JOKER in base)
            results[i] = int(p <= THREE_OF_A_KIND)
            continue
        tasks.extend((i, first, m) for first in range(len(rest) - m + 1))
    if tasks:
        arr = np.array(tasks, dtype=np.int64)
        # Deal heavy and light tasks evenly: a fixed permutation (the sum does not depend on it).
        arr = arr[np.random.default_rng(0).permutation(len(arr))]
        step = -(-len(arr) // PROGRESS_STEPS)
        for start in range(0, len(arr), step):          # in slices, to report progress between them
            part = arr[start:start + step]
            counts = _run_tasks(base_words, base_jokers, avails, n_avail, part[:, 0].copy(), part[:, 1].copy(),
                                part[:, 2].copy(), numba.get_num_threads())
            for (i, _, _), k in zip(part.tolist(), counts.tolist()):
                results[i] += k
            if progress:
                progress(min(start + step, len(arr)), len(arr))
    return results


@njit(cache=True)
def _evaluate_one(word: int, joker: bool) -> tuple[int, int]:
    return _evaluate(word, joker)


# --------------------------------------------------------------------------------------------
# Signatures of partial banker-qualifying hands
# --------------------------------------------------------------------------------------------

def banker_rank_sets() -> list[tuple[int, ...]]:
    """Rank sets (ascending rank indices) of the banker-qualifying hands: those for which a
    seven-card hand of these ranks in mixed suits is nine, ten or jack high by the reference
    evaluator."""
    sets = []
    for ranks in combinations(range(len(RANKS)), HAND_SIZE):
        hand = [r * SUIT_COUNT + (i % SUIT_COUNT) for i, r in enumerate(ranks)]  # suits c,d,h,s,c,d,h
        if banker_label(hand) != "none":
            sets.append(ranks)
    return sets


def _suit_partitions(k: int) -> Iterator[tuple[int, ...]]:
    """Ways to give k cards of different ranks suits, up to renaming suits: restricted growth
    strings (the first card has suit 0, each later card an earlier suit or the next new one)."""
    def grow(prefix: tuple[int, ...], blocks: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == k:
            yield prefix
            return
        for s in range(min(blocks + 1, SUIT_COUNT)):
            yield from grow(prefix + (s,), max(blocks, s + 1))
    yield from grow((), 0)


@cache
def _non_flush_completions(free: int, taken: tuple[int, ...]) -> int:
    """Ways to give ``free`` further cards (all of different ranks) suits so that no suit holds
    more than four cards in all, ``taken[s]`` being the cards suit s already holds: the
    multinomial sum free! * sum over splits (a_s) of prod 1/a_s!, with a_s <= 4 - taken[s]."""
    limits = [MAX_PER_SUIT - t for t in taken] + [MAX_PER_SUIT] * (SUIT_COUNT - len(taken))

    def split(s: int, left: int, weight: Fraction) -> Fraction:
        """Sum of weight x prod 1/a! over the splits of ``left`` cards among suits s.."""
        if s == SUIT_COUNT:
            return weight if left == 0 else Fraction(0)
        return sum((split(s + 1, left - a, weight / factorial(a)) for a in range(min(left, limits[s]) + 1)),
                   Fraction(0))

    total = split(0, free, Fraction(1)) * factorial(free)
    assert total.denominator == 1
    return int(total.numerator)


@dataclass(frozen=True)
class Signature:
    ranks: tuple[int, ...]      # ascending rank indices
    suits: tuple[int, ...]      # restricted growth string: canonical suit per rank
    copies: int                 # card sets with this signature: injective maps of its suits to the 4 suits
    holders: int                # M(T): banker-qualifying hands holding one such card set

    @property
    def cards(self) -> tuple[int, ...]:
        return tuple(r * SUIT_COUNT + s for r, s in zip(self.ranks, self.suits))


def signatures() -> list[Signature]:
    """Every signature of a partial banker-qualifying hand (the empty one included) with M > 0."""
    rank_sets = banker_rank_sets()
    supersets: dict[tuple[int, ...], int] = {}
    for rs in rank_sets:
        for k in range(HAND_SIZE + 1):
            for sub in combinations(rs, k):
                supersets[sub] = supersets.get(sub, 0) + 1
    out = []
    for sub in sorted(supersets, key=lambda s: (len(s), s)):
        for suits in _suit_partitions(len(sub)):
            taken = [suits.count(s) for s in range(max(suits, default=-1) + 1)]
            if any(t > MAX_PER_SUIT for t in taken):
                continue
            holders = supersets[sub] * _non_flush_completions(HAND_SIZE - len(sub), tuple(sorted(taken)))
            out.append(Signature(sub, suits, perm(SUIT_COUNT, len(taken)), holders))
    return out


def count_both_qualify(progress: Callable[[int, int], None] | None = None) -> JointCount:
    """N_both by inclusion-exclusion over signatures (see the module docstring)."""
    sigs = signatures()
    q = count_qualifying_containing([s.cards for s in sigs], progress)
    both = sum((-1) ** len(s.ranks) * s.copies * qt * s.holders for s, qt in zip(sigs, q))
    return JointCount(both, HAND_COUNT * comb(DECK_SIZE - HAND_SIZE, HAND_SIZE), len(sigs))
