"""Playing a pai gow table of the live suite with its game records and meters (New; a vendor whose
hello declares ``paigow_records``), judged against the oracle
(:class:`tablecert.oracle.paigow_records.PaigowBooks`).

:class:`PaigowPlayer` plays a pai gow vector exactly as
:func:`~tablecert.harness.live.driver.play_vector` plays it (every cut, storm, step sent again and
closed check), and wherever the driver judges the recall (after the table is opened, after every
game, after every restart and at the end) it judges instead the recall with its record fields
(the round in progress last; the vendor's ``started`` and ``ended`` judged for presence and order
by :func:`~tablecert.harness.live.stations.time_problem`, then left out of the comparison) and
``table.meters``, each against the oracle's books of the same steps with this run's ``config``
digest and the vendor's ``build``. What was asked names the last event before it (the cut) and an
answer that differs the first field that differs (``table.meters after the restart (...) (last
event: the cut ...): first field table.won``). A vendor that does not declare ``paigow_records``
is played by the driver alone, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablecert.harness.live.cuts import RESENT, VectorLife
from tablecert.harness.live.driver import Play, play_vector, replay_live, table_id
from tablecert.harness.instance.vendor_instance import VendorInstance
from tablecert.harness.live.stations import declared_features, judge_answer
from tablecert.oracle.game_records import config_digest
from tablecert.oracle.live_tables import RECALL_GAMES
from tablecert.oracle.paigow_records import FEATURE, PaigowBooks


@dataclass
class PaigowPlayer:
    """Plays pai gow vectors with their records judged (see the module docstring): ``build`` the
    vendor's. Called as :func:`~tablecert.harness.live.driver.play_vector` is."""

    build: str

    def __call__(self, control: VendorInstance, config: Any, tc_id: int, case: dict[str, Any],
                 expected: list[dict[str, Any]], points: dict[int, str], play: Play, game: str = "paigow",
                 life: VectorLife | None = None) -> None:
        tid = table_id(tc_id, game)
        steps = case["steps"]
        books = PaigowBooks(case["rack"], {"config": config_digest(config), "build": self.build},
                            keep=RECALL_GAMES)      # the oracle's, step by step (the driver recalls at steps that only grow)

        def records(i: int, asked: str) -> None:
            while books.steps < i:
                books.add(steps[books.steps], expected[books.steps])
            last = next((p for p in reversed(play.made) if p.mode != RESENT), None)
            event = f"(last event: {'the cut ' + last.describe() if last is not None else 'none'})"
            judge_answer(play, f"table.recall {asked} {event}", control.request("table.recall", table=tid),
                         books.recall(), recall=True)
            judge_answer(play, f"table.meters {asked} {event}", control.request("table.meters", table=tid),
                         books.meters())

        play_vector(control, config, tc_id, case, expected, points, play, game, life, records)


def replay_paigow(replay: dict[str, Any], control: VendorInstance) -> Exception | None:
    """Play a pai gow vector's replay (a line of ``failures/*.paigow.table.tgN.jsonl``) as the run
    judged it: its records and meters judged when the vendor's hello declares them now; the
    divergence or fault it meets (None if every answer is now the oracle's)."""
    control.live_session()
    hello = control.greeting
    if FEATURE not in declared_features(hello) or hello is None:
        return replay_live(replay, control)
    return replay_live(replay, control, PaigowPlayer(hello.build))
