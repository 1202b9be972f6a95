"""The protocol half every built-in session shares (subprocess, Python and HTTP adapters):
``hello`` (the version negotiated), ``batch``, ``ask`` (an optional op) and ``close`` on top of
one ``_call``, request ids.

A subclass provides ``_call(request, timeout) -> answer object`` (raising VendorFault on a
transport fault), ``_die()`` (release the transport) and ``stderr_tail()``; this class applies
the contract's checks (:mod:`tablecert.harness.answers.envelope`) and turns any fault into a dead
session.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tablecert.harness.answers.envelope import check_batch_answer
from tablecert.harness.contract import AsksOptionalOps, Confined, FaultKind, Hello, Metered, SessionOptions, VendorFault
from tablecert.harness.protocol_versions import greet

BYE_TIMEOUT = 1.0


class MessageSession(Metered, Confined, AsksOptionalOps):
    """hello / batch / close over ``_call``; one caller at a time. It counts its answers
    (:class:`~tablecert.harness.contract.Metered`) and a subclass says how its vendor is confined
    (:class:`~tablecert.harness.contract.Confined`: ``isolation``)."""

    def __init__(self, options: SessionOptions) -> None:
        self._options = options
        self._next_id = 1
        self._alive = True
        self.answer_bytes = 0        # size of every answer received (the runner caps a run's total)

    @property
    def alive(self) -> bool:
        """False once the session is closed or has faulted; a dead session accepts no request."""
        return self._alive

    def stderr_tail(self) -> str:
        return ""

    def hello(self) -> Hello:
        return greet(lambda request: self._call(request, self._options.timeout), self._checked)

    def reserve_id(self) -> int:
        """The id for the next request, never handed out again in this session (``batch`` takes
        its ids from the same counter)."""
        rid = self._next_id
        self._next_id += 1
        return rid

    def batch(self, op: str, config: Any, cases: Sequence[Any]) -> list[Any]:
        rid = self.reserve_id()
        if not isinstance(cases, (list, tuple)):
            cases = list(cases)
        answer = self._call({"id": rid, "op": op, "config": config, "cases": cases}, self._options.timeout)
        return self._checked(lambda: check_batch_answer(answer, rid, len(cases), op))

    def ask(self, op: str, fields: Mapping[str, Any]) -> Any:
        return self._call({"id": self.reserve_id(), "op": op, **fields}, self._options.timeout)

    def close(self) -> None:
        """Say bye (failures ignored) and release the transport. Safe to call more than once."""
        if not self._alive:
            return
        try:
            self._call({"id": self._next_id, "op": "bye"}, min(BYE_TIMEOUT, self._options.timeout))
        except VendorFault:
            pass
        self._die()

    def __enter__(self) -> MessageSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- for subclasses
    def _check_alive(self) -> None:
        """RuntimeError for a request on a dead session (a programming error, not a vendor's fault)."""
        if not self._alive:
            raise RuntimeError("vendor session is closed (after close() or a fault); open a new one")

    def _call(self, request: dict[str, Any], timeout: float) -> Any:
        raise NotImplementedError

    def _die(self) -> None:
        self._alive = False

    def _fault(self, kind: FaultKind, detail: str) -> VendorFault:
        self._die()
        return VendorFault(kind, detail, self.stderr_tail())

    def _checked(self, check: Callable[[], Any]) -> Any:
        try:
            return check()
        except VendorFault as fault:
            raise self._fault(fault.kind, fault.detail) from None
