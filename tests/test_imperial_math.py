"""The exact joint count behind the imperial wager's return, checked against direct counts.

Published figures used (Wizard of Odds, pai gow poker 53-card deck; B. Alspach): banker nine high
31,080, ten high 248,640, jack high 963,480 hands (1,243,200 in all); player hands of three of a
kind or better 1,128 + 26,132 + 184,832 + 307,472 + 4,188,528 + 6,172,088 + 11,236,028 + 7,470,676.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import pytest

from tablecert.oracle import imperial_math as im
from tablecert.oracle.cards import parse_hand

BANKER_QUALIFYING = 31_080 + 248_640 + 963_480
PLAYER_QUALIFYING = 1_128 + 26_132 + 184_832 + 307_472 + 4_188_528 + 6_172_088 + 11_236_028 + 7_470_676


@pytest.fixture(scope="module")
def sigs():
    return im.signatures()


def test_banker_rank_sets_reproduce_the_published_count():
    # each rank set has 4^7 suitings minus the 4 x 211 with five or more cards of one suit
    assert len(im.banker_rank_sets()) * (4**7 - 4 * (21 * 9 + 7 * 3 + 1)) == BANKER_QUALIFYING


def test_holders_count_every_subset_of_every_banker_hand(sigs):
    # each banker-qualifying hand holds C(7, k) card sets of size k
    for k in range(8):
        assert sum(s.copies * s.holders for s in sigs if len(s.ranks) == k) == BANKER_QUALIFYING * comb(7, k)


def test_empty_base_counts_every_qualifying_hand():
    assert im.count_qualifying_containing([()]) == [PLAYER_QUALIFYING]


def _signature_key(cards):
    """Signature of a card set by the module's definition: ranks ascending, suits renamed in order."""
    cards = sorted(cards, key=lambda c: c // 4)
    rename, suits = {}, []
    for c in cards:
        rename.setdefault(c % 4, len(rename))
        suits.append(rename[c % 4])
    return tuple(c // 4 for c in cards), tuple(suits)


@pytest.mark.slow
def test_inclusion_exclusion_matches_a_direct_count(sigs):
    # For one banker hand D, the qualifying player hands from the other 46 cards, counted directly
    # (53,524,680 hands evaluated), equal the signed sum over D's 128 subsets of Q(T) from the table.
    dealer = parse_hand(["9c", "8d", "7h", "6s", "4c", "3h", "2d"])
    direct = im.count_qualifying_avoiding(dealer)
    by_key = {(s.ranks, s.suits): s for s in sigs}
    subsets = [t for k in range(1, 8) for t in combinations(dealer, k)]
    wanted = sorted({_signature_key(t) for t in subsets})
    table = dict(zip(wanted, im.count_qualifying_containing([by_key[w].cards for w in wanted])))
    signed = PLAYER_QUALIFYING + sum((-1) ** len(t) * table[_signature_key(t)] for t in subsets)
    assert signed == direct
    assert 0 < direct < comb(46, 7)


@pytest.fixture(scope="module")
def computed():
    """The oracle's returns computed from scratch (the census and the exact joint count, about 28 s):
    once for the module, read by the two tests below."""
    from tablecert.oracle.census import run_census
    from tablecert.oracle.paigow_math import paigow_returns

    return paigow_returns(run_census())


@pytest.mark.slow
def test_joint_probability_is_near_but_not_the_product(computed):
    joint = computed.joint
    total = comb(53, 7)
    independent = PLAYER_QUALIFYING * BANKER_QUALIFYING * comb(46, 7)
    assert joint.pairs == total * comb(46, 7)
    # same order of magnitude as independence, but a different exact number
    assert 0.9 < joint.both / (independent / total) < 1.1
    assert joint.both * total != independent


@pytest.mark.slow
def test_committed_figures_are_the_computed_ones(computed):
    # reports read oracle/paigow_exact.toml instead of recomputing: it must hold exactly what the
    # oracle computes (census + exact joint count)
    from tablecert.oracle.paigow_math import committed_returns

    committed = committed_returns()
    for name in ("player_bonus_alone", "banker_bonus_alone", "imperial", "p_player_qualifies",
                 "p_banker_qualifies", "p_both_qualify"):
        assert getattr(computed, name) == getattr(committed, name), name
    assert (computed.joint.both, computed.joint.pairs) == (committed.joint.both, committed.joint.pairs)
