"""What a vector can come to in a run, and the one way an outcome is counted over many vectors.

:class:`Outcome` is stored in ``run.db`` (the ``counts`` table's last column) as its value, the
same strings as before it was an Enum (``pass``, ``fail``, ``unsupported``, ``fault``): a
``StrEnum`` member *is* that string, so it is bound, hashed, compared and written to JSON as it.
:class:`BatchStatus` is a batch's own state in the ``batches`` table, :class:`Verdict` a run's.

:func:`count_vectors` adds vectors with one outcome to a batch's counts (per op, clause, flag and
op-and-flag): every judge counts through it, one vector or a whole batch at a time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from enum import StrEnum


class Outcome(StrEnum):
    """The outcome of one vector."""

    PASS = "pass"                  # the vendor's answer is the expected one
    FAIL = "fail"                  # it answered something else
    UNSUPPORTED = "unsupported"    # its op (or a feature of it) is outside what the vendor declared: not sent
    FAULT = "fault"                # the vendor faulted on it every time (crash, hang, malformed answer...)


ANSWERED = (Outcome.PASS, Outcome.FAIL)
"""The outcomes of a vector the vendor answered."""


class Verdict(StrEnum):
    """What a run comes to as a whole (``summary.json``'s ``verdict``, the run's meta; decided by
    :mod:`tablecert.harness.record.verdict`)."""

    PASS = "pass"                  # CERTIFIED: every vector of the required scope answered and passed
    SCOPED_PASS = "scoped_pass"    # CERTIFIED FOR A STATED SCOPE: passed what it declared, the rest named
    FAIL = "fail"                  # NOT CERTIFIED
    INCOMPLETE = "incomplete"      # no certificate: not all of the scope was judged


EXIT_CODES = {Verdict.PASS: 0, Verdict.SCOPED_PASS: 0, Verdict.FAIL: 1, Verdict.INCOMPLETE: 2}
"""The exit status of a command that concluded a run (``certify``, ``validate``, ``merge``), by verdict."""


class BatchStatus(StrEnum):
    """What became of a batch as a whole (the ``batches`` table's ``status``)."""

    DONE = "done"                  # every vector answered (or not sent: unsupported)
    UNSUPPORTED = "unsupported"    # nothing of it was sent
    FAULT = "fault"                # nothing of it was answered
    PARTIAL = "partial"            # some of it was answered, some is ``fault``


Counts = Counter[tuple[str, str, str]]


def count_vectors(counts: Counts, op: str, outcome: str, n: int, clauses: Iterable[tuple[str, int]],
                  flags: Iterable[tuple[str, int]]) -> None:
    """Add ``n`` vectors of ``op`` with ``outcome``, holding the clauses and flags given with how
    many of those vectors hold each."""
    counts[("op", op, outcome)] += n
    for c, k in clauses:
        counts[("clause", c, outcome)] += k
    for f, k in flags:
        counts[("flag", f, outcome)] += k
        counts[("op_flag", f"{op} {f}", outcome)] += k


def count_one(counts: Counts, op: str, clauses: Iterable[str], flags: Iterable[str], outcome: str) -> None:
    """One vector of ``op`` with ``outcome`` (what :func:`count_vectors` adds for one, written out:
    the strict judge calls it for every vector)."""
    counts[("op", op, outcome)] += 1
    for c in clauses:
        counts[("clause", c, outcome)] += 1
    for f in flags:
        counts[("flag", f, outcome)] += 1
        counts[("op_flag", f"{op} {f}", outcome)] += 1


def sent(by_outcome: Mapping[str, int]) -> int:
    """How many of these vectors (one op's, clause's or feature's, by outcome) were sent to the
    vendor: passed, failed or faulted. What makes an op, a clause or a feature *tested*; the
    rest were ``unsupported``."""
    return by_outcome.get(Outcome.PASS, 0) + by_outcome.get(Outcome.FAIL, 0) + by_outcome.get(Outcome.FAULT, 0)


def answered(counts: Counts, op: str) -> int:
    """How many vectors of ``op`` in ``counts`` the vendor answered (passed or failed)."""
    return counts[("op", op, Outcome.PASS)] + counts[("op", op, Outcome.FAIL)]
