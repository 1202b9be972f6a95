"""What every adapter's live-table session checks (:class:`~tablecert.harness.contract.Cuttable`,
*since 1.1*): the answer's envelope (:func:`live_answer_fault`), the vendor's first change to its
``state_dir`` (:data:`STATE_CHANGES`, by inotify) and the ``state_dir``'s size.

The ``state_dir``'s size is the lab's (``SessionOptions.max_state_mb``): on a file system of its
own (a mount, as root) the kernel refuses the write that would cross it and a full file system
is a ``state_limit`` fault whatever the vendor does next (:func:`state_full`; not root, read
through the holder of that file system, :func:`state_view`); otherwise the folder is measured after
every answer (:func:`state_size`, a walk that follows no link and stops
at the limit). The sessions (:class:`LiveMessages`): the subprocess adapter's
:class:`~tablecert.harness.adapters.subprocess_adapter.LiveSession` (the Python adapter's too,
over a fresh interpreter serving the plugin), the HTTP adapter's with the lab's restart hook.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from inotify_simple import flags

from tablecert.harness.adapters.message_session import MessageSession
from tablecert.harness.answers.envelope import same_id
from tablecert.harness.confine.sandbox import MIB
from tablecert.harness.contract import Cuttable, FaultKind, Hello
from tablecert.harness.protocol_versions import greet

STATE_CHANGES = (flags.CREATE | flags.MODIFY | flags.MOVED_FROM | flags.MOVED_TO | flags.DELETE | flags.ATTRIB
                 | flags.DELETE_SELF | flags.MOVE_SELF)
"""What a live session's ``wait_progress`` takes as the vendor's first change to its ``state_dir``."""


def live_answer_fault(answer: Any, rid: int, op: str) -> tuple[FaultKind, str] | None:
    """What is wrong with a live-table answer, as a fault's kind and detail (None: an object with
    the request's id and exactly one of ``result`` and ``error``)."""
    if not isinstance(answer, dict):
        return FaultKind.MALFORMED, f"answer to {op} is a JSON {type(answer).__name__}, not an object"
    if not same_id(answer.get("id"), rid):
        return FaultKind.WRONG_ID, f"answer id {str(answer.get('id'))[:60]}, request id {rid}"
    if ("result" in answer) == ("error" in answer):
        return FaultKind.MALFORMED, f"answer to {op} has not exactly one of 'result' and 'error'"
    return None


class LiveMessages(MessageSession, Cuttable):
    """The requests every adapter's live session sends over its ``_call``: its ``hello`` naming
    ``state_dir``, and one live-table request, its answer's envelope and the ``state_dir``'s size
    checked (:func:`live_answer_fault`, :func:`state_fault`)."""

    state_dir: str

    @functools.cached_property
    def view(self) -> str:
        """Where the harness reads the ``state_dir`` (:func:`state_view`: not root, through the
        holder of its file system)."""
        return state_view(self.state_dir, self._options.state_holder)

    def hello(self) -> Hello:
        timeout = self._options.timeout
        return greet(lambda request: self._call({**request, "state_dir": self.state_dir}, timeout), self._checked)

    def request(self, op: str, fields: dict[str, Any]) -> dict[str, Any]:
        rid = self.reserve_id()
        answer = self._call({"id": rid, "op": op, **fields}, self._options.timeout)
        wrong = live_answer_fault(answer, rid, op)
        if wrong is not None:
            raise self._fault(*wrong)
        over = state_fault(self.view, self._options.max_state_mb, op)
        if over is not None:
            raise self._fault(FaultKind.STATE_LIMIT, over)
        return answer


def state_size(folder: str, stop: int) -> int:
    """Bytes ``folder`` holds on disk (blocks of every entry, links not followed), counted until
    more than ``stop``."""
    total = 0
    stack = [folder]
    while stack and total <= stop:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    info = entry.stat(follow_symlinks=False)
                    total += max(info.st_blocks * 512, 0) + 1
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue
    return total


def state_full(folder: str) -> bool:
    """Whether the run's own file system on ``folder`` (a mount) has no byte or inode left: a write
    of the vendor's was, or the next will be, refused."""
    fs = os.statvfs(folder)
    return fs.f_bavail == 0 or fs.f_favail == 0


def state_view(state_dir: str, holder: int | None) -> str:
    """Where the harness reads a ``state_dir``: through the root of its ``holder`` (not root: the
    file system is mounted in the holder's mount namespace, :mod:`tablecert.harness.live.state_holder`),
    else the folder itself."""
    return state_dir if holder is None else f"/proc/{holder}/root{os.path.realpath(state_dir)}"


def state_fault(state_dir: str, limit: int | None, op: str) -> str | None:
    """Why a vendor's ``state_dir`` is past ``limit`` MiB (the lab's ``--max-state-mb``) after
    ``op``: a file system of its own full, or the folder over it (None: within it, or no limit)."""
    if limit is None:
        return None
    if os.path.ismount(state_dir):         # its own file system: the kernel refused what crossed it
        if state_full(state_dir):
            return f"its state_dir is full ({limit:,} MiB, the lab's --max-state-mb: a write refused) after {op}"
    elif state_size(state_dir, limit * MIB) > limit * MIB:
        return f"its state_dir holds more than {limit:,} MiB after {op} (the lab's --max-state-mb)"
    return None
