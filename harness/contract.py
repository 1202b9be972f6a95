"""The adapter contract, as a spec: every way the harness talks to a vendor, declared once and documented.

Like pytest's ``hookspec.py``, this module holds declarations only, no machinery:

* the session every transport opens (:class:`VendorSession`, a Protocol) and the transport
  itself (:class:`Adapter`), an in-process vendor (:class:`PythonVendor`), what a vendor says of
  itself (:class:`Hello`) and the settings every adapter honours (:class:`SessionOptions`);
* the optional capabilities a session may offer (:class:`Metered`, :class:`Confined`,
  :class:`RawBatches`, :class:`RawExchange`, :class:`AsksOptionalOps`, :class:`AnswersByTest`, *since 1.1*
  :class:`Cuttable`), each claimed by a session class by inheriting it (an adapter that opens
  cuttable sessions says so likewise: :class:`LiveAdapter`; *since 1.2* one that says what of its
  vendor's build a run binds: :class:`BuildSource`), and read through the typed
  accessors below; the runs use nothing of a session that is not declared here;
* the faults (:class:`FaultKind`, :class:`VendorFault`): anything a vendor does outside the
  contract (crash, hang, a non-JSON line, the wrong id, the wrong number of results, a
  request-level error) raises :class:`VendorFault`, never a generic exception, so the runner can
  record it and go on;
* the names: the protocol (:data:`PROTOCOL`), the ops (:data:`KNOWN_OPS`, :data:`RNG_OPS`) and
  the entry-point groups adapters and Python vendors are registered in.

A session speaks the vendor protocol (``harness/vendor-protocol.md``): ``hello`` once, then
batches of one op. What implements it lives elsewhere: the built-in adapters and the lookup of
adapters and vendors by name in :mod:`tablecert.harness.adapters`, the checks of an answer's
envelope (strict JSON, id, hello, results) in :mod:`tablecert.harness.answers.envelope`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Protocol, runtime_checkable

from tablecert.oracle.names import OPS

PROTOCOL = "tablecert-vendor/2"
"""The contract version the harness greets a vendor with (a ``tablecert-vendor/1`` vendor is still
run: :mod:`tablecert.harness.protocol_versions`)."""
KNOWN_OPS = OPS
"""The ops of a vector suite (:mod:`tablecert.oracle.names`)."""
RNG_OPS = ("rng.dice", "rng.shuffle", "rng.raw", "rng.scale", "rng.paired")
"""Optional random-outcome ops (``tablecert rng``): never part of a vector suite or of the
certification scope, so they stay out of KNOWN_OPS (``Hello.ops``); ``Hello.raw`` lists them."""
ADAPTER_GROUP = "tablecert.adapters"
"""The entry-point group of adapters (an :class:`Adapter` class or instance per name)."""
VENDOR_GROUP = "tablecert.vendors"
"""The entry-point group of Python vendors (a :class:`PythonVendor` class or instance per name)."""


class FaultKind(str, Enum):
    """What went wrong with a vendor, outside the answers themselves (recorded by its value)."""

    #: the vendor process exited or the connection closed
    CRASH = "crash"
    #: no complete answer within ``SessionOptions.timeout``
    TIMEOUT = "timeout"
    #: not JSON, not an object, results not a list, an answer longer than ``max_line_bytes``
    MALFORMED = "malformed"
    #: the answer's id is not the request's
    WRONG_ID = "wrong_id"
    #: ``len(results) != len(cases)``
    WRONG_COUNT = "wrong_count"
    #: the answer names an op that was not asked (it may echo the one asked)
    WRONG_OP = "wrong_op"
    #: the vendor answered the whole request with an error
    REQUEST_ERROR = "request_error"
    #: a hello answer that arrived but is unusable (fields, protocol refused)
    BAD_HELLO = "bad_hello"
    #: the vendor could not be started at all
    START = "start"
    #: New: a live vendor's state_dir grew past the lab's ``--max-state-mb``
    STATE_LIMIT = "state_limit"
    #: *Since 1.0.*: a file of the vendor's build, as bound, changed during the run (named in the detail)
    BUILD_CHANGED = "build_changed"
    #: *Since 1.0.*: the vendor's answer to ``build.authenticate`` is not the harness's own over the bound bytes
    BUILD_AUTHENTICATION = "build_authentication"


class VendorFault(Exception):
    """A fault of the vendor (not of one answer): the batch it happened in gets no results."""

    def __init__(self, kind: FaultKind, detail: str, stderr_tail: str = "") -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail
        self.stderr_tail = stderr_tail


@dataclass(frozen=True)
class Hello:
    """What the vendor said of itself; ``ops`` decides which vectors run (others: unsupported)."""

    name: str
    version: str
    build: str
    ops: tuple[str, ...]
    raw: Mapping[str, Any] = field(default_factory=dict)
    protocol: str = "tablecert-vendor/1"   # the version negotiated (harness/protocol_versions.py)


@dataclass(frozen=True)
class BindPlan:
    """What a confined vendor's sandbox binds, derived once by the run's own process
    (``tablecert.harness.confine.sandbox.fix_binds``) so that every instance of the run, a
    restart, a ``--workers`` thread or a Ray actor on another node, sees the same host paths."""

    program: str                  # argv[0] resolved on the lab's PATH
    vendor: tuple[str, ...]       # the vendor's tree and the folders the lab named
    runtime: tuple[str, ...]      # the lab's runtime
    workdir: str                  # the lab's working folder, where the vendor starts


@dataclass(frozen=True)
class SessionOptions:
    """Settings every adapter honours where they apply."""

    timeout: float = 60.0                 # seconds for one answer (hello or batch)
    pass_env: tuple[str, ...] = ()        # environment variables handed to a vendor process
    max_line_bytes: int = 16 << 20        # longest answer line accepted (a decoded answer costs ~35x in memory)
    memory_limit_mb: int | None = 4096    # address-space limit of a vendor process
    cpu_limit_s: int | None = 3600        # CPU-time limit of a vendor process (a restart starts afresh)
    isolation: str = "none"               # subprocess vendors: auto | strict | none (harness/confine/sandbox.py)
    vendor_network: bool = False          # a sandboxed vendor keeps the host's network
    hidden_paths: tuple[str, ...] = ()    # folders a sandboxed vendor must not see (run folder, key's folder)
    vendor_paths: tuple[str, ...] = ()    # host folders bound read-only into the sandbox (--vendor-path)
    writable_paths: tuple[str, ...] = ()  # host folders bound writable into the sandbox (a vendor's own state)
    max_processes: int | None = 256       # processes and threads of a sandboxed vendor (RLIMIT_NPROC)
    max_file_mb: int | None = 256         # largest file a sandboxed vendor may write (RLIMIT_FSIZE)
    tmp_mb: int = 256                     # size of a sandboxed vendor's private /tmp, /var/tmp and HOME
    max_state_mb: int | None = 64         # what a live vendor's state_dir may hold (its own file system, else measured)
    restart_hook: str | None = None       # since 1.1, HTTP vendors: the lab's command that cuts and restarts the server
    binds: BindPlan | None = None         # a confined vendor's binds, fixed for the whole run (else derived at start)
    state_holder: int | None = None       # not root: the process whose user and mount namespaces a vendor starts in
                                          # (its state_dir's file system: harness/live/state_holder.py)


@runtime_checkable
class VendorSession(Protocol):
    """One live connection to a vendor."""

    def hello(self) -> Hello:
        """Send ``hello``; raises VendorFault(BAD_HELLO, ...) if the answer is unusable."""
        ...

    def batch(self, op: str, config: Any, cases: Sequence[Any]) -> list[Any]:
        """Send one batch; the vendor's ``results`` list, one entry per case (each any JSON value:
        the runner judges it). Raises VendorFault on anything outside the contract."""
        ...

    def close(self) -> None:
        """Say ``bye`` if possible and release everything (kill the process, close sockets)."""
        ...

    @property
    def alive(self) -> bool:
        """False once the session faulted or was closed (the runner then opens a new one)."""
        ...

    def stderr_tail(self) -> str:
        """The end of what the vendor logged (empty where the transport has no such channel)."""
        ...


# ---------------------------------------------------------------------------------------------
# Optional capabilities of a session (New in 0.9: declared, never probed)
#
# Like pytest's optional hooks, these are declared here once, typed and documented; a session
# class that offers one says so by inheriting it (``class MySession(RawBatches, Metered): ...``).
# The run asks ``isinstance(session, RawBatches)``: a declaration, not a guess from the names a
# session happens to have. A session that declares none is run through the five members of
# VendorSession alone, as before.
# ---------------------------------------------------------------------------------------------

class Metered(ABC):
    """Counts what the vendor sent: ``answer_bytes``, the size of every answer received in this
    session (the run's ``--max-run-answer-mb`` cap adds up every session's). A session that does
    not declare it counts nothing towards the cap."""

    answer_bytes: int


class Confined(ABC):
    """Says how its vendor is confined: ``isolation`` (recorded in the run's meta and on the
    certificate; every instance of a run must say the same) and ``limits`` (the resource limits
    applied, a JSON object, or None). A session that does not declare it is recorded as
    ``unknown (outside adapter)``."""

    isolation: str
    limits: dict[str, Any] | None = None
    bound: tuple[str, ...] | None = None   # the host paths bound in read-only besides the system folders
                                           # (None: no file system of its own, it sees the host's)


class RawBatches(ABC):
    """Sends a batch and gives back the answer line undecoded, so that a right answer can be
    confirmed in bulk (:mod:`tablecert.harness.answers.bulk`) without decoding it."""

    @abstractmethod
    def batch_raw(self, op: str, config: Any, cases: Sequence[Any]) -> tuple[int, bytes]:
        """Send one batch; (the request's id, the answer line without its newline). Raises
        VendorFault for a transport fault (crash, timeout, a line too long)."""

    @abstractmethod
    def decode_batch_answer(self, line: bytes, request_id: int, n_cases: int, op: str) -> list[Any]:
        """The results of an answer line from :meth:`batch_raw` (or :meth:`RawExchange.exchange_raw`),
        decoded and checked exactly as :meth:`VendorSession.batch` checks them (VendorFault)."""


class RawExchange(RawBatches):
    """Sends a request line the harness encoded itself (the hand suites' requests, written by a
    kernel) and gives back the answer line undecoded (decoded, when need be, by
    :meth:`RawBatches.decode_batch_answer`)."""

    @abstractmethod
    def reserve_id(self) -> int:
        """A fresh request id, for a line the caller encodes."""

    @abstractmethod
    def exchange_raw(self, request_line: bytes | bytearray | memoryview) -> bytes:
        """Send one request line (ending with a newline) and give back the answer line without
        its newline (VendorFault for a transport fault)."""


class AsksOptionalOps(ABC):
    """Sends one request of an optional contract op the vendor declared in its ``hello`` (such as
    ``build.authenticate``) and gives back the answer object, decoded as every answer is (strict
    JSON) but otherwise unchecked: the caller checks what the op's answer must hold."""

    @abstractmethod
    def ask(self, op: str, fields: Mapping[str, Any]) -> Any:
        """The answer to ``{"id": N, "op": op, **fields}`` (VendorFault for a transport fault or
        an answer that is not JSON)."""


class Cuttable(ABC):
    """*Since 1.1.* A session that plays live tables: one request at a time, a request left in
    flight, and a cut (the vendor killed with no warning; the next session of the same opener is
    the vendor restarted on the same state). Its ``hello`` names :attr:`state_dir`, the folder the
    harness made for the run (``harness/vendor-protocol.md``, *Live tables*). The subprocess
    adapter offers it (SIGKILL of the process group), the Python adapter (the plugin in a fresh
    interpreter of its own, killed the same way) and the HTTP adapter with the lab's restart hook
    (:attr:`SessionOptions.restart_hook`)."""

    state_dir: str

    @abstractmethod
    def request(self, op: str, fields: dict[str, Any]) -> dict[str, Any]:
        """One live-table request and its answer: an object with the request's id and a ``result``
        or an ``error`` (VendorFault otherwise, or a ``state_limit`` fault past ``--max-state-mb``)."""

    @abstractmethod
    def write(self, op: str, fields: dict[str, Any]) -> None:
        """Send one request and read nothing: the request is in flight."""

    @abstractmethod
    def wait_answer(self) -> None:
        """Wait until the answer to the request in flight begins to arrive (or the vendor ended),
        without reading it; TIMEOUT after the session's timeout."""

    @abstractmethod
    def write_hello(self) -> None:
        """Send ``hello`` (naming ``state_dir``) and read nothing: the hello is in flight."""

    @abstractmethod
    def wait_progress(self) -> None:
        """Wait until the vendor first changes ``state_dir`` or its answer to the request in flight
        begins to arrive (or it ended): observable progress, never a timer."""

    @abstractmethod
    def kill(self) -> None:
        """Cut the vendor: killed with no warning, nothing said to it, the session dead."""


class LiveAdapter(ABC):
    """*Since 1.1.* An adapter whose vendor can play live tables: it opens :class:`Cuttable`
    sessions on a run's ``state_dir``, or says why it cannot for these options (:meth:`live_scope`)."""

    starts_vendor: ClassVar[bool] = True
    """Whether the harness starts the vendor's instances itself (they can then enter the namespaces
    of the ``state_dir``'s own file system, :attr:`SessionOptions.state_holder`); not so for a
    server the lab runs (HTTP)."""

    @abstractmethod
    def live_scope(self, options: SessionOptions) -> str | None:
        """Why this adapter cannot cut its vendor with these options (None: it can)."""

    @abstractmethod
    def open_live(self, target: str, options: SessionOptions, state_dir: str) -> VendorSession:
        """A session of the vendor that is :class:`Cuttable`, its hello naming ``state_dir``
        (VendorFault START if it cannot start)."""

    @abstractmethod
    def state_owner(self, target: str, options: SessionOptions) -> tuple[int, int] | None:
        """The uid and gid the run's ``state_dir`` must belong to for the vendor to write it
        (None: the lab's own user)."""


class Binding(str, Enum):
    """*Since 1.2.* What of its vendor's build an adapter lets the lab bind and check
    (:class:`BuildSource`): a run's build record and its checks follow it, never the adapter's name."""

    COMMAND = "command"     # the files of the vendor's command line, bound into its sandbox
    PLUGIN = "plugin"       # the files of the installed Python distribution its plugin comes from
    ARCHIVE = "archive"     # none of the vendor's own (it runs elsewhere): only the lab's copy (--build-archive)


class BuildSource(ABC):
    """*Since 1.2.* An adapter that says how its vendor's build reaches the lab: what the run binds
    (:attr:`binding`), why no file was bound when none was (:attr:`not_bound`) and the vendor's
    command line as it was started (:meth:`command_line`, for a replay). An adapter that is not
    one binds no files and has no command line."""

    binding: ClassVar[Binding]
    not_bound: ClassVar[str]
    """Why no files of the vendor were bound (the run's record says it), in the lab's words."""

    @abstractmethod
    def command_line(self, target: Any) -> str | None:
        """The command that starts the vendor ``target`` names (as the run's meta keeps it) on
        stdin and stdout (None: it is not started by a command line)."""


class AnswersByTest(ABC):
    """A source of answers addressed by test, not a live vendor: the answers a vendor gave
    offline to each (file, tcId) of the suite (:mod:`tablecert.harness.run.offline`). The run asks it
    for a batch's answers instead of sending the batch."""

    @abstractmethod
    def answers(self, file: str, tc_ids: Sequence[int]) -> list[Any]:
        """The answers to the tests ``tc_ids`` of vector file ``file``, in that order."""


def answer_bytes(session: VendorSession | None) -> int:
    """What a session counted of its answers (0 for one that is not :class:`Metered`)."""
    return session.answer_bytes if isinstance(session, Metered) else 0


def isolation_of(session: VendorSession) -> str | None:
    """How a session's vendor is confined (None for one that is not :class:`Confined`)."""
    return session.isolation if isinstance(session, Confined) else None


def limits_of(session: VendorSession) -> dict[str, Any] | None:
    """The resource limits of a session's vendor (None for one that is not :class:`Confined`)."""
    return session.limits if isinstance(session, Confined) else None


def bound_of(session: VendorSession) -> list[str] | None:
    """The host paths a confined session's vendor sees read-only besides the system folders (None:
    it has no file system of its own)."""
    bound = session.bound if isinstance(session, Confined) else None
    return list(bound) if bound is not None else None


@runtime_checkable
class Adapter(Protocol):
    """A transport: opens sessions to a vendor named by ``target`` (a command line, a plugin
    name or ``module:attr``, a URL)."""

    name: str
    """The adapter's name in the ``tablecert.adapters`` entry-point group (``subprocess``, ``python``, ``http``)."""

    def open(self, target: str, options: SessionOptions) -> VendorSession:
        """A new session to the vendor, not yet greeted; VendorFault(START) if it cannot be
        reached at all (a program that cannot run, a URL nothing answers, a plugin that does not load)."""
        ...


@runtime_checkable
class PythonVendor(Protocol):
    """An in-process vendor: the same JSON-shaped messages as the wire protocol."""

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """The answer object to one request object (``hello``, a batch, ``bye``), as the vendor
        would write it on the wire."""
        ...
