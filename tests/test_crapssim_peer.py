"""A real engine in the project's own tests (issue #40): crapssim 0.4.1 (the ``peers`` extra, which
``make test`` installs), wrapped from the contract as a ``craps.settle`` and ``craps.round`` vendor
(peers/crapssim_vendor.py), certified by ``tablecert certify`` as a subprocess.

Every difference from the oracle must be one the interpretation register names: crapssim hands a
don't bet pushed on the bar back (INT-BAR-PUSH's other reading, ``bar_push: "returned"``), and
the tables it does not offer (a commission, bar 2, payouts rounded down) are declared out, never
failed. Declared with its real rules (``--house-rules real``: ``bar_push: ["returned"]``, and
*since 1.1* ``press_unset: [true]``, a line bet before its point added to, which crapssim's
``Player.add_bet`` does) it is certified for what it declares, *since 1.2* (issue 50) on at least
10,000 rounds: those of its table that never read the rules it does not play at the suite's value
are sent on its table with its values (harness/answers/alike_rounds.py)."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

from tablecert.harness.answers.round_findings import first_divergence
from tablecert.oracle.craps_round import HOUSE_RULES, OPT_IN_RULES

PEER = Path(__file__).parent.parent / "peers" / "crapssim_vendor.py"


def peer_module():
    spec = importlib.util.spec_from_file_location("crapssim_vendor", PEER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def certify(suite: Path, name: str, out: Path, *peer_args: str, extra: tuple[str, ...] = ()) -> tuple[int, dict]:
    command = shlex.join([sys.executable, str(PEER), *peer_args])
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", command, "--suite", name,
                           "--suite-dir", str(suite), "--out", str(out), "--quiet", "--isolation", "none", *extra],
                          capture_output=True, text=True, timeout=3000)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, json.loads((out / "summary.json").read_text())


def is_bar_push_handed_back(config: dict, case: dict, expected: dict, answered: dict) -> bool:
    """Whether a round's first difference is a don't bet pushed on the bar that stays on the layout
    under ``bar_push: "stays"`` (the oracle) and is handed back (crapssim): every field that differs
    at that step is that bet's stake, the chips handed back, or the table they leave."""
    if config["house_rules"].get("bar_push", HOUSE_RULES["bar_push"][1]) != "stays":
        return False
    div = first_divergence(case, expected, answered)
    if div is None or not div["act"] or div["act"]["act"] != "roll" or sum(div["act"]["dice"]) != config["bar"]:
        return False
    pushed = {e["bet"] for e in div["expected"]["events"] if e["outcome"] == "push" and e["bet"].startswith("dont")}
    handed_back = {e["bet"] for e in div["answered"]["events"] if e["outcome"] == "push" and e["flat_stake"] == "returned"}
    allowed = {f"events.{b}.{f}" for b in pushed for f in ("flat_stake", "flat_returned")} | {"table.rack"}
    return bool(pushed) and pushed == handed_back and all(
        f in allowed or f.startswith("table.bets") for f in div["fields"])


def test_crapssim_differs_from_the_oracle_only_where_the_register_says(rounds_suite: Path, tmp_path: Path) -> None:
    code, summary = certify(rounds_suite, "rounds", tmp_path / "before")
    totals = summary["totals"]
    assert code == 1 and summary["verdict"] == "fail"
    assert totals["fail"] > 0 and totals["pass"] > 0 and totals["unsupported"] > 0
    not_certified = summary["scope"]["features_not_certified"]
    assert {"commission", "bar=2", "payout_rounding=down"} <= set(not_certified)
    assert all(not f.startswith("house_rule:") for f in not_certified)        # every house rule declared
    # ... but the opt-in press_unset (since 1.1), not named, at its default only: its rounds outside
    assert summary["scope"]["round_play"]["house_rules"]["press_unset"] == {
        "values": [False], "default": False, "register": "INT-PRESS-UNSET", "not_certified": [True]}
    assert OPT_IN_RULES == {"press_unset"}
    peer = peer_module()
    db = sqlite3.connect(tmp_path / "before" / "run.db")
    rows = db.execute('SELECT op, config, "case", expected FROM failures').fetchall()
    assert len(rows) == totals["fail"]
    for op, config, case, expected in rows:
        config, case, expected = json.loads(config), json.loads(case), json.loads(expected)
        answered = peer.play_round(peer.parse_table(config, True), case)     # whole, not the stored cut text
        assert op == "craps.round" and is_bar_push_handed_back(config, case, expected["result"], answered), case
    print(f"\ncrapssim on rounds, every house rule declared: {totals}")


def test_crapssim_declared_with_its_real_rules_is_certified_for_what_it_declares(rounds_suite: Path,
                                                                                   tmp_path: Path) -> None:
    code, summary = certify(rounds_suite, "rounds", tmp_path / "after", "--house-rules", "real")
    totals = summary["totals"]
    assert (code, summary["verdict"]) == (0, "scoped_pass") and totals["fail"] == 0 and totals["fault"] == 0
    scope = summary["scope"]
    for setting in ("house_rule:bar_push=stays", "house_rule:press_unset=false"):
        assert scope["features_not_certified"][setting]["declared"] is False
    played = scope["round_play"]["house_rules"]
    assert (played["bar_push"]["values"], played["bar_push"]["not_certified"]) == (["returned"], ["stays"])
    assert (played["press_unset"]["values"], played["press_unset"]["not_certified"]) == ([True], [False])
    # since 1.2 the rounds that play alike under its settings (no bar push, no line bet pressed:
    # harness/answers/alike_rounds.py) are sent on its table with them and judged: every value of
    # every other rule, and at least 10,000 rounds (issue 50), every one passed
    for name, (values, default, _) in HOUSE_RULES.items():
        if name not in ("bar_push", "press_unset"):
            assert played[name]["values"] == list(values) and played[name]["not_certified"] == []
    assert scope["round_play"]["passed"] == scope["round_play"]["rounds"] >= 10_000
    documented = re.search(r"`press_unset=true`: ([\d,]+)\s+rounds", (PEER.parent.parent / "docs" / "labs" /
                                                                   "rounds.md").read_text())
    assert documented and int(documented.group(1).replace(",", "")) == scope["round_play"]["rounds"]
    assert totals["pass"] >= 10_000
    db = sqlite3.connect(tmp_path / "after" / "run.db")
    assert db.execute("SELECT COUNT(*) FROM failures").fetchone() == (0,)
    print(f"\ncrapssim on rounds, declared with its real rules: {totals}; {summary['verdict']}: "
          f"{summary.get('verdict_reasons') or summary.get('reasons')}; round play {scope['round_play']}")


def test_crapssim_settles_every_settle_vector_it_declares_like_the_oracle(edge: Path, tmp_path: Path) -> None:
    code, summary = certify(edge, "edge", tmp_path / "settle", extra=("--require", "craps.settle"))
    assert summary["totals"]["fail"] == 0 and summary["totals"]["fault"] == 0
    assert summary["verdict"] == "scoped_pass" and code == 0
    assert "craps.settle" in summary["scope"]["tested"]
    print(f"\ncrapssim on edge (craps.settle): {summary['totals']}")
