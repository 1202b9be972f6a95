"""What a set of round vectors reaches, read off the oracle's play of each case: the transitions of
the table, the boundaries of every change of a bet, and the refusal pairs (issue #38 item 4).

:func:`reached` replays a case on the oracle's table and names, for every step:

* **transition** ``("transition", act, ...)``: a flat bet by kind and whether its spot holds one
  (a press, or ``bet_exists``); an odds change by side (right,
  wrong) and change (take, raise, reduce, remove, none, negative, no bet); a call by side, value
  and whether the point is on; a take-down by kind, point and odds; each bet a roll settles by
  kind, come-out or point, outcome and what became of each stake; each with the step's outcome
  (``accepted`` or its refusal code);
* **boundary** ``("boundary", ...)``: for odds behind a bet with a point, where the old and the new
  amount stand against the free odds and the maximum (:func:`zone`) and whether they work; for a
  raise, the rack against its cost (exactly enough, one minor unit short, enough for the
  difference but not for the whole odds); amounts of 0 and below, for each act;
* **refusal pair** ``("pair", act, first, second)``: a step refused for exactly two reasons
  (:func:`tablecert.oracle.round_refusals.reasons`).

``standard``'s round part is chosen to reach all that ``rounds`` reaches. What ``rounds`` reaches is
kept in ``vectors/golden/rounds.coverage.json`` with the sha256 of the golden ``rounds`` manifest it
was computed from (``benchmarks/bench_round_coverage.py --write-golden`` replays all of ``rounds``
and writes it; ``--check`` compares): ``rounds`` is pinned by that manifest, so its coverage can only
change with it, and tests/test_round_edges.py replays only ``standard``'s part against the file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from importlib import resources
from typing import Any

from tablecert.oracle import craps
from tablecert.oracle.craps_round import Bet, RoundConfig, Table, apply_step, parse_round_config
from tablecert.oracle.round_refusals import odds_price, reasons
from tablecert.vectors.model import VectorGroup

Item = tuple[Any, ...]


def zone(amount: int, free: int, top: int) -> str:
    """Where an odds amount stands against the bet's free odds and maximum."""
    if amount < 0:
        return "negative"
    if amount == 0:
        return "none"
    if amount > top:
        return "above the maximum"
    if amount == top:
        return "at the free odds and the maximum" if top == free else "at the maximum"
    if amount == free:
        return "at the free odds"
    return "within the free odds" if amount < free else "above the free odds"


def _side(kind: str) -> str:
    return "wrong" if craps.is_dont(kind) else "right"


def _change(bet: Bet | None, amount: int) -> str:
    if bet is None:
        return "no bet"
    if amount < 0:
        return "negative"
    if amount == bet.odds:
        return "none" if amount == 0 else "same"
    if bet.odds == 0:
        return "take"
    return "remove" if amount == 0 else "raise" if amount > bet.odds else "reduce"


def _odds_items(t: Table, step: dict[str, Any]) -> list[Item]:
    bet_id, amount = step["bet"], step["amount"]
    bet = t.bets.get(bet_id)
    items: list[Item] = [("transition", "odds", _side(bet.kind) if bet else "-", _change(bet, amount))]
    if bet is None or t.own_point(bet) is None:
        return items
    free, top, commission = odds_price(t, bet, amount)
    working = t.working(bet, t.point is None)
    items.append(("boundary", "odds", _side(bet.kind), zone(bet.odds, free, top), zone(amount, free, top),
                  "working" if working else "off"))
    if amount > bet.odds:
        cost = amount - bet.odds + commission - bet.commission
        if cost == t.rack:
            items.append(("boundary", "funds", "exactly enough for the raise"))
        elif cost == t.rack + 1:
            items.append(("boundary", "funds", "one minor unit short of the raise"))
        if cost <= t.rack < amount + commission:
            items.append(("boundary", "funds", "enough for the difference, not for the whole odds"))
    return items


def _items_before(t: Table, step: dict[str, Any]) -> list[Item]:
    """What ``step`` reaches on ``t`` (the table before it), each item still to be completed with
    the step's outcome."""
    act = step["act"]
    items: list[Item] = []
    if isinstance(step.get("amount"), int) and step["amount"] <= 0:
        items.append(("boundary", "amount", act, "zero" if step["amount"] == 0 else "negative"))
    if act == "bet":       # onto a spot that holds a bet: a press (INT-PRESS-UNSET) or bet_exists
        items.append(("transition", "bet", step["bet"], "onto a bet" if step["bet"] in t.bets else "empty spot"))
    elif act == "odds":
        items += _odds_items(t, step)
    elif act == "working":
        bet = t.bets.get(step["bet"])
        items.append(("transition", "working", _side(bet.kind) if bet else "-", step["working"],
                      "point on" if t.point is not None else "come-out"))
    elif act == "take_down":
        bet = t.bets.get(step["bet"])
        items.append(("transition", "take_down", bet.kind if bet else "-",
                      "-" if bet is None else "point" if t.own_point(bet) is not None else "no point",
                      "odds" if bet is not None and bet.odds else "no odds"))
    else:
        items.append(("transition", "roll", "come-out" if t.point is None else "point on"))
    return items


def _kind(bet_id: str) -> str:
    return bet_id.rstrip("0123456789")


def reached(config: RoundConfig, case: dict[str, Any]) -> set[Item]:
    """Every transition, boundary and refusal pair the oracle's play of ``case`` reaches."""
    t = Table(config, case["rack"])
    items: set[Item] = set()
    for step in case["steps"]:
        found = reasons(t, step)
        if len(found) == 2:
            items.add(("pair", step["act"], *found))
        before, come_out = _items_before(t, step), "come-out" if t.point is None else "point on"
        record = apply_step(t, step)
        outcome = "accepted" if record["accepted"] else record["error"]
        items.update((*item, outcome) for item in before)
        for event in record["events"] if step["act"] == "roll" else ():
            items.add(("transition", "settle", _kind(event["bet"]), come_out, event["outcome"], event["flat_stake"],
                       event["odds_stake"], bool(event["commission_taken"]), bool(event["commission_returned"])))
    return items


def reached_by(groups: Iterable[VectorGroup]) -> set[Item]:
    """What the cases of round ``groups`` reach (malformed cases and configs, flagged InvalidInput
    and InvalidConfig, reach no step)."""
    items: set[Item] = set()
    for group in groups:
        vectors = [v for v in group.vectors if not {"InvalidInput", "InvalidConfig"} & set(v.flags)]
        if vectors:
            config = parse_round_config(group.config)
            for vector in vectors:
                items |= reached(config, vector.case)
    return items


GOLDEN = resources.files("tablecert.vectors").joinpath("golden")
COVERAGE_FILE = "rounds.coverage.json"


def _tupled(value: Any) -> Any:
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value


def golden_rounds_digest() -> str:
    """sha256 of the golden ``rounds`` manifest (vectors/golden/rounds.manifest.json)."""
    return hashlib.sha256(GOLDEN.joinpath("rounds.manifest.json").read_bytes()).hexdigest()


def stored_rounds_coverage() -> tuple[str, set[Item]]:
    """(the rounds manifest's sha256 it was computed from, the items) of the stored coverage."""
    data = json.loads(GOLDEN.joinpath(COVERAGE_FILE).read_text())
    return data["rounds_manifest_sha256"], {_tupled(item) for item in data["items"]}


def coverage_bytes(items: set[Item], digest: str) -> bytes:
    """The stored coverage's bytes: deterministic (items sorted by their JSON text)."""
    lines = sorted(json.dumps(list(item) if isinstance(item, tuple) else item) for item in items)
    return ('{"rounds_manifest_sha256": "%s",\n "items": [\n  %s\n]}\n' % (digest, ",\n  ".join(lines))).encode()
