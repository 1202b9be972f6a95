"""Power cuts over a live vendor's whole life, storms of them, closed tables and steps sent again.

The driver (:mod:`tablecert.harness.live.driver`) cuts power while a table plays (between two
steps, a step in flight). A real table is most fragile elsewhere: while it recovers from the last
cut, when the lights flicker (several cuts in a row), after it was closed. This module adds those
**life points**, each reached by observable progress, never a timer:

* ``hello_written``: a fresh process, its ``hello`` written and nothing read, cut at the first
  change the vendor makes to its ``state_dir`` (inotify) or when its answer begins to arrive,
  whichever comes first: a vendor that recovers eagerly at start is cut in its recovery;
* ``hello_answered``: right after the ``hello`` was answered;
* ``resume_written``: ``table.resume`` written, cut at the first change to the ``state_dir`` or
  when its answer begins to arrive: a vendor that recovers lazily at resume is cut in its recovery;
* ``resume_answered``: after the resume was answered (and judged);
* ``recall_written``: ``table.recall`` written, cut at the first change or its answer arriving.

A **storm** is two to five such cuts in a row before any step is played; the table must then
resume exactly as it stood (:class:`VectorLife`, planned per vector from the run's seed by
:func:`plan_life`). After a table's close, cuts at the same points (``closed``) precede the
**closed is closed** checks (:func:`closed_is_closed`): every op on the closed table is refused
``no_such_table``, and a new ``table.open`` of its id is a new table with no games.

**Steps sent again** (``resent``, :func:`resend`): after every game a table completes and after
every restart, the harness sends the last answered step again with its ``seq`` (a lost answer, a
retransmission by a table's controller): it must be refused ``out_of_sequence`` and the table
must resume as before. Every cut and every step sent again is counted by kind
(:func:`kind_counts`, the dimension ``interruption`` with the driver's kinds).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from tablecert.harness.instance.vendor_instance import VendorInstance

LIFE_POINTS = ("hello_written", "hello_answered", "resume_written", "resume_answered", "recall_written")
"""Where a life cut falls (see the module docstring), in the order a restarted vendor meets them."""
CLOSED, STORM, RESENT = "closed", "storm", "resent"
KINDS = (*LIFE_POINTS, CLOSED, STORM, RESENT)
"""The kinds this module counts: each life point, a cut after a close, a storm, a step sent again."""
CUT_KINDS = ("between", "written", "answered", *LIFE_POINTS, CLOSED)
"""The kinds that are power cuts (the driver's step modes, the life points, after a close): a run's total."""
STORM_SIZES = (2, 5)
CLOSED_CUTS = (1, 3)
POINT_WORDS = {
    "hello_written": "before the vendor answered hello (its first change to state_dir, or its answer arriving)",
    "hello_answered": "right after hello was answered",
    "resume_written": "with table.resume in flight (its first change to state_dir, or its answer arriving)",
    "resume_answered": "right after table.resume was answered",
    "recall_written": "during a recall (table.recall in flight: its first change to state_dir, or its answer arriving)",
}
REFUSED_CLOSED = "no_such_table"
REFUSED_AGAIN = "out_of_sequence"


@dataclass(frozen=True)
class LifeCut:
    """One life cut (or one step sent again) before step ``step``: its ``mode`` (a life point or
    ``resent``), its place in a storm (``place`` of ``size``) and whether the table was closed."""

    step: int
    mode: str
    place: int = 1
    size: int = 1
    closed: bool = False

    @property
    def kind(self) -> str:
        return CLOSED if self.closed and self.mode != RESENT else self.mode

    def describe(self) -> str:
        if self.mode == RESENT:
            return f"step {self.step} sent again (already answered)"
        where = "after the table was closed" if self.closed else (
            f"before step {self.step}" if self.step else "before step 0")
        storm = f"cut {self.place} of a storm of {self.size}, " if self.size > 1 else ""
        return f"{storm}{where}: {POINT_WORDS[self.mode]}"

    def record(self) -> dict[str, Any]:
        """As a replay keeps it."""
        return {"step": self.step, "mode": self.mode, "place": self.place, "size": self.size, "closed": self.closed}


@dataclass(frozen=True)
class VectorLife:
    """One vector's life cuts: ``at`` step -> the points cut in a row before it (a storm when
    more than one), ``after_close``: the points cut after its close (none: no closed checks)."""

    at: dict[int, tuple[str, ...]] = field(default_factory=dict)
    after_close: tuple[str, ...] = ()

    @classmethod
    def of_records(cls, made: Iterable[dict[str, Any]]) -> VectorLife:
        """The life cuts a replay recorded (steps sent again are the harness's own, never planned)."""
        at: dict[int, tuple[str, ...]] = {}
        closed: tuple[str, ...] = ()
        for cut in made:
            if cut.get("mode") not in LIFE_POINTS:
                continue
            if cut.get("closed"):
                closed += (cut["mode"],)
            else:
                at[cut["step"]] = at.get(cut["step"], ()) + (cut["mode"],)
        return cls(at, closed)


def plan_life(vectors: Iterable[tuple[Any, int]], seed: int) -> dict[Any, VectorLife]:
    """Each vector (key, steps) gets one life event before a seeded step of the second half of its
    script (more at stake in the journal the vendor recovers), the events in turn each life point
    alone and a storm of 2 to 5 seeded points, and 1 to 3 seeded cuts after its close:
    reproducible from ``seed``."""
    draw = random.Random(f"life cuts {seed}")
    plan: dict[Any, VectorLife] = {}
    events = [e for p in LIFE_POINTS for e in ((p,), ())]
    for n, (key, steps) in enumerate(sorted(vectors, key=lambda v: str(v[0]))):
        event = events[n % len(events)] or tuple(draw.choice(LIFE_POINTS) for _ in range(draw.randint(*STORM_SIZES)))
        at = {draw.randrange(steps // 2, max(steps, 1)): event}
        plan[key] = VectorLife(at, tuple(draw.choice(LIFE_POINTS) for _ in range(draw.randint(*CLOSED_CUTS))))
    return plan


class Played(Protocol):
    """What a cut needs of the vector being played (:class:`tablecert.harness.live.driver.Play`)."""

    made: list[Any]
    transcript: list[dict[str, Any]]

    def interrupted(self, point: Any) -> None: ...


Judge = Callable[[str, dict[str, Any], Any], None]
"""Judges one answer: (what was asked, the answer, the expected result); Divergence if it differs."""


def coded(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer as judged when a refusal is expected: a refusal by its code alone."""
    if "error" not in answer:
        return answer
    error = answer["error"]
    return {"error": {"code": error.get("code") if isinstance(error, dict) else error}}


def refused(code: str) -> dict[str, Any]:
    return {"error": {"code": code}}


def cut(control: VendorInstance, point: str, table: str, judge: Judge, resumed: Any) -> None:
    """One power cut at ``point`` (the running instance killed first, a fresh one started on the
    same state_dir and killed where the point says); ``resumed``: the expected ``table.resume``
    answer (a result, or a refusal) judged at ``resume_answered``."""
    if point == "hello_written":
        session = control.ungreeted()
        session.write_hello()
        session.wait_progress()
    else:
        session = control.restart()
        if point in ("resume_written", "recall_written"):
            session.write(f"table.{point.split('_')[0]}", {"table": table})
            session.wait_progress()
        elif point == "resume_answered":
            judge(f"table.resume ({POINT_WORDS[point]})", coded(control.request("table.resume", table=table)), resumed)
    control.kill()


def storm(control: VendorInstance, play: Played, step: int, points: tuple[str, ...], table: str, judge: Judge,
          resumed: Any, closed: bool = False) -> None:
    """``points`` cut in a row before ``step`` (or after the table's close), each counted made."""
    for place, point in enumerate(points, 1):
        made = LifeCut(step, point, place, len(points), closed)
        if place == 1:
            play.interrupted(made)
        else:
            play.made.append(made)
        cut(control, point, table, judge, resumed)


def resend(control: VendorInstance, play: Played, table: str, seq: int, step: Any, judge: Judge,
           resumed: dict[str, Any]) -> None:
    """Step ``seq`` sent again once answered: refused ``out_of_sequence``, the table as before (``resumed``)."""
    play.interrupted(LifeCut(seq, RESENT))
    judge(f"table.step {seq} sent again", coded(control.request("table.step", table=table, seq=seq, step=step)),
          refused(REFUSED_AGAIN))
    judge(f"table.resume after step {seq} was sent again", control.request("table.resume", table=table), resumed)


def closed_is_closed(control: VendorInstance, play: Played, life: VectorLife, table: str, steps: int, last: Any,
                     opened: dict[str, Any], fresh: dict[str, Any], judge: Judge) -> None:
    """After the table's close: its planned cuts, then every op on it refused ``no_such_table``
    (its ``last`` step with the next seq, resume, recall, close), and a new ``table.open`` of its id (with
    ``opened``: config, rack, game) a new table (``fresh``: steps 0, the table just opened) with
    no games, closed again."""
    if not life.after_close:
        return
    storm(control, play, steps, life.after_close, table, judge, refused(REFUSED_CLOSED), closed=True)
    judge("table.step on the closed table", coded(control.request("table.step", table=table, seq=steps, step=last)),
          refused(REFUSED_CLOSED))
    for op in ("table.resume", "table.recall", "table.close"):
        judge(f"{op} on the closed table", coded(control.request(op, table=table)), refused(REFUSED_CLOSED))
    judge("table.open of the closed table's id", control.request("table.open", table=table, **opened), fresh)
    judge("table.recall of the table opened again", control.request("table.recall", table=table), {"games": []})
    judge("table.close of the table opened again", control.request("table.close", table=table), {})


def kind_counts(made: list[Any], survived: int) -> list[tuple[str, int, int]]:
    """(kind, made, survived) of a vector's cuts and steps sent again (``made[:survived]`` survived),
    a storm counted once more as ``storm``."""
    out = [(p.kind if isinstance(p, LifeCut) else p.mode, 1, int(i < survived)) for i, p in enumerate(made)]
    for i, p in enumerate(made):
        if isinstance(p, LifeCut) and p.place == 1 and p.size > 1:
            out.append((STORM, 1, int(i + p.size <= survived)))
    return out
