"""Declared capabilities: what a vendor's game offers, and which vectors that puts out of scope.

In ``hello`` a vendor may declare ``capabilities`` (**New in tablecert-vendor/2**; shape in
``harness/capabilities.schema.json``, beside the contract): the craps bets it offers and the table features
it supports (commission, commission and payout roundings, bar numbers, units, fractional odds
multiples), and for pai gow whether a player may bank. An absent declaration, or an absent key of
it, offers everything, as before.

Every feature is a decidable test on one vector (op, table config, case), named by a *feature id*:

==============================  ==============================================================
``bet:pass`` ... ``bet:dont_come``  a craps case whose ``bet`` is that bet of the contract
``commission``                  a craps table whose ``commission_rate`` is not 0
``commission_rounding=X``       a craps table whose ``commission_rounding`` is X
``payout_rounding=X``           a craps table whose ``payout_rounding`` is X
``bar=N``                       a craps table whose ``bar`` is N
``unit=N``                      a craps table whose ``unit`` is N
``odds=fractional``             a craps table with a free or maximum odds multiple not whole
``player_banked``               a ``paigow.settle`` case whose ``bank_seat`` is not null
==============================  ==============================================================

A ``craps.round`` vector of a well-formed round table also carries its house rules
(``house_rule:bar_push=stays``, ``house_rule:take_down_dont=true``, one per rule of
``oracle/craps_round.py``'s HOUSE_RULES, **new with craps.round**). **New:** they are table
features like the others: ``craps.house_rules`` declares, for each rule, the values the table
offers (an absent rule, or an absent declaration, offers all of them; *since 1.1* a rule of
``OPT_IN_RULES``, ``press_unset``, not named offers its default only: :func:`opt_in_setting`), and a
round whose table uses a value not offered is outside (after the table features, in HOUSE_RULES'
order). An opt-in rule's other value that the vendor does not offer narrows no certificate (the
table plays the reading every earlier release judged): it is left out of the features not
certified, though ``round_play`` still lists it among the settings ``not_certified``. A run's
scope lists the settings its judged rounds covered and those it did not (``round_play``, see
:func:`tablecert.harness.answers.round_findings.round_scope`); only the latter appear among the
features (not certified), and ``--require house_rule:bar_push=stays`` requires one.

A vector is *outside* the declaration when it carries a feature the vendor does not offer; its
reason is the first such feature (table features first, in the config's field order). Never
outside: a vector of a malformed table (no table features: a vendor must refuse garbage), a case
the contract refuses before it looks at the feature (``invalid_request``, ``invalid_config``; for
``player_banked`` also ``invalid_hand``), and an ``invalid_bet`` case naming a bet outside the
contract (it carries no bet feature). A well-formed table the vendor does not offer is refused as
a whole before any case check (``invalid_config`` for every case), so every vector of it is
outside, whatever its own expected answer.

The runner (one place, its batch path) marks each batch with :func:`mark_batch`; the judge counts
every vector's features (counts dimension ``feature``) and, for a vector outside, the feature that
put it there (``unsupported_feature``, outcome ``unsupported``). :func:`feature_scope` turns those
counts and the run's meta into the certified and uncertified features of ``summary.json``'s scope.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources
from itertools import repeat
from typing import TYPE_CHECKING, Any

import fastjsonschema

from tablecert.harness.answers.alike_rounds import alike_rounds, sent_table
from tablecert.harness.model import Outcome, RunMeta, sent
from tablecert.oracle.craps_round import HOUSE_RULES, OPT_IN_RULES, parse_round_config
from tablecert.oracle.errors import ConfigError
from tablecert.oracle.table_config import BARS, BETS, COMMISSION_ROUNDINGS, PAYOUT_ROUNDINGS, parse_table_config

if TYPE_CHECKING:
    from tablecert.harness.model import Batch

SCHEMA_FILE = "capabilities.schema.json"
FEATURE_DIMENSION = "feature"                 # counts: every vector's features, by outcome
UNSUPPORTED_DIMENSION = "unsupported_feature"  # counts: the feature that put a vector outside
HOUSE_RULE = "house_rule:"                     # a round table's house rule (not a capability)
BEFORE_BET = frozenset({"invalid_request", "invalid_config"})
BEFORE_BANK_SEAT = frozenset({"invalid_request", "invalid_config", "invalid_hand"})


class CapabilityError(ValueError):
    """A declaration that does not follow the schema (one line naming the field)."""


@cache
def _validator() -> Any:
    text = resources.files("tablecert.harness").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return fastjsonschema.compile(json.loads(text))


def check_declaration(hello_answer: Mapping[str, Any]) -> None:
    """CapabilityError naming the field if ``hello_answer`` holds a ``capabilities`` declaration
    that does not follow the schema (an absent one is fine: everything offered)."""
    if "capabilities" not in hello_answer:
        return

    try:
        _validator()(hello_answer["capabilities"])
    except fastjsonschema.JsonSchemaValueException as err:
        where = err.name.replace("data", "capabilities", 1) if err.name else "capabilities"
        raise CapabilityError(f"hello 'capabilities' malformed at {where}: {err.message[:200]}") from None


@dataclass(frozen=True)
class Capabilities:
    """A parsed declaration; ``None`` for a field means everything of it is offered."""

    bets: frozenset[str] | None = None
    commission: bool = True
    commission_rounding: frozenset[str] | None = None
    payout_rounding: frozenset[str] | None = None
    bar: frozenset[int] | None = None
    units: frozenset[int] | None = None
    fractional_odds: bool = True
    player_banked: bool = True
    house_rules: frozenset[str] | None = None
    """The ``house_rule:`` feature ids offered of the rules the declaration names (None: it names none)."""
    restricted_rules: frozenset[str] = frozenset()
    """The house rules the declaration names (every value of any other rule is offered)."""

    @classmethod
    def from_declaration(cls, declared: Mapping[str, Any] | None) -> Capabilities:
        """The capabilities of a (schema-valid) declaration; ``None``: everything."""
        craps = (declared or {}).get("craps") or {}
        paigow = (declared or {}).get("paigow") or {}

        def chosen(key: str) -> frozenset[Any] | None:
            value = craps.get(key)
            return None if value is None or value == "any" else frozenset(value)

        house = craps.get("house_rules") or {}
        offered = frozenset(house_rule_feature(name, v) for name, values in house.items() for v in values)
        return cls(chosen("bets"), craps.get("commission", True), chosen("commission_rounding"),
                   chosen("payout_rounding"), chosen("bar"), chosen("units"), craps.get("odds", "any") == "any",
                   paigow.get("player_banked", True), offered if house else None, frozenset(house))

    @property
    def everything(self) -> bool:
        return self == Capabilities()

    def offers(self, feature: str) -> bool:
        """Whether the declaration offers a feature id (see the module docstring)."""
        name, _, value = feature.partition("=")
        if feature.startswith("bet:"):
            return self.bets is None or feature[4:] in self.bets
        if feature == "commission":
            return self.commission
        if feature == "odds=fractional":
            return self.fractional_odds
        if feature == "player_banked":
            return self.player_banked
        if feature.startswith(HOUSE_RULE):
            if name.removeprefix(HOUSE_RULE) in self.restricted_rules:
                return self.house_rules is not None and feature in self.house_rules
            return not opt_in_setting(feature)
        allowed: frozenset[Any] | None = {"commission_rounding": self.commission_rounding,
                                          "payout_rounding": self.payout_rounding}.get(name)
        if name in ("commission_rounding", "payout_rounding"):
            return allowed is None or value in allowed
        if name in ("bar", "unit"):
            allowed = self.bar if name == "bar" else self.units
            return allowed is None or int(value) in allowed
        return True


def is_feature(feature: str) -> bool:
    """Whether ``feature`` is a feature id of the module docstring's table."""
    name, eq, value = feature.partition("=")
    if feature.startswith("bet:"):
        return feature[4:] in BETS
    if feature.startswith(HOUSE_RULE):
        rule = HOUSE_RULES.get(name.removeprefix(HOUSE_RULE))
        return rule is not None and feature in {house_rule_feature(name.removeprefix(HOUSE_RULE), v) for v in rule[0]}
    if not eq:
        return feature in ("commission", "player_banked")
    if name == "commission_rounding":
        return value in COMMISSION_ROUNDINGS
    if name == "payout_rounding":
        return value in PAYOUT_ROUNDINGS
    if name == "bar":
        return value in {str(b) for b in BARS}
    if name == "unit":
        return value.isascii() and value.isdigit() and not value.startswith("0")
    return feature == "odds=fractional"


def table_features(op: str, config: Any) -> tuple[str, ...]:
    """The table features a craps request's config uses; none for a malformed config or another op."""
    if not op.startswith("craps."):
        return ()
    house: tuple[str, ...] = ()
    if op == "craps.round" and isinstance(config, dict):    # the craps table config plus its house rules
        house = house_rule_features(config)
        config = {k: v for k, v in config.items() if k != "house_rules"}
    try:
        table = parse_table_config(config)
    except ConfigError:
        return ()
    fractional = any(Fraction(m).denominator != 1 for m in (*table.free_odds.values(), *table.max_odds.values()))
    return (f"unit={table.unit}", *(("odds=fractional",) if fractional else ()),
            *(("commission",) if table.commission_rate else ()), f"commission_rounding={table.commission_rounding}",
            f"payout_rounding={table.payout_rounding}", f"bar={table.bar}", *house)


def house_rule_features(config: dict[str, Any]) -> tuple[str, ...]:
    """The house rules of a round table as features (``house_rule:NAME=VALUE``, booleans written
    ``true`` and ``false``); none for a malformed round config."""
    try:
        house = parse_round_config(config).house
    except ConfigError:
        return ()
    return tuple(house_rule_feature(name, value) for name, value in house.items())


def house_rule_feature(name: str, value: Any) -> str:
    """The feature id of one house rule's setting."""
    return f"{HOUSE_RULE}{name}={json.dumps(value) if isinstance(value, bool) else value}"


def opt_in_setting(feature: str) -> bool:
    """Whether ``feature`` is an opt-in house rule (*since 1.1*, ``OPT_IN_RULES``) at a value other
    than its default: offered only by a vendor that names it in its declared house rules."""
    name = feature.partition("=")[0].removeprefix(HOUSE_RULE)
    return (feature.startswith(HOUSE_RULE) and name in OPT_IN_RULES
            and feature != house_rule_feature(name, HOUSE_RULES[name][1]))


def _code(expected: Mapping[str, Any]) -> str | None:
    error = expected.get("error")
    return error if isinstance(error, str) else None


def case_features(op: str, case: Any, expected: Mapping[str, Any]) -> tuple[str, ...]:
    """The case features of one vector (its craps bet, a pai gow round a player banks), unless the
    contract refuses the case before it looks at that feature (see the module docstring)."""
    if not isinstance(case, dict):
        return ()
    if op.startswith("craps."):
        bet = case.get("bet")
        return (f"bet:{bet}",) if isinstance(bet, str) and bet in BETS and _code(expected) not in BEFORE_BET else ()
    if op == "paigow.settle" and case.get("bank_seat") is not None and _code(expected) not in BEFORE_BANK_SEAT:
        return ("player_banked",)
    return ()


def vector_features(op: str, config: Any, cases: Sequence[Any], expected: Sequence[Any]) -> list[tuple[str, ...]]:
    """The features of each vector of a batch: its table's, then its case's (:func:`case_features`).
    A case's features depend only on one field of it (``bet``; ``bank_seat``) and on its expected
    ``error``: when every case and expected value is a plain object with hashable such fields,
    they are worked out once per distinct pair, or per distinct field when no expected error is one
    that hides the feature (equal vectors then share one tuple)."""
    table = table_features(op, config)
    field = "bet" if op.startswith("craps.") else "bank_seat" if op == "paigow.settle" else None
    try:
        if field is None or set(map(type, cases)) - {dict} or set(map(type, expected)) - {dict}:
            raise TypeError("cases of other shapes")
        codes = list(map(dict.get, expected, repeat("error")))
        if (BEFORE_BET if field == "bet" else BEFORE_BANK_SEAT).isdisjoint(codes):     # no code that matters
            values = list(map(dict.get, cases, repeat(field)))
            by_value = {v: table + case_features(op, {field: v}, {}) for v in dict.fromkeys(values)}
            return list(map(by_value.__getitem__, values))
        keys = list(zip(map(dict.get, cases, repeat(field)), codes))
        memo = {k: table + case_features(op, {field: k[0]}, {"error": k[1]}) for k in dict.fromkeys(keys)}
    except TypeError:       # another op, a case that is not an object, an unhashable field
        return [table + case_features(op, case, e) for case, e in zip(cases, expected)]
    return list(map(memo.__getitem__, keys))


def mark_batch(batch: Any, capabilities: Capabilities) -> None:
    """Set ``batch.features`` (tcId -> features) and ``batch.outside`` (tcId -> the feature that puts
    the vector outside the declaration) for the judge."""
    features = vector_features(batch.op, batch.config, batch.cases, batch.expected)
    batch.features, batch.outside = dict(zip(batch.tc_ids, features)), {}
    if capabilities.everything and batch.op != "craps.round":       # a round may carry an opt-in rule
        return
    offered = {f: capabilities.offers(f) for carried in set(features) for f in carried}
    if all(offered.values()):
        return
    sent_alike = (_send_alike(batch, capabilities) if batch.op == "craps.round"
                  and all(ok or f.startswith(HOUSE_RULE) for f, ok in offered.items()) else frozenset())
    for tc_id, carried in zip(batch.tc_ids, features):
        if tc_id in sent_alike:          # judged on the table sent
            continue
        for f in carried:
            if not offered[f]:
                batch.outside[tc_id] = f
                break


def _send_alike(batch: Any, capabilities: Capabilities) -> frozenset[int]:
    """A round batch on a table using house-rule values the vendor does not offer, of rules it
    names: sent on the table with those rules at values it offers, its rounds that play alike on
    both judged there with that table's features (:mod:`tablecert.harness.answers.alike_rounds`);
    their tcIds (none: the batch is left as it was)."""
    def offers(name: str, value: Any) -> bool | None:
        return capabilities.offers(house_rule_feature(name, value)) if name in capabilities.restricted_rules else None

    found = sent_table(batch.config, offers)
    if found is None:
        return frozenset()
    sent, changed = found
    alike = alike_rounds(batch.config, changed, batch.cases, batch.expected)
    if not any(alike):
        return frozenset()
    carried = vector_features(batch.op, sent, batch.cases, batch.expected)
    batch.config = sent
    for tc_id, same, now in zip(batch.tc_ids, alike, carried):
        if same:
            batch.features[tc_id] = now
    return frozenset(t for t, same in zip(batch.tc_ids, alike) if same)


def features_of(batch: Batch) -> tuple[dict[int, tuple[str, ...]], dict[int, str]]:
    """A batch's features and vectors outside the declaration: as marked, or (a batch the runner
    did not mark: offline answers, hand suites) its features with everything offered."""
    if batch.features is None:
        mark_batch(batch, Capabilities())
    assert batch.features is not None and batch.outside is not None
    return batch.features, batch.outside


def count_features(counts: Counter[tuple[str, str, str]], features: Mapping[tuple[tuple[str, ...], str], int]) -> None:
    """Add the vectors of each ``(features, outcome)`` (how many: the mapping's value) to a batch's
    counts (dimension ``feature``)."""
    for (carried, outcome), n in features.items():
        for f in carried:
            counts[(FEATURE_DIMENSION, f, outcome)] += n


# -- --require and the scope


def split_require(require: str | None) -> tuple[str | None, list[str]]:
    """``--require`` split into its op part (None when it names only features) and the feature ids
    it names (``feature:commission``, ``feature:bar=2``, ``bet:dont_pass``); ValueError naming an
    unknown one."""
    words = [w.strip() for w in (require or "").split(",") if w.strip()]
    ops, features = [], []
    for word in words:
        if word.startswith(("feature:", "bet:", HOUSE_RULE)):
            feature = word.removeprefix("feature:")
            if not is_feature(feature):
                raise ValueError(f"--require: {word!r} is not a feature (feature:commission, feature:bar=2, "
                                 "feature:unit=100, feature:commission_rounding=up, feature:payout_rounding=down, "
                                 "feature:odds=fractional, feature:player_banked, bet:pass ... bet:dont_come, "
                                 "house_rule:bar_push=returned ... house_rule:take_down_dont=false)")
            features.append(feature)
        else:
            ops.append(word)
    return (",".join(ops) if ops else (None if features else require)), features


def _feature_key(feature: str) -> tuple[int, str, int, str]:
    name, _, value = feature.partition("=")
    return (0 if feature.startswith("bet:") else 2 if feature.startswith(HOUSE_RULE) else 1, name,
            int(value) if value.isdigit() else 0, value)


def feature_scope(totals: Mapping[str, Mapping[str, int]], unsupported: Mapping[str, Mapping[str, int]],
                  meta: RunMeta) -> dict[str, Any]:
    """The features part of a run's scope from its counts (``feature`` and ``unsupported_feature``
    totals) and meta: the features certified (vectors of them answered, with counts), the ones
    not certified (no vector of them answered: their vectors, whether the vendor declares the
    feature, and the vectors for which it was the reason they were outside), the features the lab required and those of them the vendor does not
    declare."""
    declared = Capabilities.from_declaration(meta.vendor_capabilities)
    certified, uncertified = {}, {}
    for feature in sorted(totals, key=_feature_key):
        c = totals[feature]
        tested = sent(c)
        if tested:
            if not feature.startswith(HOUSE_RULE):       # the settings certified: in round_play
                certified[feature] = tested
        elif c.get(Outcome.UNSUPPORTED) and not (opt_in_setting(feature) and not declared.offers(feature)):
            uncertified[feature] = {"vectors": c[Outcome.UNSUPPORTED], "declared": declared.offers(feature),
                                    "reason_for": unsupported.get(feature, {}).get(Outcome.UNSUPPORTED, 0)}
    required = list(meta.required_features or [])
    return {"features_certified": certified, "features_not_certified": uncertified,
            "vendor_capabilities": meta.vendor_capabilities,
            "required_features": required,
            "required_features_undeclared": [f for f in required if not declared.offers(f)]}


def not_certified_features(features: Mapping[str, Any]) -> str:
    """One sentence naming the features a scoped run did not certify (a scope's ``features``)."""
    missing = features.get("features_not_certified") or {}
    undeclared = [f for f, c in missing.items() if not c.get("declared")]
    only_outside = [f for f, c in missing.items() if c.get("declared")]
    text = ("certified for the bets and table features the vendor declares; not certified (outside its declared "
            f"capabilities): {', '.join(undeclared) or 'none'}")
    if only_outside:
        text += f"; also not certified (met only on those vectors): {', '.join(only_outside)}"
    return text
