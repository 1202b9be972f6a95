"""``craps.round``: a craps table played step by step, as a small state machine built on the
single-roll ops of :mod:`tablecert.oracle.craps` (one truth, not two).

A case is a player's starting ``rack`` (chips, minor units) and a script of ``steps``; the table
config is the craps table config plus ``house_rules`` (:data:`HOUSE_RULES`, each reading the rule
texts leave open, with the common casino default and its interpretation-register entry). The
answer holds one record per step::

    {"accepted": bool, "error": CODE | null, "events": [EVENT, ...], "table": TABLE}

* Every bet on the layout has a stable id: ``pass``, ``dont_pass``, ``come`` and ``dont_come``
  (in the box, before their own point), ``comeN`` and ``dont_comeN`` (travelled to N).
* A roll settles every bet on the layout by exactly :func:`craps.settle` (the bet's own point, its
  odds and whether they work on this roll); its EVENT is that settle result with the bet's id and
  what became of the odds' commission (``commission_taken``, ``commission_returned``). The one
  house rule that changes a settle result is ``bar_push: "stays"``: the pushed flat stays in
  action (``flat_stake`` ``in_action``, ``flat_returned`` 0) instead of being handed back.
* Odds placed cost exactly :func:`craps.place_odds`'s commission on the bet's whole odds, held on
  the layout with them: taken by the house when the odds are won or lost, handed back when they
  are returned, reduced or taken down (INT-ROUND-COMMISSION). Their limits are
  :func:`craps.place_odds`' (and so :func:`craps.odds_limits`').
* Money is conserved at every step: ``rack + layout = start + paid - taken`` (the layout counting
  flats, odds and held commissions; ``paid`` the wins, ``taken`` the stakes and commissions lost);
  the oracle asserts it after every step.

Integers in minor units only; exact fractions inside the single-roll ops; no floats.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tablecert.oracle import craps
from tablecert.oracle.errors import CaseError, ConfigError
from tablecert.oracle.table_config import POINTS, TableConfig, is_int, parse_table_config

MAX_STEPS = 200
MAX_AMOUNT = 2**53 - 1
LINE_BETS = ("pass", "dont_pass")
BOX_BETS = ("come", "dont_come")
KINDS = LINE_BETS + BOX_BETS
BET_IDS = KINDS + tuple(f"come{n}" for n in POINTS) + tuple(f"dont_come{n}" for n in POINTS)
"""Every bet id, in the order the layout and a roll's events list them."""
_ORDER = {bet_id: i for i, bet_id in enumerate(BET_IDS)}
DICE_OF_TOTAL = {t: (max(1, t - 6), t - max(1, t - 6)) for t in range(2, 13)}
"""One pair of dice for every total (line bets turn on totals only): the suites' and the fuzz's rolls."""
ACTS = ("bet", "odds", "working", "take_down", "roll")
STEP_FIELDS: dict[str, tuple[tuple[str, str, Any], ...]] = {
    "bet": (("bet", "a string", lambda v: isinstance(v, str)), ("amount", "an integer", is_int)),
    "odds": (("bet", "a string", lambda v: isinstance(v, str)), ("amount", "an integer", is_int)),
    "working": (("bet", "a string", lambda v: isinstance(v, str)), ("working", "a JSON boolean",
                                                                     lambda v: isinstance(v, bool))),
    "take_down": (("bet", "a string", lambda v: isinstance(v, str)),),
    "roll": (("dice", "a list", lambda v: isinstance(v, list)),),
}
ROUND_ERRORS = ("point_on", "bet_exists", "no_such_bet", "no_odds", "not_removable", "insufficient_funds")
"""Step refusals new with ``craps.round`` (besides the craps ops' own codes)."""

HOUSE_RULES: dict[str, tuple[tuple[Any, ...], Any, str]] = {
    "come_odds_come_out": (("off", "working"), "off", "INT-ODDS-WORKING"),
    "dont_come_odds_come_out": (("working", "off"), "working", "INT-DONT-COME-ODDS"),
    "working_call": (("roll", "bet"), "roll", "INT-WORKING-CALL"),
    "bar_push": (("stays", "returned"), "stays", "INT-BAR-PUSH"),
    "take_down_unset": ((True, False), True, "INT-TAKE-DOWN"),
    "take_down_dont": ((True, False), True, "INT-TAKE-DOWN"),
    "press_unset": ((False, True), False, "INT-PRESS-UNSET"),
}
"""house rule -> (allowed values, the common casino default, interpretation-register entry).

* ``come_odds_come_out``: odds behind a come bet on the shooter's come-out roll, unless called.
* ``dont_come_odds_come_out``: odds behind a don't come bet on the come-out roll, unless called.
* ``working_call``: a call of odds working or off lasts for the next roll (``roll``) or as long as
  the odds stay on the layout (``bet``).
* ``bar_push``: a don't bet pushed on the bar number stays on the layout for the next roll
  (``stays``) or is handed back (``returned``, what a lone ``craps.settle`` says).
* ``take_down_unset``: a line bet before its point (pass or don't pass before the come-out roll, a
  come or don't come bet in the box) may be taken down.
* ``take_down_dont``: a don't pass or don't come bet with its point may be taken down. A pass or
  come bet with its point is a contract bet and is never removable (``not_removable``).
* ``press_unset`` (*since 1.1*, one of :data:`OPT_IN_RULES`): a line bet before its point (pass or
  don't pass before the come-out roll, a come or don't come bet in the box) may be increased: a
  ``bet`` step on its spot adds the amount to its flat (``True``) instead of being refused
  ``bet_exists`` (``False``). Never a decrease (that is a take-down, ``take_down_unset``), never a
  bet with its point.
"""

OPT_IN_RULES = frozenset({"press_unset"})
"""House rules new since 1.1: a vendor that does not name one in its declared ``craps.house_rules``
offers its default only (a vendor of an earlier release never heard of it), where an earlier rule
not named offers every value."""


@dataclass(frozen=True)
class RoundConfig:
    table: TableConfig
    house: dict[str, Any]
    memo: dict[tuple[Any, ...], Any] = field(default_factory=dict, compare=False, repr=False)
    """Answers of the single-roll ops already asked on this table (they are pure functions)."""

    def single(self, op: Any, **case: Any) -> dict[str, Any]:
        """``op(table, case)`` (:func:`craps.settle`, :func:`craps.place_odds` or
        :func:`craps.odds_limits`), remembered: a CaseError is raised again, a result is a fresh
        copy. The case's values are ints, strings, booleans, None or a list of two dice."""
        if "dice" in case:
            key = (op, case["bet"], case["flat"], case["point"], case["odds"], *case["dice"], case["odds_working"])
        else:
            key = (op, *case.values())
        answer = self.memo.get(key)
        if answer is None:
            if len(self.memo) > 1 << 16:
                self.memo.clear()
            try:
                answer = op(self.table, case)
            except CaseError as err:
                answer = err
            self.memo[key] = answer
        if isinstance(answer, CaseError):
            raise answer
        return dict(answer)


def parse_round_config(obj: object) -> RoundConfig:
    """The craps table config plus ``house_rules`` (an object; each rule optional, its default
    when missing). A malformed table or house rule raises ConfigError naming the field."""
    if not isinstance(obj, dict):
        raise ConfigError("(config)", "a table config must be an object")
    rules = obj.get("house_rules", {})
    table = parse_table_config({k: v for k, v in obj.items() if k != "house_rules"})
    if not isinstance(rules, dict):
        raise ConfigError("house_rules", "must be an object")
    extra = sorted(str(k) for k in rules if k not in HOUSE_RULES)
    if extra:
        raise ConfigError(f"house_rules.{extra[0]}", "unknown house rule")
    house = {}
    for name, (allowed, default, _) in HOUSE_RULES.items():
        value = rules.get(name, default)
        if not any(type(value) is type(a) and value == a for a in allowed):
            raise ConfigError(f"house_rules.{name}", f"must be one of {', '.join(map(repr, allowed))}")
        house[name] = value
    return RoundConfig(table, house)


@dataclass
class Bet:
    """One bet on the layout: its kind, its own point (None before it; a line bet's is the table's),
    flat, odds, the commission held with the odds, and a working call (None: the house default)."""

    kind: str
    point: int | None
    flat: int
    odds: int = 0
    commission: int = 0
    call: bool | None = None

    @property
    def bet_id(self) -> str:
        return self.kind if self.point is None or self.kind in LINE_BETS else f"{self.kind}{self.point}"


class Refused(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Table:
    """The state of one player's round: the point, the bets, the rack, and the money ledger."""

    def __init__(self, config: RoundConfig, rack: int) -> None:
        self.config, self.cfg, self.house = config, config.table, config.house
        self.point: int | None = None
        self.bets: dict[str, Bet] = {}
        self.rack = rack
        self.start, self.paid, self.taken = rack, 0, 0
        self.arrivals: list[Bet] = []      # box bets travelling on the roll being settled

    # -- reading the state

    def layout(self) -> int:
        return sum(b.flat + b.odds + b.commission for b in self.bets.values())

    def own_point(self, bet: Bet) -> int | None:
        return self.point if bet.kind in LINE_BETS else bet.point

    def working(self, bet: Bet, come_out: bool) -> bool:
        """Whether ``bet``'s odds work on a roll (a come-out roll when ``come_out``)."""
        if bet.call is not None:
            return bet.call
        if not come_out:
            return True
        if bet.kind == "come":
            return self.house["come_odds_come_out"] == "working"
        if bet.kind == "dont_come":
            return self.house["dont_come_odds_come_out"] == "working"
        return True

    def state(self) -> dict[str, Any]:
        come_out = self.point is None
        return {"point": self.point, "rack": self.rack,
                "bets": [{"bet": b.bet_id, "flat": b.flat, "odds": b.odds, "commission": b.commission,
                          "odds_working": self.working(b, come_out)}
                         for b in sorted(self.bets.values(), key=lambda b: _ORDER[b.bet_id])]}

    def check_conservation(self) -> None:
        assert self.rack >= 0
        assert self.rack + self.layout() == self.start + self.paid - self.taken, "money not conserved"

    # -- actions

    def _find(self, bet_id: str) -> Bet:
        bet = self.bets.get(bet_id)
        if bet is None:
            raise Refused("no_such_bet")
        return bet

    def _spend(self, amount: int) -> None:
        """Chips from the rack to the layout (a negative amount hands chips back)."""
        if amount > self.rack:
            raise Refused("insufficient_funds")
        self.rack -= amount

    def place(self, kind: str, amount: int) -> list[dict[str, Any]]:
        if kind not in KINDS:
            raise Refused("invalid_bet")
        if kind in LINE_BETS and self.point is not None:
            raise Refused("point_on")
        if kind in BOX_BETS and self.point is None:
            raise Refused("no_point")
        held = self.bets.get(kind)
        if held is not None and not self.pressable(held):
            raise Refused("bet_exists")
        if amount <= 0:
            raise Refused("not_positive")
        if amount % self.cfg.unit:
            raise Refused("bad_increment")
        self._spend(amount)
        if held is not None:        # pressed (INT-PRESS-UNSET): one bet, its flat increased
            held.flat += amount
        else:
            self.bets[kind] = Bet(kind, None, amount)
        return []

    def pressable(self, bet: Bet) -> bool:
        """Whether a ``bet`` step on ``bet``'s spot adds to it (INT-PRESS-UNSET): a line bet before
        its point, on a table whose house rule ``press_unset`` is true."""
        return self.own_point(bet) is None and bool(self.house["press_unset"])

    def odds_basis(self, bet: Bet) -> tuple[str, int, int | None]:
        """(bet, flat, point) that the odds behind ``bet`` are priced and limited on: its own."""
        return bet.kind, bet.flat, self.own_point(bet)

    def set_odds(self, bet_id: str, amount: int) -> list[dict[str, Any]]:
        """Take, lay, increase, reduce (``amount`` the new total) or remove (0) the odds."""
        bet = self._find(bet_id)
        kind, flat, point = self.odds_basis(bet)
        if point is None:
            raise Refused("no_point")
        commission = 0
        if amount != 0:
            try:
                commission = self.config.single(craps.place_odds, bet=kind, flat=flat, point=point,
                                                odds=amount)["commission"]
            except CaseError as err:
                raise Refused(err.code) from None
        self._spend(amount - bet.odds + commission - bet.commission)     # a reduction spends less than 0
        bet.odds, bet.commission = amount, commission
        if amount == 0:
            bet.call = None
        return []

    def call(self, bet_id: str, working: bool) -> list[dict[str, Any]]:
        bet = self._find(bet_id)
        if not bet.odds:
            raise Refused("no_odds")
        bet.call = working
        return []

    def removable(self, bet: Bet) -> bool:
        """Whether ``bet`` may be taken down now (INT-TAKE-DOWN)."""
        if self.own_point(bet) is None:
            return bool(self.house["take_down_unset"])
        return craps.is_dont(bet.kind) and bool(self.house["take_down_dont"])

    def take_down(self, bet_id: str) -> list[dict[str, Any]]:
        bet = self._find(bet_id)
        if not self.removable(bet):
            raise Refused("not_removable")
        del self.bets[bet_id]
        self.rack += bet.flat + bet.odds + bet.commission
        return [{"bet": bet_id, "outcome": "taken_down", "flat_win": 0, "odds_win": 0, "point": None,
                 "flat_stake": craps.RETURNED, "odds_stake": craps.RETURNED if bet.odds else craps.NONE,
                 "flat_returned": bet.flat, "odds_returned": bet.odds,
                 "commission_taken": 0, "commission_returned": bet.commission}]

    def roll(self, dice: list[Any]) -> list[dict[str, Any]]:
        if len(dice) != 2 or not all(is_int(d) and 1 <= d <= 6 for d in dice):
            raise Refused("invalid_dice")
        total = dice[0] + dice[1]
        come_out = self.point is None
        events, self.arrivals = [], []
        for bet in sorted(self.bets.values(), key=lambda b: _ORDER[b.bet_id]):
            events.append(self._settle(bet, dice, come_out))
        for bet in self.arrivals:       # after the roll settled the bets already on those numbers
            there = self.bets.get(bet.bet_id)
            if there is None:
                self.bets[bet.bet_id] = bet
            else:       # a come bet travelling to a number that holds one: the flats are combined
                there.flat += bet.flat
        self.arrivals = []
        if come_out and total in POINTS:
            self.point = total
        elif not come_out and total in (craps.SEVEN, self.point):
            self.point = None
        self.lapse_calls()
        return events

    def lapse_calls(self) -> None:
        """After a roll: calls for one roll lapse (INT-WORKING-CALL)."""
        called = [bet for bet in self.bets.values() if bet.call is not None]
        if called and self.house["working_call"] == "roll":      # read only when a call is on the layout
            for bet in called:
                bet.call = None

    def _settle(self, bet: Bet, dice: list[int], come_out: bool) -> dict[str, Any]:
        event = self.event(bet, dice, come_out)
        self.apply_event(bet, event)
        return event

    def event(self, bet: Bet, dice: list[int], come_out: bool) -> dict[str, Any]:
        """What a roll does to one bet: :func:`craps.settle` of its state (the bar push under the
        house rule), and what becomes of the odds' commission."""
        result = self.config.single(craps.settle, bet=bet.kind, flat=bet.flat, point=self.own_point(bet),
                                    odds=bet.odds, dice=[dice[0], dice[1]], odds_working=self.working(bet, come_out))
        event = {"bet": bet.bet_id, **result, "commission_taken": 0, "commission_returned": 0}
        if result["outcome"] == "push" and self.house["bar_push"] == "stays":
            event["flat_stake"], event["flat_returned"] = craps.IN_ACTION, 0
        if event["odds_stake"] in (craps.WON, craps.TAKEN):
            event["commission_taken"] = bet.commission
        elif event["odds_stake"] == craps.RETURNED:
            event["commission_returned"] = bet.commission
        return event

    def apply_event(self, bet: Bet, event: dict[str, Any]) -> None:
        """The layout and the ledger after ``event``: a bet in action stays (a box bet that got its
        point travels once the roll is settled, its flat combined with a bet still on that
        number: :meth:`roll`); a decided bet leaves
        the layout, its wins and handed-back stakes to the rack."""
        old_id = bet.bet_id
        if event["flat_stake"] == craps.IN_ACTION:
            if event["outcome"] == "point" and bet.kind in BOX_BETS:
                del self.bets[old_id]
                bet.point = event["point"]
                self.arrivals.append(bet)
            return
        del self.bets[old_id]
        win = event["flat_win"] + event["odds_win"]
        lost = (bet.flat if event["flat_stake"] == craps.TAKEN else 0) + \
            (bet.odds if event["odds_stake"] == craps.TAKEN else 0) + event["commission_taken"]
        self.paid += win
        self.taken += lost
        self.rack += win + event["flat_returned"] + event["odds_returned"] + event["commission_returned"]


def _read_case(case: object) -> tuple[int, list[dict[str, Any]]]:
    if not isinstance(case, dict):
        raise CaseError("invalid_request", f"a case must be an object, got {type(case).__name__}")
    for name in ("rack", "steps"):
        if name not in case:
            raise CaseError("invalid_request", f"missing field '{name}'")
    rack, steps = case["rack"], case["steps"]
    if not is_int(rack) or not 0 <= rack <= MAX_AMOUNT:
        raise CaseError("invalid_request", f"'rack' must be an integer from 0 to 2^53 - 1, got {rack!r}")
    if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
        raise CaseError("invalid_request", f"'steps' must be a list of 1 to {MAX_STEPS} steps")
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or step.get("act") not in ACTS:
            raise CaseError("invalid_request", f"step {i}: an object whose 'act' is one of {', '.join(ACTS)}")
        for name, what, ok in STEP_FIELDS[step["act"]]:
            if name not in step:
                raise CaseError("invalid_request", f"step {i}: missing field '{name}'")
            if not ok(step[name]):
                raise CaseError("invalid_request", f"step {i}: '{name}' must be {what}")
            if is_int(step[name]) and not -MAX_AMOUNT <= step[name] <= MAX_AMOUNT:
                raise CaseError("invalid_request", f"step {i}: '{name}' beyond 2^53 - 1")
    return rack, steps


def check_step(step: object) -> dict[str, Any]:
    """One step as a ``craps.round`` case checks it (CaseError ``invalid_request`` otherwise):
    what a live table (:mod:`tablecert.oracle.live_tables`) accepts as one step."""
    return _read_case({"rack": 0, "steps": [step]})[1][0]


def apply_step(table: Table, step: dict[str, Any]) -> dict[str, Any]:
    """One step on ``table``: its record (the table after it; unchanged when refused)."""
    act = step["act"]
    try:
        if act == "bet":
            events = table.place(step["bet"], step["amount"])
        elif act == "odds":
            events = table.set_odds(step["bet"], step["amount"])
        elif act == "working":
            events = table.call(step["bet"], step["working"])
        elif act == "take_down":
            events = table.take_down(step["bet"])
        else:
            events = table.roll(step["dice"])
        record: dict[str, Any] = {"accepted": True, "error": None, "events": events}
    except Refused as refusal:
        record = {"accepted": False, "error": refusal.code, "events": []}
    table.check_conservation()
    record["table"] = table.state()
    return record


def play(config: RoundConfig, case: object, table_class: type[Table] = Table) -> dict[str, Any]:
    """``craps.round``: ``{"steps": [record, ...]}``, one record per step of the case (on a
    ``table_class`` table: a subclass changes the game, as the test suite's faulty vendors do)."""
    rack, steps = _read_case(case)
    table = table_class(config, rack)
    return {"steps": [apply_step(table, step) for step in steps]}


class _ReadRules(dict[str, Any]):
    """A table's house rules that note each rule the play reads (:func:`rules_read`)."""

    def __init__(self, house: dict[str, Any], read: set[str]) -> None:
        super().__init__(house)
        self.read = read

    def __getitem__(self, name: str) -> Any:
        self.read.add(name)
        return super().__getitem__(name)


def rules_read(config: RoundConfig, case: object) -> tuple[dict[str, Any], frozenset[str]]:
    """:func:`play`, and the house rules the play read (*since 1.2*, issue 50). The play is a
    function of the table, the case and the values of the rules it reads (a :class:`Table` reads
    them only through ``self.house[name]``, and only where a rule decides: a come-out roll with a
    come or don't come bet, a call on the layout, a bet step on a bet that waits, a take-down, a
    bar push): a rule it never read can be set to any value and the play, every record of it, is
    the same. CaseError as :func:`play` (no rule read)."""
    read: set[str] = set()
    rack, steps = _read_case(case)
    table = Table(config, rack)
    table.house = _ReadRules(config.house, read)
    return {"steps": [apply_step(table, step) for step in steps]}, frozenset(read)
