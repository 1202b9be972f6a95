"""The Python adapter: an in-process vendor plugin, judged exactly like a vendor on the wire.

``target`` is a plugin name in the ``tablecert.vendors`` entry-point group (``reference``,
``demo``...) or ``module:attr`` (see :func:`.registry.find_python_vendor`). The session sends the
vendor the same request objects as the wire protocol (``hello`` with the protocol, the batches,
``bye``) through ``vendor.handle(request)`` and applies the same contract checks.

Both directions go through a JSON round trip: the vendor gets its own copy of every request (it
cannot alter the harness's cases) and the harness gets a JSON-shaped copy of every answer (an
answer that could not be sent over the wire - a tuple key, NaN, an object - is ``MALFORMED``,
and the vendor keeps no reference into the results the harness judges).

``handle`` runs on one worker thread per session, so a vendor that hangs is reported as
``TIMEOUT`` after ``SessionOptions.timeout`` instead of hanging the harness. Python cannot stop a
thread: the hung call keeps running in the background, and the session is dead. An exception
raised by the vendor's code is ``CRASH`` ("vendor raised ExcType: message"); its traceback is the
fault's ``stderr_tail``. After any fault the session is dead (``alive`` is false).

Live tables (*since 1.1*) need a vendor that can be cut: a thread cannot be killed, so a live
session is the plugin in a fresh interpreter of its own, ``python -m tablecert serve-vendor
--plugin TARGET`` (the subprocess adapter's
:class:`~tablecert.harness.adapters.subprocess_adapter.LiveSession`: its hello names the run's
``state_dir``, a cut is SIGKILL and the next session a fresh interpreter on the same folder). The
plugin runs unconfined there as it does in process (``isolation none``), with the same limits
and ``PYTHONPATH`` passed, so it imports what it imports in process.
"""

from __future__ import annotations

import json
import queue
import shlex
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tablecert.harness.adapters.message_session import MessageSession
from tablecert.harness.adapters.request_json import request_line
from tablecert.harness.adapters.subprocess_adapter import LiveSession
from tablecert.harness.contract import Binding, BuildSource, FaultKind, LiveAdapter, PythonVendor, SessionOptions, VendorFault, VendorSession
from tablecert.harness.answers.envelope import decode_answer
from tablecert.harness.adapters.registry import find_python_vendor
from tablecert.harness.suites.reader import json_line

TAIL_CHARS = 8 * 1024


class _Worker:
    """One daemon thread running the vendor's calls in order."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue[tuple[bool, Any]]] | None] = \
            queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            func, reply = job
            try:
                reply.put((True, func()))
            except BaseException as err:  # noqa: BLE001 - a vendor's SystemExit is a crash like any other
                reply.put((False, err))

    def call(self, func: Callable[[], Any], timeout: float) -> tuple[bool, Any]:
        """(True, value) or (False, exception); raises queue.Empty after ``timeout`` seconds."""
        reply: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
        self._jobs.put((func, reply))
        return reply.get(timeout=timeout)

    def stop(self) -> None:
        self._jobs.put(None)


class PythonSession(MessageSession):
    """A session with an in-process vendor. Not thread-safe: one caller at a time."""

    def __init__(self, vendor: PythonVendor, target: str, options: SessionOptions) -> None:
        super().__init__(options)
        self._vendor = vendor
        self._target = target
        self._tail = ""
        self._worker = _Worker(f"vendor-{target}")

    @property
    def vendor(self) -> PythonVendor:
        return self._vendor

    isolation = "none (in-process plugin)"    # runs inside the harness: nothing can confine it

    def stderr_tail(self) -> str:
        """The traceback of the vendor's last exception, if any (there is no stderr in process)."""
        return self._tail

    def _die(self) -> None:
        if self._alive:
            self._alive = False
            self._worker.stop()

    def _call(self, request: dict[str, Any], timeout: float) -> Any:
        self._check_alive()
        # The vendor's own copy of the request, exactly what it would read from the wire.
        text = request_line(request)
        handle = self._vendor.handle

        def run() -> Any:
            return handle(json_line(text))

        try:
            ok, value = self._worker.call(run, timeout)
        except queue.Empty:
            raise self._fault(FaultKind.TIMEOUT, f"no answer to {request['op']!r} within {timeout:g} s "
                                                 "(the vendor's call keeps running in the background)") from None
        if not ok:
            self._tail = "".join(traceback.format_exception(value))[-TAIL_CHARS:]
            raise self._fault(FaultKind.CRASH, f"vendor raised {type(value).__name__}: {str(value)[:300]}")
        try:
            encoded = json.dumps(value, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError, RecursionError) as err:
            raise self._fault(FaultKind.MALFORMED, f"answer to {request['op']!r} is not JSON: {str(err)[:200]}") from None
        if len(encoded) > self._options.max_line_bytes:
            raise self._fault(FaultKind.MALFORMED, f"answer longer than {self._options.max_line_bytes} bytes")
        self.answer_bytes += len(encoded)
        return decode_answer(encoded)


class PythonAdapter(LiveAdapter, BuildSource):
    """Loads a Python vendor plugin (entry-point name or ``module:attr``) into this process; its
    live-table sessions run it in a fresh interpreter (see the module docstring)."""

    name = "python"
    binding = Binding.PLUGIN
    not_bound = "the vendor is a Python plugin in the harness's own process: no files were bound"

    def command_line(self, target: Any) -> str | None:
        return f"tablecert serve-vendor --plugin {shlex.quote(target)}" if isinstance(target, str) else None

    def open(self, target: str, options: SessionOptions) -> PythonSession:
        try:
            vendor = find_python_vendor(target)
        except ValueError as err:
            raise VendorFault(FaultKind.START, str(err)) from None
        except Exception as err:  # noqa: BLE001 - a plugin's import or constructor may raise anything
            raise VendorFault(FaultKind.START, f"cannot load vendor {target!r}: {type(err).__name__}: {err}",
                              "".join(traceback.format_exception(err))[-TAIL_CHARS:]) from None
        return PythonSession(vendor, target, options)

    def live_scope(self, options: SessionOptions) -> str | None:
        return None

    def open_live(self, target: str, options: SessionOptions, state_dir: str) -> VendorSession:
        """The plugin served in a fresh interpreter of its own (``tablecert serve-vendor``), unconfined
        as in process, ``PYTHONPATH`` passed."""
        argv = [sys.executable, "-m", "tablecert", "serve-vendor", "--plugin", target]
        return LiveSession(argv, replace(options, isolation="none", binds=None,
                                         pass_env=tuple(dict.fromkeys((*options.pass_env, "PYTHONPATH")))), state_dir)

    def state_owner(self, target: str, options: SessionOptions) -> tuple[int, int] | None:
        return None              # unconfined: it runs as the lab's user
