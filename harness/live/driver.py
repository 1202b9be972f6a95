"""Playing a live-suite vector one step per request, with power cuts, judged against the oracle.

A live vector (op ``craps.table``) is a round: a table config with its house rules, a rack and a
script of steps; its expected answer is the oracle's uninterrupted ``craps.round`` record of
every step. :func:`judge_live` opens a table on the vendor (``table.open``), sends each step as
its own ``table.step`` and judges every answer against the oracle's. At the vector's
**interruption points** (:class:`Interruption`) it kills the vendor with SIGKILL, no warning:

* ``between``: after step ``i - 1`` was answered, before step ``i`` is sent;
* ``written``: with step ``i`` in flight, its request line written and nothing read;
* ``answered``: with step ``i`` in flight and its answer arriving on the pipe, unread.

It then starts a fresh process on the same ``state_dir`` and asks ``table.resume``: the table
must be exactly as the oracle has it, and a step that was in flight wholly applied (``steps``
one more, the table after it) or wholly not (the table before it; the step is then sent again)
-- never applied twice. The recall (``table.recall``) is judged after the table is opened, after
every game the round completes, after every restart and at the end, against the oracle's history
of the same steps (:func:`tablecert.oracle.live_tables.recall_of`).

A vector passes when every answer equals the oracle's; the first that differs ends it, and its
finding (:mod:`tablecert.harness.live.findings`) names the last interruption point before it. A
vendor fault of its own (a crash we did not cause, a hang, a malformed answer) ends the vector as
a failure too. An interruption is *survived* when the resume after it and every answer up to the
next interruption (or the vector's end) are right. The counts go into the batch outcome under the
dimension ``interruption`` (``made`` and ``survived`` per kind), so the run database, the verdict's
inputs and the reports all read one record.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from tablecert.harness.contract import VendorFault
from tablecert.harness.answers.compare import strict_equal
from tablecert.harness.live.findings import compared_pair, finding_note, live_detail
from tablecert.harness.live.instance import InstanceControl
from tablecert.harness.model import BatchOutcome, stored_answer, stored_expected
from tablecert.harness.instance.vectors import judge_batch
from tablecert.harness.suites.reader import Batch
from tablecert.oracle.live_tables import GAME_OF_OP, GAMES, recall_of

MODES = ("between", "written", "answered")
DIMENSION = "interruption"
DEFAULT_INTERRUPTIONS = 100
EVERY_STEP_FLAG = "LiveEveryStep"
"""The flag of the live vectors interrupted at every step (the named scripts)."""


@dataclass(frozen=True)
class Interruption:
    step: int
    mode: str           # one of MODES

    def describe(self) -> str:
        if self.mode == "between":
            return f"between steps {self.step - 1} and {self.step}" if self.step else "before step 0"
        return f"step {self.step} in flight ({'its answer on the pipe, unread' if self.mode == 'answered' else 'its request written, no answer yet'})"


@dataclass(frozen=True)
class LivePlan:
    """Where to interrupt each live vector: (file, tcId) -> its interruptions (by step)."""

    points: dict[Any, dict[int, str]] = field(default_factory=dict)
    seed: int = 0
    asked: int = 0

    def of(self, key: Any) -> dict[int, str]:
        return self.points.get(key, {})

    def meta(self) -> dict[str, Any]:
        every = sum(len(p) for p in self.points.values())
        return {"interruptions_planned": every, "interruption_seed": self.seed, "interruptions_asked": self.asked}


def plan_interruptions(vectors: Iterable[tuple[Any, int, bool]], n: int, seed: int, enabled: bool = True) -> LivePlan:
    """The plan over ``vectors`` (key, steps, interrupted at every step; the key a vector's (file,
    tcId), as tcIds restart in each file): every step of those
    flagged, each by the next kind in turn, and ``n`` seeded points among the steps of the
    others, each of a seeded kind (fewer when there are fewer steps)."""
    if not enabled:
        return LivePlan({}, seed, 0)
    points: dict[Any, dict[int, str]] = {}
    rest: list[tuple[Any, int]] = []
    for tc_id, steps, every in vectors:
        if every:
            points[tc_id] = {i: MODES[i % len(MODES)] for i in range(steps)}
        else:
            rest += [(tc_id, i) for i in range(steps)]
    draw = random.Random(seed)
    for tc_id, i in sorted(draw.sample(rest, min(n, len(rest)))):
        points.setdefault(tc_id, {})[i] = draw.choice(MODES)
    return LivePlan(points, seed, n)


class Divergence(Exception):
    """An answer that is not the oracle's: what was asked, expected and answered."""

    def __init__(self, asked: str, expected: Any, answered: Any) -> None:
        super().__init__(asked)
        self.asked, self.expected, self.answered = asked, expected, answered


@dataclass
class Play:
    """One live vector being played: its transcript and its interruptions."""

    tc_id: int
    made: list[Interruption] = field(default_factory=list)
    survived: int = 0
    pending: Interruption | None = None
    restored: Any = None            # the resume answer after the last interruption
    transcript: list[dict[str, Any]] = field(default_factory=list)

    def interrupted(self, point: Interruption) -> None:
        if self.pending is not None:
            self.survived += 1
        self.pending, self.restored = point, None
        self.made.append(point)

    def finished(self) -> None:
        if self.pending is not None:
            self.survived += 1
        self.pending = None


def table_id(tc_id: int, game: str = "craps") -> str:
    """The table a vector is played on: ``t`` and its tcId (``p`` for pai gow: tcIds restart per op)."""
    return f"{'t' if game == 'craps' else 'p'}{tc_id}"


def _expect(play: Play, asked: str, answer: dict[str, Any], expected: Any) -> None:
    play.transcript.append({"asked": asked, "answer": answer})
    got = answer["result"] if "result" in answer else {"error": answer["error"]}
    if not strict_equal({"result": expected}, {"result": got}):
        raise Divergence(asked, expected, got)


def play_vector(control: InstanceControl, config: Any, tc_id: int, case: dict[str, Any], expected: list[dict[str, Any]],
                points: dict[int, str], play: Play, game: str = "craps") -> None:
    """Play one live vector of ``game`` (see the module docstring); Divergence at the first wrong answer."""
    tid = table_id(tc_id, game)
    rack, steps = case["rack"], case["steps"]
    rules = GAMES[game]

    def before(i: int) -> dict[str, Any]:
        return expected[i - 1]["table"] if i else rules.initial_table(rack)

    def recall(i: int, asked: str) -> None:
        _expect(play, f"table.recall {asked}", control.send("table.recall", table=tid),
                recall_of(rack, steps[:i], expected[:i], game))

    named = {"game": game} if game != "craps" else {}
    _expect(play, "table.open", control.send("table.open", table=tid, config=config, rack=rack, **named),
            {"steps": 0, "table": rules.initial_table(rack)})
    recall(0, "after the table was opened")
    for i, step in enumerate(steps):
        mode = points.get(i)
        sent = False
        if mode is not None:
            point = Interruption(i, mode)
            if mode != "between":
                control.send_in_flight("table.step", mode == "answered", table=tid, seq=i, step=step)
            control.restart()
            play.interrupted(point)
            resumed = control.send("table.resume", table=tid)
            play.transcript.append({"asked": f"table.resume after {point.describe()}", "answer": resumed})
            got = play.restored = resumed["result"] if "result" in resumed else {"error": resumed["error"]}
            applied = mode != "between" and isinstance(got, dict) and got.get("steps") == i + 1
            want = {"steps": i + 1, "table": expected[i]["table"]} if applied else {"steps": i, "table": before(i)}
            if not strict_equal({"result": want}, {"result": got}):
                raise Divergence(f"table.resume after {point.describe()}", want, got)
            recall(i + 1 if applied else i, f"after the restart ({point.describe()})")
            sent = applied
        if not sent:
            _expect(play, f"table.step {i}", control.send("table.step", table=tid, seq=i, step=step), expected[i])
        if rules.ends_game(step, expected[i]):
            recall(i + 1, f"after game ended by step {i}")
    recall(len(steps), "at the end of the round")
    _expect(play, "table.close", control.send("table.close", table=tid), {})
    play.finished()


def judge_live(control: InstanceControl, unit: Batch, plan: LivePlan,
               details: dict[str, Any] | None = None) -> BatchOutcome:
    """Play every vector of a live batch on ``control`` with the interruptions of ``plan``; the
    outcome judged as the runner judges any batch (a passing vector answered with its expected
    result), each failing vector's row holding its first divergent answer, the oracle's and the
    vendor's (:func:`~tablecert.harness.live.findings.compared_pair`), and its finding with its
    comment; plus the interruption counts. ``details`` gets each failing vector's whole record,
    by "file tcId" (:func:`~tablecert.harness.live.findings.live_detail`)."""
    results: list[Any] = []
    notes: dict[int, str] = {}
    pairs: dict[int, tuple[str, str]] = {}
    made: dict[str, int] = dict.fromkeys(MODES, 0)
    survived: dict[str, int] = dict.fromkeys(MODES, 0)
    for i, tc_id in enumerate(unit.tc_ids):
        expected = unit.expected[i].get("result", {}).get("steps")
        play = Play(tc_id)
        points = plan.of((unit.file, tc_id))
        try:
            play_vector(control, unit.config, tc_id, unit.cases[i], expected, points, play, GAME_OF_OP[unit.op])
            results.append(unit.expected[i]["result"])
        except (Divergence, VendorFault) as err:
            control.kill()      # whatever the vendor holds now, the next vector starts on a fresh process
            results.append({"failed": play.transcript[-1:] or None})
            notes[tc_id] = finding_note(play, err, points)
            expected_answer, answered = compared_pair(err)
            pairs[tc_id] = stored_expected(expected_answer), stored_answer(answered)
            if details is not None:
                details[f"{unit.file} {tc_id}"] = live_detail(play, err)
        kinds = [p.mode for p in play.made]
        for mode in kinds:
            made[mode] += 1
        ok_kinds = kinds[:play.survived]
        for mode in ok_kinds:
            survived[mode] += 1
    out = judge_batch(unit, results)
    out.failures = [replace(f, expected=pairs[f.tc_id][0], actual=pairs[f.tc_id][1], comment=f"{f.comment} | {notes[f.tc_id]}")
                    if f.tc_id in pairs else f for f in out.failures]
    for mode in MODES:
        for what, n in (("made", made[mode]), ("survived", survived[mode])):
            if n:
                out.counts[(DIMENSION, mode, what)] += n
    return out


def replay_live(replay: dict[str, Any], control: Any) -> Exception | None:
    """Play a replay file's script with its interruptions on ``control`` (an
    :class:`~tablecert.harness.live.instance.InstanceControl`); the divergence or fault it meets
    (None if the vendor now answers every request as the oracle does)."""
    points = {p["step"]: p["mode"] for p in replay["interruptions"]}
    try:
        play_vector(control, replay["config"], replay["tcId"], replay["case"], replay["expected"]["steps"], points,
                    Play(replay["tcId"]), replay.get("game", "craps"))
    except (Divergence, VendorFault) as err:
        return err
    return None
