"""``--scaling exhaustive`` (tablecert.rng.scale_exhaustive) on a reduced path: 16-bit words in small
batches, so that every word is sent in many requests; stopped midway and resumed, the law is the
same. Expected laws worked out by hand."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import raw_scalers as s

from tablecert.rng.scale_analysis import analyse

W = 16
T = 1 << W


def as_list(scale):
    return lambda kind, n, words: scale(kind, n, [int(w) for w in words])


def exact16(w: int, k: int) -> int | None:
    return w % k if w < T - T % k else None


def test_modulo_die_every_word(tmp_path: Path) -> None:
    """w % 6 on 16-bit words: 65,536 = 6 * 10,922 + 4, faces 4 and 5 have 10,922 words: 1/6 -
    10,922/65,536 = 1/98,304."""
    result = analyse(as_list(s.as_scale(s.modulo)), "die", 6, W, exhaustive=tmp_path / "state.json")
    assert Fraction(result["max_deviation"]) == Fraction(1, 98_304) and result["refused"] == 0


def test_rejection_is_exact_with_the_refused_words_counted(tmp_path: Path) -> None:
    """Rejection at 65,532: the 4 top words refused, each face 10,922 of 65,532."""
    result = analyse(as_list(s.as_scale(exact16)), "die", 6, W, exhaustive=tmp_path / "state.json")
    assert result["max_deviation"] == "0" and result["refused"] == 4 and result["decision"] == "pass"


class Stop(Exception):
    pass


def test_stopped_and_resumed_gives_the_same_law(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 1,000 words; the run is stopped after 20 batches (state on disk: word 20,000 or
    so), then resumed from the state: the same law as one run, which is (w >> 4) % 6's:
    2^12 = 6 * 682 + 4 top halves, each 16 words: faces 4, 5 have 682 * 16 words of 2^16."""
    import tablecert.rng.scale_exhaustive as ex
    calls = []
    scaler = as_list(s.as_scale(lambda w, k: (w >> 4) % k))

    def stopping(kind, n, words):
        calls.append(len(words))
        if calls.count(1_000) == 21:                   # the 21st batch (the one-word check sends 8 words)
            raise Stop
        return scaler(kind, n, words)

    state = tmp_path / "state.json"
    original = ex.exhaustive_law

    def small_batches(*args, **kw):
        return original(*args, **{**kw, "batch": 1_000})
    monkeypatch.setattr("tablecert.rng.scale_analysis.exhaustive_law", small_batches)
    with pytest.raises(Stop):
        analyse(stopping, "die", 6, W, exhaustive=state)
    saved = json.loads(state.read_text())
    assert saved["next"] == 20_000
    seen: list[int] = []
    result = analyse(scaler, "die", 6, W, exhaustive=state, progress=lambda done, total: seen.append(done))
    assert seen[0] == 21_000 and seen[-1] == T          # resumed after the 20 batches done
    assert Fraction(result["max_deviation"]) == Fraction(1, 6) - Fraction(682 * 16, T)


def test_bad_outcomes_are_counted_outside(tmp_path: Path) -> None:
    """Faces 1..6 (rejection at 65,532): face 6 has 10,922 of 65,532 words, face 0 none."""
    result = analyse(as_list(s.as_scale(s.faces_from_one(W))), "die", 6, W, exhaustive=tmp_path / "s.json")
    assert result["decision"] == "fail" and Fraction(result["outside"]["share"]) == Fraction(1, 6)


@pytest.mark.parametrize("mode", ["width-8", "width-8-packed"])
def test_the_command_sends_every_word(tmp_path: Path, mode: str) -> None:
    """``tablecert rng --raw --scaling exhaustive`` against a vendor of 8-bit words (rejection at
    252 for the die, 200 for the range 100): every word sent, the 4 and 56 top words refused,
    each outcome exact, and every word at every swap of the shuffle; the state of each sweep kept
    in --out. (8 bits, not 16: at 16 bits the shuffle's sweep is 52 x 2^16 decks, minutes.) The
    packed vendor (since 1.1) refuses the sweep asked as JSON lists: the command asks it packed."""
    import subprocess
    import sys

    from waits import HANG

    vendor = Path(__file__).parent / "raw_vendor.py"
    done = subprocess.run([sys.executable, "-m", "tablecert", "rng", "--vendor-cmd", f"{sys.executable} {vendor} {mode}",
                           "--out", str(tmp_path), "--raw", "10000000", "--raw-repeat-words", "0", "--scaling", "exhaustive", "--pairs", "500",
                           "--quiet"], capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr
    s = json.loads((tmp_path / "raw-summary.json").read_text())
    die, shuffle, hundred = s["scaling"]
    assert die["models"] == ["every one of the 2^8 words sent, in order"] and die["refused"] == 4
    assert shuffle["models"] == ["every one of the 2^8 words sent"] and shuffle["max_deviation"] == "0"
    assert hundred["refused"] == 256 % 100 == 56 and hundred["max_deviation"] == "0"
    assert json.loads((tmp_path / "scaling-exhaustive-die-6.json").read_text())["next"] == 1 << 8


class PackedSession:
    """``rng.scale`` answered packed (*since 1.1*) by ``w % 6`` on 16-bit words, or by ``answer``."""

    def __init__(self, answer: dict | None = None) -> None:
        self.answer = answer
        self.asked: list[dict] = []

    def batch(self, op: str, config: dict, cases: list[dict]) -> list[dict]:
        import base64

        import numpy as np

        self.asked += cases
        if self.answer is not None:
            return [self.answer]
        words = np.frombuffer(base64.b64decode(cases[0]["words"]), ">u2")
        return [{"outcomes": base64.b64encode((words % 6).astype(">u2").tobytes()).decode(),
                 "consumed": base64.b64encode(np.ones(len(words), ">u2").tobytes()).decode()}]


def test_packed_answers_give_the_same_exact_law(tmp_path: Path) -> None:
    """``w % 6`` on 16-bit words answered packed: 65,536 = 6 x 10,922 + 4, so faces 0..3 have
    10,923 words and faces 4, 5 10,922; every case asked packed."""
    from tablecert.rng.raw_collect import RngDeclaration, scale_packed
    from tablecert.rng.scale_exhaustive import exhaustive_law

    session = PackedSession()
    decl = RngDeclaration(16, "", packed=True)
    law, refused = exhaustive_law(lambda words: scale_packed(session, decl, "die", 6, words), 6, 16,  # type: ignore[arg-type]
                                  tmp_path / "s.json", batch=1 << 13)
    assert law.counts == [10_923] * 4 + [10_922] * 2 and refused == 0 and not law.outside
    assert len(session.asked) == 8 and all(c["packed"] is True for c in session.asked)


@pytest.mark.parametrize("answer, says", [
    ({"outcomes": "AAA", "consumed": "AAE="}, "outcomes: 'words' is not a base64 string"),
    ({"outcomes": "AAE=", "consumed": "AAA="}, "each count 1 or more"),
    ({"outcomes": "AAEAAQ==", "consumed": "AAE="}, "2 outcomes and 1 counts"),
    ({"outcomes": "AAE=", "consumed": "//8="}, "at most the 1 words given"),
    ({"error": {"code": "invalid_request", "message": "no"}}, "(packed): {'code': 'invalid_request'"),
])
def test_a_bad_packed_answer_is_a_fault_in_one_line(answer: dict, says: str) -> None:
    from tablecert.harness.contract import VendorFault
    from tablecert.rng.raw_collect import RngDeclaration, scale_packed

    with pytest.raises(VendorFault) as err:
        scale_packed(PackedSession(answer), RngDeclaration(16, "", packed=True), "die", 6, np.arange(1, dtype=np.uint64))  # type: ignore[arg-type]
    assert says in str(err.value) and "\n" not in str(err.value)


def test_packed_is_read_from_hello_only_when_true() -> None:
    from tablecert.rng.raw_collect import declaration

    hello = {"ops": ["rng.raw", "rng.scale"], "rng": {"raw_bits": 32, "scale": "s"}}
    assert not declaration(hello, ("rng.scale",)).packed
    assert not declaration({**hello, "rng": {**hello["rng"], "packed": "yes"}}, ("rng.scale",)).packed
    assert declaration({**hello, "rng": {**hello["rng"], "packed": True}}, ("rng.scale",)).packed
