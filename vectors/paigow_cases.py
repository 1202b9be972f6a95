"""Pai gow vector groups: the curated edge cases and the ``standard`` suite's seeded sample.

Both generators yield :class:`~tablecert.vectors.model.VectorGroup` objects holding inputs and
metadata only; the writer asks the oracle for every expected answer.

* :func:`edge_groups` turns the curated data file ``data/paigow_edge.toml`` into groups: every
  hand to both label ops, the settlement rounds grouped by cap, and malformed configs. The file
  says what each entry is meant to be (``claim*`` fields); the tests hold the data to it.
* :func:`sample_groups` draws, with a fixed-seed numpy Generator, hands from EVERY hand of each
  bucket: each player category and each banker label, split by suit shape (the suit counts of the
  real cards, largest first, and whether the joker is held). Every bucket that holds any hand gets
  up to ``per_bucket`` of them, so rare buckets (five aces, a royal flush with one particular suit
  shape) are covered as surely as common ones. Then a few hundred seeded settlement rounds.

How the sample is drawn: the fast labeller labels each block of hands of equal highest card, and
a small numba kernel gives each hand its suit shape. A first pass counts the hands of every
(label, shape) bucket per block; the Generator picks ranks within each bucket's whole population;
a second pass turns ranks into colex positions (a stable sort of the block's bucket keys).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
from numba import njit

from tablecert.oracle.cards import ACE, DECK_SIZE, HAND_SIZE, JOKER, colex_unrank, hand_codes, rank_of
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_CATEGORIES
from tablecert.oracle.labeller import block_size, block_start, label_hands_with_top
from tablecert.vectors.model import Vector, VectorGroup

PLAYER_OP = "paigow.player_bonus"
BANKER_OP = "paigow.banker_bonus"
SETTLE_OP = "paigow.settle"
LABEL_OPS = (PLAYER_OP, BANKER_OP)
PAIGOW_OPS = (PLAYER_OP, BANKER_OP, SETTLE_OP)

EDGE_DATA = "data/paigow_edge.toml"
"""The curated edge cases, in the ``tablecert.vectors`` package."""

DEFAULT_SEED = 20261129
SMALL_CAP = 100_000
"""A cap far below the legal minimum, used by sampled rounds so that it binds now and then."""
SAMPLE_WAGERS = (0, 5, 25, 100, 500, 1_000, 5_000)


# =============================================================================================
# The curated edge cases.
# =============================================================================================

def load_edge_data() -> dict[str, Any]:
    """The parsed curated data file (a fresh copy each call)."""
    text = resources.files("tablecert.vectors").joinpath(EDGE_DATA).read_text(encoding="utf-8")
    return tomllib.loads(text)


def hand_case(entry: dict[str, Any]) -> Any:
    """The label-op case of a ``[[hand]]`` entry: ``{"cards": cards}``, or its raw ``json``."""
    if "json" in entry:
        return json.loads(entry["json"])
    return {"cards": entry["cards"]}


def round_case(entry: dict[str, Any]) -> Any:
    """The ``paigow.settle`` case of a ``[[settle.round]]`` (or ``[[invalid_config_case]]``) entry.

    Fields in the protocol's order; ``bank_seat`` absent means null; a field absent otherwise
    stays absent. A raw ``json`` case is used as is."""
    if "json" in entry:
        return json.loads(entry["json"])
    case: dict[str, Any] = {}
    if "dealer" in entry:
        case["dealer"] = entry["dealer"]
    case["bank_seat"] = entry.get("bank_seat")
    if "seats" in entry:
        case["seats"] = entry["seats"]
    return case


def _merge(*parts: Sequence[str]) -> tuple[str, ...]:
    """Concatenate id lists, keeping the first of any repeats."""
    return tuple(dict.fromkeys(x for part in parts for x in part))


def edge_hand_vector(entry: dict[str, Any], op: str, base_clauses: Sequence[str]) -> Vector:
    """The vector of one curated ``[[hand]]`` for one label op: flags ``player_flags`` /
    ``banker_flags``, else the shared ``flags``; clauses the op's base, the shared ``clauses`` and
    ``player_clauses`` / ``banker_clauses``; the banker op's comment ``banker_comment`` if given."""
    prefix = "player" if op == PLAYER_OP else "banker"
    flags = tuple(entry.get(f"{prefix}_flags", entry.get("flags", ())))
    if not flags:
        raise ValueError(f"{EDGE_DATA}: hand {entry.get('comment')!r} has no flags for {op}")
    clause_ids = _merge(base_clauses, entry.get("clauses", ()), entry.get(f"{prefix}_clauses", ()))
    comment = entry.get(f"{prefix}_comment", entry["comment"])
    return Vector(hand_case(entry), comment, flags, clause_ids)


def edge_groups(cap: int) -> Iterator[VectorGroup]:
    """The curated pai gow groups of the ``edge`` suite (the label ops sent ``{"cap": cap}``).

    Order: every curated hand to ``paigow.player_bonus``, then to ``paigow.banker_bonus``; the
    settlement groups of the data file (a group without its own cap uses ``cap``); then every
    malformed config with the cases of each op.
    """
    data = load_edge_data()
    base = {op: tuple(data["ops"][op]["clauses"]) for op in PAIGOW_OPS}
    for op in LABEL_OPS:
        yield VectorGroup(
            op, {"cap": cap},
            f"curated hands: every player category and banker label, the joker's roles, invalid hands ({op})",
            [edge_hand_vector(entry, op, base[op]) for entry in data["hand"]],
        )
    for group in data["settle"]:
        vectors = [
            Vector(round_case(r), r["comment"], tuple(r["flags"]), _merge(base[SETTLE_OP], r.get("clauses", [])))
            for r in group["round"]
        ]
        yield VectorGroup(SETTLE_OP, {"cap": group.get("cap", cap)}, group["comment"], vectors)
    for bad in data["invalid_config"]:
        for op in PAIGOW_OPS:
            vectors = [
                Vector(round_case(c) if op == SETTLE_OP else hand_case(c), c["comment"], ("InvalidConfig",),
                       _merge(base[op], ["njac.11.20.d"]))
                for c in data["invalid_config_case"] if c["op"] == op
            ]
            yield VectorGroup(op, dict(bad["config"]), f"malformed config: {bad['comment']}", vectors)


# =============================================================================================
# Suit shapes and the two-pass bucket sample.
# =============================================================================================

def _partitions(total: int, parts: int = 4, largest: int | None = None) -> list[tuple[int, ...]]:
    """Partitions of ``total`` into at most ``parts`` positive parts, largest part first."""
    largest = total if largest is None else largest
    if total == 0:
        return [()]
    if parts == 0:
        return []
    out = []
    for first in range(min(total, largest), 0, -1):
        out += [(first,) + rest for rest in _partitions(total - first, parts - 1, first)]
    return out


SHAPES: tuple[tuple[int, ...], ...] = tuple(_partitions(HAND_SIZE)) + tuple(_partitions(HAND_SIZE - 1))
"""Suit shapes: the suit counts of a hand's real cards, largest first; those of 6 real cards are
the joker hands'."""

_SUIT_WEIGHT = np.array([0 if c == JOKER else 8 ** (c % 4) for c in range(DECK_SIZE)], dtype=np.int64)
"""Each real card adds one to its suit's base-8 digit; a hand's sum encodes its 4 suit counts."""


def _shape_lut() -> np.ndarray:
    lut = np.full(8 ** 4, 255, dtype=np.uint8)
    for code in range(8 ** 4):
        counts = tuple(sorted((code // 8 ** s % 8 for s in range(4)), reverse=True))
        shape = tuple(n for n in counts if n)
        if shape in SHAPES:
            lut[code] = SHAPES.index(shape)
    return lut


_SHAPE_LUT = _shape_lut()
N_SHAPES = len(SHAPES)


def shape_name(shape: int) -> str:
    """``"4-2-1"``, or ``"3-2-1+JK"`` for a joker hand."""
    counts = SHAPES[shape]
    return "-".join(map(str, counts)) + ("+JK" if sum(counts) < HAND_SIZE else "")


@njit(cache=True)
def _shape_block(top: int, weight: np.ndarray, lut: np.ndarray, out: np.ndarray) -> None:
    """Suit-shape index of every hand whose highest card is ``top``, in colex order."""
    pos = 0
    w6 = weight[top]
    for c5 in range(5, top):
        w5 = w6 + weight[c5]
        for c4 in range(4, c5):
            w4 = w5 + weight[c4]
            for c3 in range(3, c4):
                w3 = w4 + weight[c3]
                for c2 in range(2, c3):
                    w2 = w3 + weight[c2]
                    for c1 in range(1, c2):
                        w1 = w2 + weight[c1]
                        for c0 in range(c1):
                            out[pos] = lut[w1 + weight[c0]]
                            pos += 1


def shapes_with_top(top: int) -> np.ndarray:
    """Suit-shape index (into SHAPES) of every hand whose highest card is ``top``, in colex order."""
    out = np.empty(block_size(top), dtype=np.uint8)
    _shape_block(top, _SUIT_WEIGHT, _SHAPE_LUT, out)
    return out


FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (("player", PLAYER_CATEGORIES), ("banker", BANKER_LABELS))
"""Bucket families: the player categories and the banker labels. A bucket key within a family is
``label * N_SHAPES + shape``."""

_N_KEYS = tuple(len(labels) * N_SHAPES for _, labels in FAMILIES)


@njit(cache=True)
def _count_keys(categories: np.ndarray, banker: np.ndarray, shapes: np.ndarray, n_shapes: int,
                counts_player: np.ndarray, counts_banker: np.ndarray) -> None:
    """Add the hands of one block to the per-key counts of both families."""
    for i in range(shapes.shape[0]):
        counts_player[categories[i] * n_shapes + shapes[i]] += 1
        counts_banker[banker[i] * n_shapes + shapes[i]] += 1


@njit(cache=True)
def _find_ranks(categories: np.ndarray, banker: np.ndarray, shapes: np.ndarray, n_shapes: int,
                targets_player: np.ndarray, targets_banker: np.ndarray,
                found_player: np.ndarray, found_banker: np.ndarray) -> None:
    """Index within the block of the hand of rank ``targets[key, j]`` among the block's hands of
    that key, for every target (targets ascending per key, padded with -1)."""
    seen_p = np.zeros(targets_player.shape[0], dtype=np.int64)
    next_p = np.zeros(targets_player.shape[0], dtype=np.int64)
    seen_b = np.zeros(targets_banker.shape[0], dtype=np.int64)
    next_b = np.zeros(targets_banker.shape[0], dtype=np.int64)
    width = targets_player.shape[1]
    for i in range(shapes.shape[0]):
        k = categories[i] * n_shapes + shapes[i]
        j = next_p[k]
        if j < width and targets_player[k, j] == seen_p[k]:
            found_player[k, j] = i
            next_p[k] = j + 1
        seen_p[k] += 1
        k = banker[i] * n_shapes + shapes[i]
        j = next_b[k]
        if j < width and targets_banker[k, j] == seen_b[k]:
            found_banker[k, j] = i
            next_b[k] = j + 1
        seen_b[k] += 1


@dataclass(frozen=True, order=True)
class SampledHand:
    """One drawn hand: its bucket and colex position (sorted in that order)."""

    family: int     # index into FAMILIES
    label: int      # index into that family's labels
    shape: int      # index into SHAPES
    position: int   # colex position of the hand

    @property
    def joker(self) -> bool:
        return sum(SHAPES[self.shape]) < HAND_SIZE

    def describe(self) -> str:
        name, labels = FAMILIES[self.family]
        return (f"sample: {name} {labels[self.label]}, {'with' if self.joker else 'no'} joker, "
                f"suits {shape_name(self.shape)}, colex position {self.position}")


def sample_hands(seed: int = DEFAULT_SEED, per_bucket: int = 3) -> list[SampledHand]:
    """Up to ``per_bucket`` hands of every non-empty (family, label, suit shape) bucket, each set
    drawn uniformly without replacement from every hand of its bucket; sorted."""
    if per_bucket < 1:
        raise ValueError(f"per_bucket must be at least 1, got {per_bucket}")
    tops = range(HAND_SIZE - 1, DECK_SIZE)
    counts = [np.zeros((len(tops), n), dtype=np.int64) for n in _N_KEYS]
    for i, top in enumerate(tops):
        categories, banker = label_hands_with_top(top)
        _count_keys(categories, banker, shapes_with_top(top), N_SHAPES, counts[0][i], counts[1][i])

    # Ranks within each bucket's whole population, then (block, rank within the block's hands of that key).
    rng = np.random.default_rng(seed)
    targets = [np.full((len(tops), n, per_bucket), -1, dtype=np.int64) for n in _N_KEYS]
    for f, n_keys in enumerate(_N_KEYS):
        for key in range(n_keys):
            per_block = counts[f][:, key]
            population = int(per_block.sum())
            if population == 0:
                continue
            ranks = np.sort(rng.choice(population, size=min(per_bucket, population), replace=False))
            ends = np.cumsum(per_block)
            for rank in ranks.tolist():
                i = int(np.searchsorted(ends, rank, side="right"))
                row = targets[f][i, key]
                row[int(np.argmax(row < 0))] = rank - int(ends[i] - per_block[i])

    picked: list[SampledHand] = []
    for i, top in enumerate(tops):
        if (targets[0][i] < 0).all() and (targets[1][i] < 0).all():
            continue
        categories, banker = label_hands_with_top(top)
        found = [np.full(t[i].shape, -1, dtype=np.int64) for t in targets]
        _find_ranks(categories, banker, shapes_with_top(top), N_SHAPES, targets[0][i], targets[1][i], *found)
        for f in range(len(FAMILIES)):
            for key, j in zip(*np.nonzero(targets[f][i] >= 0)):
                index = int(found[f][key, j])
                if index < 0:
                    raise AssertionError(f"block {top}: rank {targets[f][i][key, j]} of key {key} not found")
                label, shape = divmod(int(key), N_SHAPES)
                picked.append(SampledHand(f, label, shape, block_start(top) + index))
    return sorted(picked)


# =============================================================================================
# Flags and clauses of sampled hands.
# =============================================================================================

_JOKER_FLAG = {"five_aces": "FiveAces", "royal_flush": "JokerStraightFlush", "straight_flush": "JokerStraightFlush",
               "flush": "JokerFlush", "straight": "JokerStraight"}


def _player_flags(hand: SampledHand, cards: tuple[int, ...]) -> tuple[str, ...]:
    if hand.family != 0:
        return ("LabelSample", "OtherBonus")
    category = PLAYER_CATEGORIES[hand.label]
    if not hand.joker:
        long_flush = category == "flush" and SHAPES[hand.shape][0] >= 6
        return ("LabelSample", "LongFlush" if long_flush else "HandCategory")
    if category in _JOKER_FLAG:
        return ("LabelSample", _JOKER_FLAG[category])
    has_ace = any(c != JOKER and rank_of(c) == ACE for c in cards)
    return ("LabelSample", "JokerAsAce" if has_ace else "JokerNotWild")


def _banker_flags(hand: SampledHand) -> tuple[str, ...]:
    if hand.family != 1:
        return ("LabelSample", "OtherBonus")
    return ("LabelSample", "BankerHighCard") if BANKER_LABELS[hand.label] != "none" else ("LabelSample",)


def _player_clauses(hand: SampledHand) -> tuple[str, ...]:
    extra: tuple[str, ...] = ()
    if hand.joker:
        extra = ("INT-JOKER-ACE",)
        if hand.family == 0 and PLAYER_CATEGORIES[hand.label] == "royal_flush":
            extra += ("INT-ROYAL-JOKER",)
    return ("njac.11.19.c1", "njac.11.20.b") + extra


BANKER_CLAUSES = ("njac.11.19.c2", "njac.11.20.c", "INT-BANKER-HIGH")


def _shuffled_codes(cards: Sequence[int], rng: np.random.Generator) -> list[str]:
    """The card codes in a seeded random order (a hand may come in any order)."""
    return hand_codes([cards[i] for i in rng.permutation(len(cards)).tolist()])


# =============================================================================================
# The standard suite's sample.
# =============================================================================================

def sample_groups(cap: int, seed: int = DEFAULT_SEED, per_bucket: int = 3,
                  rounds_per_cap: int = 150) -> Iterator[VectorGroup]:
    """The ``standard`` suite's pai gow sample: the sampled hands sent to both label ops (config
    ``{"cap": cap}``), then ``rounds_per_cap`` seeded settlement rounds at ``cap`` and as many at
    :data:`SMALL_CAP`. Deterministic: the same arguments give the same groups in the same order.
    """
    hands = sample_hands(seed, per_bucket)
    rng = np.random.default_rng([seed, 1])
    cards = {h.position: colex_unrank(h.position) for h in hands}
    codes = {p: _shuffled_codes(c, rng) for p, c in sorted(cards.items())}
    for op in LABEL_OPS:
        for family, (name, _) in enumerate(FAMILIES):
            vectors = []
            for h in hands:
                if h.family != family:
                    continue
                if op == PLAYER_OP:
                    flags, clauses = _player_flags(h, cards[h.position]), _player_clauses(h)
                else:
                    flags, clauses = _banker_flags(h), BANKER_CLAUSES
                vectors.append(Vector({"cards": codes[h.position]}, h.describe(), flags, clauses))
            yield VectorGroup(op, {"cap": cap}, f"seeded sample (seed {seed}) of every {name} label and suit "
                              f"shape, with and without the joker, up to {per_bucket} hands each ({op})", vectors)
    for round_cap in (cap, SMALL_CAP):
        yield VectorGroup(SETTLE_OP, {"cap": round_cap},
                          f"seeded random rounds (seed {seed}), cap {round_cap}"
                          + (" (below the legal minimum, so that it binds)" if round_cap == SMALL_CAP else ""),
                          list(sample_rounds(hands, seed, round_cap, rounds_per_cap)))


def sample_rounds(hands: Sequence[SampledHand], seed: int, cap: int, count: int) -> Iterator[Vector]:
    """``count`` seeded settlement rounds of 2-5 seats: some hands drawn from the sample's paying
    buckets (so that bonuses and the cap come into play), the rest dealt from the deck left;
    about one round in four banked by a player."""
    rng = np.random.default_rng([seed, 2, cap])
    paying_player = [h.position for h in hands
                     if h.family == 0 and PLAYER_CATEGORIES[h.label] not in ("two_pair", "pair", "high_card")]
    paying_banker = [h.position for h in hands if h.family == 1 and BANKER_LABELS[h.label] != "none"]

    def deal(pool: list[int], dealt: set[int], from_pool: bool) -> tuple[int, ...]:
        if from_pool:
            candidate = colex_unrank(pool[int(rng.integers(len(pool)))])
            if not dealt.intersection(candidate):
                return candidate
        left = np.array(sorted(set(range(DECK_SIZE)) - dealt), dtype=np.int64)
        return tuple(sorted(rng.choice(left, size=HAND_SIZE, replace=False).tolist()))

    for n in range(count):
        dealt: set[int] = set()
        dealer = deal(paying_banker, dealt, int(rng.integers(3)) == 0)
        dealt.update(dealer)
        n_seats = int(rng.integers(2, 6))
        numbers = rng.choice(np.arange(1, 8), size=n_seats, replace=False).tolist()
        bank_index = int(rng.integers(n_seats)) if int(rng.integers(4)) == 0 else None
        seats = []
        for i, number in enumerate(numbers):
            if i == bank_index:
                hand = deal(paying_banker, dealt, int(rng.integers(2)) == 0)
            else:
                hand = deal(paying_player, dealt, int(rng.integers(3)) == 0)
            dealt.update(hand)
            wager = SAMPLE_WAGERS[int(rng.integers(len(SAMPLE_WAGERS)))]
            seats.append({"seat": int(number), "wager": wager, "cards": _shuffled_codes(hand, rng)})
        bank_seat = None if bank_index is None else int(numbers[bank_index])
        case = {"dealer": _shuffled_codes(dealer, rng), "bank_seat": bank_seat, "seats": seats}
        flags = ("OneWager", "CapAggregate") + (("BankSeat",) if bank_seat is not None else ())
        clauses = ("njac.11.19.c1", "njac.11.19.c2", "njac.11.20.a", "njac.11.20.b", "njac.11.20.c", "njac.11.20.d",
                   "INT-ONE-WAGER", "INT-CAP-AGGREGATE", "INT-BONUS-WAGER-RETURNED") + (
            ("INT-BANK-SEAT",) if bank_seat is not None else ())
        comment = (f"seeded round {n + 1} (seed {seed}, cap {cap}): {n_seats} seats"
                   + (f", seat {bank_seat} banks" if bank_seat is not None else ", the dealer banks"))
        yield Vector(case, comment, flags, clauses)

