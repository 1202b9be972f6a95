"""What a failing live vector tells the vendor's developers, and how to reproduce it.

* :func:`compared_pair`: what the run database's failure row keeps as expected and answered:
  the first divergent answer, the oracle's and the vendor's, in one shape (a recall or the meters
  by the request and its first differing field, named by station, seat and game; a vendor fault
  by its kind), so the findings and the failures by cause compare them like any answer and a
  cause line names the field or the event;
* :func:`field_differences`: where two answers differ, list items named by station, seat, bet
  and game;
* :func:`fault_words`: a vendor fault during live play in the lab's words, with the request it
  was met during and the vendor's last line on stderr;
* :func:`live_detail`: the whole record of a failing live vector, kept with its typed fields in
  run.db's ``live_failures`` (:class:`~tablecert.harness.model.LiveFailure`): every interruption made (step and kind), the state the vendor restored
  after the last one against the state the oracle had, the first divergent answer (what was
  asked, expected, answered and the fields that differ) and the last exchanges before it;
* :func:`finding_note`: the same in one line, kept with the vector's comment (the findings PDF
  shows it): the interruption point, restored vs expected, the first divergent answer (or the
  fault, :func:`fault_words`);
* :func:`live_replays`: per failing vector a replay (one JSON line of its group's file in ``failures/``): the config, the
  script cut after the divergent step, where to kill (each interruption: step and kind) and how
  to restart, which :func:`tablecert.harness.live.driver.play_vector` plays again
  (:func:`tablecert.harness.live.driver.replay_live`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from tablecert.harness.contract import FaultKind, VendorFault
from tablecert.harness.answers.compare import strict_equal
from tablecert.harness.answers.round_findings import differing_fields
from tablecert.harness.live.cuts import RESENT
from tablecert.harness.model import LiveFailure, divergent_step
from tablecert.oracle.live_stations import SUITE_ORACLE
from tablecert.oracle.live_tables import GAME_OF_OP

MISSING = "(missing)"
NOTE_CHARS = 1500
TRANSCRIPT_TAIL = 4
HOW = ("Start the vendor with a fresh, empty state_dir named in its hello. Open the table (table.open), then send "
       "the steps in order, each as table.step with its seq. At each interruption kill the vendor's process group "
       "with SIGKILL: 'between' before the step is sent, 'written' once the step's request line is written, "
       "'answered' once its answer has begun to arrive on the pipe, unread. Start it again with the same "
       "state_dir and hello, ask table.resume and table.recall, send the step again if resume says it was not "
       "applied, and go on. Every answer must be the oracle's (expected).")


class Divergence(Exception):
    """An answer that is not the oracle's: what was asked, expected and answered."""

    def __init__(self, asked: str, expected: Any, answered: Any) -> None:
        super().__init__(asked)
        self.asked, self.expected, self.answered = asked, expected, answered


def _key(item: Any) -> str | None:
    """How a list item is named in a field path: its station, seat, bet or game."""
    if not isinstance(item, dict):
        return None
    parts = [f"station {item['station']}" if "station" in item else "", f"seat {item['seat']}" if "seat" in item else "",
             str(item.get("bet", "")),
             f"game {item['game']}" if "game" in item else ""]
    return " ".join(p for p in parts if p) or None


def field_differences(want: Any, got: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(dotted path, expected, answered) where two answers differ, list items named by station,
    seat, bet and game (``table.stations[station 3].rack``, ``events[station 2 pass].flat_win``,
    ``seats[seat 4].won``, ``games[game 2].started``); a field missing on one side as ``(missing)``."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = [(f"{path}{k}", want[k], MISSING) for k in want if k not in got]
        for k in want:
            if k in got:
                out += field_differences(want[k], got[k], f"{path}{k}.")
        return out + [(f"{path}{k}", MISSING, got[k]) for k in got if k not in want]
    if isinstance(want, list) and isinstance(got, list):
        keys = [_key(x) for x in want]
        theirs = {_key(x): x for x in got}
        where = path.rstrip(".")
        if all(keys) and len(set(keys)) == len(keys):
            out = [(f"{where}[{k}]", x, MISSING) for k, x in zip(keys, want) if k not in theirs]
            for k, x in zip(keys, want):
                if k in theirs:
                    out += field_differences(x, theirs[k], f"{where}[{k}].")
            return out + [(f"{where}[{k}]", MISSING, x) for k, x in theirs.items() if k not in keys]
        if len(want) == len(got):
            return [f for i, (a, b) in enumerate(zip(want, got)) for f in field_differences(a, b, f"{where}[{i}].")]
    return [] if strict_equal(want, got) else [(path.rstrip(".") or "(answer)", want, got)]


def station_fields(want: Any, got: Any, path: str = "") -> list[str]:
    """The paths of :func:`field_differences`."""
    return [where for where, _, _ in field_differences(want, got, path)]


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _games(value: Any) -> list[Any] | None:
    games = value.get("games") if isinstance(value, dict) else None
    return games if isinstance(games, list) else None


def answer_fields(expected: Any, answered: Any) -> list[str]:
    """Where an answer differs: dotted paths (bets and events by bet id); for a recall the first
    game that differs, by its place in the list (``games[2].wagers.pass_odds``, ``games[1].steps``)."""
    want, got = _games(expected), _games(answered)
    if want is None or got is None:
        return differing_fields(expected, answered)
    for i, (a, b) in enumerate(zip(want, got)):
        fields = differing_fields(a, b)
        if fields:
            return [f"games[{i}].{f}" for f in fields]
    return [f"games (expected {len(want)}, answered {len(got)})"]


def _shown(value: Any) -> str:
    """An answer in a note: a recall as its games' numbers and step counts."""
    games = _games(value)
    if games is None:
        return _compact(value)
    return "games " + _compact([[g.get("game"), len(g.get("steps", []))] if isinstance(g, dict) else g
                                for g in games]) + " ([number, steps])"


def live_detail(play: Any, err: VendorFault | Divergence) -> dict[str, Any]:
    """The failing vector's whole record (see the module docstring), kept in run.db's
    ``live_failures`` for its replay."""
    _, last = last_point(play, err)
    found: dict[str, Any]
    if isinstance(err, VendorFault):
        found = {"asked": play.asking or (play.transcript[-1]["asked"] if play.transcript else "table.open"),
                 "fault": {"kind": err.kind.value, "detail": err.detail, "stderr": last_line(err.stderr_tail)}}
    else:
        found = {"asked": err.asked, "expected": err.expected, "answered": err.answered,
                 "fields": answer_fields(err.expected, err.answered)}
    return {"interruptions": [p.record() for p in play.made],
            "last_interruption": None if last is None else {"step": last.step, "mode": last.mode,
                                                            "point": last.describe()},
            "restored": play.restored, "divergence": found, "transcript": play.transcript[-TRANSCRIPT_TAIL:]}


def _summary(games: list[Any]) -> list[Any]:
    """A recall's games in brief: number, how many steps, the categories wagered."""
    return [{"game": g.get("game"), "steps": len(g.get("steps") or []),
             "wagers": {k: v for k, v in (g.get("wagers") or {}).items() if v}} if isinstance(g, dict) else g
            for g in games]


RECORD_REQUESTS = ("table.recall", "table.meters")
"""The requests whose answers (a table's records, its meters) a failure row keeps by the field that differs."""


def compared_pair(err: VendorFault | Divergence) -> tuple[dict[str, Any], Any]:
    """What the failure row keeps as expected and answered, so the findings and the causes
    compare them field by field and a cause line names what differs in the lab's words:

    * a fault of the vendor: ``{"fault": KIND}`` answered where every request was to be answered
      (:data:`~tablecert.harness.answers.causes.LIVE_FAULTS` words it: the vendor crashed, a
      restarted instance greeted as another build ...);
    * a recall or the meters: the request and the first field that differs, by station, seat and
      game (``{"table.recall": {"games[game 2].status": "complete"}}``: the cause line reads
      ``craps.stations: table.recall.games[game 2].status ...``), times out of order as the
      field ``times``;
    * any other answer (a step, a resume) as it is."""
    if isinstance(err, VendorFault):
        return {"result": {"answered": True}}, {"fault": err.kind.value}
    request = next((r for r in RECORD_REQUESTS if err.asked.startswith(r)), None)
    if request is not None:
        if ": times " in err.asked:
            return {"result": {request: {"times": err.expected}}}, {request: {"times": err.answered}}
        where, want, got = (field_differences(err.expected, err.answered) or [("(answer)", err.expected, err.answered)])[0]
        where = re.sub(r"game \d+", "game", where)        # one cause whichever game it is met in
        return {"result": {request: {where: want}}}, {request: {where: got}}
    return {"result": _code_only(err.expected)}, _code_only(err.answered)


def _code_only(value: Any) -> Any:
    """A refusal judged by its code alone (:func:`~tablecert.harness.live.cuts.coded`) as a step's
    record names one: ``{"error": CODE}``."""
    if isinstance(value, dict) and set(value) == {"error"} and isinstance(value["error"], dict):
        return {"error": value["error"].get("code")}
    return value


def last_point(play: Any, err: VendorFault | Divergence) -> tuple[int, Any]:
    """The interruption a finding names and how many cuts were made up to it: the last one made,
    a step sent again only when its answer is the divergent one (else the last cut before it)."""
    resent_diverged = not isinstance(err, VendorFault) and "sent again" in str(err)    # a Divergence: what was asked
    made = [p for p in play.made if p.mode != RESENT or resent_diverged]
    if not made:
        return 0, None
    return sum(1 for p in play.made[:play.made.index(made[-1]) + 1] if p.mode != RESENT), made[-1]


FAULT_WORDS = {FaultKind.CRASH: "the vendor crashed", FaultKind.TIMEOUT: "the vendor did not answer in time",
               FaultKind.BAD_HELLO: "the restarted instance greeted as another build",
               FaultKind.STATE_LIMIT: "the vendor's state_dir outgrew the lab's limit"}
"""A vendor fault during live play in the lab's words (others: "the vendor faulted")."""


def last_line(stderr_tail: str) -> str:
    """The vendor's last non-empty line on stderr (300 characters at most; empty if none)."""
    return next((line.strip()[:300] for line in reversed(stderr_tail.splitlines()) if line.strip()), "")


def fault_words(err: VendorFault, asking: str) -> str:
    """A vendor's fault during live play in the lab's words: what happened, during which request
    (``asking``: :attr:`~tablecert.harness.instance.vendor_instance.VendorInstance.asking`), the harness's
    detail and the vendor's last line on stderr (``the vendor crashed during table.step 7 of
    table s3 (crash: vendor closed its output: exit status 1); its last line on stderr: ...``)."""
    words = FAULT_WORDS.get(err.kind, "the vendor faulted")
    during = f" during {asking}" if asking else ""
    last = last_line(err.stderr_tail)
    return (f"{words}{during} ({err.kind.value}: {err.detail[:200]})"
            + (f"; its last line on stderr: {last}" if last else "; nothing on stderr"))


def finding_note(play: Any, err: VendorFault | Divergence, points: dict[int, str]) -> str:
    """One line: the interruption point, the state restored vs expected, the first divergent answer."""
    cuts, last = last_point(play, err)
    where = (f"after interruption {cuts} ({len(points)} planned while steps play, besides the life cuts), "
             f"{last.describe()}" if last is not None else f"before any interruption ({len(points)} planned)")
    if isinstance(err, VendorFault):
        note = f"live table: {where}: {fault_words(err, play.asking)}"
    else:
        fields = answer_fields(err.expected, err.answered)
        restored = (f"; restored {_compact(play.restored)}" if play.restored is not None and "resume" in err.asked
                    else "")
        note = (f"live table: {where}; first divergent answer: {err.asked}{restored}; differs in "
                f"{', '.join(fields[:8]) or '(answer)'}; expected {_shown(err.expected)} -> answered "
                f"{_shown(err.answered)}")
    return note if len(note) <= NOTE_CHARS else f"{note[:NOTE_CHARS]}..."


def _divergent_step(record: dict[str, Any], n_steps: int) -> int:
    """The step after which a failing vector's script can be cut (the divergent one, or the last)."""
    step = divergent_step(str(record.get("divergence", {}).get("asked", "")))
    return min((n_steps - 1 if step is None else step) + 1, n_steps)


def live_replays(failures: Any, ops: Any, findings: Iterable[LiveFailure], name: Any) -> dict[str, str]:
    """Replay files (name -> text) for the failing live vectors (of the ``ops``) among ``failures``
    (:class:`~tablecert.harness.model.Failure` records): one per failing group, named ``name(file, op, tg_id)`` as every replay of a
    group is (the reports point there), one JSON line per failing vector, from its finding's whole
    record (``findings``: run.db's ``live_failures``), with the oracle's records of the steps
    kept (for :func:`~tablecert.harness.live.driver.replay_live`)."""
    details = {(f.file, f.op, f.tc_id): f.detail for f in findings}
    out: dict[str, str] = {}
    for rec in failures:
        detail = details.get((rec.file, rec.op, rec.tc_id))
        op = rec.op
        if op not in ops or not isinstance(detail, dict):
            continue
        config, case = json.loads(rec.config), json.loads(rec.case)
        if not isinstance(case, dict):
            continue
        steps = case["steps"]
        cut = _divergent_step(detail, len(steps))
        parse, play = SUITE_ORACLE[op]
        expected = play(parse(config), case)["steps"][:cut]
        kills = [p for p in detail.get("interruptions", []) if p["step"] < cut or p.get("closed")]
        replay = {"replay": "tablecert live table", "tcId": rec.tc_id, "how": HOW, "config": config,
                  "game": GAME_OF_OP.get(op, op),
                  "case": dict(case, steps=steps[:cut]), "interruptions": kills,
                  "last_interruption": detail.get("last_interruption"), "restored": detail.get("restored"),
                  "divergence": detail.get("divergence"), "expected": {"steps": expected}}
        file = name(rec.file, op, rec.tg_id)
        out[file] = out.get(file, "") + json.dumps(replay, sort_keys=True, separators=(",", ":")) + "\n"
    return out
