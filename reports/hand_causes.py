"""A hand suite's wrong hands by cause, for the findings: read from the counts kept per cause and
short key-ordered reads of the wrong hands (the run store's reader; never all failures), so time and memory do not grow with
the number of wrong hands beyond one grouped scan.

A *cause* is one confusion cell (expected -> answered label of one op) narrowed to the most
specific hand feature its hands have (:mod:`tablecert.oracle.hand_features`), with the
interpretation entry and clause that decide such hands; each cause shows its :data:`EXAMPLES`
plainest hands (fewest and least special features, then lowest tcId), and each cell its plainest
hands over all its causes.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablecert.harness.answers.hand_failures import HAND_OPS, REPLAY_PER_GROUP, hand_codes, label_name
from tablecert.harness.model import RunMeta
from tablecert.harness.store import RunReader
from tablecert.oracle.hand_features import Feature, cause_feature, feature_ids

EXAMPLES = 3          # example hands shown per cause and per cell
CAUSES_SHOWN = 40     # causes listed in full (the rest counted)


@dataclass(frozen=True)
class HandExample:
    tc_id: int
    position: int            # in the canonical order of all hands
    cards: str
    features: list[str]
    simplicity: int


@dataclass(frozen=True)
class HandCause:
    op: str
    expected: str
    actual: str
    feature: Feature
    failed: int
    examples: list[HandExample]


@dataclass(frozen=True)
class HandCell:
    op: str
    expected: str
    actual: str
    failed: int
    causes: int
    examples: list[HandExample]


@dataclass(frozen=True)
class HandFindings:
    causes: list[HandCause]
    causes_more: int
    cells: list[HandCell]
    failed: int
    replay_per_group: int = REPLAY_PER_GROUP


def _example(first: int, simplicity: int, tc_id: int, mask: int) -> HandExample:
    position = first + tc_id - 1
    cards = " ".join(hand_codes(first, tc_id))
    return HandExample(tc_id, position, cards, feature_ids(mask), simplicity)


def hand_findings(db: RunReader, meta: RunMeta) -> HandFindings | None:
    """The causes and cells of a hand-suite run's wrong hands (None when it has none)."""
    groups = db.hand_causes()
    if not groups:
        return None
    first = int(meta.hand_first_position or 0)
    causes: list[HandCause] = []
    cells: dict[tuple[int, int, int], tuple[int, int, list[HandExample]]] = {}
    for g in sorted(groups, key=lambda g: (-g.n, g.op, g.cause, g.expected, g.actual)):
        op, expected, actual, cause, n = g.op, g.expected, g.actual, g.cause, g.n
        examples = [_example(first, h.simplicity, h.tc_id, h.features)
                    for h in db.plainest(op, expected, actual, cause, EXAMPLES)]
        names = (HAND_OPS[op], label_name(op, expected), label_name(op, actual))
        causes.append(HandCause(*names, cause_feature(cause), n, examples))
        total, count, pool = cells.get((op, expected, actual), (0, 0, []))
        cells[(op, expected, actual)] = (total + n, count + 1, pool + examples)
    shown = [HandCell(HAND_OPS[op], label_name(op, e), label_name(op, a), total, count,
                      sorted(pool, key=lambda x: (x.simplicity, x.tc_id))[:EXAMPLES])
             for (op, e, a), (total, count, pool) in sorted(cells.items(), key=lambda kv: (-kv[1][0], kv[0]))]
    return HandFindings(causes[:CAUSES_SHOWN], max(0, len(causes) - CAUSES_SHOWN), shown, sum(g.n for g in groups))
