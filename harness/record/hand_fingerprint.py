"""Fingerprints of a hand suite's wrong hands (``hand_failures``), computed at the speed of the data.

A vendor wrong on every hand of ``exhaustive`` leaves 308,286,160 rows of seven integer codes.
Hashing each row in Python (what :mod:`tablecert.harness.record.judged_record` does for the other tables) would
take about half an hour per pass; reading them out of SQLite alone costs more than a microsecond a
row. So these rows are fingerprinted by arithmetic that SQLite evaluates inside one aggregate scan
(per op, on as many threads: SQLite runs without Python's lock) and numpy evaluates on each
batch's rows as they are written:

* a *lane* is a pair of linear forms of a row's codes (seven coefficients and a constant each,
  below P = 2^31 - 1); the row's value in the lane is ``(left mod P) * (right mod P) mod P``;
* a :class:`Fingerprint` is the number of rows and, per lane, the plain sum of the rows' values
  (below 2^60 for any number of rows a suite can have: exact in SQLite and in numpy);
* the sums do not depend on the order rows were written in (workers, shards, resumed runs).

For valid rows every intermediate stays below 2^62, so SQLite and numpy agree exactly; a row
changed to values out of range makes SQLite leave integers, which shows as a different sum.

:data:`PUBLIC` lanes have fixed coefficients (derived from a label by SHA-256): they are what
``summary.json`` records and signing and merging recompute. :func:`secret_lanes` draws lanes at
random for one process, kept in its memory only: against them a change to the table cannot be
aimed, which is what the harness checks its run database with before a verdict. A fingerprint is
a check for changed rows, not a signature (the signature is over ``summary.json``).
"""

from __future__ import annotations

import hashlib
import itertools
import secrets
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tablecert.harness.store import open_reader

P = 2**31 - 1
COLUMNS = ("op", "expected", "actual", "cause", "simplicity", "tc_id", "features")
PARTS = (True, False)
"""The table's two ops (op code 0, the others), scanned on two threads."""


@dataclass(frozen=True)
class Lane:
    """Two linear forms of a row's codes (coefficients, then the constant)."""

    left: tuple[int, ...]
    right: tuple[int, ...]

    def total(self, rows: np.ndarray) -> int:
        """The lane's sum over ``rows`` (n x 7, int64)."""
        left = (rows @ np.array(self.left[:-1], dtype=np.int64) + self.left[-1]) % P
        right = (rows @ np.array(self.right[:-1], dtype=np.int64) + self.right[-1]) % P
        return int((left * right % P).sum())


def _lane(draw: Callable[[], int]) -> Lane:
    return Lane(tuple(draw() for _ in range(len(COLUMNS) + 1)), tuple(draw() for _ in range(len(COLUMNS) + 1)))


def _public(label: str, count: int) -> tuple[Lane, ...]:
    counter = itertools.count()

    def draw() -> int:
        digest = hashlib.sha256(f"{label} {next(counter)}".encode()).digest()
        return 1 + int.from_bytes(digest, "big") % (P - 1)
    return tuple(_lane(draw) for _ in range(count))


PUBLIC = _public("tablecert hand_failures fingerprint 1", 2)
"""The lanes ``summary.json`` records (fixed: part of the run folder's format)."""


def secret_lanes(count: int = 2) -> tuple[Lane, ...]:
    """Lanes drawn at random for this process (never written anywhere)."""
    return tuple(_lane(lambda: 1 + secrets.randbelow(P - 1)) for _ in range(count))


@dataclass(frozen=True)
class Fingerprint:
    """Rows and per-lane sums of a set of ``hand_failures`` rows."""

    lanes: tuple[Lane, ...]
    rows: int
    sums: tuple[int, ...]

    @classmethod
    def empty(cls, lanes: tuple[Lane, ...]) -> Fingerprint:
        return cls(lanes, 0, (0,) * len(lanes))

    def plus(self, rows: Sequence[tuple[int, ...]]) -> Fingerprint:
        """With ``rows`` (as written to the table) added."""
        codes = np.array(rows, dtype=np.int64).reshape(len(rows), len(COLUMNS))
        return Fingerprint(self.lanes, self.rows + len(rows),
                           tuple(s + lane.total(codes) for s, lane in zip(self.sums, self.lanes)))

    def only(self, lanes: tuple[Lane, ...]) -> Fingerprint:
        """The same fingerprint restricted to ``lanes`` (some of its own)."""
        return Fingerprint(lanes, self.rows, tuple(self.sums[self.lanes.index(lane)] for lane in lanes))

    def text(self) -> str:
        """As ``summary.json`` records it: rows, then each lane's sum in hex."""
        return f"{self.rows} rows " + " ".join(f"{s:015x}" for s in self.sums)


def database_fingerprint(path: Path, lanes: tuple[Lane, ...]) -> Fingerprint:
    """The fingerprint of the ``hand_failures`` rows of the run database at ``path`` (read only,
    one aggregate scan per op, on two threads)."""
    forms = [(lane.left, lane.right) for lane in lanes]

    def scan(first_op: bool) -> tuple[int, ...]:
        with open_reader(Path(path)) as db:
            return db.hand_failure_sums(forms, P, first_op)

    with ThreadPoolExecutor(len(PARTS)) as pool:
        parts = list(pool.map(scan, PARTS))
    return Fingerprint(lanes, sum(p[0] for p in parts),
                       tuple(sum(p[i + 1] for p in parts) for i in range(len(lanes))))
