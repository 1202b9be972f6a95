"""The reference vendor as a real subprocess speaking tablecert-vendor/1 on stdin/stdout."""

from __future__ import annotations

import json
import subprocess
import sys

from tables import raw_config
from tablecert.oracle.outcome_ops import OUTCOME_OPS
from tablecert.oracle.outcomes import RNG_OPS
from waits import HANG

PROFILE_CONFIG = raw_config()


def converse(lines: list[str]) -> tuple[list[dict], int]:
    proc = subprocess.run([sys.executable, "-m", "tablecert", "reference-vendor"], input="".join(l + "\n" for l in lines),
                          capture_output=True, text=True, timeout=HANG)
    return [json.loads(l) for l in proc.stdout.splitlines()], proc.returncode


def test_hello_batch_bye():
    requests = [
        {"id": 0, "op": "hello", "protocol": "tablecert-vendor/1"},
        # pass on 6, flat $10, 3-4-5x: free odds $50, max 10x = $100
        {"id": 1, "op": "craps.odds_limits", "config": PROFILE_CONFIG, "cases": [{"bet": "pass", "flat": 1000, "point": 6}]},
        # odds $60 on a $10 pass at 6: $10 above the $50 free limit -> 5% of 1000 = 50 cents
        {"id": 2, "op": "craps.place_odds", "config": PROFILE_CONFIG,
         "cases": [{"bet": "pass", "flat": 1000, "point": 6, "odds": 6000}, {"bet": "pass", "flat": 1000, "point": None, "odds": 100}]},
        {"id": 3, "op": "paigow.player_bonus", "config": {"cap": 4000000},
         "cases": [{"cards": ["As", "Ks", "Qs", "Js", "Ts", "2c", "3d"]}, {"cards": ["As", "As", "Qs", "Js", "Ts", "2c", "3d"]}]},
        {"id": 4, "op": "bye"},
    ]
    responses, code = converse([json.dumps(r) for r in requests])
    assert code == 0
    assert [r["id"] for r in responses] == [0, 1, 2, 3, 4]
    assert responses[0]["ops"] == ["craps.odds_limits", "craps.place_odds", "craps.settle",
                                   "paigow.player_bonus", "paigow.banker_bonus", "paigow.settle",
                                   "rng.dice", "rng.shuffle", "rng.raw", "rng.scale", "rng.paired"]   # the optional random-outcome ops last (raw and scaling: issue 35)
    assert set(responses[0]["implementation"]) == {"name", "version", "build"}
    assert responses[1]["results"] == [{"free_odds": 5000, "max_odds": 10000}]
    assert responses[2]["results"][0] == {"commission": 50}
    assert responses[2]["results"][1]["error"]["code"] == "no_point"
    assert responses[3]["results"][0] == {"hand": "royal_flush"}
    assert responses[3]["results"][1]["error"]["code"] == "invalid_hand"
    assert responses[4] == {"id": 4}


def test_request_level_faults_are_answered_not_fatal():
    responses, code = converse([
        "this is not json",
        json.dumps({"id": 1, "op": "hello", "protocol": "tablecert-vendor/9"}),
        json.dumps({"id": 2, "op": "craps.teleport", "config": {}, "cases": []}),
        json.dumps({"id": 3, "op": "craps.settle", "config": PROFILE_CONFIG, "cases": "nope"}),
        json.dumps({"id": 4, "op": "craps.settle", "config": {**PROFILE_CONFIG, "bar": 7},
                    "cases": [{"bet": "pass"}, 17]}),
        json.dumps({"id": 5, "op": "paigow.settle", "config": {}, "cases": [{}]}),
        json.dumps({"id": 6, "op": "bye"}),
    ])
    assert code == 0
    assert [r.get("error", {}).get("code") for r in responses[:4]] == [
        "invalid_request", "unsupported_protocol", "unknown_op", "invalid_request"]
    assert responses[0]["id"] is None
    # a malformed table config makes every case of the request invalid_config, naming the field
    assert [r["error"]["code"] for r in responses[4]["results"]] == ["invalid_config", "invalid_config"]
    assert "bar" in responses[4]["results"][0]["error"]["message"]
    assert responses[5]["results"][0]["error"]["code"] == "invalid_config"
    assert responses[6] == {"id": 6}


def test_end_of_input_without_bye_exits_cleanly():
    responses, code = converse([json.dumps({"id": 0, "op": "hello", "protocol": "tablecert-vendor/1"})])
    assert code == 0 and len(responses) == 1


def test_the_live_vendor_greets_without_numpy_and_deals_when_asked():
    """Restarted after every power cut of a live run, ``python -m tablecert.oracle.vendor`` loads
    neither numpy (the random outcomes' generator, loaded at the first rng op) nor
    importlib.metadata (the version is a literal) before it answers; an rng op still deals."""
    probe = ("import sys, json\nfrom tablecert.oracle import vendor\n"
             "before = [m for m in ('numpy', 'importlib.metadata') if m in sys.modules]\n"
             "hello = vendor.ReferenceVendor().handle({'id': 0, 'op': 'hello', 'protocol': 'tablecert-vendor/2'})\n"
             "dice = vendor.run_op('rng.dice', {}, [{'count': 2}])\n"
             "print(json.dumps([before, hello['ops'], hello['rng'], dice, 'numpy' in sys.modules]))\n")
    before, ops, rng, dice, after = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True,
                                                              text=True, check=True, timeout=HANG).stdout)
    assert before == [] and after is True
    assert [op for op in ops if op.startswith("rng.")] == ["rng.dice", "rng.shuffle", "rng.raw", "rng.scale", "rng.paired"]
    assert rng == {"raw_bits": 32, "scale": rng["scale"]} and rng["scale"].startswith("rng.scale runs")
    assert len(dice[0]["dice"]) == 4 and set(dice[0]["dice"]) <= set("123456")


def test_the_ops_hello_declares_are_those_the_generator_answers():
    assert tuple(RNG_OPS) == OUTCOME_OPS
