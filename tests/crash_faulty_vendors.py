"""Live vendors that crash (issue 50): each is the reference vendor (its journal, its oracle) that
exits with status 1 at ONE point of live play, having written a last line on stderr, for proving
that a crash during live play is a fault finding naming the step and that line, on every table
kind (a craps table, a station table, a pai gow table) and during every request (a step, a
recall, a resume, a close), and that the run still concludes with all its outputs.

``python tests/crash_faulty_vendors.py OP [SEQ]``: the vendor exits at its first ``OP`` request
(``table.step``, ``table.recall``, ``table.resume``, ``table.close``, or a station act's op such as
``table.disconnect``), or with SEQ the first one whose ``seq`` is SEQ, on any table;
``hello-after-restart``: at the hello of an instance whose ``state_dir`` is not empty;
``other-build-after-restart`` does not crash: such an instance greets as another build. Every process
counts afresh: the restarted vendor crashes again at the same point.

This is a test helper module, not a test file (``tests/test_live_crashes.py`` uses it).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from tablecert.oracle.vendor import ReferenceVendor, serve

LAST_WORDS = "crash vendor: giving up at"
RESTART = "hello-after-restart"
"""The point that crashes at the hello of an instance finding its state_dir not empty (a restart)."""
OTHER_BUILD = "other-build-after-restart"
"""Not a crash: an instance finding its state_dir not empty greets as another build."""
"""The start of the line each crash writes last on stderr (the finding must quote it)."""


class CrashingVendor(ReferenceVendor):
    """The reference vendor, exiting with status 1 at its first ``op`` request (with ``seq``, of that seq)."""

    name = "crashing live vendor"

    def __init__(self, op: str, seq: int | None) -> None:
        super().__init__()
        self.crash_op, self.crash_seq = op, seq

    def handle(self, request: object) -> dict[str, Any]:
        if self.crash_op == OTHER_BUILD:
            restarted = isinstance(request, dict) and request.get("op") == "hello" and self.restarted(request)
            answer = super().handle(request)                # (its hello makes the journal: asked before)
            if restarted:
                answer["implementation"] = dict(answer["implementation"], build="tablecert-other-build")
            return answer
        if isinstance(request, dict) and (self.crashes_at(request)):
            print("crash vendor: a warning first", file=sys.stderr, flush=True)
            print(f"{LAST_WORDS} {self.crash_op} on table {request.get('table')}", file=sys.stderr, flush=True)
            os._exit(1)
        return super().handle(request)


    @staticmethod
    def restarted(request: dict[str, Any]) -> bool:
        """A hello naming a state_dir that is not empty: an instance after a restart."""
        state = request.get("state_dir")
        return isinstance(state, str) and bool(os.listdir(state))

    def crashes_at(self, request: dict[str, Any]) -> bool:
        if self.crash_op == RESTART:
            return request.get("op") == "hello" and self.restarted(request)
        return request.get("op") == self.crash_op and (self.crash_seq is None or request.get("seq") == self.crash_seq)


def main(argv: list[str]) -> int:
    op, seq = argv[0], (int(argv[1]) if len(argv) > 1 else None)
    return serve(sys.stdin, sys.stdout, CrashingVendor(op, seq))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
