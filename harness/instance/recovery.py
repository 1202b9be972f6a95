"""What a run does when the vendor faults: retry, restart, bisect, give up.

A batch whose request faults (crash, hang, malformed answer ...) is sent again, to a restarted
vendor, up to ``retries`` more times. A batch that faults every time is bisected: its halves are
sent one by one (one attempt each), the halves of a half that faults likewise, until each case
that kills the vendor stands alone. Such a case is tried ``retries`` more times and, if it still
faults, it is that batch's poisoned case: its vector is counted ``fault``, every other case of the
batch is judged. Bisection spends at most :func:`bisect_budget` attempts per batch, so a vendor
that faults on every case costs a bounded number of restarts.

A timeout is not bisected: every attempt of a hang costs the whole ``--timeout``, and a split
batch would spend up to :func:`bisect_budget` of them. A batch that timed out is retried like any
fault, and if it never answers, its vectors are ``fault`` (not answered) as a whole; a bisection
begun for another fault does not split a piece that timed out. Once an op has cost the run
:attr:`FaultPolicy.timeouts_per_op` timeouts (3 by default: a hung batch's first attempt and its
two retries), it is given up at once: nothing more of it is sent, in that batch or later.

When :attr:`FaultPolicy.give_up_after` batches of one op in a row end with no answer at all, or
the op has met its timeouts, the op's later batches are not sent: they are counted ``fault`` with
one fault row each saying so (``not_sent``, naming which bound gave the op up). That state is
read back from the run database, so a resumed run gives up exactly where an uninterrupted one
would.

Every attempt that faulted is a row of the batch's outcome (kind, detail, the vendor's stderr
tail, the cases it covered, and whether a later attempt answered all of them: *recovered*),
written in the batch's own transaction: a run killed at any
point and resumed records the same faults as an uninterrupted run. A case that faults on its own
(every attempt of it alone) is also kept with its inputs (``poisoned``) for the reports and a
replay file. So is the first request that met each fault kind, replayed alone into a fresh
process from ``failures/fault.*.jsonl``. Retries and bisection are for diagnosis: any fault,
recovered or not, withholds certification (:mod:`tablecert.harness.record.verdict`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from tablecert.harness.contract import FaultKind, VendorFault, VendorSession
from tablecert.harness.model import (Batch, BatchOutcome, BatchStatus, Fault, FaultRequest, Outcome, PoisonedCase,
                                     dumps)
from tablecert.harness.model import answered as answered_in

STDERR_KEPT = 4000
"""Characters of the vendor's stderr tail kept with each fault."""


@dataclass(frozen=True)
class FaultPolicy:
    """How hard a run tries before it records vectors as ``fault``."""

    retries: int = 2              # extra attempts of a whole batch (and of a case found alone)
    bisect: bool = True           # split a batch that keeps faulting to find the case(s) to blame
    give_up_after: int = 3        # batches of one op in a row with no answer, then stop sending it
    timeouts_per_op: int = 3      # timeouts one op may cost the run, then stop sending it


def bisect_budget(n: int) -> int:
    """Attempts bisection may spend on a batch of ``n`` cases: enough to isolate two poisoned
    cases (two attempts per level of the split), never more than 8 per level."""
    return 8 * max(1, (n - 1).bit_length())


def timeouts_in(faults: Iterable[Fault]) -> int:
    """How many of these faults are timeouts."""
    return sum(fault.kind == FaultKind.TIMEOUT.value for fault in faults)


def part(batch: Batch, lo: int, hi: int) -> Batch:
    """Cases ``lo:hi`` of a batch, as a batch of their own."""
    return replace(batch, tc_ids=batch.tc_ids[lo:hi], cases=batch.cases[lo:hi], expected=batch.expected[lo:hi],
                   flags=batch.flags[lo:hi], clauses=batch.clauses[lo:hi],
                   comments=batch.comments[lo:hi] if batch.comments else None)


def poison_record(batch: Batch, fault: Fault) -> PoisonedCase:
    """The poisoned case of a one-case batch, from the last fault of its attempts."""
    return PoisonedCase(batch.file, batch.op, batch.tg_id, batch.tc_ids[0], dumps(batch.config), dumps(batch.cases[0]),
                        fault.kind, fault.detail)


class _FaultLog:
    """The faults met while one batch is settled: each row with the part of the batch it hit
    (indices ``lo:hi``), and the first request of each fault kind not yet kept by the run. A row
    is *recovered* when a later attempt answered every case of its part."""

    def __init__(self, batch: Callable[[], Batch], kinds_kept: set[str]) -> None:
        self._batch, self._kinds_kept = batch, kinds_kept
        self._rows: list[tuple[Fault, int, int]] = []
        self.requests: list[FaultRequest] = []

    def add(self, piece: Batch | None, key: tuple[str, str, int, int], lo: int, hi: int, fault: VendorFault) -> None:
        file, op, first_tc, n = key
        self._rows.append((Fault(file, op, first_tc, n, len(self._rows) + 1, fault.kind.value, fault.detail,
                                 fault.stderr_tail[-STDERR_KEPT:]), lo, hi))
        if fault.kind.value not in self._kinds_kept:
            self._kinds_kept.add(fault.kind.value)
            sent = piece if piece is not None else self._batch()
            self.requests.append(FaultRequest(fault.kind.value, file, op, first_tc, n, dumps(sent.config),
                                              dumps(sent.cases)))

    @property
    def last(self) -> Fault:
        return self._rows[-1][0]

    @property
    def timeouts(self) -> int:
        """How many of the attempts so far timed out."""
        return timeouts_in(row for row, _, _ in self._rows)

    def rows(self, lost: set[int]) -> list[Fault]:
        """Every fault with its ``recovered`` flag, given the indices of the cases left unanswered."""
        return [replace(row, recovered=not any(i in lost for i in range(lo, hi))) for row, lo, hi in self._rows]


class GiveUp:
    """Which ops are no longer sent: ``unanswered_runs`` counts, per op, its last batches in a
    row (in run order) that got no answer at all, ``timeouts`` the timeouts it has cost the run;
    from ``policy.give_up_after`` batches, or ``policy.timeouts_per_op`` timeouts, on, the op's
    batches are recorded ``fault`` (``not_sent``) without being sent. With several workers the
    single writer keeps these counts in run order, so the same batches are given up as in a
    one-worker run."""

    def __init__(self, policy: FaultPolicy, unanswered_runs: dict[str, int] | None = None,
                 timeouts: dict[str, int] | None = None) -> None:
        self.policy = policy
        self.unanswered_runs: dict[str, int] = dict(unanswered_runs or {})
        self.timeouts: dict[str, int] = dict(timeouts or {})

    def timed_out(self, op: str, more: int = 0) -> bool:
        """``op`` has met its timeouts, counting ``more`` not yet tallied (its current batch's)."""
        return self.timeouts.get(op, 0) + more >= self.policy.timeouts_per_op

    def stops(self, op: str) -> bool:
        return self.unanswered_runs.get(op, 0) >= self.policy.give_up_after or self.timed_out(op)

    def not_sent(self, key: tuple[str, str, int, int], out: BatchOutcome) -> BatchOutcome:
        """``out`` (every vector ``fault``) with the row saying why the batch was not sent."""
        file, op, first_tc, n = key
        why = (f"{op} timed out {self.timeouts.get(op, 0)} times" if self.timed_out(op)
               else f"{self.policy.give_up_after} batches of {op} in a row got no answer")
        out.faults.append(Fault(file, op, first_tc, n, 0, "not_sent", f"not sent: {why}", ""))
        self.unanswered_runs[op] = self.unanswered_runs.get(op, 0) + 1
        return out

    def tally(self, op: str, out: BatchOutcome) -> int:
        """Count a settled batch of ``op`` (its timeouts too); returns how many of its vectors
        were answered."""
        answered = answered_in(out.counts, op)
        self.unanswered_runs[op] = 0 if answered else self.unanswered_runs.get(op, 0) + 1
        timeouts = timeouts_in(out.faults)
        if timeouts:
            self.timeouts[op] = self.timeouts.get(op, 0) + timeouts
        return answered


class Recovery:
    """The fault handling of one run (see the module docstring).

    ``start`` gives the live session (starting and greeting the vendor if needed), ``drop`` ends it
    after a fault; ``judge`` judges a batch's results; ``whole`` counts every vector of a batch
    with one outcome; ``unanswered_runs`` is the op -> batches-in-a-row-without-answer count and
    ``timeouts`` the op -> timeouts count read from the run database; ``kinds_kept`` the fault
    kinds whose first request the run database already holds."""

    def __init__(self, start: Callable[[], VendorSession], drop: Callable[[], None], policy: FaultPolicy,
                 judge: Callable[[Batch, list[Any]], BatchOutcome], whole: Callable[[Batch, str, str], BatchOutcome],
                 unanswered_runs: dict[str, int] | None = None, kinds_kept: set[str] | None = None,
                 timeouts: dict[str, int] | None = None) -> None:
        self.start, self.drop, self.policy = start, drop, policy
        self.judge, self.whole = judge, whole
        self.give_up = GiveUp(policy, unanswered_runs, timeouts)
        self.kinds_kept: set[str] = set(kinds_kept or ())

    @property
    def unanswered_runs(self) -> dict[str, int]:
        return self.give_up.unanswered_runs

    def outcome(self, key: tuple[str, str, int, int], send_whole: Callable[[], BatchOutcome],
                as_batch: Callable[[], Batch]) -> BatchOutcome:
        """The outcome of one batch identified by ``key`` (file, op, first tcId, cases):
        ``send_whole`` sends it as one request and judges the answer (raising VendorFault);
        ``as_batch`` gives its cases for bisection."""
        file, op, first_tc, n = key
        if self.give_up.stops(op):
            return self.give_up.not_sent(key, self.whole(as_batch(), BatchStatus.FAULT, Outcome.FAULT))
        log = _FaultLog(as_batch, self.kinds_kept)
        for _ in range(self.policy.retries + 1):
            try:
                out = send_whole()
            except VendorFault as fault:
                self.drop()
                log.add(None, key, 0, n, fault)
                if self.give_up.timed_out(op, log.timeouts):
                    break
                continue
            out.faults[:0] = log.rows(set())
            out.fault_requests.extend(log.requests)
            self.give_up.tally(op, out)
            return out
        batch = as_batch()
        if self.policy.bisect and n > 1 and not log.timeouts:
            out, lost = self._bisect(batch, log)
        else:
            out, lost = self.whole(batch, BatchStatus.FAULT, Outcome.FAULT), set(range(n))
            if n == 1:
                out.poisoned.append(poison_record(batch, log.last))
        out.faults[:0] = log.rows(lost)
        out.fault_requests.extend(log.requests)
        answered = self.give_up.tally(op, out)
        if not out.counts[("op", op, Outcome.FAULT)]:
            out.status = BatchStatus.DONE
        elif answered:
            out.status = BatchStatus.PARTIAL
        return out

    # -- internals
    def _send(self, batch: Batch) -> list[Any]:
        return self.start().batch(batch.op, batch.config, batch.cases)

    def _bisect(self, batch: Batch, log: _FaultLog) -> tuple[BatchOutcome, set[int]]:
        """Judge every case of ``batch`` that a request without the poisoned cases can answer;
        also the indices of the cases left unanswered."""
        out = BatchOutcome(batch.file, batch.op, batch.tc_ids[0], len(batch.cases), BatchStatus.FAULT)
        lost: set[int] = set()
        budget = bisect_budget(len(batch.cases))
        spent = 0
        mid = len(batch.cases) // 2
        pending = [(mid, len(batch.cases)), (0, mid)]              # a stack: the left half first
        while pending:
            lo, hi = pending.pop()
            piece = part(batch, lo, hi)
            if spent >= budget or self.give_up.timed_out(batch.op, log.timeouts):
                out.add(self.whole(piece, BatchStatus.FAULT, Outcome.FAULT))
                lost.update(range(lo, hi))
                continue
            tries = 1 + (self.policy.retries if hi - lo == 1 else 0)
            allowed = min(tries, budget - spent)
            results, hung, tried = None, False, 0
            for _ in range(allowed):
                spent += 1
                tried += 1
                try:
                    results = self._send(piece)
                    break
                except VendorFault as fault:
                    self.drop()
                    log.add(piece, (piece.file, piece.op, piece.tc_ids[0], hi - lo), lo, hi, fault)
                    hung = hung or fault.kind is FaultKind.TIMEOUT
                    if self.give_up.timed_out(batch.op, log.timeouts):
                        break
            if results is not None:
                out.add(self.judge(piece, results))
            elif hung and hi - lo > 1:                               # a timeout is not split further
                out.add(self.whole(piece, BatchStatus.FAULT, Outcome.FAULT))
                lost.update(range(lo, hi))
            elif hi - lo == 1:
                out.add(self.whole(piece, BatchStatus.FAULT, Outcome.FAULT))
                lost.add(lo)
                if tried == tries:                                   # every attempt of it alone faulted
                    out.poisoned.append(poison_record(piece, log.last))
            else:
                mid = (lo + hi) // 2
                pending += [(mid, hi), (lo, mid)]
        return out, lost
