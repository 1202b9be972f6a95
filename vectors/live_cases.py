"""The ``live`` suite: rounds played one step per request on a live table (op ``craps.table``).

* **Named scripts**: the ``rounds`` suite's named scripts, one per bug class of a table engine
  (:func:`tablecert.vectors.round_cases.named_scripts`), flagged ``LiveEveryStep``: the harness
  interrupts them at every step.
* **Seeded sessions**: long sessions at one table, :data:`SESSIONS` of them, each a player's random
  legal play (bets, odds taken, laid, raised and reduced, working calls, take-downs, rolls) drawn
  from a fixed seed with SHA-256 (the same bytes on every platform and Python), played until it
  has completed its number of games (3, 6 or 12 in turn: a recall of ten then holds only the
  last ten) or :data:`MAX_SESSION_STEPS` steps; flagged ``LiveSeeded``: the harness interrupts
  them at seeded points (``--interruptions N``).

The expected answer of a vector is the oracle's uninterrupted ``craps.round`` record of every
step; the harness derives every recall from it (:mod:`tablecert.oracle.live_tables`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from tablecert.oracle import craps
from tablecert.oracle.craps_round import DICE_OF_TOTAL, RoundConfig, Table, apply_step, parse_round_config
from tablecert.oracle.cards import DECK_SIZE, HAND_SIZE, card_code
from tablecert.oracle.live_tables import PAIGOW_OP, SUITE_OP, ends_game
from tablecert.vectors.craps_cases import commission_variant
from tablecert.vectors.model import Vector, VectorGroup
from tablecert.vectors.round_cases import CLAUSES, RACK_UNITS, default_house_rules, named_scripts

OP = SUITE_OP
SESSIONS = 24
PAIGOW_SESSIONS = 4
PAIGOW_ROUNDS = 12
PAIGOW_SEATS = (1, 2, 3, 4)
GAMES = (3, 6, 12)
MAX_SESSION_STEPS = 200
SEED = b"tablecert live suite 1"


class Draw:
    """Deterministic choices from SHA-256 of a seed and a counter."""

    def __init__(self, seed: bytes) -> None:
        self.seed, self.n = seed, 0

    def below(self, n: int) -> int:
        self.n += 1
        digest = hashlib.sha256(self.seed + self.n.to_bytes(8, "big")).digest()
        return int.from_bytes(digest[:8], "big") % n

    def pick(self, items: list[Any]) -> Any:
        return items[self.below(len(items))]


def player_moves(t: Table, draw: Draw) -> list[dict[str, Any]]:
    """The legal player moves on ``t`` now (and one refused now and then)."""
    u, f = t.cfg.unit, (1 + draw.below(5)) * t.cfg.unit
    moves: list[dict[str, Any]] = []
    for kind in (("pass", "dont_pass") if t.point is None else ("come", "dont_come")):
        if kind not in t.bets:
            moves.append({"act": "bet", "bet": kind, "amount": f})
    for bet in t.bets.values():
        kind, flat, point = t.odds_basis(bet)
        if point is not None:
            free, most = craps.limits(t.cfg, kind, flat, point)
            amount = draw.pick([free, most, max(u, (most // u // 2) * u), 0 if bet.odds else free])
            moves.append({"act": "odds", "bet": bet.bet_id, "amount": amount})
        if bet.odds:
            moves.append({"act": "working", "bet": bet.bet_id, "working": bool(draw.below(2))})
        if not draw.below(3 if t.removable(bet) else 8):
            moves.append({"act": "take_down", "bet": bet.bet_id})
    return moves


def session(config: RoundConfig, games: int, draw: Draw) -> dict[str, Any]:
    """One seeded session: play until ``games`` games are completed (or the step cap)."""
    rack = RACK_UNITS * config.table.unit
    t = Table(config, rack)
    steps: list[dict[str, Any]] = []
    done = 0
    while done < games and len(steps) < MAX_SESSION_STEPS:
        moves = player_moves(t, draw)
        if moves and draw.below(5) < 3:
            step = draw.pick(moves)
        else:
            dice = DICE_OF_TOTAL[2 + draw.below(11)] if draw.below(2) else [1 + draw.below(6), 1 + draw.below(6)]
            step = {"act": "roll", "dice": list(dice)}
        record = apply_step(t, step)
        steps.append(step)
        done += ends_game(step, record)
    return {"rack": rack, "steps": steps}


def live_groups(table: dict[str, Any]) -> Iterator[VectorGroup]:
    """The live suite's groups on one craps table (a protocol table config)."""
    charged = dict(commission_variant(table), house_rules=default_house_rules())
    config = parse_round_config(charged)
    yield VectorGroup(OP, charged, "the rounds suite's named scripts, interrupted at every step",
                      [Vector(case, comment, (flag, "LiveEveryStep"), CLAUSES)
                       for flag, comment, case in named_scripts(config)])
    draw = Draw(SEED)
    yield VectorGroup(OP, charged, f"{SESSIONS} seeded sessions of {', '.join(map(str, GAMES))} games in turn, "
                      "interrupted at seeded points",
                      [Vector(session(config, GAMES[i % len(GAMES)], draw),
                              f"seeded session {i + 1}: {GAMES[i % len(GAMES)]} games", ("LiveSeeded",), CLAUSES)
                       for i in range(SESSIONS)])


def _deal(draw: Draw, bank_seat: int | None) -> dict[str, Any]:
    """A seeded deal: a shuffled deck (the joker in it), the dealer's hand and each seat's."""
    deck = list(range(DECK_SIZE))
    for i in range(len(deck) - 1, 0, -1):
        j = draw.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    hands = [[card_code(c) for c in deck[k * HAND_SIZE:(k + 1) * HAND_SIZE]] for k in range(1 + len(PAIGOW_SEATS))]
    return {"act": "deal", "dealer": hands[0], "bank_seat": bank_seat,
            "seats": [{"seat": seat, "wager": (1 + draw.below(5)) * 100, "cards": hand}
                      for seat, hand in zip(PAIGOW_SEATS, hands[1:])]}


def paigow_session(draw: Draw, banks: list[int | None]) -> dict[str, Any]:
    """Rounds dealt and settled one after another, banked in turn by ``banks`` (None: the dealer)."""
    steps = [step for bank in banks for step in (_deal(draw, bank), {"act": "settle"})]
    return {"rack": 1_000_000, "steps": steps}


def paigow_groups(cap: int) -> Iterator[VectorGroup]:
    """The live suite's pai gow groups: the bank passing to a player and back, interrupted at every
    step (with a settle before any deal and a second deal refused), and seeded sessions."""
    config = {"cap": cap}
    draw = Draw(SEED + b" paigow")
    named = paigow_session(draw, [None, 2, None, 3])
    third = named["steps"][4]                   # seat 4 sits the third round out: seats' games played differ
    named["steps"][4] = dict(third, seats=third["seats"][:3])
    named["steps"] = [{"act": "settle"}, *named["steps"][:1], named["steps"][2], *named["steps"][1:]]
    yield VectorGroup(PAIGOW_OP, config, "pai gow rounds at a live table, the bank passing, interrupted at every step",
                      [Vector(named, "four rounds: the dealer banks, then seat 2, the dealer (seat 4 sitting out), "
                              "seat 3; a settle before any deal and a second deal before the settle are refused",
                              ("LivePaigow", "LiveEveryStep"),
                              ("INT-BONUS-WAGER-RETURNED",))])
    yield VectorGroup(PAIGOW_OP, config, f"{PAIGOW_SESSIONS} seeded pai gow sessions of {PAIGOW_ROUNDS} rounds",
                      [Vector(paigow_session(draw, [draw.pick([None, None, *PAIGOW_SEATS]) for _ in range(PAIGOW_ROUNDS)]),
                              f"seeded pai gow session {i + 1}", ("LivePaigow", "LiveSeeded"), ("INT-BONUS-WAGER-RETURNED",))
                       for i in range(PAIGOW_SESSIONS)])
