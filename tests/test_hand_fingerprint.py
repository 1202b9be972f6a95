"""A hand suite's wrong hands are checked at the speed of the data (harness/record/hand_fingerprint.py):
SQLite's aggregate and numpy's arithmetic agree exactly on any valid rows in any order, a change
to any column of any row changes the fingerprint, a vendor that reaches run.db during a hand-suite
run and edits its wrong hands gets no verdict, a database changed afterwards is not signed, and a
summary written by the release before (wrong hands hashed row by row) still checks."""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.record.hand_fingerprint import PUBLIC, Fingerprint, database_fingerprint, secret_lanes
from tablecert.harness.record.judged_record import database_digest
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.store import RunStore
from tablecert.harness.run.runner import Runner, RunError
from tablecert.harness.record.seal import run_key, seal_folder
from tablecert.reports.signing import SigningError, check_signable

sys.path.insert(0, str(Path(__file__).parent))
from hand_bug_vendors import BuggyVendor  # noqa: E402

# Valid codes: op 0/1, label indices, OTHER = 255, causes and simplicity of hand_features, tcIds of
# exhaustive (154,143,080 hands), feature masks below 2^14.
rows = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 15), st.sampled_from([*range(16), 255]),
                          st.integers(0, 13), st.integers(0, 31), st.integers(1, 154_143_080),
                          st.integers(0, 2**14 - 1)),
                min_size=0, max_size=60, unique_by=lambda r: (r[0], r[5]))


def database_with(path: Path, hand_rows: list[tuple[int, ...]]) -> RunStore:
    db = RunStore(path)
    db.db.executemany("INSERT INTO hand_failures VALUES (?, ?, ?, ?, ?, ?, ?)", hand_rows)
    return db


@settings(max_examples=40, deadline=None)
@given(rows, st.randoms(use_true_random=False))
def test_sqlite_and_numpy_agree_in_any_order(tmp_path_factory: pytest.TempPathFactory, hand_rows: list[Any],
                                             rnd: Any) -> None:
    lanes = PUBLIC + secret_lanes()
    db = database_with(tmp_path_factory.mktemp("fp") / "run.db", hand_rows)
    shuffled = list(hand_rows)
    rnd.shuffle(shuffled)
    half = len(shuffled) // 2
    written = Fingerprint.empty(lanes).plus(shuffled[:half]).plus(shuffled[half:])
    assert database_fingerprint(db.path, lanes) == written
    assert written.rows == len(hand_rows)
    db.close()


def test_a_change_to_any_column_of_any_row_is_seen(tmp_path: Path) -> None:
    base = [(0, 3, 0, 5, 2, 1_000 + i, 17 * i) for i in range(20)] + [(1, 2, 255, 0, 0, 7 + i, 1) for i in range(5)]
    before = Fingerprint.empty(PUBLIC).plus(base)
    for row in (0, 7, 24):
        for col in range(7):
            changed = list(base)
            changed[row] = tuple(v + 1 if i == col else v for i, v in enumerate(base[row]))
            assert Fingerprint.empty(PUBLIC).plus(changed) != before, (row, col)
    swapped = list(base)                             # two rows' tcIds exchanged
    swapped[0], swapped[24] = (*base[0][:5], base[24][5], base[0][6]), (*base[24][:5], base[0][5], base[24][6])
    assert Fingerprint.empty(PUBLIC).plus(swapped) != before
    assert Fingerprint.empty(PUBLIC).plus(base[:-1]) != before
    db = database_with(tmp_path / "run.db", base)
    db.db.execute("UPDATE hand_failures SET tc_id = 9223372036854775807 WHERE tc_id = 1000")   # overflows in SQL
    assert database_fingerprint(db.path, PUBLIC) != before
    db.close()


class TamperingHandVendor(BuggyVendor):
    """A joker-straight bug (so wrong hands are recorded) and, at ``bye``, an edit of run.db's
    wrong hands that leaves every count as it was."""

    RUN_DB: Path | None = None
    EDIT = ""

    def __init__(self) -> None:
        super().__init__("joker-no-straight")

    def handle(self, request: Any) -> dict[str, Any]:
        if isinstance(request, dict) and request.get("op") == "bye" and TamperingHandVendor.RUN_DB is not None:
            with sqlite3.connect(TamperingHandVendor.RUN_DB) as db:
                db.executescript(TamperingHandVendor.EDIT)
        return super().handle(request)


def hand_run(joker: Path, out: Path, vendor: type = TamperingHandVendor) -> Any:
    spec = f"{vendor.__module__}:{vendor.__qualname__}"
    adapter = PythonAdapter()
    return Runner(lambda: adapter.open(spec, SessionOptions(timeout=60)), joker, out,
                  max_hands=4_000, hand_batch_size=1_000).run()


EDITS = {
    "answer changed": "UPDATE hand_failures SET actual = expected WHERE tc_id = (SELECT MIN(tc_id) FROM hand_failures)",
    "wrong hand removed": "DELETE FROM hand_failures WHERE tc_id = (SELECT MAX(tc_id) FROM hand_failures)",
    "moved to a hand that passed": "UPDATE hand_failures SET tc_id = 1 WHERE tc_id = (SELECT MIN(tc_id) FROM hand_failures)",
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_vendor_that_edits_its_wrong_hands_gets_no_verdict(joker_suite: Path, tmp_path: Path, edit: str) -> None:
    out = tmp_path / "run"
    TamperingHandVendor.RUN_DB, TamperingHandVendor.EDIT = out / "run.db", EDITS[edit]
    try:
        with pytest.raises(RunError, match=r"changed: hand_failures\)"):
            hand_run(joker_suite, out)
    finally:
        TamperingHandVendor.RUN_DB = None
    meta = dict(sqlite3.connect(out / "run.db").execute("SELECT key, value FROM meta").fetchall())
    assert "verdict" not in meta and "judged" not in meta


def legacy_sum(db: sqlite3.Connection) -> str:
    """The release before's digest of hand_failures: the sum mod 2^256 of each row's SHA-256 of
    its repr (stated here independently of harness/record/judged_record.py)."""
    total = sum(int.from_bytes(hashlib.sha256(repr(tuple(r)).encode()).digest(), "big") for r in db.execute(
        "SELECT op, expected, actual, cause, simplicity, tc_id, features FROM hand_failures"))
    return f"{total % 2**256:064x}"


def test_wrong_hands_changed_after_the_run_are_not_signed_and_old_summaries_still_check(
        joker_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = hand_run(joker_suite, out)               # no edit: the run concludes
    assert result.verdict == "fail"
    seal_folder(out, run_key())        # as certify seals a run (this test drives the Runner alone)
    summary = write_outputs(out)
    assert summary["judged"]["hand_failures"].startswith(f"{result.totals['fail']} rows ")
    check_signable(out)
    db = RunStore(out / "run.db")
    recorded = db.meta()["judged"]
    # as the release before wrote it: hand_failures hashed row by row, no hand_causes entry
    old = {k: v for k, v in recorded.items() if k != "hand_causes"} | {"hand_failures": legacy_sum(db.db)}
    assert database_digest(db, old) == old
    db.db.execute("UPDATE hand_failures SET features = features + 1 WHERE tc_id = (SELECT MIN(tc_id) FROM hand_failures)")
    assert database_digest(db, old) != old
    db.close()
    with pytest.raises(SigningError, match="no longer holds what the harness recorded"):
        check_signable(out)
