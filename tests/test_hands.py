"""Hand labels of the Imperial pai gow bonus: known hands, invariances, parsing, and agreement of
the fast all-hands labeller with the reference evaluator.

Expected labels here are worked out by hand from the rules (N.J.A.C. 13:69F-11.19/11.20 and the
oracle's interpretations INT-JOKER-ACE, INT-ROYAL-JOKER), never taken from the code's output.
"""

from __future__ import annotations

import doctest
from functools import lru_cache
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecert.oracle import cards as cards_module
from tablecert.oracle import census as census_module
from tablecert.oracle import hands as hands_module
from tablecert.oracle import labeller as labeller_module
from tablecert.oracle.cards import (
    DECK_SIZE,
    HAND_COUNT,
    JOKER,
    card_code,
    card_index,
    colex_rank,
    colex_unrank,
    parse_hand,
)
from tablecert.oracle.errors import CaseError
from tablecert.oracle.hands import (
    BANKER_LABELS,
    PLAYER_CATEGORIES,
    PLAYER_LABELS,
    banker_label,
    player_category,
    player_label,
)
from tablecert.oracle.labeller import label_hand_fast, label_hands_with_top


def h(*codes: str) -> tuple[int, ...]:
    return parse_hand(list(codes))


# (cards, player category, banker label, why)
KNOWN_HANDS: list[tuple[tuple[str, ...], str, str, str]] = [
    # five aces
    (("As", "Ah", "Ad", "Ac", "JK", "2c", "7d"), "five_aces", "none", "four aces and the joker"),
    (("As", "Ah", "Ad", "Ac", "JK", "Ks", "Qs"), "five_aces", "none", "five aces with two more high cards"),
    # royal flush
    (("Ts", "Js", "Qs", "Ks", "As", "2c", "3d"), "royal_flush", "none", "natural royal"),
    (("Ts", "Js", "Qs", "Ks", "JK", "2c", "3d"), "royal_flush", "none", "joker as the ace"),
    (("Th", "Jh", "Kh", "Ah", "JK", "2c", "3d"), "royal_flush", "none", "joker as the queen (middle card)"),
    (("7s", "8s", "Ts", "Js", "Qs", "Ks", "JK"), "royal_flush", "none", "suited 7-8-T-J-Q-K + joker: joker as ace"),
    (("9c", "Tc", "Jc", "Qc", "Kc", "Ac", "2d"), "royal_flush", "none", "six suited cards holding T-A"),
    # straight flush
    (("5d", "6d", "7d", "8d", "9d", "Kc", "2h"), "straight_flush", "none", "natural straight flush"),
    (("5d", "6d", "8d", "9d", "JK", "Kc", "2h"), "straight_flush", "none", "joker as the 7d"),
    (("Ac", "2c", "3c", "4c", "JK", "9d", "Kh"), "straight_flush", "none", "joker completes a suited wheel"),
    (("Ac", "2c", "3c", "4c", "5c", "9d", "Kh"), "straight_flush", "none", "natural suited wheel"),
    (("5d", "6d", "7d", "8d", "9d", "9c", "9h"), "straight_flush", "none", "straight flush beats trips"),
    (("9h", "Th", "Jh", "Qh", "Kh", "JK", "2c"), "royal_flush", "none", "suited 9-K + joker: joker as ace, not as 8"),
    (("8h", "9h", "Th", "Jh", "JK", "2c", "3d"), "straight_flush", "none", "suited 8-J + joker cannot reach the ace"),
    # four of a kind
    (("7c", "7d", "7h", "7s", "Kc", "Kd", "Ah"), "four_of_a_kind", "none", "quads with a pair"),
    (("7c", "7d", "7h", "7s", "Kc", "Kd", "Kh"), "four_of_a_kind", "none", "quads plus trips"),
    (("Ac", "Ad", "Ah", "JK", "Kc", "7d", "2s"), "four_of_a_kind", "none", "three aces + joker = four aces"),
    (("Kc", "Kd", "Kh", "Ks", "JK", "2c", "7d"), "four_of_a_kind", "none", "four kings (joker is an ace)"),
    # full house
    (("Qc", "Qd", "Qh", "5s", "5c", "2d", "9h"), "full_house", "none", "trips and a pair"),
    (("Qc", "Qd", "Qh", "5s", "5c", "5d", "9h"), "full_house", "none", "two trips"),
    (("Kc", "Kd", "Kh", "JK", "As", "2c", "7d"), "full_house", "none", "KKK + ace + joker as ace"),
    (("Ac", "Ad", "JK", "Kc", "Kd", "2s", "7h"), "full_house", "none", "joker makes aces full of kings"),
    # flush
    (("2h", "5h", "8h", "Jh", "Kh", "3c", "4d"), "flush", "none", "five-card flush"),
    (("2h", "5h", "8h", "Kh", "JK", "3c", "9d"), "flush", "none", "four hearts + joker"),
    (("2h", "5h", "8h", "Jh", "Kh", "3h", "4d"), "flush", "none", "six-card flush"),
    (("2h", "4h", "6h", "8h", "Th", "Qh", "Kh"), "flush", "none", "seven-card flush"),
    (("2h", "5h", "8h", "Jh", "Kh", "Kc", "Kd"), "flush", "none", "flush beats trips"),
    # straight
    (("4c", "5d", "6h", "7s", "8c", "Kd", "2h"), "straight", "none", "natural straight"),
    (("Ac", "2d", "3h", "4s", "JK", "9c", "Kd"), "straight", "none", "joker as the 5 in A-2-3-4-5"),
    (("Ac", "2d", "3h", "4s", "5c", "9c", "Kd"), "straight", "none", "natural wheel"),
    (("Ac", "Jd", "Qh", "Ks", "JK", "2c", "5d"), "straight", "none", "joker as the T in T-J-Q-K-A"),
    (("Tc", "Jd", "Qh", "Ks", "JK", "2c", "5d"), "straight", "none", "joker as the A in T-J-Q-K-A"),
    (("5c", "5d", "5h", "6s", "7c", "8d", "9h"), "straight", "none", "straight and trips: straight wins"),
    (("Ac", "Ad", "2h", "3s", "4c", "JK", "9d"), "straight", "none", "joker as 5 beats joker as third ace"),
    # three of a kind
    (("Kc", "Kd", "Kh", "JK", "2c", "7d", "9h"), "three_of_a_kind", "none", "KKK + joker is NOT four kings"),
    (("JK", "Ac", "Ad", "2d", "5h", "8s", "Jc"), "three_of_a_kind", "none", "AA + joker = three aces"),
    (("9c", "9d", "9h", "2s", "5c", "Jd", "Kh"), "three_of_a_kind", "none", "natural trips"),
    # two pair
    (("Kc", "Kd", "7h", "7s", "2c", "4d", "9h"), "two_pair", "none", "two pair"),
    (("Kc", "Kd", "7h", "7s", "2c", "2d", "9h"), "two_pair", "none", "three pairs"),
    (("JK", "Ac", "Kd", "Kh", "7s", "7c", "2d"), "two_pair", "none", "joker pairs the ace: three pairs"),
    # pair
    (("9c", "9d", "2h", "4s", "6c", "Jd", "Kh"), "pair", "none", "natural pair"),
    (("JK", "Ac", "2d", "5h", "8s", "9c", "Jd"), "pair", "none", "joker pairs the ace"),
    # high card
    (("2c", "4d", "6h", "8s", "Tc", "Qd", "Kh"), "high_card", "none", "king high"),
    (("JK", "Kc", "2d", "5h", "8s", "9c", "Jd"), "high_card", "none", "joker is a lone ace, nothing else"),
    # banker hands
    (("9s", "8h", "7d", "5c", "4c", "3d", "2h"), "high_card", "nine_high", "nine high"),
    (("Tc", "8d", "7h", "5s", "4c", "3d", "2h"), "high_card", "ten_high", "ten high"),
    (("Jd", "9h", "8c", "6d", "4s", "3c", "2h"), "high_card", "jack_high", "jack high"),
    (("Jh", "9h", "8h", "6h", "4c", "3c", "2d"), "high_card", "jack_high", "four suited cards are no flush"),
    (("9s", "9h", "7d", "5c", "4c", "3d", "2h"), "pair", "none", "near miss: a pair"),
    (("9s", "8h", "7d", "6c", "5c", "3d", "2h"), "straight", "none", "near miss: a straight"),
    (("Jh", "9h", "8h", "6h", "4h", "3c", "2d"), "flush", "none", "near miss: a five-card flush"),
    (("Jd", "9h", "8c", "6d", "4s", "3c", "JK"), "high_card", "none", "near miss: the joker (plays as an ace)"),
    (("Qd", "9h", "8c", "6d", "4s", "3c", "2h"), "high_card", "none", "near miss: queen high"),
]


@pytest.mark.parametrize("codes, category, banker, why", KNOWN_HANDS, ids=[k[3] for k in KNOWN_HANDS])
def test_known_hand(codes: tuple[str, ...], category: str, banker: str, why: str) -> None:
    hand = h(*codes)
    assert player_category(hand) == category
    assert player_label(hand) == (category if category in PLAYER_LABELS else "none")
    assert banker_label(hand) == banker
    assert label_hand_fast(hand) == (PLAYER_CATEGORIES.index(category), BANKER_LABELS.index(banker))


def test_known_hands_cover_every_label() -> None:
    with_joker = {k[1] for k in KNOWN_HANDS if "JK" in k[0]}
    without_joker = {k[1] for k in KNOWN_HANDS if "JK" not in k[0]}
    assert with_joker == set(PLAYER_CATEGORIES)
    assert without_joker == set(PLAYER_CATEGORIES) - {"five_aces"}  # five aces needs the joker
    assert {k[2] for k in KNOWN_HANDS} == set(BANKER_LABELS)


def test_label_tuples() -> None:
    assert PLAYER_CATEGORIES == ("five_aces", "royal_flush", "straight_flush", "four_of_a_kind", "full_house",
                                 "flush", "straight", "three_of_a_kind", "two_pair", "pair", "high_card")
    assert PLAYER_LABELS == ("five_aces", "royal_flush", "straight_flush", "four_of_a_kind", "full_house",
                             "flush", "straight", "three_of_a_kind", "none")
    assert BANKER_LABELS == ("nine_high", "ten_high", "jack_high", "none")


def test_player_label_merges_categories_below_trips() -> None:
    assert player_label(h("Kc", "Kd", "7h", "7s", "2c", "4d", "9h")) == "none"
    assert player_label(h("9c", "9d", "2h", "4s", "6c", "Jd", "Kh")) == "none"
    assert player_label(h("2c", "4d", "6h", "8s", "Tc", "Qd", "Kh")) == "none"
    assert player_label(h("9c", "9d", "9h", "2s", "5c", "Jd", "Kh")) == "three_of_a_kind"


def test_doctests() -> None:
    for module in (cards_module, hands_module, labeller_module, census_module):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__


# --------------------------------------------------------------------------------------------
# Cards and parsing
# --------------------------------------------------------------------------------------------

def test_card_codes_round_trip() -> None:
    codes = [card_code(i) for i in range(DECK_SIZE)]
    assert codes[:5] == ["2c", "2d", "2h", "2s", "3c"]
    assert codes[-2:] == ["As", "JK"]
    assert len(set(codes)) == DECK_SIZE
    assert all(card_index(code) == i for i, code in enumerate(codes))
    assert card_index("Td") == 8 * 4 + 1
    assert JOKER == 52


def test_parse_hand_sorts_and_accepts_joker() -> None:
    assert parse_hand(["As", "JK", "2c", "3c", "4c", "5c", "6c"]) == (0, 4, 8, 12, 16, 51, 52)


INVALID_HANDS = [
    (["As", "Ks", "Qs", "Js", "Ts", "9s"], "6"),
    (["As", "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s"], "8"),
    ([], "0"),
    (["As", "Ks", "Qs", "Js", "Ts", "9s", "1s"], "'1s'"),
    (["As", "Ks", "Qs", "Js", "Ts", "9s", "AS"], "'AS'"),
    (["As", "Ks", "Qs", "Js", "Ts", "9s", "Ax"], "'Ax'"),
    (["As", "Ks", "Qs", "Js", "Ts", "9s", ""], "card 6"),
    (["As", "Ks", "Qs", "Js", "Ts", "9s", "jk"], "'jk'"),
    (["As", "Ks", "Qs", "Js", "Ts", "9s", "JKR"], "'JKR'"),
    (["As", "Ks", "Qs", "Js", "Ts", "9s", " As"], "card 6"),
    (["As", "Ks", "Qs", "Js", "Ts", "9s", "As"], "card 6 'As' repeats card 0"),
    (["JK", "Ks", "Qs", "Js", "Ts", "9s", "JK"], "card 6 'JK'"),
    (("As", "Ks", "Qs", "Js", "Ts", "9s", "8s"), "tuple"),
    ("As Ks Qs Js Ts 9s 8s", "str"),
    ({"cards": ["As"]}, "dict"),
    (None, "NoneType"),
    (["As", "Ks", "Qs", "Js", "Ts", "9s", 51], "card 6"),
    (["As", "Ks", "Qs", "Js", None, "9s", "8s"], "card 4"),
    (["As", "Ks", "Qs", "Js", ["Ts"], "9s", "8s"], "card 4"),
]


@pytest.mark.parametrize("value, mentions", INVALID_HANDS, ids=[repr(v)[:40] for v, _ in INVALID_HANDS])
def test_parse_hand_rejects(value: object, mentions: str) -> None:
    with pytest.raises(CaseError) as caught:
        parse_hand(value)
    assert caught.value.code == "invalid_hand"
    assert mentions in caught.value.message
    assert "\n" not in caught.value.message


def test_two_jokers_message_says_so() -> None:
    with pytest.raises(CaseError, match="second joker"):
        parse_hand(["JK", "Ks", "Qs", "Js", "Ts", "9s", "JK"])


def test_colex_order_endpoints() -> None:
    assert colex_rank((0, 1, 2, 3, 4, 5, 6)) == 0
    assert colex_rank((46, 47, 48, 49, 50, 51, 52)) == HAND_COUNT - 1
    # hands holding the joker are exactly the last C(52,6)
    assert colex_rank((0, 1, 2, 3, 4, 5, JOKER)) == HAND_COUNT - comb(52, 6)
    assert colex_rank((45, 46, 47, 48, 49, 50, 51)) == comb(52, 7) - 1
    assert colex_unrank(comb(52, 7)) == (0, 1, 2, 3, 4, 5, JOKER)


@given(st.integers(0, HAND_COUNT - 1))
def test_colex_round_trip(position: int) -> None:
    hand = colex_unrank(position)
    assert list(hand) == sorted(set(hand)) and len(hand) == 7
    assert colex_rank(hand) == position


# --------------------------------------------------------------------------------------------
# Invariances of the reference evaluator
# --------------------------------------------------------------------------------------------

# Hands: any 7 distinct cards; half the time with the joker forced in, so joker rules get exercise.
hands_strategy = st.one_of(
    st.lists(st.integers(0, DECK_SIZE - 1), min_size=7, max_size=7, unique=True),
    st.lists(st.integers(0, DECK_SIZE - 2), min_size=6, max_size=6, unique=True).map(lambda c: c + [JOKER]),
    # clumped in few ranks / one suit, where the strong categories live
    st.lists(st.sampled_from([r * 4 + s for r in (0, 1, 2, 3, 8, 9, 10, 11, 12) for s in (0, 1)] + [JOKER]),
             min_size=7, max_size=7, unique=True),
)


def labels(cards: tuple[int, ...] | list[int]) -> tuple[str, str]:
    return player_category(cards), banker_label(cards)


@given(hands_strategy, st.randoms(use_true_random=False))
def test_card_order_does_not_matter(cards: list[int], rnd) -> None:
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    assert labels(shuffled) == labels(sorted(cards))
    assert parse_hand([card_code(c) for c in shuffled]) == tuple(sorted(cards))


@given(hands_strategy, st.permutations(range(4)))
def test_suit_renaming_does_not_matter(cards: list[int], suit_map: list[int]) -> None:
    renamed = [c if c == JOKER else (c // 4) * 4 + suit_map[c % 4] for c in cards]
    assert labels(renamed) == labels(cards)
    assert label_hand_fast(renamed) == label_hand_fast(cards)


@settings(max_examples=1000, deadline=None)
@given(hands_strategy)
def test_fast_single_hand_matches_reference(cards: list[int]) -> None:
    p, b = label_hand_fast(cards)
    assert (PLAYER_CATEGORIES[p], BANKER_LABELS[b]) == labels(cards)


# --------------------------------------------------------------------------------------------
# The all-hands labeller against the reference evaluator, via colex positions
# --------------------------------------------------------------------------------------------

@lru_cache(maxsize=3)
def block(top: int) -> tuple[np.ndarray, np.ndarray]:
    return label_hands_with_top(top)


def check_position(position: int) -> None:
    hand = colex_unrank(position)
    top = hand[-1]
    player, banker = block(top)
    i = position - comb(top, 7)
    assert (PLAYER_CATEGORIES[player[i]], BANKER_LABELS[banker[i]]) == labels(hand), (position, hand)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, HAND_COUNT - 1))
def test_labeller_matches_reference_at_random_positions(position: int) -> None:
    check_position(position)


def test_block_shapes_and_types() -> None:
    for top in (6, 7, 30, 52):
        player, banker = label_hands_with_top(top)
        assert player.dtype == np.uint8 and banker.dtype == np.uint8
        assert len(player) == len(banker) == comb(top, 6)
        assert int(player.max()) < len(PLAYER_CATEGORIES) and int(banker.max()) < len(BANKER_LABELS)
    for bad in (5, 53, -1):
        with pytest.raises(ValueError):
            label_hands_with_top(bad)


def test_labeller_matches_reference_on_every_small_block() -> None:
    """Every hand whose highest card is at most 4d (index 13): 3,432 hands, all checked."""
    for position in range(comb(14, 7)):
        check_position(position)


@pytest.mark.parametrize("top", [52, 51, 40])
def test_labeller_matches_reference_on_strided_blocks(top: int) -> None:
    """Every 1,009th hand of a block (the joker block among them), first and last included."""
    start, size = comb(top, 7), comb(top, 6)
    for i in [*range(0, size, 1009), size - 1]:
        check_position(start + i)
