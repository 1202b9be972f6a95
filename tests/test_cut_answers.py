"""A failing answer too long to store whole is judged and diagnosed before it is cut (issue #40):
the cut text kept in run.db is never compared as if the vendor had sent it, and the cause line
names the field that really differs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from tablecert.harness.answers.causes import run_causes
from tablecert.harness.answers.differences import is_cut, stored_differences
from tablecert.harness.model import ANSWER_STORED, Batch
from tablecert.harness.store import RunStore
from tablecert.harness.instance.vectors import judge_batch
from tablecert.oracle.craps_round import parse_round_config, play
from tablecert.oracle.profiles import load_profile

FILLERS = (5, 6, 8, 9, 10, 3, 11, 12, 2)      # no decision for a pass bet on 4
DICE = {2: [1, 1], 3: [1, 2], 4: [1, 3], 5: [2, 3], 6: [3, 3], 8: [4, 4], 9: [4, 5], 10: [5, 5], 11: [5, 6],
        12: [6, 6]}


def long_round() -> tuple[dict, dict]:
    """A 200-step round (the most the contract allows): a pass bet, the point 4, 197 rolls that
    decide nothing, and the point made on the last step."""
    config = dict(load_profile("odds-3-4-5x").craps, house_rules={})
    rolls = [4] + [FILLERS[i % len(FILLERS)] for i in range(197)] + [4]
    case = {"rack": 100_000, "steps": [{"act": "bet", "bet": "pass", "amount": 500}]
            + [{"act": "roll", "dice": DICE[t]} for t in rolls]}
    return config, case


def test_a_long_round_wrong_only_in_its_last_step_is_caused_by_that_field(tmp_path: Path) -> None:
    config, case = long_round()
    expected = play(parse_round_config(config), case)
    assert len(case["steps"]) == 200 and expected["steps"][-1]["events"][0]["outcome"] == "win"
    answer = copy.deepcopy(expected)
    answer["steps"][-1]["events"][0]["flat_win"] = 499        # a 1:1 win of 500 paid as 499, last step only
    assert len(json.dumps(answer)) > 10 * ANSWER_STORED        # hundreds of steps: cut when stored
    batch = Batch("craps.round.long", "craps.round", 1, config, [1], [case], [{"result": expected}],
                  [["PlayRound"]], [["craps.sw.1"]], ["a long round"])
    outcome = judge_batch(batch, [answer])
    assert len(outcome.failures) == 1
    db = RunStore(tmp_path / "run.db")
    db.record(outcome)
    db.close()

    stored = json.loads(outcome.failures[0].actual)
    assert is_cut(stored) and stored["verdict"] == "fail"
    assert stored["first_difference"] == "steps[199].events[0].flat_win"
    causes = run_causes(tmp_path).causes
    assert [c.title for c in causes] == ["craps.round: steps[].events[].flat_win too low"]
    assert causes[0].kind == "amount" and causes[0].failed == 1
    # the divergence note kept with its comment names the same step and field
    assert "first divergent step 199" in outcome.failures[0].comment and "events.pass.flat_win: 500 -> 499" in \
        outcome.failures[0].comment


def test_a_cut_answer_of_an_earlier_release_is_not_compared_as_an_answer(tmp_path: Path) -> None:
    cut = {"tablecert_cut": "answer of 90,000 characters cut to its first 4,096", "start": '{"steps":[{"acc'}
    diffs, fields = stored_differences("craps.round", {"result": {"steps": []}}, cut)
    assert [(d.field, d.kind) for d in diffs] == [("answer (cut, not compared)", "value")]
    assert "start" not in fields and "tablecert_cut" not in fields
