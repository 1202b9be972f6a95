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
import sqlite3
from collections import Counter
from dataclasses import dataclass

REFUSED_ANSWER = "json_valid(actual) AND json_type(actual, '$.error') = 'object'"
"""A failure answered with an error object (whatever was expected): on a table or bet refused as
a whole, every such failure belongs to its refusal class."""


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
    condition: str               # SQL over ``failures``: true for a failure in a refusal class
    params: list[str]


def _refused(db: sqlite3.Connection, dimension: str) -> list[str]:
    totals: dict[str, dict[str, int]] = {}
    for key, outcome, n in db.execute("SELECT key, outcome, n FROM counts WHERE dimension = ?", (dimension,)):
        totals.setdefault(key, {})[outcome] = n
    return sorted(k for k, c in totals.items() if c.get("refused") and not c.get("answered"))


def refusals(db: sqlite3.Connection) -> RefusalStep:
    """The tables and bets refused as a whole in the run database ``db`` (see the module)."""
    tables = [key.split(" ", 1) for key in _refused(db, "table")]
    bets = _refused(db, "bet")
    step = RefusalStep([], Counter(), Counter(), "0", [])
    if not tables and not bets:
        return step
    table_sql = " OR ".join(["(substr(op, 1, length(?)) = ? AND config = ?)"] * len(tables)) or "0"
    table_params = [p for game, config in tables for p in (game + ".", game + ".", config)]
    bet_sql = (f"(substr(op, 1, 6) = 'craps.' AND json_valid(\"case\") AND json_extract(\"case\", '$.bet') IN "
               f"({', '.join('?' * len(bets))}))") if bets else "0"
    step.condition = f"({REFUSED_ANSWER} AND (({table_sql}) OR {bet_sql}))"
    step.params = table_params + bets
    groups = [("table", f"{game} {config}", f"({table_sql.split(' OR ')[0]})", [game + ".", game + ".", config])
              for game, config in tables]
    groups += [("bet", bet, f"(substr(op, 1, 6) = 'craps.' AND json_valid(\"case\") AND "
                            f"json_extract(\"case\", '$.bet') = ? AND NOT ({table_sql}))", [bet] + table_params)
               for bet in bets]
    for kind, key, where, params in groups:
        ops: Counter[str] = Counter()
        codes: Counter[str] = Counter()
        first = None
        for op, file, tc_id, flags, code in db.execute(
                f"SELECT op, file, tc_id, flags, json_extract(actual, '$.error.code') FROM failures "
                f"WHERE {REFUSED_ANSWER} AND {where} ORDER BY file, op, tc_id", params):
            first = first or (file, tc_id)
            ops[op] += 1
            codes[str(code)[:64]] += 1
            for flag in json.loads(flags):
                step.flag_fails[flag] += 1
                step.op_flag_fails[f"{op} {flag}"] += 1
        if first is None:
            continue
        game, _, what = key.partition(" ") if kind == "table" else ("craps", "", key)
        step.classes.append(Refusal(kind, what, game, sum(ops.values()), ops.most_common(), codes.most_common(),
                                    first))
    step.classes.sort(key=lambda r: (-r.vectors, r.kind, r.what))
    return step
