"""One vendor instance of a run: its session, opened and greeted on demand, and its recovery.

A :class:`VendorInstance` opens a session through the run's opener (the same adapter and
:class:`~tablecert.harness.contract.SessionOptions` for every instance: sandbox, hidden paths,
limits, passed environment) when a unit needs one, and greets it. The first greeting of a run is
handed to the run (``on_first_hello``: the one-worker run checks a resumed run's vendor and keeps
its identity in the meta); every later one (a restart after a fault, another worker's instance)
must say it is the vendor the run began with, or it is closed and that is a ``bad_hello`` fault;
and it must be confined as the run records it (``isolation``), or the run stops (RunError: a node
set up differently is the lab's problem, never a weaker run under the same certificate). The
instance counts its sessions' answer bytes (for the run's cap) and holds its own
:class:`~tablecert.harness.instance.recovery.Recovery`: a fault restarts this instance's vendor only.

A live table plays through the same instance, one request at a time (:meth:`VendorInstance.request`,
a request left in flight: :meth:`VendorInstance.in_flight`), and cuts it
(:meth:`VendorInstance.kill`, :meth:`VendorInstance.restart`: the next session is the vendor
restarted on the same ``state_dir``), over an adapter's
:class:`~tablecert.harness.contract.Cuttable` sessions; :attr:`VendorInstance.asking` names the
last request sent, which a fault of the vendor's is met during.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from tablecert.harness.contract import (Cuttable, FaultKind, Hello, VendorFault, VendorSession, answer_bytes,
                                       isolation_of)
from tablecert.harness.instance import RunError
from tablecert.harness.instance.recovery import FaultPolicy, Recovery
from tablecert.harness.instance.stats import InstanceStats
from tablecert.harness.instance.vectors import judge_batch, whole_batch
from tablecert.harness.model import Batch, BatchOutcome, BatchStatus, Fault, Outcome
from tablecert.oracle.protocol import V1

Identity = dict[str, Any]


def identity_of(hello: Hello) -> Identity:
    """What a hello says the vendor is (kept in the run's meta as ``vendor``), with its declared
    capabilities when it declares any."""
    declared = {"capabilities": hello.raw["capabilities"]} if "capabilities" in hello.raw else {}
    return {"name": hello.name, "version": hello.version, "build": hello.build, "ops": list(hello.ops),
            "protocol": hello.protocol, **declared}


def describe(identity: Identity) -> str:
    """A vendor's identity from its hello, for messages (its strings shortened)."""
    ops = ", ".join(identity.get("ops", []))
    return (f"{str(identity.get('name'))[:60]!r} {str(identity.get('version'))[:30]!r} "
            f"build {str(identity.get('build'))[:60]!r} (ops {ops or 'none'})")


def same_vendor(a: Identity, b: Identity) -> bool:
    """The same implementation (name, version, build) with the same ops, in any order, speaking the
    same contract version, with the same declared capabilities."""
    return ({k: a.get(k) for k in ("name", "version", "build")} == {k: b.get(k) for k in ("name", "version", "build")}
            and sorted(a.get("ops", [])) == sorted(b.get("ops", [])) and a.get("capabilities") == b.get("capabilities")
            and a.get("protocol", V1) == b.get("protocol", V1))


def restarted_as_before(identity: Identity, began: Identity) -> None:
    """A restarted (or another) instance of the vendor must say it is the vendor the run began
    with; otherwise that is a ``bad_hello`` fault (the caller closes the session)."""
    if not same_vendor(identity, began):
        raise VendorFault(FaultKind.BAD_HELLO, f"the restarted vendor says it is {describe(identity)}, "
                                               f"not {describe(began)}")


class VendorInstance:
    """One vendor instance (see the module docstring). ``began``: the run's vendor identity when
    the run already knows it (a worker's instance), else the first hello gives it, after
    ``on_first_hello(session, hello)`` accepted it; ``isolation``: how the run records its vendor
    is confined (None: not checked); ``session``: an already greeted session to begin with;
    ``kinds_kept``, ``unanswered_runs``, ``timeouts``: the run's fault state read back from its
    database; ``on_hello``: a check of every greeting once it is known to be the run's vendor (a
    live instance's: the vendor's build unchanged, VendorFault otherwise)."""

    def __init__(self, open_session: Callable[[], VendorSession], policy: FaultPolicy | None = None, *,
                 began: Identity | None = None, isolation: str | None = None,
                 on_first_hello: Callable[[VendorSession, Hello], None] | None = None,
                 session: VendorSession | None = None, kinds_kept: set[str] | None = None,
                 unanswered_runs: dict[str, int] | None = None, timeouts: dict[str, int] | None = None,
                 on_hello: Callable[[Hello], None] | None = None) -> None:
        self.open_session, self.began, self.isolation = open_session, began, isolation
        self.on_first_hello, self.on_hello = on_first_hello, on_hello
        self.hello: Hello | None = None
        self.greeting: Hello | None = None     # the first hello this instance's sessions gave
        self.asking = "nothing yet"            # the last request sent (a live table's, in the lab's words)
        policy = policy or FaultPolicy()
        self.live: VendorSession | None = session
        self.early_error: VendorFault | RunError | None = None     # an adopted session's, for the next session()
        self.closed_bytes = 0
        self.stats = InstanceStats()
        self.recovery = Recovery(self.session, self.drop, policy, judge_batch, whole_batch, unanswered_runs,
                                 kinds_kept, timeouts)

    @property
    def ops(self) -> tuple[str, ...]:
        """The ops the run's vendor listed in its hello (the others are ``unsupported``; none
        before the run's first greeting)."""
        return tuple(self.began["ops"]) if self.began is not None else ()

    @property
    def protocol(self) -> str:
        """The contract version the run's vendor speaks."""
        return str(self.began.get("protocol", V1)) if self.began is not None else V1

    def session(self) -> VendorSession:
        """The live session, starting and greeting the vendor first if there is none (VendorFault
        if it cannot be started or greeted, or says it is another vendor; RunError if it is
        another vendor on a run's first greeting, or confined otherwise than the run)."""
        if self.live is None:
            if self.early_error is not None:          # the start adopt() made was this start
                err, self.early_error = self.early_error, None
                raise err
            self.asking = f"hello (the instance {'starting' if self.greeting is None else 'restarting'})"
            self.live = self._greeted(self.open_session())
        return self.live

    def adopt(self, opened: VendorSession | VendorFault) -> None:
        """Make ``opened``, a session opened ahead by the caller through the same opener (its
        vendor starting while the caller did other work: a Ray actor importing the judging), the
        live one once greeted and checked as :meth:`session` checks its own; or the VendorFault
        the opening raised. If it cannot be greeted or fails a check, it is closed and the error
        is kept: the next :meth:`session` raises it, so the first unit meets the fault (judged
        and recorded, the vendor restarted by its recovery) or the RunError exactly as if that
        unit had started the vendor."""
        assert self.live is None
        if isinstance(opened, VendorFault):
            self.early_error = opened
            return
        try:
            self.live = self._greeted(opened)
        except (VendorFault, RunError) as err:
            self.early_error = err

    def _greeted(self, session: VendorSession) -> VendorSession:
        """``session`` greeted and checked (see :meth:`session`); closed if not."""
        try:
            hello = session.hello()
            if self.began is None:
                if self.on_first_hello is not None:
                    self.on_first_hello(session, hello)
                self.began, self.hello = identity_of(hello), hello
                self.isolation = self.isolation or isolation_of(session)     # a restart is confined alike
            else:
                restarted_as_before(identity_of(hello), self.began)
            if self.on_hello is not None:
                self.on_hello(hello)
            self.greeting = self.greeting or hello
            had = isolation_of(session)
            if self.isolation is not None and had is not None and had != self.isolation:
                raise RunError(f"a vendor instance runs with isolation {had!r}, the run with {self.isolation!r}: "
                               "every instance must be confined alike (the same set-up on every node)")
        except BaseException:
            session.close()
            raise
        return session

    def drop(self) -> None:
        """End the live session (after a fault, or at the end of the run), keeping its answer bytes."""
        if self.live is not None:
            self.live.close()
            self.closed_bytes += answer_bytes(self.live)
            self.live = None

    def hand_over(self) -> VendorSession | None:
        """Give the live session to another instance (its answer bytes go with it)."""
        session, self.live = self.live, None
        return session

    @property
    def answer_bytes(self) -> int:
        """The answers of every session this instance opened, the live one included."""
        return self.closed_bytes + answer_bytes(self.live)

    # -- a live table's requests and cuts (over Cuttable sessions)
    def live_session(self) -> Cuttable:
        """The live session (started and greeted if there is none, or if the last one died)."""
        if self.live is not None and not self.live.alive:
            self.drop()
        session = self.session()
        if not isinstance(session, Cuttable):
            raise RunError("this vendor's adapter cannot play live tables (its sessions cannot be cut)")
        return session

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """One live-table request and its answer (:meth:`Cuttable.request`)."""
        session = self.live_session()
        self.asking = asked(op, fields)
        return session.request(op, fields)

    def in_flight(self, op: str, answered: bool, **fields: Any) -> None:
        """Leave a request in flight: sent, and with ``answered`` its answer arriving, unread."""
        session = self.live_session()
        self.asking = asked(op, fields)
        session.write(op, fields)
        if answered:
            session.wait_answer()

    def kill(self) -> None:
        """Cut the vendor (no warning: :meth:`Cuttable.kill`); its answer bytes kept."""
        if self.live is not None:
            try:
                if isinstance(self.live, Cuttable):
                    self.live.kill()
            finally:
                self.drop()

    def ungreeted(self) -> Cuttable:
        """A fresh session on the same ``state_dir``, not greeted (the running one cut first)."""
        self.kill()
        session = self.open_session()
        if not isinstance(session, Cuttable):
            session.close()
            raise RunError("this vendor's adapter cannot play live tables (its sessions cannot be cut)")
        self.live = session
        return session

    def restart(self) -> Cuttable:
        """The vendor cut and restarted on the same ``state_dir``, greeted."""
        self.kill()
        return self.live_session()

    def greeting_fault(self, batch: Batch, during: str) -> BatchOutcome | None:
        """None once the vendor is greeted (started first if need be); else ``batch`` counted
        ``fault`` as a whole, the fault's row saying it was met ``during`` what (one attempt: the
        unit's own requests were never sent)."""
        try:
            self.session()
        except VendorFault as err:
            out = whole_batch(batch, BatchStatus.FAULT, Outcome.FAULT)
            out.faults.append(Fault(batch.file, batch.op, batch.tc_ids[0], len(batch.tc_ids), 1, err.kind.value,
                                    f"{during}: {err.detail}", err.stderr_tail))
            return out
        return None

    def failure_of(self, play: Callable[[], None], wrong: type[Exception], cut: bool = False) -> Exception | None:
        """What stops ``play``, a unit played one request at a time (a live vector): a ``wrong``
        answer or a VendorFault (None: it played to its end); with ``cut``, the vendor is then cut,
        whatever it holds, so the next unit starts on a fresh instance."""
        try:
            play()
        except (wrong, VendorFault) as err:
            if cut:
                try:
                    self.kill()
                except VendorFault:     # a cut that failed (an HTTP restart hook): the next start meets it
                    pass
            return err
        return None


def asked(op: str, fields: dict[str, Any]) -> str:
    """A live request in the lab's words: its op, its ``seq``, its station and its table
    (``table.step 7 of table s3``, ``table.recall of station 2 of table s3``)."""
    seq = f" {fields['seq']}" if "seq" in fields else ""
    station = f" of station {fields['station']}" if "station" in fields else ""
    return f"{op}{seq}{station} of table {fields.get('table')}"


class Played(Protocol):
    """A unit that plays itself through the instance, one request at a time, and is judged as it
    goes (a batch of live tables: :class:`tablecert.harness.live.run.LiveBatch`)."""

    def play(self, instance: VendorInstance) -> BatchOutcome: ...
