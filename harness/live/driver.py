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

Besides these, every vector meets the **life cuts** of :mod:`tablecert.harness.live.cuts`: cuts
while the vendor greets or recovers (before and after ``hello``, ``table.resume`` and
``table.recall`` in flight), storms of two to five of them in a row, cuts after the table's
close followed by the closed-is-closed checks, and the last answered step sent again after every
restart and every game (refused ``out_of_sequence``, the table unchanged).

A vector passes when every answer equals the oracle's; the first that differs ends it, and its
finding (:mod:`tablecert.harness.live.findings`) names the last interruption point before it. A
vendor fault of its own (a crash we did not cause, a hang, a malformed answer, a restarted
instance greeting as another build) ends the vector as a failure too, its finding naming the
request it was met during and the vendor's last line on stderr, and is kept as a fault of the
run (with that request and the stderr tail); the next vector starts on a fresh process. An interruption is *survived* when the resume after it and every answer up to the
next interruption (or the vector's end) are right. The counts go into the batch outcome under the
dimension ``interruption`` (``made`` and ``survived`` per kind), so the run database, the verdict's
inputs and the reports all read one record.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from tablecert.harness.contract import VendorFault
from tablecert.harness.answers.compare import strict_equal
from tablecert.harness.live.cuts import (KINDS, VectorLife, closed_is_closed, coded, kind_counts, plan_life, resend,
                                         storm)
from tablecert.harness.live.findings import Divergence, compared_pair, finding_note, live_detail
from tablecert.harness.instance.vendor_instance import VendorInstance
from tablecert.harness.model import BatchOutcome, Fault, LiveFailure, stored_answer, stored_expected
from tablecert.harness.instance.vectors import judge_batch
from tablecert.harness.suites.reader import Batch
from tablecert.oracle.live_tables import GAME_OF_OP, GAMES, recall_of

MODES = ("between", "written", "answered")
ALL_KINDS = (*MODES, *KINDS)
"""Every kind of interruption a run counts: the step modes and the life cuts (:data:`tablecert.harness.live.cuts.KINDS`)."""
DIMENSION = "interruption"
DEFAULT_INTERRUPTIONS = 100
EVERY_STEP_FLAG = "LiveEveryStep"
"""The flag of the live vectors interrupted at every step (the named scripts)."""
LATE_STEP_FLAG, LATE_FROM = "LiveEveryLateStep", 64
"""The flag of the live vectors interrupted at every step from their 64th on (the long station
table: its cuts past a journal compacted every 64 steps; before it, seeded points as any vector)."""


def first_cut(flags: Any) -> int | None:
    """From which step a vector with ``flags`` is interrupted at every step (None: only at seeded points)."""
    return 0 if EVERY_STEP_FLAG in flags else LATE_FROM if LATE_STEP_FLAG in flags else None


@dataclass(frozen=True)
class Interruption:
    step: int
    mode: str           # one of MODES

    def describe(self) -> str:
        if self.mode == "between":
            return f"between steps {self.step - 1} and {self.step}" if self.step else "before step 0"
        return f"step {self.step} in flight ({'its answer on the pipe, unread' if self.mode == 'answered' else 'its request written, no answer yet'})"

    def record(self) -> dict[str, Any]:
        return {"step": self.step, "mode": self.mode}


@dataclass(frozen=True)
class LivePlan:
    """Where to interrupt each live vector: (file, tcId) -> its interruptions (by step)."""

    points: dict[Any, dict[int, str]] = field(default_factory=dict)
    seed: int = 0
    asked: int = 0
    life: dict[Any, VectorLife] = field(default_factory=dict)   # the life cuts (harness.live.cuts), by key

    def of(self, key: Any) -> dict[int, str]:
        return self.points.get(key, {})

    def life_of(self, key: Any) -> VectorLife:
        return self.life.get(key, VectorLife())

    def meta(self) -> dict[str, Any]:
        every = sum(len(p) for p in self.points.values())
        life = sum(len(c) for v in self.life.values() for c in (*v.at.values(), v.after_close))
        return {"interruptions_planned": every, "interruption_seed": self.seed, "interruptions_asked": self.asked,
                "life_cuts_planned": life}


def plan_interruptions(vectors: Iterable[tuple[Any, int, bool | int | None]], n: int, seed: int, enabled: bool = True,
                       lived: Callable[[Any], bool] | None = None) -> LivePlan:
    """The plan over ``vectors`` (key, steps, interrupted at every step: a bool, or from which step
    (:func:`first_cut`); the key a vector's (file, tcId), as tcIds restart in each file): every step
    of those flagged (from that step), each by the next kind in turn, and ``n`` seeded points among the steps of the
    others, each of a seeded kind (fewer when there are fewer steps); and every vector's life
    cuts (:func:`~tablecert.harness.live.cuts.plan_life`) of those ``lived`` says (all by default; a
    station table is cut at its steps only)."""
    if not enabled:
        return LivePlan({}, seed, 0)
    points: dict[Any, dict[int, str]] = {}
    rest: list[tuple[Any, int]] = []
    vectors = list(vectors)
    for tc_id, steps, every in vectors:
        first = None if every is False or every is None else 0 if every is True else every   # bool, or first_cut's
        if first is not None:
            points[tc_id] = {i: MODES[i % len(MODES)] for i in range(first, steps)}
        rest += [(tc_id, i) for i in range(steps if first is None else first)]
    draw = random.Random(seed)
    for tc_id, i in sorted(draw.sample(rest, min(n, len(rest)))):
        points.setdefault(tc_id, {})[i] = draw.choice(MODES)
    return LivePlan(points, seed, n, plan_life([(key, steps) for key, steps, _ in vectors if lived is None or lived(key)],
                                                      seed))


TRANSCRIPT_KEPT = 64
"""The exchanges a vector being played keeps at least, its last (a finding shows the last
:data:`~tablecert.harness.live.findings.TRANSCRIPT_TAIL`): a whole transcript, every recall
answer in it, grew with the table's length (a station table of 12,000 steps held gigabytes)."""


@dataclass
class Play:
    """One live vector being played: its transcript (its last exchanges: :meth:`said`) and its interruptions."""

    tc_id: int
    made: list[Any] = field(default_factory=list)       # Interruption, or a LifeCut (harness.live.cuts)
    survived: int = 0
    pending: Interruption | None = None
    restored: Any = None            # the resume answer after the last interruption
    asking: str = ""                # the request a vendor fault was met during (VendorInstance.asking)
    transcript: list[dict[str, Any]] = field(default_factory=list)

    def said(self, asked: str, answer: Any) -> None:
        """One exchange (what was asked, the answer) into the transcript, which keeps its last
        :data:`TRANSCRIPT_KEPT` to :data:`TRANSCRIPT_KEPT` x 2 (trimmed in one go, so each costs O(1))."""
        self.transcript.append({"asked": asked, "answer": answer})
        if len(self.transcript) > 2 * TRANSCRIPT_KEPT:
            del self.transcript[:-TRANSCRIPT_KEPT]

    def interrupted(self, point: Any) -> None:
        if self.pending is not None:
            self.survived = len(self.made)
        self.pending, self.restored = point, None
        self.made.append(point)

    def finished(self) -> None:
        if self.pending is not None:
            self.survived = len(self.made)
        self.pending = None


def table_id(tc_id: int, game: str = "craps") -> str:
    """The table a vector is played on: ``t`` and its tcId (``p`` for pai gow: tcIds restart per op)."""
    return f"{'t' if game == 'craps' else 'p'}{tc_id}"


def _expect(play: Play, asked: str, answer: dict[str, Any], expected: Any) -> None:
    play.said(asked, answer)
    got = answer["result"] if "result" in answer else {"error": answer["error"]}
    if not strict_equal({"result": expected}, {"result": got}):
        raise Divergence(asked, expected, got)


Recall = Callable[[int, str], None]
"""Judges a table's recall after its first ``i`` steps (and what else goes with it), ``asked``
saying when: ``recall(i, asked)``, Divergence if wrong."""


def play_vector(control: VendorInstance, config: Any, tc_id: int, case: dict[str, Any], expected: list[dict[str, Any]],
                points: dict[int, str], play: Play, game: str = "craps", life: VectorLife | None = None,
                records: Recall | None = None) -> None:
    """Play one live vector of ``game`` (see the module docstring) with its ``life`` cuts, storms,
    steps sent again and closed checks (:mod:`tablecert.harness.live.cuts`); Divergence at the
    first wrong answer. ``records`` judges each recall instead of :func:`recall_of` (a pai gow
    table's game records and meters: :mod:`tablecert.harness.live.paigow_records`)."""
    tid = table_id(tc_id, game)
    rack, steps = case["rack"], case["steps"]
    rules = GAMES[game]
    life = life or VectorLife()

    def before(i: int) -> dict[str, Any]:
        return expected[i - 1]["table"] if i else rules.initial_table(rack)

    def judge(asked: str, answer: dict[str, Any], want: Any) -> None:
        _expect(play, asked, answer, want)

    def sent_again(i: int) -> None:
        """Step i - 1 sent again, the table having played i steps (none: nothing to send again)."""
        if i:
            resend(control, play, tid, i - 1, steps[i - 1], judge, {"steps": i, "table": before(i)})

    def recall(i: int, asked: str) -> None:
        if records is not None:
            records(i, asked)
        else:
            _expect(play, f"table.recall {asked}", control.request("table.recall", table=tid),
                    recall_of(rack, steps[:i], expected[:i], game))

    opened = {"config": config, "rack": rack, **({"game": game} if game != "craps" else {})}
    _expect(play, "table.open", control.request("table.open", table=tid, **opened),
            {"steps": 0, "table": rules.initial_table(rack)})
    recall(0, "after the table was opened")
    for i, step in enumerate(steps):
        if i in life.at:
            storm(control, play, i, life.at[i], tid, judge, {"steps": i, "table": before(i)})
            where = play.made[-1].describe()
            resumed = control.request("table.resume", table=tid)
            play.restored = resumed["result"] if "result" in resumed else coded(resumed)
            judge(f"table.resume after {where}", resumed, {"steps": i, "table": before(i)})
            recall(i, f"after the restart ({where})")
            sent_again(i)
        mode = points.get(i)
        sent = False
        if mode is not None:
            point = Interruption(i, mode)
            if mode != "between":
                control.in_flight("table.step", mode == "answered", table=tid, seq=i, step=step)
            control.restart()
            play.interrupted(point)
            resumed = control.request("table.resume", table=tid)
            play.said(f"table.resume after {point.describe()}", resumed)
            got = play.restored = resumed["result"] if "result" in resumed else {"error": resumed["error"]}
            applied = mode != "between" and isinstance(got, dict) and got.get("steps") == i + 1
            want = {"steps": i + 1, "table": expected[i]["table"]} if applied else {"steps": i, "table": before(i)}
            if not strict_equal({"result": want}, {"result": got}):
                raise Divergence(f"table.resume after {point.describe()}", want, got)
            recall(i + 1 if applied else i, f"after the restart ({point.describe()})")
            sent_again(i + 1 if applied else i)
            sent = applied
        if not sent:
            _expect(play, f"table.step {i}", control.request("table.step", table=tid, seq=i, step=step), expected[i])
        if rules.ends_game(step, expected[i]):
            recall(i + 1, f"after game ended by step {i}")
            sent_again(i + 1)
    recall(len(steps), "at the end of the round")
    _expect(play, "table.close", control.request("table.close", table=tid), {})
    closed_is_closed(control, play, life, tid, len(steps), steps[-1] if steps else {}, opened,
                     {"steps": 0, "table": rules.initial_table(rack)}, judge)
    play.finished()


def judge_live(control: VendorInstance, unit: Batch, plan: LivePlan,
               player: Callable[..., None] | None = None) -> BatchOutcome:
    """Play every vector of a live batch on ``control`` with the interruptions of ``plan``; the
    outcome judged as the runner judges any batch (a passing vector answered with its expected
    result), each failing vector's row holding its first divergent answer, the oracle's and the
    vendor's (:func:`~tablecert.harness.live.findings.compared_pair`), and its finding with its
    comment, and its finding as typed fields with its whole record (``live_failures``:
    :class:`~tablecert.harness.model.LiveFailure` of :func:`~tablecert.harness.live.findings.live_detail`,
    written with the batch); plus the interruption counts. ``player`` plays each
    vector (:func:`play_vector` unless given: a station table's is
    :class:`~tablecert.harness.live.stations.StationPlayer`)."""
    player = player or play_vector
    results: list[Any] = []
    notes: dict[int, str] = {}
    pairs: dict[int, tuple[str, str]] = {}
    findings: list[LiveFailure] = []
    made: dict[str, int] = dict.fromkeys(ALL_KINDS, 0)
    survived: dict[str, int] = dict.fromkeys(ALL_KINDS, 0)
    faults: list[Fault] = []
    for i, tc_id in enumerate(unit.tc_ids):
        expected = unit.expected[i].get("result", {}).get("steps")
        play = Play(tc_id)
        points = plan.of((unit.file, tc_id))
        err = control.failure_of(lambda: player(control, unit.config, tc_id, unit.cases[i], expected, points, play,
                                                GAME_OF_OP.get(unit.op, ""), plan.life_of((unit.file, tc_id))),
                                 Divergence, cut=True)     # a failing vector: the next starts on a fresh process
        if err is None:
            results.append(unit.expected[i]["result"])
        else:
            assert isinstance(err, (Divergence, VendorFault))
            if isinstance(err, VendorFault):     # a fault finding: kept with the request and the vendor's stderr
                play.asking = control.asking
                faults.append(Fault(unit.file, unit.op, tc_id, 1, len(faults) + 1, err.kind.value,
                                    f"during {play.asking}: {err.detail}", err.stderr_tail))
            results.append({"failed": play.transcript[-1:] or None})
            notes[tc_id] = finding_note(play, err, points)
            expected_answer, answered = compared_pair(err)
            pairs[tc_id] = stored_expected(expected_answer), stored_answer(answered)
            findings.append(LiveFailure.of(unit.file, unit.op, tc_id, live_detail(play, err)))
        for kind, n_made, n_survived in kind_counts(play.made, play.survived):
            made[kind] += n_made
            survived[kind] += n_survived
    out = judge_batch(unit, results)
    out.faults += faults
    out.failures = [replace(f, expected=pairs[f.tc_id][0], actual=pairs[f.tc_id][1], comment=f"{f.comment} | {notes[f.tc_id]}")
                    if f.tc_id in pairs else f for f in out.failures]
    out.live_failures = findings
    for mode in ALL_KINDS:
        for what, n in (("made", made[mode]), ("survived", survived[mode])):
            if n:
                out.counts[(DIMENSION, mode, what)] += n
    return out


def replay_live(replay: dict[str, Any], control: Any, player: Callable[..., None] = play_vector) -> Exception | None:
    """Play a replay file's script with its interruptions on ``control`` (an
    :class:`~tablecert.harness.instance.vendor_instance.VendorInstance`) by ``player`` (:func:`play_vector`
    unless given); the divergence or fault it meets (None if the vendor now answers every request
    as the oracle does)."""
    points = {p["step"]: p["mode"] for p in replay["interruptions"] if p["mode"] in MODES}
    return control.failure_of(lambda: player(control, replay["config"], replay["tcId"], replay["case"],
                                             replay["expected"]["steps"], points, Play(replay["tcId"]),
                                             replay.get("game", "craps"), VectorLife.of_records(replay["interruptions"])),
                              Divergence)
