"""Whole tables and bets a vendor refused, as one cause each rather than spread over payout flags.

When a vendor answers every vector of a table (a config) that expected a result with an error
(``invalid_config``, say: a table it does not offer but declared it does), or every such vector of
a craps bet, the findings report it once: a *table refused* or *bet refused* class with the table
(or bet), the ops and the number of vectors. Those failures are then taken out of the flag classes
(their flag and op-flag counts, and the exemplars chosen), where they would bury the vendor's real
bugs under thousands of "PayoutRatio" failures.

The runner counts, per table and per bet, the answers where a result was expected that were an
error (``refused``) and those that were not (``answered``): counts dimensions ``table`` and ``bet``
(:data:`tablecert.harness.answers.compare.REFUSAL_OPS`). A table or bet with refusals and no other answer was
refused as a whole. A table's refusals are its class; a bet's are those not already in a refused
table's class. Vectors outside the vendor's declared capabilities were never judged, so a refusal
here is of something the vendor said it offers.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from tablecert.harness.store import Refused, RunReader


@dataclass(frozen=True)
class Refusal:
    """One table or bet the vendor refused as a whole."""

    kind: str                    # table | bet
    what: str                    # the config's compact JSON, or the bet's name
    game: str                    # craps | paigow
    vectors: int                 # failures in this class (answered with an error)
    ops: list[tuple[str, int]]   # op -> failures
    codes: list[tuple[str, int]]  # error code answered -> failures
    first: tuple[str, int]       # (vector file, tcId) of the first failure


@dataclass
class RefusalStep:
    """The refusal classes of a run, and the flag and op-flag failure counts they take away."""

    classes: list[Refusal]
    flag_fails: Counter[str]
    op_flag_fails: Counter[str]
    refused: Refused = field(default_factory=Refused)   # the failures in a refusal class (the store picks them)


def _refused(db: RunReader, dimension: str) -> list[str]:
    totals = db.totals(dimension)
    return sorted(k for k, c in totals.items() if c.get("refused") and not c.get("answered"))


def refusals(db: RunReader) -> RefusalStep:
    """The tables and bets refused as a whole in the run (see the module)."""
    tables = [tuple(key.split(" ", 1)) for key in _refused(db, "table")]
    bets = _refused(db, "bet")
    step = RefusalStep([], Counter(), Counter())
    if not tables and not bets:
        return step
    step.refused = Refused(tuple((game, config) for game, config in tables), tuple(bets))
    groups = [("table", f"{game} {config}", db.refused_answers(game, config, None)) for game, config in tables]
    groups += [("bet", bet, db.refused_answers(None, None, bet, besides=step.refused)) for bet in bets]
    for kind, key, answers in groups:
        ops: Counter[str] = Counter()
        codes: Counter[str] = Counter()
        first = None
        for a in answers:
            first = first or (a.file, a.tc_id)
            ops[a.op] += 1
            codes[str(a.code)[:64]] += 1
            for flag in json.loads(a.flags):
                step.flag_fails[flag] += 1
                step.op_flag_fails[f"{a.op} {flag}"] += 1
        if first is None:
            continue
        game, _, what = key.partition(" ") if kind == "table" else ("craps", "", key)
        step.classes.append(Refusal(kind, what, game, sum(ops.values()), ops.most_common(), codes.most_common(),
                                    first))
    step.classes.sort(key=lambda r: (-r.vectors, r.kind, r.what))
    return step
